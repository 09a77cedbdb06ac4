package io.jccl.launch;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayOutputStream;
import java.io.File;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/** Starts real rank JVMs running {@link TestRank}; each test takes about a second. */
@Timeout(60)
class JobLauncherTest
{
    /** Rank JVMs only need to start fast. */
    private static final String[] FAST_JVM = {"-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC", "-Xmx64m"};

    @TempDir
    Path shmDir;

    @Test
    void findsTheVectorModuleInTheRuntimesReleaseFile(@TempDir final Path home) throws IOException
    {
        final Path java = Files.createDirectories(home.resolve("bin")).resolve("java");
        assertFalse(JobLauncher.hasVectorModule(java), "no release file");
        final Path release = home.resolve("release");
        Files.writeString(release, "JAVA_VERSION=\"25\"\nMODULES=\"java.base jdk.incubator.vector\"\n");
        assertTrue(JobLauncher.hasVectorModule(java));
        Files.writeString(release, "JAVA_VERSION=\"25\"\nMODULES=\"java.base jdk.incubator.vectorx\"\n");
        assertFalse(JobLauncher.hasVectorModule(java));
        assertEquals(Runtime.version().feature() >= 16,
            JobLauncher.hasVectorModule(Path.of(System.getProperty("java.home"), "bin", "java")), "this JDK");
    }

    @Test
    void allRanksSucceedWithTheirOutputPrefixedByRank() throws IOException
    {
        final ByteArrayOutputStream out = new ByteArrayOutputStream();
        final ByteArrayOutputStream err = new ByteArrayOutputStream();
        final JobLauncher launcher = launcher(3, "hello")
            .outputSink(OutputSink.to(new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8)))
            .build();
        final Path segment = createDummySegment(launcher);

        final JobResult result = launcher.run();

        assertTrue(result.succeeded(), result.toString());
        assertEquals(0, result.exitCode());
        assertTrue(result.summary().isEmpty());
        assertTrue(result.failedRank().isEmpty());
        final List<String> outLines = out.toString(StandardCharsets.UTF_8).lines().toList();
        final List<String> errLines = err.toString(StandardCharsets.UTF_8).lines().toList();
        for (int rank = 0; rank < 3; rank++)
        {
            // the launcher adds the Vector API where the runtime has it (and drops the JVM's warning about it)
            final String hello = "hello from rank " + rank + " of 3 in job " + launcher.jobId() + " shm " + shmDir +
                " vector " + JobLauncher.hasVectorModule(Path.of(System.getProperty("java.home"), "bin", "java"));
            assertTrue(outLines.contains("[" + rank + "] " + hello), outLines.toString());
            assertTrue(errLines.contains("[" + rank + "] stderr of rank " + rank), errLines.toString());
            assertTrue(result.output(rank).contains(hello), result.output(rank).toString());
            assertTrue(result.output(rank).contains("stderr of rank " + rank), result.output(rank).toString());
            assertEquals(0, result.exitCode(rank));
        }
        assertEquals(3, outLines.size(), outLines.toString());
        assertEquals(3, errLines.size(), errLines.toString());
        assertSegmentRemoved(segment);
    }

    @Test
    void theSecondJobsRanksLoadTheirClassesFromTheArchiveTheFirstJobsRankZeroWrote(@TempDir final Path jars,
        @TempDir final Path archives) throws IOException
    {
        final Path home = Path.of(System.getProperty("java.home"));
        assumeTrue(Files.isRegularFile(home.resolve("lib/server/classes.jsa")), "a HotSpot JDK with its CDS archive");
        final String classPath = jarredClassPath(jars);
        // the JVM pads the log's decorations when other lines have wider ones
        final String testRankLoad = "\\[info *\\]\\[class,load *\\] " + TestRank.class.getName().replace(".", "\\.") +
            " source: ";
        final Pattern classLoad = Pattern.compile("\\[info *\\]\\[class,load *\\] .*");

        final JobResult first = launcher(2, "hello").classPath(classPath).classDataArchives(archives)
            .jvmArgs("-Xlog:class+load=info").build().run();
        assertTrue(first.succeeded(), first.toString());
        final List<Path> written;
        try (Stream<Path> files = Files.list(archives))
        {
            written = files.toList();
        }
        assertEquals(1, written.size(), written.toString());
        assertTrue(written.get(0).toString().endsWith(ClassDataArchive.EXTENSION), written.toString());

        final JobResult second = launcher(2, "hello").classPath(classPath).classDataArchives(archives)
            .jvmArgs("-Xlog:class+load=info").build().run();
        assertTrue(second.succeeded(), second.toString());
        for (final JobResult job : List.of(first, second))
        {
            for (int rank = 0; rank < 2; rank++)
            {
                final List<String> output = job.output(rank);
                final String source = job == first ? "file:" : "shared objects file \\(top\\)";
                final Pattern load = Pattern.compile(".*" + testRankLoad + source + ".*");
                assertTrue(output.stream().anyMatch(line -> load.matcher(line).matches()),
                    "rank " + rank + " of the " + (job == first ? "first" : "second") + " job loads TestRank from " +
                    source + ": " + output.stream().filter(line -> line.contains(TestRank.class.getName())).toList());
                assertTrue(output.contains("hello from rank " + rank + " of 2 in job " + job.jobId() + " shm " +
                    shmDir + " vector " + JobLauncher.hasVectorModule(home.resolve("bin/java"))), output.toString());
                // the JVM says nothing about the archive, not even while rank 0 writes it
                assertEquals(List.of(), output.stream().filter(line -> !classLoad.matcher(line).find())
                    .filter(line -> !line.startsWith("hello from rank") && !line.startsWith("stderr of rank"))
                    .toList());
            }
        }
    }

    @Test
    void aJobWhoseArchiveDirectoryGoesWhileItRunsSucceeds(@TempDir final Path jars, @TempDir final Path cache)
        throws IOException
    {
        assumeTrue(Files.isRegularFile(Path.of(System.getProperty("java.home"), "lib/server/classes.jsa")),
            "a HotSpot JDK with its CDS archive");
        final Path archives = cache.resolve("cds");
        // HotSpot ends a JVM that cannot write its archive with exit code 1: rank 0 must not write it there
        final JobResult result = launcher(2, "delete", archives.toString()).classPath(jarredClassPath(jars))
            .classDataArchives(archives).build().run();
        assertTrue(result.succeeded(), result.toString());
        assertEquals(0, result.exitCode(0));
    }

    @Test
    void aJobWithAJvmtiAgentRunsWithoutAnArchive(@TempDir final Path jars, @TempDir final Path archives)
        throws IOException
    {
        assumeTrue(Files.isRegularFile(Path.of(System.getProperty("java.home"), "lib/server/classes.jsa")),
            "a HotSpot JDK with its CDS archive");
        final String classPath = jarredClassPath(jars);
        // a debugger's agent, as a user attaches one: HotSpot would end rank 0 with exit code 1 had it to write
        final String debugger = "-agentlib:jdwp=transport=dt_socket,server=y,suspend=n,address=localhost:0";
        final JobResult onTheCommandLine = launcher(2, "hello").classPath(classPath).classDataArchives(archives)
            .jvmArgs(debugger).build().run();
        assertTrue(onTheCommandLine.succeeded(), onTheCommandLine.toString());
        final JobResult inTheEnvironment = launcher(2, "hello").classPath(classPath).classDataArchives(archives)
            .environment("JAVA_TOOL_OPTIONS", debugger).build().run();
        assertTrue(inTheEnvironment.succeeded(), inTheEnvironment.toString());
        assertTrue(inTheEnvironment.output(0).stream().anyMatch(line -> line.contains("Picked up JAVA_TOOL_OPTIONS")),
            "the ranks ran the agent: " + inTheEnvironment.output(0));
        try (Stream<Path> files = Files.list(archives))
        {
            assertEquals(List.of(), files.toList());
        }
    }

    /** Exits are seen even when every worker of the common ForkJoinPool is busy (Process.onExit() would need one). */
    @Test
    void ranksExitsAreSeenWhileTheCommonPoolIsBusy() throws Exception
    {
        final int workers = java.util.concurrent.ForkJoinPool.getCommonPoolParallelism();
        final java.util.concurrent.CountDownLatch release = new java.util.concurrent.CountDownLatch(1);
        final java.util.concurrent.CountDownLatch busy = new java.util.concurrent.CountDownLatch(workers);
        for (int i = 0; i < workers; i++)
        {
            java.util.concurrent.ForkJoinPool.commonPool().execute(() ->
            {
                busy.countDown();
                try
                {
                    release.await();
                }
                catch (final InterruptedException ex)
                {
                    Thread.currentThread().interrupt();
                }
            });
        }
        try
        {
            assertTrue(busy.await(10, TimeUnit.SECONDS), "the common pool did not fill");
            final JobResult result = launcher(2, "hello").timeout(Duration.ofSeconds(30)).build().run();
            assertTrue(result.succeeded(), result.toString());
        }
        finally
        {
            release.countDown();
        }
    }

    @Test
    void oneRankFailingStopsTheOthersAndIsNamed() throws IOException
    {
        final JobLauncher launcher = launcher(3, "fail", "1", "3").build();
        final Path segment = createDummySegment(launcher);
        final long startNs = System.nanoTime();

        final JobResult result = launcher.run();

        assertTrue(System.nanoTime() - startNs < Duration.ofSeconds(30).toNanos(), "the others were not stopped");
        assertFalse(result.succeeded());
        assertEquals(3, result.exitCode());
        assertEquals(1, result.failedRank().orElseThrow());
        assertEquals("job " + launcher.jobId() + " failed: rank 1 exited with code 3", result.summary().get(0));
        assertEquals(List.of("rank 1 giving up"), result.output(1));
        for (final int other : new int[] {0, 2})
        {
            final RankExit exit = result.exits().get(other);
            assertTrue(exit.stoppedByLauncher(), exit.toString());
            assertEquals(128 + 15, exit.exitCode(), exit.toString());
            // what a rank prints while it is being stopped still comes through
            assertTrue(result.output(other).contains("rank " + other + " stopping"), result.output(other).toString());
        }
        assertEquals("stopped ranks 0, 2 (SIGTERM)", result.summary().get(1));
        assertEquals(2, result.summary().size(), result.summary().toString());
        assertSegmentRemoved(segment);
    }

    @Test
    void rankKilledBySignalIsNamedWithTheSignal() throws IOException
    {
        final JobLauncher launcher = launcher(2, "kill9", "1").build();
        final Path segment = createDummySegment(launcher);

        final JobResult result = launcher.run();

        assertEquals(128 + 9, result.exitCode());
        assertEquals(1, result.failedRank().orElseThrow());
        assertEquals("rank 1 killed by signal 9 (SIGKILL)", result.exits().get(1).describe());
        assertTrue(result.summary().get(0).endsWith("failed: rank 1 killed by signal 9 (SIGKILL)"),
            result.summary().toString());
        assertTrue(result.exits().get(0).stoppedByLauncher());
        assertSegmentRemoved(segment);
    }

    @Test
    void timeoutStopsTheJob() throws IOException
    {
        final JobLauncher launcher = launcher(2, "sleep").timeout(Duration.ofMillis(1500)).build();
        final Path segment = createDummySegment(launcher);
        final long startNs = System.nanoTime();

        final JobResult result = launcher.run();

        final long elapsedMs = (System.nanoTime() - startNs) / 1_000_000;
        assertTrue(elapsedMs >= 1500 && elapsedMs < 20_000, elapsedMs + " ms");
        assertTrue(result.timedOut());
        assertEquals(JobLauncher.TIMEOUT_EXIT_CODE, result.exitCode());
        assertTrue(result.failedRank().isEmpty());
        assertEquals("job " + launcher.jobId() + " timed out after 1.5 s", result.summary().get(0));
        assertTrue(result.exits().stream().allMatch(RankExit::stoppedByLauncher), result.exits().toString());
        assertSegmentRemoved(segment);
    }

    @Test
    void interruptingTheLaunchingThreadStopsTheJob() throws Exception
    {
        final JobLauncher launcher = launcher(2, "sleep").build();
        final Path segment = createDummySegment(launcher);
        final AtomicReference<JobResult> result = new AtomicReference<>();
        final AtomicBoolean interruptKept = new AtomicBoolean();
        final Thread thread = new Thread(() ->
        {
            result.set(launcher.run());
            interruptKept.set(Thread.currentThread().isInterrupted());
        });
        thread.start();
        TimeUnit.MILLISECONDS.sleep(500);

        thread.interrupt();
        thread.join(Duration.ofSeconds(20));

        assertFalse(thread.isAlive(), "the launcher did not return");
        assertEquals(JobLauncher.INTERRUPTED_EXIT_CODE, result.get().exitCode());
        assertEquals("job " + launcher.jobId() + " interrupted", result.get().summary().get(0));
        assertTrue(result.get().exits().stream().allMatch(RankExit::stoppedByLauncher), result.get().toString());
        assertTrue(interruptKept.get(), "the interrupt status was swallowed");
        assertSegmentRemoved(segment);
    }

    @Test
    void rankThatCannotStartIsReportedAndNothingIsLeftBehind() throws IOException
    {
        final JobLauncher launcher = launcher(2, "hello").javaExecutable(shmDir.resolve("no-such-java")).build();
        final Path segment = createDummySegment(launcher);

        final RuntimeException ex = assertThrows(RuntimeException.class, launcher::run);

        assertTrue(ex.getMessage().contains("cannot start rank 0"), ex.getMessage());
        assertSegmentRemoved(segment);
    }

    @Test
    void describesExitCodesAndSignals()
    {
        assertEquals("rank 2 exited with code 1", new RankExit(2, 1, false).describe());
        assertEquals("rank 1 killed by signal 9 (SIGKILL)", new RankExit(1, 137, false).describe());
        assertEquals("rank 0 stopped by jccl (SIGTERM)", new RankExit(0, 143, true).describe());
        assertEquals("rank 0 exited with code 1", new RankExit(0, 1, true).describe());
        assertEquals("killed by signal 11 (SIGSEGV)", RankExit.describeExitCode(139));
        assertEquals("killed by signal 40 (signal 40)", RankExit.describeExitCode(168));
    }

    @Test
    void rejectsBadSettings()
    {
        assertThrows(IllegalArgumentException.class, () -> JobLauncher.builder().mainClass("x.Y").build());
        assertThrows(IllegalArgumentException.class, () -> JobLauncher.builder().ranks(2).build());
        assertThrows(IllegalArgumentException.class,
            () -> JobLauncher.builder().ranks(2).mainClass("x.Y").jobId("no/slashes").build());
        assertThrows(IllegalArgumentException.class,
            () -> JobLauncher.builder().ranks(2).jar(shmDir.resolve("missing.jar")).build());
    }

    private JobLauncher.Builder launcher(final int ranks, final String... args)
    {
        return JobLauncher.builder()
            .ranks(ranks)
            .mainClass(TestRank.class.getName())
            .args(args)
            .jvmArgs(FAST_JVM)
            .shmDir(shmDir)
            .stopGrace(Duration.ofSeconds(5))
            .outputSink(OutputSink.discard())
            .captureOutput(true);
    }

    /** This JVM's class path with every directory in it replaced by a jar of its files (archives take jars only). */
    private static String jarredClassPath(final Path jars) throws IOException
    {
        final List<String> entries = new ArrayList<>();
        for (final String entry : System.getProperty("java.class.path").split(File.pathSeparator))
        {
            final Path path = Path.of(entry);
            if (!Files.isDirectory(path))
            {
                entries.add(entry);
                continue;
            }
            final Path jar = jars.resolve(entries.size() + ".jar");
            try (JarOutputStream out = new JarOutputStream(Files.newOutputStream(jar));
                Stream<Path> files = Files.walk(path))
            {
                for (final Path file : files.filter(Files::isRegularFile).sorted().toList())
                {
                    out.putNextEntry(new JarEntry(path.relativize(file).toString().replace(File.separatorChar, '/')));
                    Files.copy(file, out);
                    out.closeEntry();
                }
            }
            entries.add(jar.toString());
        }
        return String.join(File.pathSeparator, entries);
    }

    /** Stands in for the segment the ranks would create, and its half-created twin. */
    private static Path createDummySegment(final JobLauncher launcher) throws IOException
    {
        final Path segment = launcher.segmentPath();
        Files.write(segment, new byte[4096]);
        Files.write(segment.resolveSibling(segment.getFileName() + ".creating"), new byte[64]);
        return segment;
    }

    private static void assertSegmentRemoved(final Path segment)
    {
        assertFalse(Files.exists(segment), segment + " left behind");
        assertFalse(Files.exists(segment.resolveSibling(segment.getFileName() + ".creating")),
            segment + ".creating left behind");
    }
}
