package io.jccl.tools;

import io.jccl.launch.JobLauncher;
import io.jccl.launch.JobResult;
import io.jccl.launch.OutputSink;
import io.jccl.shm.SegmentFiles;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.locks.LockSupport;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Resource limits, with real rank JVMs: a segment directory without room, name collisions with another job's and
 * another user's files, stale segments of killed jobs, and eight jobs side by side.
 */
@Timeout(180)
class ResourceLimitsTest
{
    /** A small job: 2 ranks need 2·256 KiB of rings + 2·(1 MiB + 1 MiB) + the header, about 4.5 MiB. */
    private static final List<String> SMALL_JOB = List.of("JCCL_RING_BYTES=256k", "JCCL_STAGING_BYTES=1m",
        "JCCL_SYMMETRIC_BYTES=1m");
    private static final List<String> SIDE_BY_SIDE_JOB = List.of("JCCL_RING_BYTES=256k", "JCCL_STAGING_BYTES=1m",
        "JCCL_SYMMETRIC_BYTES=1m", "JCCL_IDLE_SPINS=50");
    private static final int SIGBUS_EXIT = 128 + 7;

    @TempDir
    Path dir;

    /**
     * An 8 MiB tmpfs: the default segment (26 MiB) does not fit, nor does the small one once another file takes
     * most of the room; each time rank 0 says how much it needs, how much is free and which settings change that,
     * no rank dies of SIGBUS, and nothing is left but the other file. The small job then runs once there is room.
     */
    @Test
    void segmentDirectoryWithoutRoomGivesAClearErrorNeverSigbus() throws Exception
    {
        final Path tmpfs = Files.createDirectory(dir.resolve("small-tmpfs"));
        final boolean mounted = new ProcessBuilder("mount", "-t", "tmpfs", "-o", "size=8m", "tmpfs",
            tmpfs.toString()).inheritIO().start().waitFor() == 0;
        Assumptions.assumeTrue(mounted, "needs root to mount a small tmpfs");
        try
        {
            final JobResult defaults = launch(2, tmpfs, "toobig", List.of(), "isolated", "1", "1");
            assertNoRoom(defaults, tmpfs, "26.0 MiB", "8.0 MiB");

            final Path other = tmpfs.resolve("someone-elses-data");
            Files.write(other, new byte[6 << 20]);
            final JobResult crowded = launch(2, tmpfs, "crowded", SMALL_JOB, "isolated", "1", "1");
            assertNoRoom(crowded, tmpfs, "4.5 MiB", "2.0 MiB");
            assertEquals(6 << 20, Files.size(other), "the other file was touched");

            Files.delete(other);
            final JobResult fits = launch(2, tmpfs, "fits", SMALL_JOB, "isolated", "2", "3");
            assertTrue(fits.succeeded(), () -> describe(fits));
            assertEmpty(tmpfs);
        }
        finally
        {
            new ProcessBuilder("umount", tmpfs.toString()).inheritIO().start().waitFor();
        }
    }

    private static void assertNoRoom(final JobResult result, final Path tmpfs, final String needed,
        final String free) throws IOException
    {
        final String rank0 = String.join("\n", result.output(0));
        assertFalse(result.succeeded(), () -> describe(result));
        assertTrue(rank0.contains("the job segment needs " + needed + " but " + tmpfs + " has only " + free +
            " free"), rank0);
        assertTrue(rank0.contains("JCCL_SHM_DIR") && rank0.contains("JCCL_RING_BYTES") &&
            rank0.contains("JCCL_STAGING_BYTES") && rank0.contains("JCCL_SYMMETRIC_BYTES"), rank0);
        for (int r = 0; r < result.exits().size(); r++)
        {
            assertNotEquals(SIGBUS_EXIT, result.exitCode(r), () -> describe(result));
        }
        try (Stream<Path> files = Files.list(tmpfs))
        {
            assertTrue(files.noneMatch(p -> SegmentFiles.isSegmentName(p.getFileName().toString())),
                "a segment was left in the full directory");
        }
    }

    /**
     * Job id "twice" is in use by a live job (its rank 0 waits for its ranks): a second job with the same id is
     * refused with the reason, and the first job's segment is neither attached to nor removed by the second
     * job's launcher. Another user's segment with the same job id has another name and is left alone.
     */
    @Test
    void nameCollisionsWithALiveJobOrAnotherUserAreRefusedOrAvoided() throws Exception
    {
        final Process holder = hold("twice", 3);
        try
        {
            final Path live = dir.resolve(SegmentFiles.fileName("twice"));
            awaitFile(live);
            final ByteArrayOutputStream launcherOut = new ByteArrayOutputStream();
            final PrintStream print = new PrintStream(launcherOut, true, StandardCharsets.UTF_8);
            final JobResult second = launch(2, dir, "twice", SMALL_JOB, OutputSink.to(print, print), "isolated",
                "1", "1");
            assertFalse(second.succeeded(), () -> describe(second));
            final String all = describe(second) + launcherOut.toString(StandardCharsets.UTF_8);
            assertTrue(all.contains("already exists and its creator (pid " + holder.pid() + ") is alive: two jobs " +
                "share the job id; choose another JCCL_JOB_ID"), all);
            assertTrue(Files.exists(live), "the live job's segment was removed: " + all);
            assertTrue(all.contains("kept " + live + ": it was created by pid " + holder.pid() + ", a live process " +
                "outside this job"), all);
            assertTrue(holder.isAlive(), "the live job was disturbed");
        }
        finally
        {
            holder.destroyForcibly().waitFor();
        }

        final Path otherUsers = dir.resolve("jccl-" + (SegmentFiles.uid() + 4242) + "-shared.seg");
        Files.write(otherUsers, new byte[4096]);
        final JobResult mine = launch(2, dir, "shared", SMALL_JOB, "isolated", "1", "2");
        assertTrue(mine.succeeded(), () -> describe(mine));
        assertTrue(Files.exists(otherUsers), "another user's file was removed");
    }

    /**
     * A job killed with SIGKILL while its rank 0 waited in bootstrap leaves its segment. The next job with the same
     * id runs (its ranks do not attach to the stale file; rank 0 replaces it), and {@code ./jccl clean} removes
     * stale segments of dead creators only: the segment of a live job stays.
     */
    @Test
    void staleSegmentsOfKilledJobsAreReplacedAndCleanedAndLiveOnesKept() throws Exception
    {
        final Path staleA = killedJobSegment("stale-a");
        final JobResult next = launch(3, dir, "stale-a", SMALL_JOB, "isolated", "1", "2");
        assertTrue(next.succeeded(), () -> describe(next));
        assertTrue(String.join("\n", next.output(0)).contains("removing stale segment " + staleA), describe(next));
        assertFalse(Files.exists(staleA));

        final Path staleB = killedJobSegment("stale-b");
        final Process live = hold("alive", 2);
        try
        {
            final Path liveSegment = dir.resolve(SegmentFiles.fileName("alive"));
            awaitFile(liveSegment);
            final ByteArrayOutputStream out = new ByteArrayOutputStream();
            final int exit = new CleanCommand(new PrintStream(out, true, StandardCharsets.UTF_8))
                .run(new String[] {"--shm-dir", dir.toString()});
            final String text = out.toString(StandardCharsets.UTF_8);
            assertEquals(0, exit, text);
            assertFalse(Files.exists(staleB), text);
            assertTrue(Files.exists(liveSegment), text);
            assertTrue(text.contains("removed " + staleB.getFileName() + ": creator pid"), text);
            assertTrue(text.contains("kept    " + liveSegment.getFileName() + ": creator pid " + live.pid() +
                " is alive"), text);
        }
        finally
        {
            live.destroyForcibly().waitFor();
        }
    }

    /**
     * Eight jobs of two ranks at once in one directory: each gets its own results only, all succeed, none stays.
     * Sixteen ranks on this machine's cores: each job sees only its own two ranks, so they are told to yield early.
     */
    @Test
    void eightJobsSideBySideAreIsolated() throws Exception
    {
        final ExecutorService launchers = Executors.newFixedThreadPool(8);
        final List<Future<JobResult>> jobs = new ArrayList<>();
        for (int j = 0; j < 8; j++)
        {
            final int job = j;
            jobs.add(launchers.submit(() -> launch(2, dir, "side-" + job, SIDE_BY_SIDE_JOB, "isolated",
                Integer.toString(job + 1), "30")));
        }
        launchers.shutdown();
        for (int j = 0; j < 8; j++)
        {
            final JobResult result = jobs.get(j).get();
            assertTrue(result.succeeded(), () -> describe(result));
            for (int r = 0; r < 2; r++)
            {
                assertTrue(result.output(r).contains("OK job " + (j + 1) + " rank " + r + " iterations 30"),
                    describe(result));
            }
        }
        assertEmpty(dir);
    }

    private JobResult launch(final int ranks, final Path shmDir, final String jobId, final List<String> env,
        final String... args)
    {
        return launch(ranks, shmDir, jobId, env, OutputSink.discard(), args);
    }

    private JobResult launch(final int ranks, final Path shmDir, final String jobId, final List<String> env,
        final OutputSink sink, final String... args)
    {
        final JobLauncher.Builder builder = JobLauncher.builder()
            .ranks(ranks)
            .mainClass(LimitsRank.class.getName())
            .args(args)
            .jvmArgs("-Xmx128m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1")
            .jobId(jobId)
            .shmDir(shmDir)
            .environment("JCCL_BOOTSTRAP_TIMEOUT_MS", "30000")
            .captureOutput(true)
            .outputSink(sink)
            .timeout(Duration.ofSeconds(120));
        for (final String e : env)
        {
            final int eq = e.indexOf('=');
            builder.environment(e.substring(0, eq), e.substring(eq + 1));
        }
        return builder.build().run();
    }

    /** Rank 0 of a job of {@code worldSize} ranks, started alone: it creates the segment and waits. */
    private Process hold(final String jobId, final int worldSize) throws IOException
    {
        final List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.addAll(JobLauncher.REQUIRED_JVM_ARGS);
        command.addAll(List.of("-Xmx64m", "-XX:TieredStopAtLevel=1", "-cp", System.getProperty("java.class.path"),
            LimitsRank.class.getName(), "hold"));
        final ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true)
            .redirectOutput(ProcessBuilder.Redirect.DISCARD);
        builder.environment().put("JCCL_RANK", "0");
        builder.environment().put("JCCL_WORLD_SIZE", Integer.toString(worldSize));
        builder.environment().put("JCCL_JOB_ID", jobId);
        builder.environment().put("JCCL_SHM_DIR", dir.toString());
        builder.environment().put("JCCL_BOOTSTRAP_TIMEOUT_MS", "120000");
        builder.environment().put("JCCL_RING_BYTES", "256k");
        builder.environment().put("JCCL_STAGING_BYTES", "1m");
        builder.environment().put("JCCL_SYMMETRIC_BYTES", "1m");
        return builder.start();
    }

    /**
     * The segment of a job of 3 ranks whose rank 0 was killed with SIGKILL while waiting for the others, made
     * more than the attach slack (2 s) before the next job's ranks start.
     */
    private Path killedJobSegment(final String jobId) throws Exception
    {
        final Process holder = hold(jobId, 3);
        final Path segment = dir.resolve(SegmentFiles.fileName(jobId));
        awaitFile(segment);
        holder.destroyForcibly().waitFor();
        assertTrue(Files.exists(segment));
        Thread.sleep(2_500);
        return segment;
    }

    private static void awaitFile(final Path file)
    {
        final long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        while (!Files.exists(file))
        {
            assertTrue(System.nanoTime() < deadline, file + " did not appear");
            LockSupport.parkNanos(10_000_000);
        }
    }

    private static void assertEmpty(final Path directory) throws IOException
    {
        try (Stream<Path> files = Files.list(directory))
        {
            assertEquals(List.of(), files.toList(), "left in " + directory);
        }
    }

    private static String describe(final JobResult result)
    {
        final StringBuilder sb = new StringBuilder(String.join("\n", result.summary())).append('\n');
        for (int r = 0; r < result.exits().size(); r++)
        {
            for (final String line : result.output(r))
            {
                sb.append('[').append(r).append("] ").append(line).append('\n');
            }
        }
        return sb.toString();
    }
}
