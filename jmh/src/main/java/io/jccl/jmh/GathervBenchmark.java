package io.jccl.jmh;

import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.Param;

/** Gatherv with equal counts, to rank 0; {@code bytes} is the gathered output (ranks blocks). */
public class GathervBenchmark extends SizedBenchmark
{
    /** "default" (jccl's selector chooses) or one of gatherv's algorithms: they match the registry (tested). */
    @Param({"default", "linear"})
    public String algorithm;

    @Override
    protected String operation()
    {
        return "gatherv";
    }

    @Override
    protected String algorithm()
    {
        return algorithm;
    }

    @Benchmark
    @OperationsPerInvocation(LockstepJob.OPS_PER_INVOCATION)
    public void gatherv()
    {
        invoke();
    }
}
