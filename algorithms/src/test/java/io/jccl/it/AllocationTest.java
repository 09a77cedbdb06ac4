package io.jccl.it;

import io.jccl.launch.JobResult;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.time.Duration;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * No blocking call allocates once warm (C2 compiled), on any rank: see {@link AllocationRank}. 13-19 s here; beside two
 * CPU hogs 143 s, so the job has 300.
 */
@Timeout(330)
class AllocationTest
{
    /** Over 5,000 calls: less than a byte a call, room for a stray allocation of the JIT or the runtime. */
    private static final long MOST_BYTES = 4096;
    private static final Pattern LINE = Pattern.compile("^ALLOCATED (\\S+) (\\d+)$", Pattern.MULTILINE);

    @Test
    void blockingCallsAllocateNothingOnThreeRanks()
    {
        final JobResult result = Jobs.launch(3, AllocationRank.class, List.of(), List.of(),
            // without escape analysis: an allocation C2 removes in one compilation and keeps in another (a Set.of
            // per call in 21 algorithms' collectives(), 24 bytes, on 3 ranks under load) shows in every run
            // a look at the peers every millisecond of a wait, and heartbeats 2 s apart: most looks find a peer late
            // and read its process state, as on a stalled machine, where that read once allocated 9 KiB
            List.of("-Xmx256m", "-XX:+UseSerialGC", "-XX:-DoEscapeAnalysis", "-Djccl.liveness.check.ms=1",
                "-Djccl.heartbeat.interval.ms=2000"), Duration.ofSeconds(300));
        Jobs.assertSucceeded(result);
        for (int rank = 0; rank < 3; rank++)
        {
            final String output = String.join("\n", result.output(rank));
            final Matcher m = LINE.matcher(output);
            int calls = 0;
            while (m.find())
            {
                calls++;
                final long bytes = Long.parseLong(m.group(2));
                assertTrue(bytes < MOST_BYTES, "rank " + rank + ": " + m.group(1) + " allocated " + bytes +
                    " bytes in 5,000 calls\n" + output);
            }
            assertEquals(17, calls, output);
        }
    }
}
