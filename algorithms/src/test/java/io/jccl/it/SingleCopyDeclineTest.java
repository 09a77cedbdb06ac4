package io.jccl.it;

import io.jccl.launch.JobResult;
import io.jccl.spi.StreamingCopy;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * At the slow pace, a rank whose buffers single copy would copy for its peers (a heap array, or an allreduce in place)
 * declines calls whose copy lies in the window where the staged algorithms beat it, and every rank then runs the call
 * staged; buffers that need no copy, and copies outside the window, keep single copy. The window starts at 512 KiB (a
 * reduce's at 128 KiB where ranks share cores) and ends where the JVM's copies stream past the caches (2.5 MB at 2
 * ranks, 4 MiB where ranks share cores), and nowhere where they do not ({@code -XX:MaxVectorSize=32}, or a CPU without
 * AVX-512). Large reduces that take binomial where copies stream (rank 0's probe tells every rank whether they do) keep
 * single copy where they do not, and there a heap array's copy declines them. In 4 JVMs on 2 cores and in 2, with every
 * probe reading the slow pace; every result checked, and every rank must have run the same algorithm.
 */
@Timeout(240)
class SingleCopyDeclineTest
{
    private static final String KIB_128 = Integer.toString(128 << 10);
    private static final String KIB_256 = Integer.toString(256 << 10);
    private static final String MIB = Integer.toString(1 << 20);
    private static final String TWO_MIB = Integer.toString(2 << 20);
    private static final String THREE_MIB = Integer.toString(3 << 20);
    private static final String FOUR_MIB = Integer.toString(4 << 20);
    private static final String EIGHT_MIB = Integer.toString(8 << 20);

    @Test
    void fourRanksOnTwoCoresDeclineCopiesInTheWindow() throws IOException
    {
        assumeTrue(Runtime.version().feature() >= 22, "single copy needs Java 22");
        assumeTrue(Runtime.getRuntime().availableProcessors() == 2, "4 ranks, two to a core");
        final boolean streams = StreamingCopy.available();
        assertRan(4, List.of(),
            "allreduce " + TWO_MIB + " direct", "shm_single_copy_twoshot",
            "allreduce " + TWO_MIB + " heap", "shm_twoshot",
            // one rank's heap array declines for all
            "allreduce " + TWO_MIB + " rank0heap", "shm_twoshot",
            // in place, the send buffer is copied too
            "allreduce " + TWO_MIB + " inplace", "shm_twoshot",
            // where ranks share cores the window reaches 4 MiB; beyond it the copy goes ahead, where it streams
            "allreduce " + THREE_MIB + " heap", "shm_twoshot",
            "allreduce " + EIGHT_MIB + " heap", streams ? "shm_single_copy_twoshot" : "shm_twoshot",
            "broadcast " + TWO_MIB + " direct", "shm_single_copy",
            "broadcast " + TWO_MIB + " heap", "shm_eager",
            // only the root's buffer would be copied: the receivers' heap arrays do not decline
            "broadcast " + TWO_MIB + " othersheap", "shm_single_copy",
            "allgather " + FOUR_MIB + " direct", "shm_single_copy",
            // blocks of 1 MiB
            "allgather " + FOUR_MIB + " heap", "shm_direct",
            "reduce_scatter " + TWO_MIB + " heap", "shm_direct",
            "reduce_scatter " + TWO_MIB + " direct", "shm_single_copy",
            "alltoall " + MIB + " heap", "shm_direct",
            "alltoall " + MIB + " direct", "shm_single_copy",
            // the v forms as their block forms, uneven blocks (1.5 and 0.5 MiB): a copy in the window declines
            "allgatherv " + FOUR_MIB + " heap", "shm_direct",
            "allgatherv " + FOUR_MIB + " direct", "shm_single_copy",
            "reduce_scatterv " + TWO_MIB + " heap", "shm_direct",
            "reduce_scatterv " + TWO_MIB + " direct", "shm_single_copy",
            // a reduce's window starts at the rule's first size, 128 KiB, where the rule replaces binomial
            "reduce " + KIB_128 + " direct", "shm_single_copy",
            "reduce " + KIB_128 + " heap", "binomial",
            "reduce " + KIB_256 + " heap", "shm_direct",
            "reduce " + TWO_MIB + " direct", "shm_single_copy",
            "reduce " + TWO_MIB + " heap", "shm_direct",
            "reduce " + THREE_MIB + " heap", "shm_direct",
            "reduce " + THREE_MIB + " direct", "shm_single_copy",
            // from 4 MiB binomial, whose heap arrays' messages go out of the transport's off-heap copy where copies
            // stream (rank 0's probe says so to every rank); where none does, every heap array's copy declines
            "reduce " + FOUR_MIB + " direct", streams ? "binomial" : "shm_single_copy",
            "reduce " + FOUR_MIB + " heap", streams ? "binomial" : "shm_direct",
            "reduce " + EIGHT_MIB + " heap", streams ? "binomial" : "shm_direct");
    }

    @Test
    void twoRanksDeclineTheSameCopies() throws IOException
    {
        assumeTrue(Runtime.version().feature() >= 22, "single copy needs Java 22");
        assumeTrue(Runtime.getRuntime().availableProcessors() >= 2, "2 ranks, a core each");
        final boolean streams = StreamingCopy.available();
        assertRan(2, List.of(),
            "allreduce " + TWO_MIB + " direct", "shm_single_copy",
            "allreduce " + TWO_MIB + " heap", "shm_twoshot",
            "allreduce " + TWO_MIB + " othersheap", "shm_twoshot",
            // from 2.5 MB the copy streams past the caches, where the JVM's copies do, and goes ahead
            "allreduce " + THREE_MIB + " heap", streams ? "shm_single_copy" : "shm_twoshot",
            "allreduce " + EIGHT_MIB + " heap", streams ? "shm_single_copy" : "shm_twoshot",
            // blocks of 2 MiB
            "allgather " + FOUR_MIB + " heap", "shm_direct",
            "reduce_scatter " + TWO_MIB + " heap", "shm_direct",
            "alltoall " + TWO_MIB + " heap", "shm_direct",
            "alltoall " + TWO_MIB + " direct", "shm_single_copy",
            // the v forms as their block forms, uneven blocks (3 and 1 MiB): the smaller block's copy declines
            "allgatherv " + FOUR_MIB + " heap", "shm_direct",
            "allgatherv " + FOUR_MIB + " direct", "shm_single_copy",
            "reduce_scatterv " + TWO_MIB + " heap", "shm_direct",
            "reduce_scatterv " + TWO_MIB + " direct", "shm_single_copy",
            // a 2-rank reduce's heap copy goes ahead (from 4 MiB the rule holds again, below 8 MiB with binomial
            // where copies stream)
            "reduce " + FOUR_MIB + " heap", streams ? "binomial" : "shm_single_copy",
            "reduce " + FOUR_MIB + " direct", streams ? "binomial" : "shm_single_copy",
            "reduce " + EIGHT_MIB + " heap", "shm_single_copy",
            "reduce " + EIGHT_MIB + " direct", "shm_single_copy");
    }

    /** Where the JVM's copies do not stream past the caches, every copy from 512 KiB declines. */
    @Test
    void twoRanksWhoseCopiesDoNotStreamDeclineThemAll() throws IOException
    {
        assumeTrue(Runtime.version().feature() >= 22, "single copy needs Java 22");
        assumeTrue(Runtime.getRuntime().availableProcessors() >= 2, "2 ranks, a core each");
        assertRan(2, List.of("-XX:MaxVectorSize=32"),
            "allreduce " + THREE_MIB + " heap", "shm_twoshot",
            "allreduce " + EIGHT_MIB + " heap", "shm_twoshot",
            "allreduce " + EIGHT_MIB + " direct", "shm_single_copy",
            // blocks of 4 MiB
            "alltoall " + EIGHT_MIB + " heap", "shm_direct",
            "reduce " + FOUR_MIB + " heap", "shm_single_copy",
            "reduce " + EIGHT_MIB + " heap", "shm_single_copy");
    }

    /**
     * Runs {@link DeclineRank} at {@code ranks} ranks with these JVM options besides the tests' own, every probe
     * reading the slow pace, on the cases of
     * {@code casesAndAlgorithms} ("collective bytes kind", each followed by the algorithm it must run), and checks
     * that every rank ran each case's algorithm.
     */
    private static void assertRan(final int ranks, final List<String> jvmArgs, final String... casesAndAlgorithms)
        throws IOException
    {
        final List<String> cases = new ArrayList<>();
        final List<String> expected = new ArrayList<>();
        for (int i = 0; i < casesAndAlgorithms.length; i += 2)
        {
            cases.add(casesAndAlgorithms[i].replace(' ', ':'));
            expected.add("RAN " + casesAndAlgorithms[i] + " " + casesAndAlgorithms[i + 1]);
        }
        final List<String> options = new ArrayList<>(List.of("-Xmx512m", "-XX:+UseSerialGC",
            "-XX:TieredStopAtLevel=1"));
        options.addAll(jvmArgs);
        final JobResult result = Jobs.launch(ranks, DeclineRank.class, cases,
            List.of("JCCL_PACE_THRESHOLD_US=0", "JCCL_PACE_PROBE_BYTES=1"), options, Duration.ofSeconds(90));
        assertEquals(expected, ranEverywhere(result, ranks));
    }

    /** The RAN lines of rank 0, after checking that every rank printed the same ones. */
    private static List<String> ranEverywhere(final JobResult result, final int ranks)
    {
        Jobs.assertSucceeded(result);
        final List<String> first = ran(result, 0);
        for (int r = 1; r < ranks; r++)
        {
            assertEquals(first, ran(result, r), "rank " + r + " against rank 0");
        }
        return first;
    }

    private static List<String> ran(final JobResult result, final int rank)
    {
        return new ArrayList<>(result.output(rank).stream().filter(l -> l.startsWith("RAN ")).toList());
    }
}
