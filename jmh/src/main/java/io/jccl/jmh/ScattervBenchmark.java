package io.jccl.jmh;

import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.Param;

/** Scatterv with equal counts, from rank 0; {@code bytes} is the scattered input (ranks blocks). */
public class ScattervBenchmark extends SizedBenchmark
{
    /** "default" (jccl's selector chooses) or one of scatterv's algorithms: they match the registry (tested). */
    @Param({"default", "linear"})
    public String algorithm;

    @Override
    protected String operation()
    {
        return "scatterv";
    }

    @Override
    protected String algorithm()
    {
        return algorithm;
    }

    @Benchmark
    @OperationsPerInvocation(LockstepJob.OPS_PER_INVOCATION)
    public void scatterv()
    {
        invoke();
    }
}
