package io.jccl.tools.bench;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code perf/compare-peers --tables} on runs written here: the tables and the line that counts the sizes within the
 * performance goal (2 ranks: 0.8x the faster peer for five collectives at every size; 4 ranks: 0.5x up to 4 MiB for
 * three), counted on the unrounded ratios.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ComparePeersTablesTest
{
    private static final Path SCRIPT = Path.of("..", "perf", "compare-peers").toAbsolutePath().normalize();

    @TempDir
    Path runs;

    /** One point: jccl's time and the two peers' (mpich NaN: not run). */
    private record Point(String collective, long bytes, double jccl, double openmpi, double mpich)
    {
    }

    @Test
    void twoRanksCountTheFiveCollectivesAtEverySize() throws Exception
    {
        final String out = tables(2, List.of(
            new Point("allreduce", 8, 0.79, 1.0, 1.2),           // 0.79: within 0.8x
            new Point("allreduce", 1024, 0.804, 1.0, 1.2),       // shown as 0.80, but above 0.8x
            new Point("allreduce", 33554432, 5000, 20000, 10000), // 0.5 of the faster peer, MPICH
            new Point("reduce", 8, 2.0, 1.0, 1.0)));             // not a collective of the goal

        assertTrue(out.contains("| 1024 | 0.804 | shm_ll | 1.000 | 1.200 | 0.80 | 0.80 |"), out);
        assertTrue(out.contains("| 33554432 | 5000 | shm_ll | 20000 | 10000 | 0.50 | 0.50 |"), out);
        assertEquals("The goal (allreduce, broadcast, allgather, reduce_scatter and alltoall in at most 0.8x the " +
            "faster peer's time): 2 of 3 sizes by the medians, 2 of 3 run by run (unrounded ratios).", goalLine(out));
    }

    @Test
    void fourRanksCountThreeCollectivesUpTo4MiB() throws Exception
    {
        final String out = tables(4, List.of(
            new Point("allgather", 4194304, 400, 1000, Double.NaN),  // 0.4: within 0.5x
            new Point("allgather", 8388608, 400, 1000, Double.NaN),  // beyond 4 MiB
            new Point("broadcast", 32768, 20, 15, Double.NaN),       // 1.33: a miss
            new Point("alltoall", 8, 1, 10, Double.NaN)));           // not a collective of the 4-rank goal

        assertEquals("The goal (allreduce, allgather and broadcast in at most 0.5x the faster peer's time up to 4 MiB; " +
            "the goal's peer is Open MPI): 1 of 2 sizes by the medians, 1 of 2 run by run (unrounded ratios).",
            goalLine(out));
    }

    @Test
    void eachPaceIsCountedFromItsOwnRuns() throws Exception
    {
        // runs 1 and 2 at the fast pace (handoffs 14 GB/s), 3 and 4 at the slow one (2 GB/s), where jccl takes 3x
        // its time and the peers 2x
        final String out = tables(2, List.of(new Point("allreduce", 8, 0.7, 1.0, Double.NaN)), 14, 14, 2, 2);

        assertEquals("The goal (allreduce, broadcast, allgather, reduce_scatter and alltoall in at most 0.8x the " +
            "faster peer's time): 0 of 1 sizes by the medians, 0 of 1 run by run, 1 of 1 at the fast pace, 0 of 1 at " +
            "the slow pace (unrounded ratios).", goalLine(out));
    }

    @Test
    void otherRankCountsHaveNoGoalLine() throws Exception
    {
        final String out = tables(8, List.of(new Point("allreduce", 8, 1, 10, Double.NaN)));

        assertTrue(out.contains("### allreduce, 8 ranks"), out);
        assertTrue(out.lines().noneMatch(line -> line.startsWith("The goal")), out);
    }

    @Test
    void helpPrintsTheWholeHeader() throws Exception
    {
        final String out = comparePeers("--help");
        assertTrue(out.startsWith("Side-by-side: jccl against Open MPI and MPICH"), out);
        assertTrue(out.strip().endsWith("on the unrounded ratios."), out);
        assertTrue(out.lines().noneMatch(line -> line.startsWith("set ")), out);
    }

    private String tables(final int ranks, final List<Point> points) throws IOException, InterruptedException
    {
        return tables(ranks, points, 14, 14, 14);
    }

    /**
     * Writes a run of {@code points} per handoff rate (GB/s; below 5 the slow pace, where jccl takes 3x the times
     * given and the peers 2x) and prints their tables.
     */
    private String tables(final int ranks, final List<Point> points, final double... handoffs)
        throws IOException, InterruptedException
    {
        for (int r = 1; r <= handoffs.length; r++)
        {
            final boolean slow = handoffs[r - 1] < 5;
            final List<String> peers = new ArrayList<>(List.of("impl,collective,ranks,bytes,avg_us,min_us,max_us,iters"));
            final List<String> jccl = new ArrayList<>(List.of("collective,algorithm,ranks,bytes,dtype,avg_us,min_us," +
                "max_us,iters,algbw_GBps,busbw_GBps,wrong,op,memory,timing,probe_us,handoff_us"));
            final List<String> handoff = new ArrayList<>(List.of("collective,before_GBps,between_GBps,after_GBps"));
            for (final Point p : points)
            {
                peers.add(peerRow("openmpi", p, ranks, p.openmpi() * (slow ? 2 : 1)));
                if (!Double.isNaN(p.mpich()))
                {
                    peers.add(peerRow("mpich", p, ranks, p.mpich() * (slow ? 2 : 1)));
                }
                final double jcclMicros = p.jccl() * (slow ? 3 : 1);
                jccl.add(String.format(Locale.ROOT, "%s,shm_ll,%d,%d,float32,%s,%s,%s,1000,0,0,,sum,private," +
                    "back_to_back,,", p.collective(), ranks, p.bytes(), jcclMicros, jcclMicros, jcclMicros));
                final double rate = handoffs[r - 1];
                final String line = String.format(Locale.ROOT, "%s,%s,%s,%s", p.collective(), rate, rate, rate);
                if (!handoff.contains(line))
                {
                    handoff.add(line);
                }
            }
            Files.write(runs.resolve("run" + r + "-peers.csv"), peers);
            Files.write(runs.resolve("run" + r + "-jccl.csv"), jccl);
            Files.write(runs.resolve("run" + r + "-handoff.csv"), handoff);
        }
        return comparePeers("--tables", "--out", runs.toString());
    }

    /** Runs the script with {@code arguments}; returns what it printed, once it has exited with status 0. */
    private static String comparePeers(final String... arguments) throws IOException, InterruptedException
    {
        final List<String> command = new ArrayList<>(List.of("bash", SCRIPT.toString()));
        command.addAll(List.of(arguments));
        final Process process = new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.DISCARD).start();
        final String out = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertEquals(0, process.waitFor(), out);
        return out;
    }

    private static String peerRow(final String impl, final Point p, final int ranks, final double micros)
    {
        return String.format(Locale.ROOT, "%s,%s,%d,%d,%s,%s,%s,1000", impl, p.collective(), ranks, p.bytes(), micros,
            micros, micros);
    }

    private static String goalLine(final String out)
    {
        return out.lines().filter(line -> line.startsWith("The goal")).findFirst().orElse("(no goal line)\n" + out);
    }
}
