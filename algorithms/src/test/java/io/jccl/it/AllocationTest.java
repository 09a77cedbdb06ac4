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
 * No blocking call, nor an exchange by persistent requests, allocates once warm (C2 compiled), on any rank: see
 * {@link AllocationRank}. Each call is counted in three windows of 5,000 calls; the least must stay under a byte a
 * call, and every window under 16 KiB. 13-19 s here (with one window); beside two CPU hogs 143 s, so the job has 300.
 */
@Timeout(330)
class AllocationTest
{
    /** Over 5,000 calls, in the least of the windows: less than a byte a call. */
    private static final long MOST_BYTES = 4096;
    /**
     * In any window: room for the bursts the runtime now and then allocates on a thread of its own accord (up to 8,552
     * bytes seen, NonBlockingRank), not for a one-time allocation of jccl's such as a foreign function's first calls
     * (65-141 KB, FirstCallsTest).
     */
    private static final long MOST_BYTES_ONCE = 16384;
    private static final Pattern LINE = Pattern.compile("^ALLOCATED (\\S+) (\\d+) of windows \\[([0-9, ]+)\\]$",
        Pattern.MULTILINE);

    @Test
    void blockingCallsAllocateNothingOnThreeRanks()
    {
        final JobResult result = Jobs.launch(3, AllocationRank.class, List.of(), List.of(),
            // without escape analysis: an allocation C2 removes in one compilation and keeps in another (a Set.of
            // per call in 21 algorithms' collectives(), 24 bytes, on 3 ranks under load) shows in every run
            // a look at the peers every millisecond of a wait, and heartbeats 2 s apart: most looks find a peer late
            // and read its process state, as on a stalled machine, where that read once allocated 9 KiB
            // no pace probe (3 ranks on 2 cores probe since session 49): the first one runs paths the calls here had
            // not, and its window allocated 83 KB once, as a foreign function's first calls do; and a verdict that
            // flips within the windows may take a call to a path first used there. (A probe every 16 MiB, its first
            // in the warm-up, left 0-1,736 bytes a window: later probes allocate nothing.)
            List.of("-Xmx256m", "-XX:+UseSerialGC", "-XX:-DoEscapeAnalysis", "-Djccl.liveness.check.ms=1",
                "-Djccl.heartbeat.interval.ms=2000", "-Djccl.pace.probe.bytes=0"), Duration.ofSeconds(300));
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
                    " bytes in 5,000 calls, the least of its windows\n" + output);
                for (final String window : m.group(3).split(", "))
                {
                    assertTrue(Long.parseLong(window) < MOST_BYTES_ONCE, "rank " + rank + ": " + m.group(1) +
                        " allocated " + window + " bytes in one window of 5,000 calls\n" + output);
                }
            }
            assertEquals(32, calls, output);
        }
    }
}
