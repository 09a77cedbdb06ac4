package io.jccl.it;

import io.jccl.launch.JobResult;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Non-blocking collectives between real rank JVMs: results, ordering, overlap with blocking calls, failure, close. */
@Timeout(150)
class NonBlockingCollectivesTest
{
    private static final List<String> ENV = List.of("JCCL_TIMEOUT_MS=60000", "JCCL_PEER_TIMEOUT_MS=15000");

    @ParameterizedTest(name = "{0} on {1} ranks")
    @CsvSource({"every, 1", "every, 2", "every, 3", "every, 4", "inflight, 2", "inflight, 4", "mixed, 2",
        "mixed, 3", "close, 2", "close, 4", "resources, 2", "driven, 2", "driven, 4", "reentrant, 2"})
    void scenario(final String scenario, final int ranks) throws IOException
    {
        final JobResult result = Jobs.launch(ranks, NonBlockingRank.class, List.of(scenario), ENV,
            List.of("-Xmx512m", "-XX:+UseSerialGC"), java.time.Duration.ofSeconds(120));
        Jobs.assertEveryRankFinished(result, scenario);
        assertNoSegmentLeft(result);
    }

    /** A rank dies with operations in flight: every survivor's request fails naming it, through await and future. */
    @Test
    void deadPeerFailsRequestsInFlight() throws IOException
    {
        final int victim = 1;
        final JobResult result = Jobs.launch(3, NonBlockingRank.class, List.of("failure", Integer.toString(victim)),
            ENV);
        assertFalse(result.succeeded());
        final Pattern detected = Pattern.compile("DETECTED peer=(\\d+) ms=(\\d+) message=(.*)");
        for (final int r : new int[] {0, 2})
        {
            final String output = String.join("\n", result.output(r));
            final Matcher m = detected.matcher(output);
            assertTrue(m.find(), () -> "rank " + r + " did not report the failure: " + output);
            assertEquals(victim, Integer.parseInt(m.group(1)), m.group(3));
            assertTrue(Long.parseLong(m.group(2)) < 5000, "rank " + r + " took " + m.group(2) + " ms");
            assertTrue(m.group(3).contains("non-blocking allreduce failed") && m.group(3).contains("rank " + victim),
                m.group(3));
            assertTrue(output.contains("FUTURE FAILED"), output);
        }
        assertNoSegmentLeft(result);
    }

    private static void assertNoSegmentLeft(final JobResult result) throws IOException
    {
        final Path segment = Jobs.segment(result);
        final String prefix = segment.getFileName().toString().replace(".seg", "");
        try (Stream<Path> files = Files.list(segment.getParent()))
        {
            assertEquals(List.of(), files.filter(p -> p.getFileName().toString().startsWith(prefix)).toList());
        }
    }
}
