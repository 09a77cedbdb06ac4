package io.jccl.jmh;

import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.Param;

/**
 * Point-to-point latency: rank 0 sends {@code bytes} to rank 1, which sends them back. The score is the one-way
 * latency, half a round trip: each invocation runs {@link LockstepJob#OPS_PER_INVOCATION} round trips and counts
 * twice as many operations. Runs on 2 ranks only.
 */
public class PingPongBenchmark extends SizedBenchmark
{
    /** Point-to-point has no algorithms to choose; the parameter is here so that every result names one. */
    @Param({"default"})
    public String algorithm;

    @Override
    protected String operation()
    {
        return Workload.PINGPONG;
    }

    @Override
    protected String algorithm()
    {
        return algorithm;
    }

    @Benchmark
    @OperationsPerInvocation(2 * LockstepJob.OPS_PER_INVOCATION)
    public void pingpong()
    {
        invoke();
    }
}
