package io.jccl.it;

import io.jccl.launch.JobResult;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.nio.file.Files;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Mismatched collectives between two rank JVMs: every rank gets a {@link io.jccl.CollectiveMismatchException} that
 * says what each rank called, at collective #2, within the timeout; by default (found when a wait gets slow) and in
 * check mode (found before any data moves).
 */
@Timeout(120)
class MismatchTest
{
    @ParameterizedTest(name = "{0} mismatch, check mode {1}")
    @CsvSource({
        "collective, 0, 'rank 0 allreduce(count=1024, float32, sum), rank 1 broadcast(count=1024, float32, root=0)'",
        "collective, 1, 'rank 0 allreduce(count=1024, float32, sum), rank 1 broadcast(count=1024, float32, root=0)'",
        "count, 0, 'rank 0 allreduce(count=1024, float32, sum), rank 1 allreduce(count=1000, float32, sum)'",
        "count, 1, 'rank 0 allreduce(count=1024, float32, sum), rank 1 allreduce(count=1000, float32, sum)'",
        "dtype, 0, 'rank 0 allreduce(count=1024, float32, sum), rank 1 allreduce(count=1024, int32, sum)'",
        "dtype, 1, 'rank 0 allreduce(count=1024, float32, sum), rank 1 allreduce(count=1024, int32, sum)'",
        "op, 0, 'rank 0 allreduce(count=1024, float32, sum), rank 1 allreduce(count=1024, float32, max)'",
        "op, 1, 'rank 0 allreduce(count=1024, float32, sum), rank 1 allreduce(count=1024, float32, max)'",
        "root, 0, 'rank 0 broadcast(count=1024, float32, root=0), rank 1 broadcast(count=1024, float32, root=1)'",
        "root, 1, 'rank 0 broadcast(count=1024, float32, root=0), rank 1 broadcast(count=1024, float32, root=1)'"})
    void everyRankNamesWhatEachRankCalled(final String kind, final int check, final String calls)
    {
        final List<String> env = new ArrayList<>(List.of("JCCL_TIMEOUT_MS=20000"));
        env.add("JCCL_CHECK=" + check);
        final JobResult result = Jobs.launch(2, MismatchRank.class, List.of(kind), env);
        Jobs.assertSucceeded(result);
        for (int r = 0; r < 2; r++)
        {
            final String line = result.output(r).stream().filter(l -> l.startsWith("MISMATCH ")).findFirst()
                .orElseThrow(() -> new AssertionError("no mismatch reported:\n" + Jobs.allOutput(result)));
            assertTrue(line.contains("seq=2 message=collective #2 mismatch: " + calls), line);
        }
        assertFalse(Files.exists(Jobs.segment(result)), "segment left behind");
    }

    /**
     * A receive against a collective: each rank waits on the other. The rank whose receive times out names the
     * collective its peer has started, and the peer says that rank 0 gave up waiting on it.
     */
    @Test
    void aReceiveAgainstACollectiveNamesTheCollectiveOnBothRanks()
    {
        final JobResult result = Jobs.launch(2, DeadlockRank.class, List.of(), List.of());
        Jobs.assertSucceeded(result);
        assertEquals(List.of("TIMEOUT timed out after 1500 ms (jccl.timeout.ms) while rank 0 was in recv #1 (count 1, " +
            "int32, waiting on rank 1, tag 5, 4 bytes): rank 1 has started collective #2, allreduce(count=256, " +
            "float32, sum), which rank 0 has not called yet"), timeouts(result, 0));
        assertEquals(List.of("TIMEOUT rank 0 gave up waiting on this rank while rank 1 was in allreduce #2 (count " +
            "256, float32)"), timeouts(result, 1));
    }

    private static List<String> timeouts(final JobResult result, final int rank)
    {
        return result.output(rank).stream().filter(l -> l.startsWith("TIMEOUT ") || l.startsWith("NO TIMEOUT"))
            .toList();
    }
}
