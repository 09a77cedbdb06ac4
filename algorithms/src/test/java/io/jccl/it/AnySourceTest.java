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

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Receives from {@code ANY_SOURCE} between real rank JVMs ({@link AnySourceRank}). */
@Timeout(120)
class AnySourceTest
{
    /**
     * Workers' streams of every message size and buffer kind taken from any source, posted receives matched in
     * the order posted, unexpected and self messages, sendRecv from any source, probes and iprobes, and the arguments
     * refused; on 4 ranks the ranks outnumber the cores.
     */
    @ParameterizedTest(name = "{0} ranks")
    @ValueSource(ints = {2, 4})
    void receivesFromAnySourceMatchAsMpiSays(final int ranks)
    {
        final JobResult result = Jobs.launch(ranks, AnySourceRank.class, List.of("matching"), List.of());
        assertFinished(result, "matching");
        assertTrue(result.output(0).stream().anyMatch(l -> l.contains("workers: " + 15 * (ranks - 1) +
            " messages from any source")), () -> String.join("\n", result.output(0)));
    }

    /**
     * A receive from any source waits on while some peers have closed, and fails, saying so, once every other rank
     * has: no hang until the operation timeout.
     */
    @Test
    void failsOnceEveryOtherRankClosed()
    {
        final JobResult result = Jobs.launch(3, AnySourceRank.class, List.of("closed"), List.of());
        assertFinished(result, "closed");
        final Matcher m = result.output(0).stream().map(Pattern.compile("CLOSED after (\\d+) ms")::matcher)
            .filter(Matcher::find).findFirst()
            .orElseThrow(() -> new AssertionError("rank 0 did not report: " + result.output(0)));
        assertTrue(Long.parseLong(m.group(1)) < 2000, "rank 0 took " + m.group(1) + " ms to give up");
    }

    private static void assertFinished(final JobResult result, final String scenario)
    {
        Jobs.assertEveryRankFinished(result, scenario);
        assertFalse(Files.exists(Jobs.segment(result)), "segment left behind");
    }
}
