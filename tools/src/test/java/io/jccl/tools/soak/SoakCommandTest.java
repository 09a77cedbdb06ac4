package io.jccl.tools.soak;

import io.jccl.tools.UsageException;
import io.jccl.tools.bench.BenchOp;
import io.jccl.tools.soak.SoakOptions.Group;
import io.jccl.tools.soak.SoakOptions.Memory;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The soak's smoke run on real rank JVMs, its options and its report. */
@Timeout(120)
class SoakCommandTest
{
    @Test
    void fiveSecondSoakOnThreeRanksChecksEveryResult()
    {
        final ByteArrayOutputStream out = new ByteArrayOutputStream();
        final ByteArrayOutputStream err = new ByteArrayOutputStream();
        final int exit = new SoakCommand(new PrintStream(out, true, StandardCharsets.UTF_8),
            new PrintStream(err, true, StandardCharsets.UTF_8))
            .run(new String[] {"-n", "3", "--duration", "5s", "--max-bytes", "64k", "--seed", "11", "--report", "1s"});
        final String text = out.toString(StandardCharsets.UTF_8);
        final String all = text + err.toString(StandardCharsets.UTF_8);
        assertEquals(0, exit, all);
        assertTrue(text.contains("soak: 3 ranks for 5 s, messages up to 65536 bytes, seed 11; direct, heap, shared " +
            "memory, world, dup, split communicators, in place too, non-blocking calls too"), all);
        assertTrue(text.matches("(?s).*soak +\\d+\\.\\d s: \\d+ ops \\(.*/s\\), 0 wrong, \\d+ skipped; rss MiB:" +
            "( \\d+\\.\\d){3}\n.*"), all);
        assertTrue(text.matches("(?s).*soak done: 3 ranks, [\\d.]+ s, [1-9]\\d* ops, 0 wrong.*"), all);
        assertTrue(text.contains("rss MiB after warm-up") && text.contains("anonymous (heap, native) MiB") &&
            text.contains("shared (segment pages touched) MiB"), all);
        assertTrue(text.matches("(?s).*alltoallv [1-9]\\d* gatherv [1-9]\\d* scatterv [1-9]\\d* scan [1-9]\\d* " +
            "exscan [1-9]\\d* p2p_exchange [1-9]\\d* \\(by sendRecv [1-9]\\d*, from any source [1-9]\\d*\\)\n.*"), all);
        assertTrue(text.matches("(?s).*ops by memory: direct [1-9]\\d* heap [1-9]\\d* shared [1-9]\\d* " +
            "\\(direct and heap mixed across ranks [1-9]\\d*\\); by communicator: world [1-9]\\d* dup [1-9]\\d* " +
            "split [1-9]\\d*; in place [1-9]\\d*; non-blocking [1-9]\\d*\n.*"), all);
        assertTrue(text.contains("soak: all results right"), all);
        assertFalse(all.contains("WARNING"), "no rank prints a JVM warning (non-blocking calls load JCTools):\n" + all);
    }

    /**
     * Millions of small messages lap the channels' rings many times, so a reader meets old payload where the next
     * record's header goes. With this seed, the code before the channels' header words were compared whole took an
     * int32 element equal to the expected sequence for a header after 2.24 million calls, about 15 s into the run on
     * the 2-core VM, and failed with "message truncated". (The operations of then, direct memory, the job's
     * communicator, blocking calls out of place only: the calls the soak made then, seed for seed.)
     */
    @Test
    void smallMessagesLappingTheRingsForHalfAMinuteOnTwoRanks()
    {
        final ByteArrayOutputStream out = new ByteArrayOutputStream();
        final ByteArrayOutputStream err = new ByteArrayOutputStream();
        final int exit = new SoakCommand(new PrintStream(out, true, StandardCharsets.UTF_8),
            new PrintStream(err, true, StandardCharsets.UTF_8))
            .run(new String[] {"-n", "2", "--duration", "30s", "--max-bytes", "256", "--seed", "44", "--report", "10s",
                "--memory", "direct", "--groups", "world", "--blocking-only", "--out-of-place-only", "--ops",
                "pingpong,barrier,broadcast,reduce,allreduce,gather,scatter,allgather,reduce_scatter,alltoall," +
                "allgatherv,reduce_scatterv,alltoallv"});
        final String all = out.toString(StandardCharsets.UTF_8) + err.toString(StandardCharsets.UTF_8);
        assertEquals(0, exit, all);
        assertTrue(all.contains("soak: all results right"), all);
    }

    @Test
    void reportCountsWrongResultsOfEveryRankAndSaysItFailed()
    {
        final ByteArrayOutputStream out = new ByteArrayOutputStream();
        final SoakReport report = new SoakReport(new SoakOptions(2, 1, 64, 5, 1, List.of(Memory.DIRECT),
            List.of(Group.WORLD), true, true, BenchOp.all()), 2,
            new PrintStream(out, true, StandardCharsets.UTF_8));
        report.start();
        // (ops, wrong, skipped, resident, anonymous, shared KiB) per rank; the duration (1 ms) is over at once
        sleepMs(5);
        final boolean over = report.update(new long[] {10, 0, 1, 2048, 1024, 512, 10, 3, 1, 4096, 2048, 1024},
            new long[SoakReport.TALLY_LENGTH]);
        assertTrue(over);
        assertEquals(3, report.totalWrong());
        final String text = out.toString(StandardCharsets.UTF_8);
        assertTrue(text.contains("10 ops") && text.contains("3 wrong") && text.contains("rss MiB: 2.0 4.0"), text);
        assertTrue(text.contains("soak: FAILED, 3 wrong elements"), text);
    }

    @Test
    void optionsParseDurationsAndSizesAndRoundTripToTheRanks()
    {
        final SoakOptions options = SoakOptions.parse(new String[] {"--duration", "10m", "--max-bytes", "1m",
            "--seed", "3"});
        assertEquals(4, options.ranks());
        assertEquals(600_000, options.durationMs());
        assertEquals(1 << 20, options.maxBytes());
        assertEquals(10_000, options.reportMs());
        assertEquals(List.of(Memory.DIRECT, Memory.HEAP, Memory.SHARED), options.memory());
        assertTrue(options.nonBlocking());
        assertEquals(options, SoakOptions.parse(options.toArgs().toArray(String[]::new)));
        assertEquals(List.of(Group.WORLD, Group.DUP, Group.SPLIT), options.groups());
        assertTrue(options.inPlace());
        final SoakOptions narrowed = SoakOptions.parse(new String[] {"--memory", "shared,heap", "--groups", "split",
            "--blocking-only", "--out-of-place-only"});
        assertEquals(List.of(Memory.SHARED, Memory.HEAP), narrowed.memory());
        assertEquals(List.of(Group.SPLIT), narrowed.groups());
        assertFalse(narrowed.nonBlocking());
        assertFalse(narrowed.inPlace());
        assertEquals(narrowed, SoakOptions.parse(narrowed.toArgs().toArray(String[]::new)));
        assertEquals(BenchOp.all(), options.ops());
        final SoakOptions someOps = SoakOptions.parse(new String[] {"--ops", "scatterv,pingpong,reduce-scatter"});
        assertEquals(List.of(BenchOp.PINGPONG, BenchOp.REDUCE_SCATTER, BenchOp.SCATTERV), someOps.ops(),
            "in BenchOp's order, however written");
        assertEquals(someOps, SoakOptions.parse(someOps.toArgs().toArray(String[]::new)));
        assertEquals(30_000, SoakOptions.parse(new String[] {"--duration", "30"}).durationMs());
        assertEquals(500, SoakOptions.parse(new String[] {"--duration", "500ms"}).durationMs());
        assertEquals(3_600_000, SoakOptions.parse(new String[] {"--duration", "1h"}).durationMs());
        for (final List<String> bad : List.of(List.of("--duration", "soon"), List.of("--duration", "0s"),
            List.of("-n", "1"), List.of("--max-bytes", "8"), List.of("--bogus"), List.of("--memory", "gpu"),
            List.of("--memory", "heap,heap"), List.of("--memory", ""), List.of("--groups", "world,half"),
            List.of("--ops", "allreduce,bcast"), List.of("--ops", "gatherv,gatherv")))
        {
            assertThrows(UsageException.class, () -> SoakOptions.parse(bad.toArray(String[]::new)), bad::toString);
        }
    }

    @Test
    void ranksGetHeapForHeapRegionsAndSymmetricMemoryForSharedOnes()
    {
        final List<String> all = SoakCommand.rankJvmArgs(SoakOptions.parse(new String[] {"--max-bytes", "16m"}));
        assertTrue(all.containsAll(List.of("-Xms160m", "-Xmx160m", "-XX:MaxDirectMemorySize=" + ((32 + 6 * 24 + 64) << 20),
            "-Djccl.symmetric.bytes=" + ((32L << 20) + 128))), all::toString);
        final List<String> direct = SoakCommand.rankJvmArgs(SoakOptions.parse(new String[] {"--max-bytes", "16m",
            "--memory", "direct"}));
        assertTrue(direct.containsAll(List.of("-Xms128m", "-Xmx128m")), direct::toString);
        assertTrue(direct.stream().noneMatch(arg -> arg.startsWith("-Djccl.symmetric")), direct::toString);
    }

    private static void sleepMs(final long ms)
    {
        try
        {
            Thread.sleep(ms);
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
        }
    }
}
