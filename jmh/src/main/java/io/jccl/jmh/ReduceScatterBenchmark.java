package io.jccl.jmh;

import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.Param;

/** Reduce-scatter, SUM; {@code bytes} is the input vector (ranks blocks). */
public class ReduceScatterBenchmark extends SizedBenchmark
{
    /** "default" (jccl's selector chooses) or one of reduce_scatter's algorithms: they match the registry (tested). */
    @Param({"default", "shm_ll", "shm_direct", "shm_single_copy", "ring", "recursive_halving"})
    public String algorithm;

    @Override
    protected String operation()
    {
        return "reduce_scatter";
    }

    @Override
    protected String algorithm()
    {
        return algorithm;
    }

    @Benchmark
    @OperationsPerInvocation(LockstepJob.OPS_PER_INVOCATION)
    public void reduceScatter()
    {
        invoke();
    }
}
