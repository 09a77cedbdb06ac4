package io.jccl.it;

import io.jccl.launch.JobResult;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * At the slow pace, a rank whose buffers single copy would copy for its peers (a heap array, or an allreduce in place)
 * declines calls whose copy lies in the window where the staged algorithms beat it, and every rank then runs the call
 * staged; buffers that need no copy, and copies outside the window, keep single copy. In 4 JVMs on 2 cores and in 2,
 * with every probe reading the slow pace; every result checked, and every rank must have run the same algorithm.
 */
@Timeout(240)
class SingleCopyDeclineTest
{
    private static final String MIB = Integer.toString(1 << 20);
    private static final String TWO_MIB = Integer.toString(2 << 20);
    private static final String FOUR_MIB = Integer.toString(4 << 20);
    private static final String EIGHT_MIB = Integer.toString(8 << 20);

    @Test
    void fourRanksOnTwoCoresDeclineCopiesInTheWindow() throws IOException
    {
        assumeTrue(Runtime.version().feature() >= 22, "single copy needs Java 22");
        assumeTrue(Runtime.getRuntime().availableProcessors() == 2, "4 ranks, two to a core");
        final List<String> cases = List.of(
            "allreduce:" + TWO_MIB + ":direct",
            "allreduce:" + TWO_MIB + ":heap",
            "allreduce:" + TWO_MIB + ":rank0heap",
            "allreduce:" + TWO_MIB + ":inplace",
            "allreduce:" + EIGHT_MIB + ":heap",
            "broadcast:" + TWO_MIB + ":direct",
            "broadcast:" + TWO_MIB + ":heap",
            "broadcast:" + TWO_MIB + ":othersheap",
            "allgather:" + FOUR_MIB + ":direct",
            "allgather:" + FOUR_MIB + ":heap",
            "reduce_scatter:" + TWO_MIB + ":heap",
            "reduce_scatter:" + TWO_MIB + ":direct",
            "alltoall:" + MIB + ":heap",
            "alltoall:" + MIB + ":direct");
        final JobResult result = Jobs.launch(4, DeclineRank.class, cases,
            List.of("JCCL_PACE_THRESHOLD_US=0", "JCCL_PACE_PROBE_BYTES=1"));
        final List<String> ran = ranEverywhere(result, 4);
        assertEquals(List.of(
            "RAN allreduce " + TWO_MIB + " direct shm_single_copy_twoshot",
            "RAN allreduce " + TWO_MIB + " heap shm_twoshot",
            // one rank's heap array declines for all
            "RAN allreduce " + TWO_MIB + " rank0heap shm_twoshot",
            // in place, the send buffer is copied too
            "RAN allreduce " + TWO_MIB + " inplace shm_twoshot",
            // beyond the window the copy goes ahead
            "RAN allreduce " + EIGHT_MIB + " heap shm_single_copy_twoshot",
            "RAN broadcast " + TWO_MIB + " direct shm_single_copy",
            "RAN broadcast " + TWO_MIB + " heap shm_eager",
            // only the root's buffer would be copied: the receivers' heap arrays do not decline
            "RAN broadcast " + TWO_MIB + " othersheap shm_single_copy",
            "RAN allgather " + FOUR_MIB + " direct shm_single_copy",
            // blocks of 1 MiB
            "RAN allgather " + FOUR_MIB + " heap shm_direct",
            "RAN reduce_scatter " + TWO_MIB + " heap shm_direct",
            "RAN reduce_scatter " + TWO_MIB + " direct shm_single_copy",
            "RAN alltoall " + MIB + " heap shm_direct",
            "RAN alltoall " + MIB + " direct shm_single_copy"), ran);
    }

    @Test
    void twoRanksDeclineTheSameCopies() throws IOException
    {
        assumeTrue(Runtime.version().feature() >= 22, "single copy needs Java 22");
        assumeTrue(Runtime.getRuntime().availableProcessors() >= 2, "2 ranks, a core each");
        final List<String> cases = List.of(
            "allreduce:" + TWO_MIB + ":direct",
            "allreduce:" + TWO_MIB + ":heap",
            "allreduce:" + TWO_MIB + ":othersheap",
            "allreduce:" + EIGHT_MIB + ":heap",
            "allgather:" + FOUR_MIB + ":heap",
            "reduce_scatter:" + TWO_MIB + ":heap",
            "alltoall:" + TWO_MIB + ":heap",
            "alltoall:" + TWO_MIB + ":direct");
        final JobResult result = Jobs.launch(2, DeclineRank.class, cases,
            List.of("JCCL_PACE_THRESHOLD_US=0", "JCCL_PACE_PROBE_BYTES=1"));
        assertEquals(List.of(
            "RAN allreduce " + TWO_MIB + " direct shm_single_copy",
            "RAN allreduce " + TWO_MIB + " heap shm_twoshot",
            "RAN allreduce " + TWO_MIB + " othersheap shm_twoshot",
            "RAN allreduce " + EIGHT_MIB + " heap shm_single_copy",
            // blocks of 2 MiB
            "RAN allgather " + FOUR_MIB + " heap shm_direct",
            "RAN reduce_scatter " + TWO_MIB + " heap shm_direct",
            "RAN alltoall " + TWO_MIB + " heap shm_direct",
            "RAN alltoall " + TWO_MIB + " direct shm_single_copy"), ranEverywhere(result, 2));
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
