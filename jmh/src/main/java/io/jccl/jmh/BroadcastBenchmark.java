package io.jccl.jmh;

import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.Param;

/** Broadcast of {@code bytes} from rank 0. */
public class BroadcastBenchmark extends SizedBenchmark
{
    /** "default" (jccl's selector chooses) or one of broadcast's algorithms: they match the registry (tested). */
    @Param({"default", "shm_ll", "shm_eager", "shm_direct", "shm_single_copy", "binomial", "chain",
        "scatter_allgather"})
    public String algorithm;

    @Override
    protected String operation()
    {
        return "broadcast";
    }

    @Override
    protected String algorithm()
    {
        return algorithm;
    }

    @Benchmark
    @OperationsPerInvocation(LockstepJob.OPS_PER_INVOCATION)
    public void broadcast()
    {
        invoke();
    }
}
