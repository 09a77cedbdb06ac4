package io.jccl.jmh;

import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.Param;

/** Allgatherv with equal counts; {@code bytes} is the gathered output (ranks blocks). */
public class AllgathervBenchmark extends SizedBenchmark
{
    /** "default" (jccl's selector chooses) or one of allgatherv's algorithms: they match the registry (tested). */
    @Param({"default", "shm_ll", "shm_direct", "shm_single_copy", "ring"})
    public String algorithm;

    @Override
    protected String operation()
    {
        return "allgatherv";
    }

    @Override
    protected String algorithm()
    {
        return algorithm;
    }

    @Benchmark
    @OperationsPerInvocation(LockstepJob.OPS_PER_INVOCATION)
    public void allgatherv()
    {
        invoke();
    }
}
