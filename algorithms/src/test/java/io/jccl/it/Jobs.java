package io.jccl.it;

import io.jccl.launch.JobLauncher;
import io.jccl.launch.JobResult;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertTrue;

/** Launches test rank programs as real JVMs with this test's class path. */
final class Jobs
{
    private static final java.util.Map<String, Path> SEGMENTS = new java.util.concurrent.ConcurrentHashMap<>();

    private Jobs()
    {
    }

    /**
     * Starts a job's builder with this test JVM's class path, its directories (this module's classes and test classes)
     * packed into jars, and a directory of class-data archives of this JVM's own: so that test ranks, as the ranks of
     * {@code ./jccl run} do, start from an archive from their JVM arguments' second job on, which
     * {@code ClassDataArchive} allows only for a class path of jars. That halves what a rank's start costs (a 2-rank
     * job with the suite's flags: connect 260-365 ms and 390-460 ms of CPU a rank, against 540-610 and 630-730
     * without), and the suite starts some 700 ranks on 2 cores.
     */
    static JobLauncher.Builder builder()
    {
        final JobLauncher.Builder builder = JobLauncher.builder();
        final RankClassPath jars = RankClassPath.INSTANCE;
        return jars == null ? builder : builder.classPath(jars.classPath).classDataArchives(jars.archives);
    }

    /** The class path of {@link #builder()}: made once per test JVM, deleted at its exit; null when it cannot be. */
    private static final class RankClassPath
    {
        static final RankClassPath INSTANCE = make();

        final String classPath;
        final Path archives;

        private RankClassPath(final String classPath, final Path archives)
        {
            this.classPath = classPath;
            this.archives = archives;
        }

        private static RankClassPath make()
        {
            try
            {
                final Path dir = Files.createTempDirectory("jccl-test-ranks");
                Runtime.getRuntime().addShutdownHook(new Thread(() -> deleteTree(dir)));
                final List<String> entries = new ArrayList<>();
                int jars = 0;
                for (final String entry : System.getProperty("java.class.path").split(File.pathSeparator))
                {
                    final Path path = Path.of(entry);
                    if (Files.isDirectory(path))
                    {
                        final Path jar = dir.resolve("classes-" + jars++ + ".jar");
                        pack(path, jar);
                        entries.add(jar.toString());
                    }
                    else
                    {
                        entries.add(entry);
                    }
                }
                return new RankClassPath(String.join(File.pathSeparator, entries),
                    Files.createDirectory(dir.resolve("cds")));
            }
            catch (final IOException | UncheckedIOException ex)
            {
                return null;
            }
        }

        private static void pack(final Path directory, final Path jar) throws IOException
        {
            try (JarOutputStream out = new JarOutputStream(Files.newOutputStream(jar));
                Stream<Path> files = Files.walk(directory))
            {
                for (final Path file : (Iterable<Path>) files.filter(Files::isRegularFile).sorted()::iterator)
                {
                    out.putNextEntry(new JarEntry(directory.relativize(file).toString().replace(File.separatorChar,
                        '/')));
                    Files.copy(file, out);
                    out.closeEntry();
                }
            }
        }

        private static void deleteTree(final Path dir)
        {
            try (Stream<Path> files = Files.walk(dir))
            {
                files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
            }
            catch (final IOException | UncheckedIOException ex)
            {
                // a temporary directory left behind: nothing a test can do about it at exit
            }
        }
    }

    /** Runs {@code main} on {@code ranks} JVMs; {@code env} entries are NAME=VALUE. */
    static JobResult launch(final int ranks, final Class<?> main, final List<String> args, final List<String> env)
    {
        return launch(ranks, main, args, env, List.of("-Xmx512m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1"),
            Duration.ofSeconds(90));
    }

    /**
     * As {@link #launch(int, Class, List, List)} with these JVM options (e.g. C2 for compute-heavy ranks) and job
     * timeout.
     */
    static JobResult launch(final int ranks, final Class<?> main, final List<String> args, final List<String> env,
        final List<String> jvmArgs, final Duration timeout)
    {
        final JobLauncher.Builder builder = builder()
            .ranks(ranks)
            .mainClass(main.getName())
            .args(args)
            .jvmArgs(jvmArgs)
            .captureOutput(true)
            .timeout(timeout);
        for (final String e : env)
        {
            final int eq = e.indexOf('=');
            builder.environment(e.substring(0, eq), e.substring(eq + 1));
        }
        final JobLauncher launcher = builder.build();
        final JobResult result = launcher.run();
        SEGMENTS.put(result.jobId(), launcher.segmentPath());
        return result;
    }

    static Path segment(final JobResult result)
    {
        return SEGMENTS.get(result.jobId());
    }

    static void assertSucceeded(final JobResult result)
    {
        assertTrue(result.succeeded(), () -> "job failed: " + String.join("\n", result.summary()) + "\n" +
            allOutput(result));
    }

    /**
     * The job succeeded and every rank printed "OK {@code scenario} rank R", which the rank programs print once all
     * their checks held.
     */
    static void assertEveryRankFinished(final JobResult result, final String scenario)
    {
        assertSucceeded(result);
        for (int r = 0; r < result.exits().size(); r++)
        {
            final int rank = r;
            assertTrue(result.output(r).stream().anyMatch(l -> l.contains("OK " + scenario + " rank " + rank)),
                () -> "rank " + rank + " did not finish: " + result.output(rank));
        }
    }

    static String allOutput(final JobResult result)
    {
        final StringBuilder sb = new StringBuilder();
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
