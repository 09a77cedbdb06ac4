package io.jccl.spi;

import io.jccl.DataType;
import io.jccl.ReduceOp;
import org.agrona.BufferUtil;

import java.lang.management.ManagementFactory;
import java.lang.ref.Reference;
import java.lang.management.ThreadMXBean;
import java.nio.ByteBuffer;
import java.util.Locale;

/**
 * Throughput of {@link Reductions#reduce} in GB/s of one input per second (the figure limits.c prints per output
 * byte), for several memory kinds, best of a few rounds by wall clock and by this thread's CPU time (which a
 * machine shared with other jobs disturbs less). A standalone main, not a test: run it on a quiet machine, e.g.
 * {@code java --add-exports java.base/jdk.internal.misc=ALL-UNNAMED -cp core/target/classes:core/target/test-classes:
 * agrona.jar io.jccl.spi.ReductionsBenchmark [type [op [bytes,bytes,...]]]}.
 */
public final class ReductionsBenchmark
{
    private static final String SIZES = "65536,1048576,16777216";
    private static final int ROUNDS = 5;
    /** Not a constant, so that C2 cannot fold the division. */
    private static int divisor = 3;
    private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();

    private ReductionsBenchmark()
    {
    }

    public static void main(final String[] args)
    {
        final DataType[] types = args.length > 0 ?
            new DataType[] {DataType.parse(args[0])} :
            new DataType[] {DataType.FLOAT32, DataType.BFLOAT16, DataType.INT32};
        final ReduceOp op = args.length > 1 ? ReduceOp.parse(args[1]) : ReduceOp.SUM;
        final String[] sizes = (args.length > 2 ? args[2] : SIZES).split(",");
        System.out.println("type,op,bytes,memory,GBps_wall,GBps_cpu");
        for (final DataType type : types)
        {
            for (final String bytes : sizes)
            {
                run(type, op, Integer.parseInt(bytes.trim()));
            }
        }
    }

    private static void run(final DataType type, final ReduceOp op, final int bytes)
    {
        final long count = bytes / type.size();
        final Object a = array(type, count);
        final Object b = array(type, count);
        final Object d = array(type, count);
        final long base = Reductions.arrayBase(type);
        final ByteBuffer offA = BufferUtil.allocateDirectAligned(bytes, 64);
        final ByteBuffer offB = BufferUtil.allocateDirectAligned(bytes, 64);
        final ByteBuffer offD = BufferUtil.allocateDirectAligned(bytes, 64);
        final ByteBuffer offIdentity = BufferUtil.allocateDirectAligned(bytes, 64);
        final long pa = BufferUtil.address(offA);
        final long pb = BufferUtil.address(offB);
        final long pd = BufferUtil.address(offD);
        final long pi = BufferUtil.address(offIdentity);
        // in-place rows add the identity, so that repeated runs neither overflow nor reach slow special values
        final double identity = op == ReduceOp.PROD ? 1 : 0;
        for (long i = 0; i < count; i++)
        {
            Elements.put(type, a, base, i, 1 + (i % 7));
            Elements.put(type, b, base, i, 2 + (i % 5));
            Elements.put(type, null, pa, i, 1 + (i % 7));
            Elements.put(type, null, pb, i, 2 + (i % 5));
            Elements.put(type, null, pi, i, identity);
        }

        report(type, op, bytes, "heap c=a+b", () -> Reductions.reduce(type, op, a, base, b, base, d, base, count));
        report(type, op, bytes, "off-heap c=a+b",
            () -> Reductions.reduce(type, op, null, pa, null, pb, null, pd, count));
        report(type, op, bytes, "off-heap a+=b",
            () -> Reductions.reduce(type, op, null, pa, null, pi, null, pa, count));
        report(type, op, bytes, "mixed heap+=off-heap",
            () -> Reductions.reduce(type, op, null, pi, d, base, d, base, count));
        report(type, op, bytes, "mixed off-heap=heap+off-heap",
            () -> Reductions.reduce(type, op, a, base, null, pb, null, pd, count));
        if (op == ReduceOp.AVG)
        {
            report(type, op, bytes, "divide heap", () -> Reductions.divide(type, d, base, count, divisor));
            report(type, op, bytes, "divide off-heap", () -> Reductions.divide(type, null, pd, count, divisor));
        }
        // the kernels only see addresses: keep the buffers alive until here
        Reference.reachabilityFence(offA);
        Reference.reachabilityFence(offB);
        Reference.reachabilityFence(offD);
        Reference.reachabilityFence(offIdentity);
    }

    private static void report(final DataType type, final ReduceOp op, final int bytes, final String memory,
        final Runnable kernel)
    {
        final int reps = Math.max(4, (int)((1L << 30) / bytes));
        double bestWall = 0;
        double bestCpu = 0;
        for (int round = 0; round < ROUNDS; round++)
        {
            final long startCpu = THREADS.getCurrentThreadCpuTime();
            final long start = System.nanoTime();
            for (int r = 0; r < reps; r++)
            {
                kernel.run();
            }
            final long wall = System.nanoTime() - start;
            final long cpu = THREADS.getCurrentThreadCpuTime() - startCpu;
            bestWall = Math.max(bestWall, (double)bytes * reps / wall);
            bestCpu = Math.max(bestCpu, (double)bytes * reps / cpu);
        }
        System.out.printf(Locale.ROOT, "%s,%s,%d,%s,%.2f,%.2f%n", type.label(), op.label(), bytes, memory, bestWall,
            bestCpu);
    }

    private static Object array(final DataType type, final long count)
    {
        final int n = (int)count;
        return switch (type)
        {
            case INT8, UINT8 -> new byte[n];
            case INT32, UINT32 -> new int[n];
            case INT64, UINT64 -> new long[n];
            case FLOAT16, BFLOAT16 -> new short[n];
            case FLOAT32 -> new float[n];
            case FLOAT64 -> new double[n];
        };
    }
}
