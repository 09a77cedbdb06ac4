package io.jccl.tools.bench;

import io.jccl.DataType;
import io.jccl.launch.OutputSink;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** --compare against a run-peers CSV, and where the ranks' lines go. */
@Timeout(10)
class CompareAndSinkTest
{
    private static final List<String> PEERS = List.of(
        "impl,collective,ranks,bytes,avg_us,min_us,max_us,iters",
        "openmpi,pingpong,2,8,0.135,0.135,0.135,20000",
        "openmpi,barrier,2,8,0.179,0.179,0.179,20000",
        "openmpi,allreduce,2,8,0.250,0.250,0.250,20000",
        "openmpi,allreduce,4,8,4.878,4.876,4.881,20000",
        "mpich,pingpong,2,8,0.183,0.183,0.183,20000",
        "mpich,allreduce,2,8,0.650,0.650,0.650,20000");

    @Test
    void readsRunPeersCsv()
    {
        final PeerResults peers = PeerResults.parse(PEERS, "unused", "peers.csv");
        assertEquals(List.of("openmpi", "mpich"), peers.impls());
        assertEquals(0.25, peers.avgUs("openmpi", "allreduce", 2, 8));
        assertEquals(4.878, peers.avgUs("openmpi", "allreduce", 4, 8));
        assertTrue(Double.isNaN(peers.avgUs("mpich", "barrier", 2, 0)));
        assertEquals(0.179, peers.avgUs("openmpi", "barrier", 2, 0), "the barrier matches at any size");

        final PeerResults reference = PeerResults.parse(List.of("collective,ranks,bytes,avg_us,min_us,max_us,iters",
            "pingpong,2,8,0.135,0.135,0.135,20000"), "openmpi-4.1.4-n2", "openmpi-4.1.4-n2.csv");
        assertEquals(List.of("openmpi-4.1.4-n2"), reference.impls());
        assertEquals(0.135, reference.avgUs("openmpi-4.1.4-n2", "pingpong", 2, 8));
    }

    @Test
    void badPeerFilesSayWhatIsWrong()
    {
        assertEquals("p.csv has no avg_us column: expected a run-peers CSV with the columns " +
            "impl,collective,ranks,bytes,avg_us,min_us,max_us,iters",
            assertThrows(IllegalArgumentException.class, () -> PeerResults.parse(List.of("impl,collective,ranks,bytes"),
                "x", "p.csv")).getMessage());
        assertEquals("p.csv line 2: not a number: For input string: \"eight\"",
            assertThrows(IllegalArgumentException.class, () -> PeerResults.parse(List.of(
                "impl,collective,ranks,bytes,avg_us", "openmpi,allreduce,2,eight,1.0"), "x", "p.csv")).getMessage());
    }

    @Test
    void comparesEachRowWithTheFasterPeer()
    {
        final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        final CompareWriter writer = new CompareWriter(new PrintStream(bytes, true, StandardCharsets.UTF_8),
            PeerResults.parse(PEERS, "unused", "peers.csv"), true);
        writer.row(result(BenchOp.ALLREDUCE, "ring", 8, 0.5));
        writer.row(result(BenchOp.PINGPONG, "p2p", 8, 0.1));
        writer.row(result(BenchOp.GATHER, "linear", 8, 1.0));
        writer.finish();
        assertEquals("""
            collective,algorithm,ranks,bytes,jccl_avg_us,openmpi_avg_us,mpich_avg_us,best_peer,ratio
            allreduce,ring,2,8,0.500,0.250,0.650,openmpi,2.000
            pingpong,p2p,2,8,0.100,0.135,0.183,openmpi,0.741
            gather,linear,2,8,1.000,,,,
            """, bytes.toString(StandardCharsets.UTF_8));

        final CompareWriter table = new CompareWriter(new PrintStream(new ByteArrayOutputStream()),
            PeerResults.parse(PEERS, "unused", "peers.csv"), false);
        table.row(result(BenchOp.ALLREDUCE, "ring", 8, 0.5));
        final String[] lines = table.render().split("\n");
        assertTrue(lines[0].startsWith("# average µs per call; ratio = jccl / the faster peer"), lines[0]);
        assertTrue(lines[1].startsWith("collective      algorithm            ranks      size     jccl_us"), lines[1]);
        assertTrue(lines[2].matches("allreduce +ring +2 +8 B +0\\.500 +0\\.250 +0\\.650 openmpi +2\\.00"), lines[2]);
    }

    @Test
    void rankZeroResultsPassVerbatimEverythingElseIsPrefixed()
    {
        final ByteArrayOutputStream out = new ByteArrayOutputStream();
        final ByteArrayOutputStream err = new ByteArrayOutputStream();
        final BenchSink sink = new BenchSink(new PrintStream(out, true, StandardCharsets.UTF_8),
            new PrintStream(err, true, StandardCharsets.UTF_8));
        sink.rankLine(0, OutputSink.Source.STDOUT, "# OSU MPI Allreduce Latency Test v7.2");
        sink.rankLine(0, OutputSink.Source.STDOUT, "");
        sink.rankLine(1, OutputSink.Source.STDOUT, "stray");
        sink.rankLine(0, OutputSink.Source.STDERR, BenchSweep.NOTE_PREFIX + "allreduce ring 1 MiB ... 12/48");
        sink.rankLine(0, OutputSink.Source.STDERR, "Exception in thread \"main\"");
        sink.rankLine(2, OutputSink.Source.STDERR, BenchSweep.NOTE_PREFIX + "not from rank 0");
        sink.launcherLine("job 1 failed: rank 2 exited with code 1");
        assertEquals("# OSU MPI Allreduce Latency Test v7.2\n\n[1] stray\n", out.toString(StandardCharsets.UTF_8));
        assertEquals("jccl bench: allreduce ring 1 MiB ... 12/48\n[0] Exception in thread \"main\"\n" +
            "[2] jccl bench: not from rank 0\njccl: job 1 failed: rank 2 exited with code 1\n",
            err.toString(StandardCharsets.UTF_8));
    }

    private static BenchResult result(final BenchOp op, final String algorithm, final long bytes, final double us)
    {
        return new BenchResult(op, algorithm, 2, bytes, DataType.FLOAT32, us, us, us, 100, -1);
    }
}
