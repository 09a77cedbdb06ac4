package io.jccl.jmh;

import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.Param;

/** Scatter from rank 0; {@code bytes} is the scattered input (ranks blocks). */
public class ScatterBenchmark extends SizedBenchmark
{
    /** "default" (jccl's selector chooses) or one of scatter's algorithms: they match the registry (tested). */
    @Param({"default", "linear", "binomial"})
    public String algorithm;

    @Override
    protected String operation()
    {
        return "scatter";
    }

    @Override
    protected String algorithm()
    {
        return algorithm;
    }

    @Benchmark
    @OperationsPerInvocation(LockstepJob.OPS_PER_INVOCATION)
    public void scatter()
    {
        invoke();
    }
}
