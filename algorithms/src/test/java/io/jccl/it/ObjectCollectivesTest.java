package io.jccl.it;

import io.jccl.launch.JobResult;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.nio.file.Files;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertFalse;

/** Collectives and messages of Java objects ({@code ObjectCollectives}) between rank JVMs ({@link ObjectsRank}). */
@Timeout(120)
class ObjectCollectivesTest
{
    /**
     * Every call with small, large and null objects, a codec of its own and a sub-communicator, then every failure
     * and a call after it; on 1 rank the calls are local, on 4 the ranks outnumber the cores.
     */
    @ParameterizedTest(name = "{0} ranks")
    @ValueSource(ints = {1, 2, 4})
    void objectsTravelAndFailuresReachEveryRank(final int ranks)
    {
        final JobResult result = Jobs.launch(ranks, ObjectsRank.class, List.of(), List.of());
        Jobs.assertEveryRankFinished(result, "objects");
        assertFalse(Files.exists(Jobs.segment(result)), "segment left behind");
    }
}
