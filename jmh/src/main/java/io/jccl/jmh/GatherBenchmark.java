package io.jccl.jmh;

import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.Param;

/** Gather to rank 0; {@code bytes} is the gathered output (ranks blocks). */
public class GatherBenchmark extends SizedBenchmark
{
    /** "default" (jccl's selector chooses) or one of gather's algorithms: they match the registry (tested). */
    @Param({"default", "linear", "binomial"})
    public String algorithm;

    @Override
    protected String operation()
    {
        return "gather";
    }

    @Override
    protected String algorithm()
    {
        return algorithm;
    }

    @Benchmark
    @OperationsPerInvocation(LockstepJob.OPS_PER_INVOCATION)
    public void gather()
    {
        invoke();
    }
}
