package io.jccl.jmh;

import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.Param;

/** Reduce-scatterv with equal counts, SUM; {@code bytes} is the input vector (ranks blocks). */
public class ReduceScattervBenchmark extends SizedBenchmark
{
    /** "default" (jccl's selector chooses) or one of reduce_scatterv's algorithms: they match the registry (tested). */
    @Param({"default", "shm_ll", "shm_direct", "shm_single_copy", "ring"})
    public String algorithm;

    @Override
    protected String operation()
    {
        return "reduce_scatterv";
    }

    @Override
    protected String algorithm()
    {
        return algorithm;
    }

    @Benchmark
    @OperationsPerInvocation(LockstepJob.OPS_PER_INVOCATION)
    public void reduceScatterv()
    {
        invoke();
    }
}
