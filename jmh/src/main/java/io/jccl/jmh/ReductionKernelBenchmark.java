package io.jccl.jmh;

import io.jccl.Buf;
import io.jccl.DataType;
import io.jccl.ReduceOp;
import io.jccl.spi.Reductions;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

import org.agrona.UnsafeApi;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.concurrent.TimeUnit;

/**
 * The reduction kernels alone, in one JVM: {@code c = a op b} over {@code bytes} of output, the loop every reducing
 * collective runs. Compare with {@code ../shared/peers/limits.c} in the same session ("reduce c=a+b GB/s per output
 * byte"): 256 KiB stays in cache, 64 MiB streams from DRAM. {@code memory=direct} is off-heap memory as in the job
 * segment (what the shared-memory algorithms reduce); {@code heap} is Java arrays (what applications pass). With
 * {@code -prof io.jccl.jmh.BandwidthProfiler}, {@code ·algbw} is output bytes per second.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Fork(value = 1, jvmArgsPrepend = {"--add-exports=java.base/jdk.internal.misc=ALL-UNNAMED",
    "--enable-native-access=ALL-UNNAMED", "--add-modules=jdk.incubator.vector"})
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
public class ReductionKernelBenchmark
{
    /** Output bytes: 256 KiB (cache) and 64 MiB (DRAM). */
    @Param({"262144", "67108864"})
    public long bytes;

    /** int8, int32, int64, float16, bfloat16, float32, float64, uint8, uint32, uint64. */
    @Param({"float32"})
    public String dtype;

    /** sum, prod, min, max, avg. */
    @Param({"sum"})
    public String op;

    /** direct (off-heap, as the job segment) or heap (Java arrays). */
    @Param({"direct", "heap"})
    public String memory;

    private DataType type;
    private ReduceOp reduceOp;
    private long count;
    private Buf a;
    private Buf b;
    private Buf c;

    @Setup
    public void setUp()
    {
        type = DataType.parse(dtype);
        reduceOp = ReduceOp.parse(op);
        count = bytes / type.size();
        a = operand();
        b = operand();
        c = operand();
    }

    @Benchmark
    public void kernel()
    {
        Reductions.reduce(type, reduceOp, a.base(), a.offset(), b.base(), b.offset(), c.base(), c.offset(), count);
    }

    /** A buffer of {@code count} ones of the type (ordinary numbers: no zeros or denormals), on the heap or off. */
    private Buf operand()
    {
        final Buf ones = Buffers.allocate(type, (int)count);
        return switch (memory)
        {
            case "heap" -> ones;
            case "direct" ->
            {
                final Buf direct = Buf.of(ByteBuffer.allocateDirect((int)bytes).order(ByteOrder.nativeOrder()), type);
                UnsafeApi.copyMemory(ones.base(), ones.offset(), direct.base(), direct.offset(), bytes);
                yield direct;
            }
            default -> throw new IllegalArgumentException("memory must be direct or heap, not " + memory);
        };
    }
}
