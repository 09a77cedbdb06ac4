package io.jccl.jmh;

import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.Param;

/** Allgather; {@code bytes} is the gathered output (ranks blocks). */
public class AllgatherBenchmark extends SizedBenchmark
{
    /** "default" (jccl's selector chooses) or one of allgather's algorithms: they match the registry (tested). */
    @Param({"default", "shm_ll", "shm_direct", "shm_single_copy", "ring", "recursive_doubling", "bruck"})
    public String algorithm;

    @Override
    protected String operation()
    {
        return "allgather";
    }

    @Override
    protected String algorithm()
    {
        return algorithm;
    }

    @Benchmark
    @OperationsPerInvocation(LockstepJob.OPS_PER_INVOCATION)
    public void allgather()
    {
        invoke();
    }
}
