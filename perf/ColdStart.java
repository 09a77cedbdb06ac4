import io.jccl.Buf;
import io.jccl.Communicator;
import io.jccl.DataType;
import io.jccl.Jccl;
import io.jccl.ReduceOp;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Arrays;
import java.util.List;

/**
 * How a fresh job's first calls of one size go while the JIT compiles them: CALLS float32 sum allreduces of BYTES on
 * a heap array ("heap") or a direct buffer ("direct"), each call timed. Rank 0 prints the first call, the mean of
 * calls 2-10, 11-100, 101-1000 and the rest, the median of the last tenth, the first call from which 20 calls in a
 * row stay within twice that median, and the time spent until then.
 * <p>
 * Build and run from the repository (the rank JVMs need jccl's classes, which `./jccl` builds), from a jar so that
 * the ranks start from the launcher's class-data archive once it exists (a directory on the class path runs without;
 * so does {@code JCCL_CDS_DIR=off}):
 * <pre>
 *   ./jccl info >/dev/null; J=/usr/lib/jvm/temurin-25-jdk-amd64/bin
 *   $J/javac -cp core/target/classes -d /tmp/cold perf/ColdStart.java && $J/jar cf /tmp/cold.jar -C /tmp/cold .
 *   ./jccl run -n 2 --cp /tmp/cold.jar ColdStart 65536 5000 heap
 * </pre>
 */
public final class ColdStart
{
    public static void main(final String[] args)
    {
        final long bytes = args.length == 3 ? Long.parseLong(args[0]) : 0;
        final int calls = args.length == 3 ? Integer.parseInt(args[1]) : 0;
        if (bytes < 4 || bytes % 4 != 0 || calls < 100 || !List.of("heap", "direct").contains(args[2]))
        {
            System.err.println("usage: ColdStart BYTES CALLS heap|direct (BYTES a multiple of 4, CALLS at least 100)");
            System.exit(2);
        }
        final int count = (int)(bytes / 4);
        try (Communicator comm = Jccl.connect())
        {
            final Buf buf = "heap".equals(args[2]) ? Buf.of(new float[count]) :
                Buf.of(ByteBuffer.allocateDirect((int)bytes).order(ByteOrder.nativeOrder()), DataType.FLOAT32);
            final long[] nanos = new long[calls];
            final long begin = System.nanoTime();
            for (int i = 0; i < calls; i++)
            {
                final long start = System.nanoTime();
                comm.allreduce(buf, ReduceOp.SUM);
                nanos[i] = System.nanoTime() - start;
            }
            final long end = System.nanoTime();
            if (comm.rank() == 0)
            {
                final double[] last = new double[calls / 10];
                for (int i = 0; i < last.length; i++)
                {
                    last[i] = nanos[calls - last.length + i] / 1e3;
                }
                Arrays.sort(last);
                final double settled = last[last.length / 2];
                int warm = calls;
                for (int i = 0, run = 0; i < calls; i++)
                {
                    run = nanos[i] / 1e3 <= 2 * settled ? run + 1 : 0;
                    if (run == 20)
                    {
                        warm = i - 19;
                        break;
                    }
                }
                long before = 0;
                for (int i = 0; i < warm; i++)
                {
                    before += nanos[i];
                }
                final String laterCalls = (calls > 100 ? String.format(", 101-%d %.1f", Math.min(calls, 1000),
                    mean(nanos, 100, 1000)) : "") + (calls > 1000 ? String.format(", 1001-%d %.1f", calls,
                    mean(nanos, 1000, calls)) : "");
                System.out.printf("allreduce %d B %s, %d ranks: first %.0f µs; mean of 2-10 %.0f, 11-100 %.0f%s µs; " +
                    "last tenth's median %.1f µs; warm from call %d, after %.1f ms (all %d calls: %.1f ms)%n", bytes,
                    args[2], comm.size(), nanos[0] / 1e3, mean(nanos, 1, 10), mean(nanos, 10, 100), laterCalls,
                    settled, warm + 1, before / 1e6, calls, (end - begin) / 1e6);
            }
        }
    }

    /** Mean of {@code nanos[from, to)} in µs (NaN when the range is empty). */
    private static double mean(final long[] nanos, final int from, final int to)
    {
        final int until = Math.min(to, nanos.length);
        long sum = 0;
        for (int i = from; i < until; i++)
        {
            sum += nanos[i];
        }
        return until > from ? sum / 1e3 / (until - from) : Double.NaN;
    }
}
