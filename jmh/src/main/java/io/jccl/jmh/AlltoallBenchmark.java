package io.jccl.jmh;

import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.Param;

/** Alltoall; {@code bytes} is one rank's send buffer (ranks blocks). */
public class AlltoallBenchmark extends SizedBenchmark
{
    /** "default" (jccl's selector chooses) or one of alltoall's algorithms: they match the registry (tested). */
    @Param({"default", "shm_ll", "shm_direct", "shm_single_copy", "pairwise", "bruck"})
    public String algorithm;

    @Override
    protected String operation()
    {
        return "alltoall";
    }

    @Override
    protected String algorithm()
    {
        return algorithm;
    }

    @Benchmark
    @OperationsPerInvocation(LockstepJob.OPS_PER_INVOCATION)
    public void alltoall()
    {
        invoke();
    }
}
