package io.jccl.it;

import io.jccl.launch.JobResult;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.nio.file.Files;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code waitAny}, {@code testAny}, {@code waitAll} and {@code testAll}, persistent requests and cancelled receives,
 * between real rank JVMs ({@link RequestsRank}).
 */
@Timeout(120)
class RequestsTest
{
    /**
     * Completion in the order requests complete, point-to-point and collective requests in one array, polling while
     * large messages move, failed requests, withdrawn receives, persistent requests started 200 times, and refused
     * arguments; on 4 ranks the ranks outnumber the cores.
     */
    @ParameterizedTest(name = "{0} ranks")
    @ValueSource(ints = {2, 4})
    void requestsCompleteAsMpiSays(final int ranks)
    {
        final JobResult result = Jobs.launch(ranks, RequestsRank.class, List.of("completion"), List.of());
        Jobs.assertEveryRankFinished(result, "completion");
        assertFalse(Files.exists(Jobs.segment(result)), "segment left behind");
    }

    /** kill -9 of the rank a waitAny waits on: it throws within 2 s, naming the rank and the waitAny. */
    @Test
    void killedPeerEndsTheWait()
    {
        final JobResult result = Jobs.launch(2, RequestsRank.class, List.of("killed"), List.of());
        assertFalse(result.succeeded());
        assertEquals(128 + 9, result.exitCode(1), () -> String.join("\n", result.summary()));
        assertEquals(3, result.exitCode(0), () -> String.join("\n", result.output(0)));
        final Matcher m = result.output(0).stream().map(Pattern.compile("DETECTED peer=(\\d+) ms=(\\d+) " +
            "message=(.*)")::matcher).filter(Matcher::find).findFirst()
            .orElseThrow(() -> new AssertionError("rank 0 did not report the failure: " + result.output(0)));
        assertEquals(1, Integer.parseInt(m.group(1)), m.group(3));
        assertTrue(Long.parseLong(m.group(2)) < 2000, "rank 0 took " + m.group(2) + " ms");
        assertTrue(m.group(3).contains("rank 1") && m.group(3).contains("waitAny #"), m.group(3));
        assertFalse(Files.exists(Jobs.segment(result)), "segment left behind");
    }
}
