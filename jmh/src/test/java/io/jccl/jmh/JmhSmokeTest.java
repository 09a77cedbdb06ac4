package io.jccl.jmh;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.openjdk.jmh.results.Result;
import org.openjdk.jmh.results.RunResult;
import org.openjdk.jmh.runner.Runner;
import org.openjdk.jmh.runner.RunnerException;
import org.openjdk.jmh.runner.options.Options;
import org.openjdk.jmh.runner.options.OptionsBuilder;
import org.openjdk.jmh.runner.options.TimeValue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Collection;
import java.util.List;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * One tiny JMH run, as CI can afford it: allreduce of 1 KiB on 2 JVMs, one short warm-up and one short measurement
 * iteration. It must produce a sane time per operation and bandwidths, and leave no process or segment behind.
 */
@Timeout(60)
class JmhSmokeTest
{
    @TempDir
    Path shmDir;

    @Test
    void oneAllreduceBenchmarkRunsOnTwoJvmsAndLeavesNothingBehind() throws RunnerException, IOException
    {
        final Options options = new OptionsBuilder()
            .include(AllreduceBenchmark.class.getName() + ".allreduce$")
            .param("bytes", "1024")
            .param("ranks", "2")
            .param("algorithm", "default")
            .param("dtype", "float32")
            .forks(1)
            .warmupIterations(1)
            .warmupTime(TimeValue.milliseconds(300))
            .measurementIterations(1)
            .measurementTime(TimeValue.milliseconds(500))
            // the job's segment goes to a directory of its own; the peers get the setting too
            .jvmArgsAppend("-Djccl.shm.dir=" + shmDir, "-Xmx256m")
            .addProfiler(BandwidthProfiler.class)
            .shouldFailOnError(true)
            .build();

        final Collection<RunResult> results = new Runner(options).run();

        assertEquals(1, results.size());
        final RunResult result = results.iterator().next();
        assertEquals("1024", result.getParams().getParam("bytes"));
        assertEquals("2", result.getParams().getParam("ranks"));
        final Result<?> time = result.getPrimaryResult();
        assertEquals("us/op", time.getScoreUnit());
        // between 10 ns and 100 ms per 1 KiB allreduce, even on a crowded machine
        assertTrue(time.getScore() > 0.01 && time.getScore() < 100_000, "score " + time.getScore());
        final Result<?> algbw = result.getSecondaryResults().get("algbw");
        final Result<?> busbw = result.getSecondaryResults().get("busbw");
        assertEquals(1024 / time.getScore() / 1e3, algbw.getScore(), algbw.getScore() * 1e-6);
        assertEquals(algbw.getScore(), busbw.getScore(), algbw.getScore() * 1e-9, "2(p-1)/p = 1 on 2 ranks");

        assertNoPeerLeft();
        try (Stream<Path> files = Files.list(shmDir))
        {
            assertEquals(List.of(), files.toList(), "segments left");
        }
    }

    private void assertNoPeerLeft()
    {
        final List<ProcessHandle> left = ProcessHandle.allProcesses()
            .filter(p -> p.info().arguments().map(args -> Stream.of(args).anyMatch(a -> a.contains(shmDir.toString())))
                .orElse(false))
            .toList();
        assertEquals(List.of(), left, "processes of this run still alive");
    }
}
