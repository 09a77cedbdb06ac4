package io.jccl.tools.fit;

import io.jccl.DataType;
import io.jccl.tools.bench.BenchOp;
import io.jccl.tools.bench.BenchResult;
import io.jccl.tools.bench.CsvWriter;
import io.jccl.tools.bench.JsonWriter;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

@Timeout(10)
class ResultsReaderTest
{
    @Test
    void benchCsvByColumnNameDropsWrongRows()
    {
        final ResultsReader.Results results = ResultsReader.readCsv(
            "collective,algorithm,ranks,bytes,dtype,avg_us,min_us,max_us,iters,algbw_GBps,busbw_GBps,wrong,op\n" +
            "pingpong,-,2,8,int8,0.2,0.1,0.3,100,0,0,0,\n" +
            "allreduce,ring,4,1024,float64,3.5,3,4,100,0,0,0,max\n" +
            "allreduce,ring,4,2048,float64,4.5,4,5,100,0,0,2,max\n", "bench");
        assertEquals(1, results.wrongRows());
        final List<Measurement> m = results.measurements();
        assertEquals(2, m.size());
        assertEquals(new Measurement("bench", "pingpong", "p2p", true, 2, 8, "int8", "sum", 0, 0.2), m.get(0));
        assertEquals(new Measurement("bench", "allreduce", "ring", true, 4, 1024, "float64", "max", 0, 3.5), m.get(1));
    }

    /**
     * What ./jccl bench --format csv prints: the operator of reducing collectives, and whether the buffers lay in the
     * shared segment (--shared), where the shared-memory algorithms take their zero-copy paths.
     */
    @Test
    void benchCsvSaysTheOperatorAndWhereTheBuffersLived()
    {
        final ResultsReader.Results results = ResultsReader.readCsv(
            "collective,algorithm,ranks,bytes,dtype,avg_us,min_us,max_us,iters,algbw_GBps,busbw_GBps,wrong,op,memory\n" +
            "pingpong,p2p,2,8,float32,0.2,0.2,0.2,20000,0.040,0.040,,,private\n" +
            "allreduce,ring,2,1024,float32,3.5,3,4,1000,0.3,0.3,,max,private\n" +
            "allreduce,shm_twoshot,2,1024,float32,1.5,1,2,1000,0.7,0.7,,max,shared\n" +
            "broadcast,shm_direct,2,1024,float32,0.5,0.5,0.5,1000,2,2,,,shared\n", "bench");
        assertEquals(List.of(
            new Measurement("bench", "pingpong", "p2p", true, 2, 8, "float32", "sum", 0, 0.2, false),
            new Measurement("bench", "allreduce", "ring", true, 2, 1024, "float32", "max", 0, 3.5, false),
            new Measurement("bench", "allreduce", "shm_twoshot", true, 2, 1024, "float32", "max", 0, 1.5, true),
            new Measurement("bench", "broadcast", "shm_direct", true, 2, 1024, "float32", "sum", 0, 0.5, true)),
            results.measurements());
        assertTrue(results.skipped().isEmpty(), results.skipped().toString());
        assertTrue(results.measurements().get(2).series().label().endsWith(", shared buffers"),
            results.measurements().get(2).series().label());
    }

    /** What ./jccl bench --format json prints reads as the same CSV would. */
    @Test
    void benchJsonReadsAsItsCsv(@TempDir final Path directory) throws IOException
    {
        final BenchResult allreduce = new BenchResult(BenchOp.ALLREDUCE, "shm_twoshot", 2, 1024, DataType.FLOAT32, 1.5,
            1, 2, 1000, -1);
        final BenchResult pingpong = new BenchResult(BenchOp.PINGPONG, "p2p", 2, 8, DataType.FLOAT32, 0.2, 0.2, 0.2,
            20000, 0);
        final BenchResult wrong = new BenchResult(BenchOp.ALLREDUCE, "ring", 2, 2048, DataType.FLOAT32, 3, 3, 3, 1000,
            4);
        final Path json = Files.writeString(directory.resolve("bench.json"), "[\n" +
            JsonWriter.object(pingpong, "max", "shared", "sync") + ",\n" +
            JsonWriter.object(allreduce, "max", "shared", "sync") + ",\n" +
            JsonWriter.object(wrong, "max", "shared", "sync") + "\n]\n");
        final Path csv = Files.writeString(directory.resolve("bench.csv"), CsvWriter.HEADER + "\n" +
            CsvWriter.line(pingpong, "max", "shared", "sync") + "\n" +
            CsvWriter.line(allreduce, "max", "shared", "sync") + "\n" +
            CsvWriter.line(wrong, "max", "shared", "sync") + "\n");

        final ResultsReader.Results fromJson = ResultsReader.read(json, "bench");
        assertEquals(ResultsReader.read(csv, "bench").measurements(), fromJson.measurements());
        assertEquals(List.of(
            new Measurement("bench", "pingpong", "p2p", true, 2, 8, "float32", "sum", 0, 0.2, true, true),
            new Measurement("bench", "allreduce", "shm_twoshot", true, 2, 1024, "float32", "max", 0, 1.5, true, true)),
            fromJson.measurements());
        assertTrue(fromJson.measurements().get(1).series().label().endsWith(", shared buffers, one call at a time"),
            fromJson.measurements().get(1).series().label());
        assertEquals(1, fromJson.wrongRows());
    }

    /** JMH's memory=shared alike. */
    @Test
    void jmhSaysWhereTheBuffersLived()
    {
        final String entry = "{\"benchmark\":\"io.jccl.jmh.AllreduceBenchmark.allreduce\",\"params\":{\"bytes\":\"8\"," +
            "\"algorithm\":\"ring\",\"ranks\":\"2\",\"memory\":\"%s\"},\"primaryMetric\":{\"score\":0.5," +
            "\"scoreUnit\":\"us/op\"}}";
        final ResultsReader.Results results = ResultsReader.readJmh(
            "[" + String.format(entry, "heap") + "," + String.format(entry, "shared") + "]");
        assertEquals(List.of(false, true), results.measurements().stream().map(Measurement::shared).toList());
    }

    /** Runs of one sweep in files of any names are one source, so each point is the median of its runs. */
    @Test
    void runsOfASweepMeetAtTheirMedian(@TempDir final Path directory) throws IOException
    {
        final String header = "collective,algorithm,ranks,bytes,dtype,avg_us,min_us,max_us,iters,algbw_GBps," +
            "busbw_GBps,wrong\n";
        final List<Path> runs = new ArrayList<>();
        final double[] micros = {5.0, 20.0, 9.0};
        for (int run = 0; run < micros.length; run++)
        {
            runs.add(Files.writeString(directory.resolve("run" + (run + 4) + ".csv"),
                header + "allreduce,ring,2,1024,float32," + micros[run] + ",1,1,1000,0,0,\n"));
        }
        final ByteArrayOutputStream err = new ByteArrayOutputStream();
        final List<Measurement> read = ResultsReader.readRuns(runs, new PrintStream(err, true, StandardCharsets.UTF_8));
        assertEquals(3, read.size());
        final List<Measurement> medians = Measurement.medianPerPoint(read);
        assertEquals(List.of(new Measurement("run4", "allreduce", "ring", true, 2, 1024, "float32", "sum", 0, 9.0)),
            medians);
        assertEquals("", err.toString(StandardCharsets.UTF_8));
    }

    /**
     * With a probe limit, only the rows whose probe_us is at most it: in the CSV, in bench JSON, and across runs,
     * which say how many rows they left out; files that cannot say are refused.
     */
    @Test
    void aProbeLimitKeepsTheRowsMeasuredWhileTheCoresWereFast(@TempDir final Path directory) throws IOException
    {
        final BenchResult fast = new BenchResult(BenchOp.ALLREDUCE, "ring", 2, 1024, DataType.FLOAT32, 1.5, 1, 2,
            1000, -1, 0.11, 50);
        final BenchResult slow = new BenchResult(BenchOp.ALLREDUCE, "ring", 2, 2048, DataType.FLOAT32, 6, 6, 6, 1000,
            -1, 0.31, 155);
        final BenchResult unprobed = new BenchResult(BenchOp.ALLREDUCE, "ring", 2, 4096, DataType.FLOAT32, 3, 3, 3,
            1000, -1);
        final String csv = CsvWriter.HEADER + "\n" + CsvWriter.line(fast, "sum", "private", "back_to_back") + "\n" +
            CsvWriter.line(slow, "sum", "private", "back_to_back") + "\n" +
            CsvWriter.line(unprobed, "sum", "private", "back_to_back") + "\n";

        final List<Measurement> all = ResultsReader.readCsv(csv, "bench").measurements();
        assertEquals(3, all.size());
        assertEquals(0.11, all.get(0).probeMicros());
        assertEquals(155, all.get(1).handoffMicros());
        assertTrue(Double.isNaN(all.get(2).handoffMicros()), "no handoff probe");
        final ResultsReader.Results kept = ResultsReader.readCsv(csv, "bench", 0.2);
        assertEquals(List.of(1024L), kept.measurements().stream().map(Measurement::bytes).toList());
        assertEquals(2, kept.probeRows());
        assertEquals(2, ResultsReader.readCsv(csv, "bench", 0.5).measurements().size());

        final Path json = Files.writeString(directory.resolve("bench.json"), "[\n" +
            JsonWriter.object(fast, "sum", "private", "back_to_back") + ",\n" +
            JsonWriter.object(slow, "sum", "private", "back_to_back") + "\n]\n");
        final List<Measurement> fromJson = ResultsReader.read(json, "bench", 0.2).measurements();
        assertEquals(1, fromJson.size());
        assertEquals(50, fromJson.get(0).handoffMicros());

        final ByteArrayOutputStream err = new ByteArrayOutputStream();
        final List<Measurement> runs = ResultsReader.readRuns(List.of(Files.writeString(directory.resolve("a.csv"),
            csv)), new PrintStream(err, true, StandardCharsets.UTF_8), 0.2);
        assertEquals(1, runs.size());
        assertTrue(err.toString(StandardCharsets.UTF_8).contains("left out 2 of 3 rows measured with the probe above"),
            err.toString(StandardCharsets.UTF_8));

        final String peers =
            "impl,collective,ranks,bytes,avg_us,min_us,max_us,iters\nopenmpi,allreduce,2,8,0.2,0.2,0.2,1\n";
        assertThrows(IllegalArgumentException.class, () -> ResultsReader.readCsv(peers, "peers", 0.2));
    }

    @Test
    void benchCsvWithoutCheckHasAnEmptyWrongColumn()
    {
        // what ./jccl bench --format csv printed without --check before the op and memory columns
        final ResultsReader.Results results = ResultsReader.readCsv(
            "collective,algorithm,ranks,bytes,dtype,avg_us,min_us,max_us,iters,algbw_GBps,busbw_GBps,wrong\n" +
            "pingpong,p2p,2,8,float32,0.594,0.594,0.594,20000,0.013,0.013,\n" +
            "allreduce,ring,2,1024,float32,3.5,3,4,1000,0.3,0.3,\n", "bench");
        assertEquals(0, results.wrongRows());
        assertTrue(results.skipped().isEmpty(), results.skipped().toString());
        assertEquals(2, results.measurements().size());
    }

    @Test
    void peersCsvIsModelledWithTheClassicAlgorithms()
    {
        final ResultsReader.Results results = ResultsReader.readCsv(
            "impl,collective,ranks,bytes,avg_us,min_us,max_us,iters\n" +
            "openmpi,reduce_scatter,2,64,1.0,1,1,10\nmpich,broadcast,2,64,0.5,1,1,10\n", "file");
        final Measurement first = results.measurements().get(0);
        assertEquals("openmpi", first.source());
        assertEquals("ring", first.algorithm());
        assertFalse(first.algorithmNamed());
        assertEquals("float32", first.dtype());
        assertEquals("binomial", results.measurements().get(1).algorithm());
        assertEquals("mpich", results.measurements().get(1).source());
    }

    @Test
    void badLinesAreSkippedWithTheirNumber()
    {
        final ResultsReader.Results results = ResultsReader.readCsv(
            "collective,ranks,bytes,avg_us\nallreduce,2,64,x\nallreduce,2\n# comment\nallreduce,2,64,1.5\n", "f");
        assertEquals(1, results.measurements().size());
        assertEquals(2, results.skipped().size());
        assertTrue(results.skipped().get(0).startsWith("line 2: "), results.skipped().get(0));
        assertThrows(IllegalArgumentException.class, () -> ResultsReader.readCsv("a,b,c\n1,2,3\n", "f"));
    }

    @Test
    void jmhOpParamIsTheCollectiveOrTheOperator()
    {
        final String json = """
            [
              {"benchmark": "io.jccl.jmh.Collectives.run", "params": {"op": "reduce_scatter", "bytes": "64",
               "ranks": "2", "algorithm": "ring"}, "primaryMetric": {"score": 1.0, "scoreUnit": "us/op"}},
              {"benchmark": "io.jccl.jmh.Allreduce.allreduce", "params": {"op": "max", "bytes": "64",
               "ranks": "2", "algorithm": "ring"}, "primaryMetric": {"score": 0.5, "scoreUnit": "ms/op"}}
            ]
            """;
        final List<Measurement> m = ResultsReader.readJmh(json).measurements();
        assertEquals("reduce_scatter", m.get(0).collective());
        assertEquals("sum", m.get(0).op());
        assertEquals("allreduce", m.get(1).collective());
        assertEquals("max", m.get(1).op());
        assertEquals(500.0, m.get(1).micros(), 1e-9);
    }

    @Test
    void jmhJsonScoresBecomeMicroseconds()
    {
        final String json = """
            [
              {"benchmark": "io.jccl.jmh.CollectiveBenchmark.allreduce", "mode": "avgt",
               "params": {"bytes": "4096", "ranks": "4", "algorithm": "shm_twoshot", "dtype": "float32"},
               "primaryMetric": {"score": 2.5, "scoreError": 0.1, "scoreUnit": "us/op"}},
              {"benchmark": "io.jccl.jmh.P2pBenchmark.pingPong", "mode": "avgt",
               "params": {"bytes": "8", "ranks": "2"},
               "primaryMetric": {"score": 180.0, "scoreUnit": "ns/op"}},
              {"benchmark": "io.jccl.jmh.CollectiveBenchmark.broadcast", "params": {"ranks": "2"},
               "primaryMetric": {"score": 1.0, "scoreUnit": "us/op"}}
            ]
            """;
        final ResultsReader.Results results = ResultsReader.readJmh(json);
        assertEquals(2, results.measurements().size());
        assertEquals(new Measurement("jmh", "allreduce", "shm_twoshot", true, 4, 4096, "float32", "sum", 0, 2.5),
            results.measurements().get(0));
        final Measurement pingpong = results.measurements().get(1);
        assertEquals("pingpong", pingpong.collective());
        assertEquals(0.18, pingpong.micros(), 1e-12);
        assertEquals(1, results.skipped().size());
        assertTrue(results.skipped().get(0).contains("no bytes param"), results.skipped().get(0));
    }
}
