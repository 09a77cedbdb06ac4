package io.jccl.it;

import io.jccl.launch.JobLauncher;
import io.jccl.launch.JobResult;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertTrue;

/** Launches test rank programs as real JVMs with this test's class path. */
final class Jobs
{
    private static final java.util.Map<String, Path> SEGMENTS = new java.util.concurrent.ConcurrentHashMap<>();

    private Jobs()
    {
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
        final JobLauncher.Builder builder = JobLauncher.builder()
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
