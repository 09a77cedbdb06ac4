package io.jccl.jmh;

import org.openjdk.jmh.annotations.Param;

/**
 * A benchmark over message sizes and element types. Sizes follow nccl-tests ({@link Workload}): by default 8 B to
 * 32 MiB in ×4 steps, then 64 MiB; {@code -p bytes=1024,1048576} picks others.
 */
public abstract class SizedBenchmark extends JobBenchmark
{
    @Param({"8", "32", "128", "512", "2048", "8192", "32768", "131072", "524288", "2097152", "8388608", "33554432",
        "67108864"})
    public long bytes;

    /** Element type: int8, int32, int64, float16, bfloat16, float32, float64, uint8, uint32, uint64. */
    @Param({"float32"})
    public String dtype;

    /**
     * Where the buffers live: {@code heap} (Java arrays) or {@code shared} (symmetric memory from allocateShared, which
     * the shared-memory algorithms read in place).
     */
    @Param({Workload.HEAP})
    public String memory;

    /** The operation's name: a collective's label or {@code pingpong}. */
    protected abstract String operation();

    /** The algorithm parameter of the concrete benchmark: "default" or one of the collective's algorithms. */
    protected abstract String algorithm();

    @Override
    protected Workload workload()
    {
        return Workload.of(operation(), algorithm(), bytes, ranks, dtype, memory);
    }
}
