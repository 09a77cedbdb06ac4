package io.jccl.jmh;

import io.jccl.Collective;
import io.jccl.algorithms.AlgorithmRegistry;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.openjdk.jmh.annotations.Param;

import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** The algorithm lists of the benchmarks are compile-time constants: they must follow the registry. */
@Timeout(10)
class ParamListsTest
{
    private static final Map<Collective, Class<?>> BENCHMARKS = new EnumMap<>(Map.ofEntries(
        Map.entry(Collective.BARRIER, BarrierBenchmark.class),
        Map.entry(Collective.BROADCAST, BroadcastBenchmark.class),
        Map.entry(Collective.REDUCE, ReduceBenchmark.class),
        Map.entry(Collective.ALLREDUCE, AllreduceBenchmark.class),
        Map.entry(Collective.GATHER, GatherBenchmark.class),
        Map.entry(Collective.SCATTER, ScatterBenchmark.class),
        Map.entry(Collective.ALLGATHER, AllgatherBenchmark.class),
        Map.entry(Collective.ALLGATHERV, AllgathervBenchmark.class),
        Map.entry(Collective.GATHERV, GathervBenchmark.class),
        Map.entry(Collective.SCATTERV, ScattervBenchmark.class),
        Map.entry(Collective.REDUCE_SCATTER, ReduceScatterBenchmark.class),
        Map.entry(Collective.REDUCE_SCATTERV, ReduceScattervBenchmark.class),
        Map.entry(Collective.SCAN, ScanBenchmark.class),
        Map.entry(Collective.EXSCAN, ExscanBenchmark.class),
        Map.entry(Collective.ALLTOALL, AlltoallBenchmark.class),
        Map.entry(Collective.ALLTOALLV, AlltoallvBenchmark.class)));

    @Test
    void everyCollectiveHasABenchmark()
    {
        assertEquals(List.of(Collective.values()), List.copyOf(BENCHMARKS.keySet()));
    }

    @Test
    void algorithmParamsAreDefaultThenTheRegistryInOrder() throws ReflectiveOperationException
    {
        final List<String> mismatches = new ArrayList<>();
        for (final Map.Entry<Collective, Class<?>> e : BENCHMARKS.entrySet())
        {
            final List<String> expected = new ArrayList<>();
            expected.add(Workload.DEFAULT_ALGORITHM);
            expected.addAll(AlgorithmRegistry.instance().of(e.getKey()).keySet());
            final List<String> actual =
                List.of(e.getValue().getField("algorithm").getAnnotation(Param.class).value());
            if (!expected.equals(actual))
            {
                mismatches.add(e.getValue().getSimpleName() + " lists " + actual + ", the registry has " + expected);
            }
        }
        assertEquals(List.of(), mismatches, "each @Param algorithm must list \"default\" and then the " +
            "collective's algorithms in registry order");
    }

    @Test
    void defaultSizesRunFrom8BytesTo64MiB() throws ReflectiveOperationException
    {
        final List<Long> sizes = new ArrayList<>();
        for (final String value : SizedBenchmark.class.getField("bytes").getAnnotation(Param.class).value())
        {
            sizes.add(Long.parseLong(value));
        }
        assertEquals(8L, sizes.get(0));
        for (int i = 1; i < sizes.size() - 1; i++)
        {
            assertEquals(sizes.get(i - 1) * 4, sizes.get(i));
        }
        assertEquals(64L << 20, sizes.get(sizes.size() - 1));
    }
}
