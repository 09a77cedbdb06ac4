package io.jccl.jmh;

import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.Param;

/** Allreduce of a vector of {@code bytes}, out of place, SUM. */
public class AllreduceBenchmark extends SizedBenchmark
{
    /** "default" (jccl's selector chooses) or one of allreduce's algorithms: they match the registry (tested). */
    @Param({"default", "shm_ll", "shm_oneshot", "shm_twoshot", "shm_single_copy", "shm_single_copy_twoshot", "ring",
        "recursive_doubling", "rabenseifner", "reduce_broadcast"})
    public String algorithm;

    @Override
    protected String operation()
    {
        return "allreduce";
    }

    @Override
    protected String algorithm()
    {
        return algorithm;
    }

    @Benchmark
    @OperationsPerInvocation(LockstepJob.OPS_PER_INVOCATION)
    public void allreduce()
    {
        invoke();
    }
}
