package io.jccl.tools.demo;

import io.jccl.tools.UsageException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** {@code jccl demo} end to end: real rank JVMs running {@link DemoRank}. */
@Timeout(120)
class DemoCommandTest
{
    private final ByteArrayOutputStream out = new ByteArrayOutputStream();
    private final ByteArrayOutputStream err = new ByteArrayOutputStream();
    private final DemoCommand demo = new DemoCommand(new PrintStream(out, true, StandardCharsets.UTF_8),
        new PrintStream(err, true, StandardCharsets.UTF_8));

    @ParameterizedTest(name = "{0} ranks")
    @ValueSource(ints = {2, 4})
    void printsEveryCollectiveAndWorkedExampleWithRightResults(final int ranks)
    {
        final int exitCode = demo.run(new String[] {"-n", Integer.toString(ranks)});

        final String report = out.toString(StandardCharsets.UTF_8);
        final String context = "stdout:\n" + report + "\nstderr:\n" + err.toString(StandardCharsets.UTF_8);
        assertEquals(0, exitCode, context);
        final List<String> lines = report.lines().toList();
        assertTrue(lines.getFirst().startsWith("jccl demo: " + ranks + " ranks, each its own JVM"), context);
        assertFalse(report.contains("\n["), "only rank 0 writes the report:\n" + context);

        // allreduce of [3r + 1, 3r + 2, 3r + 3]: element k sums to 3 N (N - 1) / 2 + N (k + 1) on every rank
        final int base = 3 * ranks * (ranks - 1) / 2;
        final String sum = "[" + (base + ranks) + ", " + (base + 2 * ranks) + ", " + (base + 3 * ranks) + "]";
        final int table = lines.indexOf("allreduce (sum): every rank gets the element-wise sum");
        assertTrue(table > 0, context);
        for (int r = 0; r < ranks; r++)
        {
            final String row = lines.get(table + 1 + r);
            assertTrue(row.startsWith("  rank " + r + ": [" + (3 * r + 1) + ", "), row);
            assertTrue(row.endsWith("rank " + r + ": " + sum), row + " should end with the sum " + sum);
        }

        for (final String title : List.of("barrier:", "broadcast (root 0):", "reduce (sum to root 0):", "gather",
            "scatter", "allgather:", "reduce_scatter (sum):", "alltoall:", "allgatherv:", "gatherv (to root 0):",
            "scatterv (from root 0):", "alltoallv:",
            "allreduce (sum) in float16:", "distributed mean:", "distributed argmax:", "distributed softmax:",
            "ring allreduce with sendRecv only:", "allreduce three ways on 1 MiB of float32"))
        {
            assertTrue(lines.stream().anyMatch(line -> line.startsWith(title)), title + " missing:\n" + context);
        }
        assertTrue(report.contains("; sum of all probabilities: 1.000000 "), context);
        assertTrue(report.contains("comm.allreduce gives the same vector on " + ranks + " of " + ranks + " ranks"),
            context);
        for (final String way : List.of("  allreduce  ", "  reduce + broadcast  ", "  reduce_scatter + allgather  "))
        {
            assertTrue(lines.stream().anyMatch(line -> line.startsWith(way) && line.contains("s  ")), way + context);
        }
        assertTrue(report.contains("the three results are identical on every rank and equal to the exact sum"),
            context);
        assertTrue(lines.getLast().startsWith("All ") && lines.getLast().contains(" results match references"),
            context);
    }

    @Test
    void refusesRankCountsOutsideOneToEight()
    {
        assertEquals("-n must be between 1 and 8, not 9",
            assertThrows(UsageException.class, () -> demo.run(new String[] {"-n", "9"})).getMessage());
        assertThrows(UsageException.class, () -> demo.run(new String[] {"-n", "0"}));
        assertThrows(UsageException.class, () -> demo.run(new String[] {"--ranks", "2"}));
        assertThrows(UsageException.class, () -> demo.run(new String[] {"extra"}));
        assertEquals("", out.toString(StandardCharsets.UTF_8));
    }
}
