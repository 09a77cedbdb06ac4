package io.jccl.it;

import io.jccl.launch.JobResult;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.List;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertTrue;

/** The flight recorder: dumped to stderr when a collective times out, and printed on demand. */
@Timeout(120)
class FlightRecorderTest
{
    @Test
    void timeoutDumpsTheLastOperations()
    {
        final JobResult result = Jobs.launch(2, FlightRecorderRank.class, List.of(),
            List.of("JCCL_TIMEOUT_MS=1500"));
        Jobs.assertSucceeded(result);
        final String rank0 = String.join("\n", result.output(0));
        assertTrue(rank0.contains("TIMEOUT timed out after 1500 ms (jccl.timeout.ms) waiting on rank 1 while rank 0 " +
            "was in allreduce #4 (count 256, float32): rank 1 has not called it yet (its last collective: #3)"), rank0);
        // the dump: every line prefixed host:pid [rank], oldest first, the stuck operation last
        final String prefix = ".+:\\d+ \\[0\\] jccl WARN ALL ";
        assertContains(rank0, prefix + "flight recorder: last 5 of 5 operations, oldest first.*");
        assertContains(rank0, prefix + "  allreduce #1 count=256 float32 sum algorithm=\\w+: done.*");
        assertContains(rank0, prefix + "  broadcast #2 count=256 float32 root=0 algorithm=\\w+: done.*");
        assertContains(rank0, prefix + "  barrier #3 algorithm=\\w+: done.*");
        assertContains(rank0, prefix + "  send #1 count=1 int32: done.*");
        assertContains(rank0, prefix + "  allreduce #4 count=256 float32 sum algorithm=\\w+: FAILED waiting on rank 1, " +
            "waiting since \\d+\\.\\d+ ms ago, ended \\d+\\.\\d+ ms ago");
    }

    @Test
    void recordOnDemandAndAtCloseWithInfo()
    {
        final JobResult result = Jobs.launch(2, FlightRecorderRank.class, List.of(),
            List.of("JCCL_TIMEOUT_MS=1500", "JCCL_DEBUG=INFO", "JCCL_DEBUG_SUBSYS=COLL"));
        Jobs.assertSucceeded(result);
        final String rank1 = String.join("\n", result.output(1));
        assertContains(rank1, "RECORD flight recorder: last 4 of 4 operations, oldest first");
        // JCCL_DEBUG=INFO: times of start and end
        assertContains(rank1, "RECORD   recv #1 count=1 int32: done.*, started \\d+\\.\\d+ ms ago, ended .*");
        // and the dump at close, as INFO lines
        assertContains(rank1, ".+:\\d+ \\[1\\] jccl INFO ALL   recv #1 count=1 int32: done.*");
        // JCCL_DEBUG_SUBSYS=COLL leaves out the INIT lines
        assertTrue(!rank1.contains("INFO INIT"), rank1);
    }

    private static void assertContains(final String text, final String regex)
    {
        assertTrue(Pattern.compile("^" + regex + "$", Pattern.MULTILINE).matcher(text).find(),
            () -> "no line matches " + regex + " in\n" + text);
    }
}
