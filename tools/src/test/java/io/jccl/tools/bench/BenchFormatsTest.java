package io.jccl.tools.bench;

import io.jccl.DataType;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The output formats byte for byte. The expected OSU and nccl-tests strings are what their C format strings print
 * (checked with printf), the first nccl-tests header line as it appears in published all_reduce_perf output.
 */
@Timeout(10)
class BenchFormatsTest
{
    private final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    private final PrintStream out = new PrintStream(bytes, true, StandardCharsets.UTF_8);

    @Test
    void csvHeaderIsTheContract()
    {
        final CsvWriter writer = new CsvWriter(out);
        writer.start(info("-n", "2", "--op", "allreduce"));
        writer.row(result(BenchOp.ALLREDUCE, "ring", 2, 1024, 2.5, 2.0, 3.0, 1000, 0));
        writer.row(new BenchResult(BenchOp.PINGPONG, "p2p", 2, 8, DataType.FLOAT32, 0.25, 0.25, 0.25, 20000, -1,
            0.1034, 35.12345));
        assertEquals("""
            collective,algorithm,ranks,bytes,dtype,avg_us,min_us,max_us,iters,algbw_GBps,busbw_GBps,wrong,op,memory,\
            timing,probe_us,handoff_us
            allreduce,ring,2,1024,float32,2.500,2.000,3.000,1000,0.410,0.410,0,sum,private,back_to_back,,
            pingpong,p2p,2,8,float32,0.250,0.250,0.250,20000,0.032,0.032,,,private,back_to_back,0.103,35.123
            """, text());
    }

    /**
     * The columns after the contract's: the reduction operator of reducing collectives, where the buffers lived, how
     * the calls were timed.
     */
    @Test
    void csvSaysTheOperatorWhereTheBuffersLivedAndHowTheCallsWereTimed()
    {
        final CsvWriter writer = new CsvWriter(out);
        writer.start(info("-n", "2", "--op", "allreduce,broadcast", "--reduce-op", "max", "--shared", "--sync"));
        writer.row(result(BenchOp.ALLREDUCE, "shm_twoshot", 2, 1024, 2.5, 2.0, 3.0, 1000, -1));
        writer.row(result(BenchOp.BROADCAST, "shm_direct", 2, 1024, 2.5, 2.0, 3.0, 1000, -1));
        assertEquals("""
            collective,algorithm,ranks,bytes,dtype,avg_us,min_us,max_us,iters,algbw_GBps,busbw_GBps,wrong,op,memory,\
            timing,probe_us,handoff_us
            allreduce,shm_twoshot,2,1024,float32,2.500,2.000,3.000,1000,0.410,0.410,,max,shared,sync,,
            broadcast,shm_direct,2,1024,float32,2.500,2.000,3.000,1000,0.410,0.410,,,shared,sync,,
            """, text());
    }

    @Test
    void jsonIsAnArrayOfTheCsvFields()
    {
        final JsonWriter writer = new JsonWriter(out);
        writer.start(info("-n", "4", "--op", "allgather"));
        writer.row(result(BenchOp.ALLGATHER, "ring", 4, 4096, 4.0, 3.0, 5.0, 1000, 0));
        writer.row(result(BenchOp.ALLGATHER, "bruck", 4, 4096, 8.0, 7.0, 9.0, 1000, -1));
        writer.finish();
        assertEquals("""
            [
            {"collective":"allgather","algorithm":"ring","ranks":4,"bytes":4096,"dtype":"float32","avg_us":4.000,\
            "min_us":3.000,"max_us":5.000,"iters":1000,"algbw_GBps":1.024,"busbw_GBps":0.768,"wrong":0,"op":null,\
            "memory":"private","timing":"back_to_back","probe_us":null,"handoff_us":null},
            {"collective":"allgather","algorithm":"bruck","ranks":4,"bytes":4096,"dtype":"float32","avg_us":8.000,\
            "min_us":7.000,"max_us":9.000,"iters":1000,"algbw_GBps":0.512,"busbw_GBps":0.384,"wrong":null,"op":null,\
            "memory":"private","timing":"back_to_back","probe_us":null,"handoff_us":null}
            ]
            """, text());
    }

    @Test
    void emptyJsonIsAnEmptyArray()
    {
        final JsonWriter writer = new JsonWriter(out);
        writer.start(info("-n", "2", "--op", "allreduce"));
        writer.finish();
        assertEquals("[\n]\n", text());
    }

    @Test
    void osuCollectiveBlockIsOsuAllreduceFullListing()
    {
        assertEquals("# OSU MPI Allreduce Latency Test v7.2", OsuWriter.benchmarkHeader(BenchOp.ALLREDUCE));
        assertEquals("# Size         Avg Latency(us)     Min Latency(us)     Max Latency(us)  Iterations",
            OsuWriter.collectiveColumns(false));
        assertEquals("# Size         Avg Latency(us)     Min Latency(us)     Max Latency(us)  Iterations" +
            "          Validation", OsuWriter.collectiveColumns(true));

        final OsuWriter writer = new OsuWriter(out);
        writer.start(info("-n", "2", "--op", "allreduce", "--algo", "ring"));
        writer.startBlock(new BenchPlan.Block(BenchOp.ALLREDUCE, "ring"));
        writer.row(result(BenchOp.ALLREDUCE, "ring", 2, 1024, 1.5, 1.25, 2.0, 1000, -1));
        assertEquals("# jccl: allreduce, algorithm ring, 2 ranks, float32, sum\n" +
            "\n" +
            "# OSU MPI Allreduce Latency Test v7.2\n" +
            "# Datatype: MPI_FLOAT.\n" +
            "# Size         Avg Latency(us)     Min Latency(us)     Max Latency(us)  Iterations\n" +
            "1024                      1.50                1.25                2.00        1000\n", text());
    }

    @Test
    void osuValidationColumnAndPerRankSizes()
    {
        final OsuWriter writer = new OsuWriter(out);
        writer.start(info("-n", "4", "--op", "alltoall", "--check"));
        writer.startBlock(new BenchPlan.Block(BenchOp.ALLTOALL, null));
        writer.row(result(BenchOp.ALLTOALL, "pairwise", 4, 4096, 10.0, 9.0, 11.0, 100, 0));
        writer.row(result(BenchOp.ALLTOALL, "pairwise", 4, 16384, 20.0, 19.0, 21.0, 100, 3));
        assertEquals("# jccl: alltoall, algorithm chosen by jccl per call, 4 ranks, float32\n" +
            "\n" +
            "# OSU MPI All-to-All Personalized Exchange Latency Test v7.2\n" +
            "# Datatype: MPI_FLOAT.\n" +
            "# Size         Avg Latency(us)     Min Latency(us)     Max Latency(us)  Iterations          Validation\n" +
            "1024                     10.00                9.00               11.00         100                Pass\n" +
            "4096                     20.00               19.00               21.00         100                Fail\n",
            text());
    }

    @Test
    void osuPingPongIsOsuLatency()
    {
        assertEquals("# OSU MPI Latency Test v7.2", OsuWriter.benchmarkHeader(BenchOp.PINGPONG));
        assertEquals("# Size            Latency (us)", OsuWriter.latencyColumns(false));

        final OsuWriter writer = new OsuWriter(out);
        writer.start(info("-n", "2", "--op", "pingpong"));
        writer.startBlock(new BenchPlan.Block(BenchOp.PINGPONG, null));
        writer.row(result(BenchOp.PINGPONG, "p2p", 2, 8, 0.135, 0.135, 0.135, 20000, -1));
        assertEquals("# jccl: pingpong, algorithm chosen by jccl per call, 2 ranks, float32, ranks 0 and 1, " +
            "one-way latency\n" +
            "# OSU MPI Latency Test v7.2\n" +
            "# Size            Latency (us)\n" +
            "# Datatype: MPI_FLOAT.\n" +
            "8                         0.14\n", text());
    }

    @Test
    void osuBarrierHasNoSizeColumn()
    {
        final OsuWriter writer = new OsuWriter(out);
        writer.start(info("-n", "2", "--op", "barrier"));
        writer.startBlock(new BenchPlan.Block(BenchOp.BARRIER, "dissemination"));
        writer.row(result(BenchOp.BARRIER, "dissemination", 2, 0, 3.5, 3.25, 3.75, 20000, -1));
        assertEquals("# jccl: barrier, algorithm dissemination, 2 ranks, float32\n" +
            "\n" +
            "# OSU MPI Barrier Latency Test v7.2\n" +
            "             3.50                3.25                3.75       20000\n", text());
    }

    @Test
    void ncclHeaderAndFooterAreNcclTests()
    {
        assertEquals(
            "#                                                              out-of-place                       " +
            "in-place          \n" +
            "#       size         count      type   redop    root     time   algbw   busbw #wrong     time   algbw" +
            "   busbw #wrong\n" +
            "#        (B)    (elements)                               (us)  (GB/s)  (GB/s)            (us)  (GB/s)" +
            "  (GB/s)       ", NcclWriter.columnHeader());
        assertEquals("# Out of bounds values : 0 OK\n# Avg bus bandwidth    : 0.0588384 \n#",
            NcclWriter.footer(0, 0.0588384123));
        assertEquals("# Out of bounds values : 2 FAILED\n# Avg bus bandwidth    : 12.5 \n#",
            NcclWriter.footer(2, 12.5));
    }

    @Test
    void ncclBlock()
    {
        final NcclWriter writer = new NcclWriter(out);
        writer.start(new RunInfo(options("-n", "2", "--op", "allreduce", "--check", "--iters", "20", "--warmup",
            "5", "--max-bytes", "1m"), null, new long[] {101, 202}, "host1"));
        writer.startBlock(new BenchPlan.Block(BenchOp.ALLREDUCE, "ring"));
        writer.row(result(BenchOp.ALLREDUCE, "ring", 2, 8, 38.43, 38.0, 39.0, 20, 0));
        writer.row(result(BenchOp.ALLREDUCE, "ring", 2, 1 << 20, 250.0, 249.0, 251.0, 20, 0));
        writer.endBlock();
        assertEquals("# nThread 1 nGpus 1 minBytes 8 maxBytes 1048576 step: 4(factor) warmup iters: 5 iters: 20 " +
            "agg iters: 1 validation: 1 graph: 0\n" +
            "#\n" +
            "# Using devices\n" +
            "#  Rank  0 Group  0 Pid    101 on      host1 device  0 [0x00] jccl rank (JVM)\n" +
            "#  Rank  1 Group  0 Pid    202 on      host1 device  1 [0x00] jccl rank (JVM)\n" +
            "#\n" +
            "# jccl: allreduce, algorithm ring, 2 ranks, float32, sum, in-place columns left out\n" +
            NcclWriter.columnHeader() + "\n" +
            "           8             2     float     sum      -1    38.43    0.00    0.00      0\n" +
            "     1048576        262144     float     sum      -1    250.0    4.19    4.19      0\n" +
            "# Out of bounds values : 0 OK\n" +
            "# Avg bus bandwidth    : 2.09726 \n" +
            "#\n", text());
    }

    @Test
    void ncclLinesOfRootedAndBlockedCollectives()
    {
        assertEquals("        4096           256     int32    none       1    12.00    0.34    0.26    N/A",
            NcclWriter.line(new BenchResult(BenchOp.GATHER, "linear", 4, 4096, DataType.INT32, 12, 11, 13, 10, -1),
                "sum", 1));
        assertEquals("       65536         32768      half     max       2    12345    0.01    0.01  1e+06",
            NcclWriter.line(new BenchResult(BenchOp.REDUCE, "binomial", 4, 65536, DataType.FLOAT16, 12345.4, 1, 2,
                10, 1_000_000), "max", 2));
    }

    @Test
    void tableHasOneHeaderAndAlignedRows()
    {
        final TableWriter writer = new TableWriter(out);
        writer.start(info("-n", "2", "--op", "allreduce"));
        writer.startBlock(new BenchPlan.Block(BenchOp.ALLREDUCE, null));
        writer.row(result(BenchOp.ALLREDUCE, "ring", 2, 1 << 20, 250.0, 249.0, 251.0, 1000, -1));
        writer.startBlock(new BenchPlan.Block(BenchOp.BROADCAST, null));
        writer.row(result(BenchOp.BROADCAST, "binomial", 2, 8, 0.5, 0.4, 0.6, 20000, 0));
        final String[] lines = text().split("\n", -1);
        assertEquals(TableWriter.header(), lines[0]);
        assertTrue(lines[1].startsWith("allreduce       ring                     2     1 MiB float32 "), lines[1]);
        assertEquals("", lines[2]);
        assertTrue(lines[3].startsWith("broadcast       binomial                 2       8 B float32 "), lines[3]);
        assertEquals(lines[0].length(), lines[1].length());
        assertEquals(lines[0].length(), lines[3].length());
    }

    @Test
    void cFormatG()
    {
        assertEquals("0.0588384", CFormat.g(0.0588384123));
        assertEquals("1e+06", CFormat.g(1e6));
        assertEquals("1.23457e+08", CFormat.g(123456789));
        assertEquals("0.0001", CFormat.g(0.0001));
        assertEquals("1e-05", CFormat.g(0.00001));
        assertEquals("12.5", CFormat.g(12.5));
        assertEquals("0", CFormat.g(0));
        assertEquals("100000", CFormat.g(100000));
        assertEquals("1e+06", CFormat.g(999999.5));
        assertEquals("0.000123457", CFormat.g(0.000123456789));
        assertEquals("    0", CFormat.g(0, 5));
        assertEquals("  0.12", CFormat.f(0.125, 6, 2));
        assertEquals("   12346", CFormat.f(12345.6, 8, 0));
    }

    @Test
    void busBandwidthFactorsAreNcclTests()
    {
        assertEquals(1.5, BenchOp.ALLREDUCE.busBandwidthFactor(4));
        assertEquals(0.75, BenchOp.ALLGATHER.busBandwidthFactor(4));
        assertEquals(0.75, BenchOp.REDUCE_SCATTER.busBandwidthFactor(4));
        assertEquals(0.75, BenchOp.ALLTOALL.busBandwidthFactor(4));
        assertEquals(1.0, BenchOp.BROADCAST.busBandwidthFactor(4));
        assertEquals(1.0, BenchOp.REDUCE.busBandwidthFactor(4));
        assertEquals(1.0, BenchOp.PINGPONG.busBandwidthFactor(2));
    }

    private String text()
    {
        out.flush();
        return bytes.toString(StandardCharsets.UTF_8);
    }

    private static BenchOptions options(final String... args)
    {
        return BenchOptions.parse(args);
    }

    private static RunInfo info(final String... args)
    {
        return new RunInfo(options(args), null, new long[] {1, 2}, "localhost");
    }

    private static BenchResult result(final BenchOp op, final String algorithm, final int ranks, final long bytes,
        final double avg, final double min, final double max, final int iters, final long wrong)
    {
        return new BenchResult(op, algorithm, ranks, bytes, DataType.FLOAT32, avg, min, max, iters, wrong);
    }
}
