package io.jccl.jmh;

import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.Param;

/** Reduce of a vector of {@code bytes} to rank 0, SUM. */
public class ReduceBenchmark extends SizedBenchmark
{
    /** "default" (jccl's selector chooses) or one of reduce's algorithms: they match the registry (tested). */
    @Param({"default", "shm_direct", "shm_single_copy", "binomial"})
    public String algorithm;

    @Override
    protected String operation()
    {
        return "reduce";
    }

    @Override
    protected String algorithm()
    {
        return algorithm;
    }

    @Benchmark
    @OperationsPerInvocation(LockstepJob.OPS_PER_INVOCATION)
    public void reduce()
    {
        invoke();
    }
}
