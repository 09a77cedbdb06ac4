package io.jccl.jmh;

import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.Param;

/**
 * Barrier. It moves no data: {@code bytes} is always 0 (another value is refused) and there is no element type,
 * but the parameter is there so that every result has one.
 */
public class BarrierBenchmark extends JobBenchmark
{
    @Param({"0"})
    public long bytes;

    /** "default" (jccl's selector chooses) or one of barrier's algorithms: they match the registry (tested). */
    @Param({"default", "shm_flags", "dissemination"})
    public String algorithm;

    @Override
    protected Workload workload()
    {
        return Workload.of("barrier", algorithm, bytes, ranks, "int8");
    }

    @Benchmark
    @OperationsPerInvocation(LockstepJob.OPS_PER_INVOCATION)
    public void barrier()
    {
        invoke();
    }
}
