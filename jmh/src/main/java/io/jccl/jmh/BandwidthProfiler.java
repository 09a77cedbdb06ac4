package io.jccl.jmh;

import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.infra.BenchmarkParams;
import org.openjdk.jmh.infra.IterationParams;
import org.openjdk.jmh.profile.InternalProfiler;
import org.openjdk.jmh.results.AggregationPolicy;
import org.openjdk.jmh.results.IterationResult;
import org.openjdk.jmh.results.Result;
import org.openjdk.jmh.results.ScalarResult;

import java.util.Collection;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Adds nccl-tests' bandwidths to every iteration of the jccl benchmarks, as JMH secondary results
 * ({@code -prof io.jccl.jmh.BandwidthProfiler}): {@code ·algbw}, the {@code bytes} parameter divided by the time per
 * operation, and {@code ·busbw}, algbw times the collective's factor ({@link Workload#busFactor}): allreduce
 * 2(p-1)/p; allgather, reduce_scatter, alltoall, gather, scatter and their v forms (p-1)/p; broadcast, reduce and
 * pingpong 1. In GB/s (10^9 bytes per second), averaged over iterations; average-time mode only (the default).
 * Barrier, which moves no data, gets none. A benchmark without a {@code ranks} parameter (the reduction kernels) is
 * local: both are its bytes per second.
 */
public final class BandwidthProfiler implements InternalProfiler
{
    private static final double BYTES_PER_GB = 1e9;

    @Override
    public String getDescription()
    {
        return "jccl: algbw and busbw (GB/s, nccl-tests' definitions) of each iteration";
    }

    @Override
    public void beforeIteration(final BenchmarkParams benchmarkParams, final IterationParams iterationParams)
    {
        // nothing to start: the bandwidths come from the iteration's score
    }

    @Override
    public Collection<? extends Result> afterIteration(final BenchmarkParams benchmarkParams,
        final IterationParams iterationParams, final IterationResult result)
    {
        final String bytesParam = benchmarkParams.getParam("bytes");
        final String ranksParam = benchmarkParams.getParam("ranks");
        if (result.getRawPrimaryResults().isEmpty())
        {
            // the iteration failed: JMH reports why, and getPrimaryResult() would throw over it
            return List.of();
        }
        final Result<?> primary = result.getPrimaryResult();
        if (benchmarkParams.getMode() != Mode.AverageTime || bytesParam == null || primary == null)
        {
            return List.of();
        }
        final long bytes = Long.parseLong(bytesParam);
        final String benchmark = benchmarkParams.getBenchmark();
        final String operation = benchmark.substring(benchmark.lastIndexOf('.') + 1);
        final double busFactor = ranksParam == null ? 1.0 : Workload.busFactor(operation, Integer.parseInt(ranksParam));
        final double secondsPerOp = primary.getScore() / benchmarkParams.getTimeUnit().convert(1, TimeUnit.SECONDS);
        if (bytes == 0 || busFactor == 0 || !(secondsPerOp > 0))
        {
            return List.of();
        }
        final double algbw = bytes / secondsPerOp / BYTES_PER_GB;
        return List.of(
            new ScalarResult("algbw", algbw, "GB/s", AggregationPolicy.AVG),
            new ScalarResult("busbw", algbw * busFactor, "GB/s", AggregationPolicy.AVG));
    }
}
