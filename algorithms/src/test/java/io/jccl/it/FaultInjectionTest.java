package io.jccl.it;

import io.jccl.launch.JobLauncher;
import io.jccl.launch.JobResult;
import io.jccl.launch.OutputSink;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The fault-injection suite: in one rank of a real multi-JVM job, kill -9, SIGSTOP, {@code System.exit} or an
 * uncaught exception, at bootstrap, in point-to-point, in the middle of collectives of every algorithm family, and
 * at close ({@link FaultRank} injects and reports). For each scenario: every survivor throws an exception that
 * names the failed rank, the operation, its sequence number, count and datatype; the launcher's result is non-zero
 * and its summary names the failed rank; nothing is left in the job's segment directory; and the job is over
 * within 5 s of the fault.
 */
@Timeout(60)
class FaultInjectionTest
{
    private static final long END_WITHIN_MS = 5_000;
    private static final Pattern DETECTED =
        Pattern.compile("DETECTED peer=(-?\\d+) done=(\\d+) ms=(\\d+) message=(.*)");
    private static final Pattern FAULT = Pattern.compile("FAULT at=(\\d+)");
    private static final List<String> KINDS = List.of("kill9", "stop", "exit", "throw");
    /** Collective:forced algorithm, ranks, victim, float32 elements: one per algorithm family at least. */
    private static final List<Object[]> COLLECTIVES = List.of(
        new Object[] {"allreduce:ring", 3, 1, 256 * 1024},
        new Object[] {"allreduce:recursive_doubling", 2, 1, 256 * 1024},
        new Object[] {"broadcast:binomial", 3, 0, 256 * 1024},
        new Object[] {"allreduce:shm_oneshot", 2, 0, 256 * 1024},
        new Object[] {"allreduce:shm_twoshot", 3, 2, 256 * 1024},
        new Object[] {"allgather:shm_direct", 3, 1, 256 * 1024},
        new Object[] {"allreduce:shm_ll", 2, 1, 64});

    static Stream<Arguments> scenarios()
    {
        final List<Arguments> list = new ArrayList<>();
        for (final String kind : KINDS)
        {
            list.add(Arguments.of(kind, "before-attach", "-", 2, 1, 0));
            if (!"throw".equals(kind))
            {
                // an exception cannot be thrown into a thread blocked in connect(); the others strike from outside
                list.add(Arguments.of(kind, "attaching", "-", 2, 0, 0));
            }
            list.add(Arguments.of(kind, "p2p-recv", "-", 2, 0, 0));
            list.add(Arguments.of(kind, "p2p-send", "-", 3, 1, 0));
            for (final Object[] c : COLLECTIVES)
            {
                list.add(Arguments.of(kind, "collective", c[0], c[1], c[2], c[3]));
            }
            list.add(Arguments.of(kind, "close", "-", 2, 1, 0));
        }
        return list.stream();
    }

    @ParameterizedTest(name = "{0} at {1} {2}, rank {4} of {3}")
    @MethodSource("scenarios")
    void survivorsNameTheFailedRankAndNothingIsLeft(final String kind, final String phase, final String algorithm,
        final int ranks, final int victim, final int elements) throws IOException
    {
        final Path shmDir = Files.createTempDirectory(Path.of("/dev/shm"), "jccl-faults-");
        final Path markerDir = Files.createTempDirectory("jccl-faults-markers-");
        try
        {
            final JobResult result = launch(kind, phase, algorithm, elements, ranks, victim, shmDir, markerDir);
            final long endMs = System.currentTimeMillis();
            final String all = Jobs.allOutput(result) + String.join("\n", result.summary());

            assertFalse(result.succeeded(), all);
            assertNotEquals(0, result.exitCode(), all);
            assertSummaryNamesVictim(kind, victim, result.summary(), all);
            try (Stream<Path> left = Files.list(shmDir))
            {
                assertEquals(List.of(), left.toList(), "left in the segment directory");
            }
            final long faultMs = result.output(victim).stream().map(FAULT::matcher).filter(Matcher::find)
                .mapToLong(m -> Long.parseLong(m.group(1))).findFirst()
                .orElseThrow(() -> new AssertionError("the victim did not inject its fault:\n" + all));
            System.out.println("fault " + kind + " at " + phase + " " + algorithm + ": job over " + (endMs - faultMs) +
                " ms after the fault; launcher: " + String.join(" / ", result.summary()));
            assertTrue(endMs - faultMs < END_WITHIN_MS, "the job ended " + (endMs - faultMs) +
                " ms after the fault:\n" + all);

            for (int r = 0; r < ranks; r++)
            {
                if (r != victim)
                {
                    // an allgather's count is one rank's block, the other collectives' the whole vector
                    final int count = algorithm.startsWith("allgather") ? elements / ranks : elements;
                    assertSurvivor(r, phase, algorithm, count, victim, result.output(r), all);
                }
            }
        }
        finally
        {
            deleteTree(shmDir);
            deleteTree(markerDir);
        }
    }

    private static JobResult launch(final String kind, final String phase, final String algorithm,
        final int elements, final int ranks, final int victim, final Path shmDir, final Path markerDir)
    {
        final boolean bootstrap = phase.equals("before-attach") || phase.equals("attaching");
        final List<String> args = new ArrayList<>(List.of(kind, phase, Integer.toString(victim),
            markerDir.toString()));
        if (!"-".equals(algorithm))
        {
            args.add(algorithm);
            args.add(Integer.toString(elements));
        }
        final JobLauncher.Builder builder = Jobs.builder();
        if ("late".equals(kind))
        {
            // the survivors' waits time out: nothing else ends them; they say what holds them up first
            builder.environment("JCCL_TIMEOUT_MS", "1500").environment("JCCL_SLOW_WAIT_MS", "500");
        }
        return builder
            .ranks(ranks)
            .mainClass(FaultRank.class.getName())
            .args(args)
            .jvmArgs("-Xmx256m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1")
            .shmDir(shmDir)
            // small segments: quick to reserve; p2p-send's 2 MiB message is 8 rings
            .environment("JCCL_RING_BYTES", "256k")
            .environment("JCCL_STAGING_BYTES", "1m")
            .environment("JCCL_SYMMETRIC_BYTES", "64k")
            // a survivor of a rank that never attached learns it from the bootstrap timeout
            .environment("JCCL_BOOTSTRAP_TIMEOUT_MS", phase.equals("before-attach") ? "1000" : "20000")
            // ... and must be given the time to say so before the launcher stops it
            .failureGrace(bootstrap ? Duration.ofSeconds(3) : JobLauncher.DEFAULT_FAILURE_GRACE)
            .captureOutput(true)
            .outputSink(OutputSink.discard())
            .timeout(Duration.ofSeconds(40))
            .build()
            .run();
    }

    /**
     * A rank that is late, alive and running but not calling jccl, is named as late, never as failed: each survivor's
     * wait in the collective times out ({@code JCCL_TIMEOUT_MS}) and blames the rank that has not called it, whether
     * it waited on that rank or on one that waits for it (in a ring a rank waits on its neighbour), or learns it from
     * the survivor that timed out first.
     */
    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"barrier:shm_flags", "allreduce:ring"})
    void aLateRankIsNamedLateNotFailed(final String algorithm) throws IOException
    {
        final int ranks = 3;
        final int victim = 2;
        final Path shmDir = Files.createTempDirectory(Path.of("/dev/shm"), "jccl-faults-");
        final Path markerDir = Files.createTempDirectory("jccl-faults-markers-");
        try
        {
            final JobResult result = launch("late", "collective", algorithm, 1024, ranks, victim, shmDir, markerDir);
            final String all = Jobs.allOutput(result) + String.join("\n", result.summary());
            assertFalse(result.succeeded(), all);
            final String operation = algorithm.substring(0, algorithm.indexOf(':')) + " #";
            for (int r = 0; r < ranks - 1; r++)
            {
                final Matcher m = result.output(r).stream().map(DETECTED::matcher).filter(Matcher::find).findFirst()
                    .orElseThrow(() -> new AssertionError("a survivor did not report the late rank:\n" + all));
                final String message = m.group(4);
                System.out.println("late rank, " + algorithm + ", rank " + r + ": " + message);
                assertEquals(victim, Integer.parseInt(m.group(1)), "rank " + r + " blamed another rank: " + message);
                assertTrue(message.contains(operation + (Long.parseLong(m.group(2)) + 1)), message);
                assertTrue(message.contains("rank 2 has not called it yet (its last collective: #3)") ||
                    message.matches(".*rank [01] gave up waiting on rank 2 \\(pid \\d+\\), which is alive and " +
                    "running.*"), message);
                assertFalse(message.matches(".*rank 2 \\(pid \\d+\\) failed.*"), message);
                // before the timeout, the slow wait's warning: what this rank waits on, and who is late
                final String warning = result.output(r).stream().filter(l -> l.contains("(jccl.slow.wait.ms)"))
                    .findFirst().orElseThrow(() -> new AssertionError("no slow-wait warning:\n" + all));
                assertTrue(warning.matches(".* jccl WARN COLL still waiting after 500 ms \\(jccl.slow.wait.ms\\) " +
                    "(on rank \\d )?while rank " + r + " was in " + operation + "4.*: rank 2 has not called it yet " +
                    "\\(its last collective: #3\\); the call fails at jccl.timeout.ms \\(1500 ms\\)"), warning);
            }
        }
        finally
        {
            deleteTree(shmDir);
            deleteTree(markerDir);
        }
    }

    private static void assertSummaryNamesVictim(final String kind, final int victim, final List<String> summary,
        final String all)
    {
        final String text = String.join("\n", summary);
        final boolean named = switch (kind)
        {
            case "kill9" -> text.contains("rank " + victim + " killed by signal 9 (SIGKILL)");
            case "exit" -> text.contains("rank " + victim + " exited with code 7");
            case "throw" -> text.contains("rank " + victim + " exited with code 1");
            default -> text.contains("killed rank " + victim + " (SIGKILL: stopped by a signal") ||
                text.contains("rank " + victim + " was stopped (SIGSTOP)");
        };
        assertTrue(named, "the launcher's summary does not name rank " + victim + " as " + kind + ":\n" + all);
    }

    private static void assertSurvivor(final int rank, final String phase, final String algorithm, final int count,
        final int victim, final List<String> output, final String all)
    {
        if (phase.equals("close"))
        {
            // close never waits for peers: a survivor closes and finishes as if nothing happened
            assertTrue(output.contains("CLOSED"), "rank " + rank + " did not close cleanly:\n" + all);
            return;
        }
        final Matcher m = output.stream().map(DETECTED::matcher).filter(Matcher::find).findFirst()
            .orElseThrow(() -> new AssertionError("rank " + rank + " did not report the failure:\n" + all));
        final String message = m.group(4);
        assertEquals(victim, Integer.parseInt(m.group(1)), "rank " + rank + " blamed another rank: " + message);
        assertTrue(message.contains("rank " + victim), message);
        final long nextSequence = Long.parseLong(m.group(2)) + 1;
        switch (phase)
        {
            case "before-attach", "attaching" -> assertTrue(message.contains("bootstrap"), message);
            case "p2p-recv" -> assertOperation(message, "recv #" + nextSequence, "count 64, int8");
            case "p2p-send" -> assertOperation(message, "send #" + nextSequence, "count 524288, float32");
            default -> assertOperation(message, algorithm.substring(0, algorithm.indexOf(':')) + " #" + nextSequence,
                "count " + count + ", float32");
        }
        assertTrue(message.matches(".*rank " + victim + "\\b.*"), message);
    }

    private static void assertOperation(final String message, final String operation, final String countAndType)
    {
        assertTrue(message.contains(operation), "no '" + operation + "' in: " + message);
        assertTrue(message.contains(countAndType) && message.matches(".*\\(count \\d+, .*"),
            "no '" + countAndType + "' in: " + message);
    }

    private static void deleteTree(final Path dir) throws IOException
    {
        try (Stream<Path> walk = Files.walk(dir))
        {
            for (final Path p : walk.sorted(Comparator.reverseOrder()).toList())
            {
                Files.deleteIfExists(p);
            }
        }
    }
}
