package io.jccl.jmh;

import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.Param;

/** Exclusive scan of a vector of {@code bytes}, out of place, SUM. */
public class ExscanBenchmark extends SizedBenchmark
{
    /** "default" (jccl's selector chooses) or one of exscan's algorithms: they match the registry (tested). */
    @Param({"default", "shm_ll", "recursive_doubling", "chain"})
    public String algorithm;

    @Override
    protected String operation()
    {
        return "exscan";
    }

    @Override
    protected String algorithm()
    {
        return algorithm;
    }

    @Benchmark
    @OperationsPerInvocation(LockstepJob.OPS_PER_INVOCATION)
    public void exscan()
    {
        invoke();
    }
}
