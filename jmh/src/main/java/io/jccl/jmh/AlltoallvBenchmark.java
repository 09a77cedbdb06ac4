package io.jccl.jmh;

import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.Param;

/** Alltoallv with equal counts; {@code bytes} is one rank's send buffer (ranks blocks). */
public class AlltoallvBenchmark extends SizedBenchmark
{
    /** "default" (jccl's selector chooses) or one of alltoallv's algorithms: they match the registry (tested). */
    @Param({"default", "pairwise"})
    public String algorithm;

    @Override
    protected String operation()
    {
        return "alltoallv";
    }

    @Override
    protected String algorithm()
    {
        return algorithm;
    }

    @Benchmark
    @OperationsPerInvocation(LockstepJob.OPS_PER_INVOCATION)
    public void alltoallv()
    {
        invoke();
    }
}
