package io.jccl.jmh;

import io.jccl.launch.JobLauncher;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Threads;
import org.openjdk.jmh.annotations.Warmup;

import java.util.concurrent.TimeUnit;

/**
 * A benchmark on a job of {@code ranks} separate JVMs: the JMH fork is rank 0 and starts the others at the start of
 * the trial ({@link LockstepJob}). Each benchmark method is one JMH invocation of
 * {@link LockstepJob#OPS_PER_INVOCATION} operations on every rank, reported per operation in µs. Iterations last
 * 0.5 s: even at 64 MiB that is a few invocations, and the JVM starts (about 2 s per parameter combination) stay a
 * small part of a run.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 500, timeUnit = TimeUnit.MILLISECONDS)
@Measurement(iterations = 5, time = 500, timeUnit = TimeUnit.MILLISECONDS)
@Fork(value = 1, jvmArgsPrepend = {"--add-exports", "java.base/jdk.internal.misc=ALL-UNNAMED",
    "--enable-native-access=ALL-UNNAMED", "--add-modules", JobLauncher.VECTOR_MODULE,
    JobLauncher.QUIET_COMPILE_COMMANDS, JobLauncher.VECTOR_KERNELS_EARLY_JIT, JobLauncher.VECTOR_KERNELS_BLOCKING_JIT})
@Threads(1)
public abstract class JobBenchmark
{
    /** Ranks in the job, each a JVM: 2 by default, {@code -p ranks=4} or {@code -p ranks=8} for more. */
    @Param({"2"})
    public int ranks;

    private LockstepJob job;

    /** The operation every rank runs, from this benchmark's parameters. */
    protected abstract Workload workload();

    @Setup(Level.Trial)
    public void startJob()
    {
        job = LockstepJob.start(workload());
    }

    @TearDown(Level.Trial)
    public void stopJob()
    {
        final LockstepJob running = job;
        job = null;
        if (running != null)
        {
            running.close();
        }
    }

    /** One invocation: the operation {@link LockstepJob#OPS_PER_INVOCATION} times on every rank. */
    protected final void invoke()
    {
        job.invoke();
    }
}
