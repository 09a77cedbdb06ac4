package io.jccl.it;

import io.jccl.launch.JobResult;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.nio.file.Files;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertFalse;

/** MINLOC and MAXLOC ({@code LocCollectives}) between rank JVMs ({@link LocRank}). */
@Timeout(180)
class LocCollectivesTest
{
    /**
     * Every datatype, both ops, arrays, direct buffers and symmetric memory, allreduce, reduce, reduce-scatter,
     * reduce-scatterv, scan and exscan in place and not, ties among ranks and NaN in several patterns, then the
     * refusals; on 1 rank the reductions are local, on 4 the ranks outnumber the cores.
     */
    @ParameterizedTest(name = "{0} ranks")
    @ValueSource(ints = {1, 2, 4})
    void pairsReduceToTheExtremeAndItsSmallestIndex(final int ranks)
    {
        final JobResult result = Jobs.launch(ranks, LocRank.class, List.of(), List.of());
        Jobs.assertEveryRankFinished(result, "loc");
        assertFalse(Files.exists(Jobs.segment(result)), "segment left behind");
    }

    /** In check mode, a rank whose values are float32 where the others' are float64 fails the first call everywhere. */
    @ParameterizedTest(name = "{0} ranks")
    @ValueSource(ints = {2, 3})
    void valuesOfAnotherWidthAreAMismatchInCheckMode(final int ranks)
    {
        final JobResult result = Jobs.launch(ranks, LocRank.class, List.of("mismatch"), List.of("JCCL_CHECK=1"));
        Jobs.assertEveryRankFinished(result, "loc");
    }
}
