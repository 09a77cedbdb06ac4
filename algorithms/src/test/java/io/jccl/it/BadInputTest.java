package io.jccl.it;

import io.jccl.launch.JobResult;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.nio.file.Files;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Bad input on every public method, between two rank JVMs ({@link BadInputRank}): each bad call throws the expected
 * exception with a message naming the problem, before any byte moves, and a checked allreduce right after it
 * succeeds. One job runs the whole table; each case is reported as its own test.
 */
@Timeout(180)
class BadInputTest
{
    private static JobResult result;

    @BeforeAll
    static void runTable()
    {
        result = Jobs.launch(2, BadInputRank.class, List.of(), List.of("JCCL_TIMEOUT_MS=30000"));
    }

    @AfterAll
    static void jobEndedCleanly()
    {
        Jobs.assertSucceeded(result);
        assertFalse(Files.exists(Jobs.segment(result)), "segment left behind");
    }

    static Stream<String> cases()
    {
        final List<String> names = new ArrayList<>();
        BadInputRank.CASES.forEach(c -> names.add(c.name()));
        names.addAll(BadInputRank.LATER);
        return names.stream();
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("cases")
    void refusedClearlyAndStillUsable(final String name)
    {
        for (int r = 0; r < 2; r++)
        {
            final int rank = r;
            final String line = result.output(r).stream().filter(l -> l.startsWith("CASE " + name + " ")).findFirst()
                .orElseThrow(() -> new AssertionError("rank " + rank + " did not reach the case:\n" +
                Jobs.allOutput(result)));
            assertTrue(line.equals("CASE " + name + " PASS"), "rank " + r + ": " + line);
        }
    }
}
