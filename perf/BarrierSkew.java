import io.jccl.Buf;
import io.jccl.Communicator;
import io.jccl.Jccl;
import io.jccl.ReduceOp;

import java.util.Arrays;

/**
 * What one collective costs right after a barrier, as a program that synchronises and then calls sees it: PASSES
 * passes (default 1) of ROUNDS rounds of a barrier and one float32 sum allreduce of BYTES, after 3,000 untimed
 * allreduces. Every rank stamps its barrier exit and its allreduce's end with System.nanoTime, one clock for all the
 * machine's processes, and an allgather brings the stamps to rank 0. At the end rank 0 prints, for passes 1-10, 20,
 * 50, 100, 200, 500, ... and the last, p10/p50/p90/max of the barrier's exit skew (last exit − first), of the call
 * from the first exit (what a timer around the call sees at worst) and from the last, and how many rounds took over a
 * millisecond from the last exit; then the call from the last exit over the second half of the passes. The first
 * passes show the JIT compiling the loop's paths (its compiler threads hold a core for up to a scheduler tick while a
 * rank waits for it), the second half the warm library. {@code barrier-skew.c} is the same program for the MPI
 * libraries.
 * <p>
 * Build and run from the repository (the rank JVMs need jccl's classes, which `./jccl` builds):
 * <pre>
 *   ./jccl info >/dev/null; J=/usr/lib/jvm/temurin-25-jdk-amd64/bin
 *   $J/javac -cp core/target/classes -d /tmp/skew perf/BarrierSkew.java
 *   ./jccl run -n 4 --cp /tmp/skew BarrierSkew 65536 1001 300
 * </pre>
 */
public final class BarrierSkew
{
    public static void main(final String[] args)
    {
        final boolean twoOrThree = args.length == 2 || args.length == 3;
        final int bytes = twoOrThree ? Integer.parseInt(args[0]) : 0;
        final int rounds = twoOrThree ? Integer.parseInt(args[1]) : 0;
        final int passes = args.length == 3 ? Integer.parseInt(args[2]) : 1;
        if (bytes < 4 || bytes % 4 != 0 || rounds < 10 || passes < 1)
        {
            System.err.println("usage: BarrierSkew BYTES ROUNDS [PASSES] (BYTES a multiple of 4, ROUNDS at least 10, " +
                "PASSES at least 1)");
            System.exit(2);
        }
        try (Communicator comm = Jccl.connect())
        {
            final int p = comm.size();
            final Buf buf = Buf.of(new float[bytes / 4]);
            for (int i = 0; i < 3000; i++)
            {
                comm.allreduce(buf, ReduceOp.SUM);
            }
            final long[] mine = new long[2];
            final long[] all = new long[2 * p];
            final Buf mineBuf = Buf.of(mine);
            final Buf allBuf = Buf.of(all);
            // every round's figures are kept and printed at the end: formatting them between passes would set the
            // JIT compiling while the next pass runs
            final double[] skew = new double[passes * rounds];
            final double[] fromFirst = new double[passes * rounds];
            final double[] fromLast = new double[passes * rounds];
            final long[] passNanos = new long[passes];
            for (int pass = 0; pass < passes; pass++)
            {
                final long start = System.nanoTime();
                for (int r = pass * rounds; r < (pass + 1) * rounds; r++)
                {
                    comm.barrier();
                    mine[0] = System.nanoTime();
                    comm.allreduce(buf, ReduceOp.SUM);
                    mine[1] = System.nanoTime();
                    comm.allgather(mineBuf, allBuf);
                    long firstExit = Long.MAX_VALUE;
                    long lastExit = Long.MIN_VALUE;
                    long lastEnd = Long.MIN_VALUE;
                    for (int k = 0; k < p; k++)
                    {
                        firstExit = Math.min(firstExit, all[2 * k]);
                        lastExit = Math.max(lastExit, all[2 * k]);
                        lastEnd = Math.max(lastEnd, all[2 * k + 1]);
                    }
                    skew[r] = (lastExit - firstExit) / 1e3;
                    fromFirst[r] = (lastEnd - firstExit) / 1e3;
                    fromLast[r] = (lastEnd - lastExit) / 1e3;
                }
                passNanos[pass] = System.nanoTime() - start;
            }
            if (comm.rank() == 0)
            {
                for (int pass = 0; pass < passes; pass++)
                {
                    if (shown(pass + 1) || pass == passes - 1)
                    {
                        final int from = pass * rounds;
                        final int to = from + rounds;
                        System.out.printf("pass %d, %d ranks, %d B, %.0f ms: barrier exit skew %s; call from the " +
                            "first exit %s; from the last exit %s (p10/p50/p90/max µs); %d rounds over 1 ms%n",
                            pass + 1, p, bytes, passNanos[pass] / 1e6, pct(skew, from, to), pct(fromFirst, from, to),
                            pct(fromLast, from, to), over(fromLast, from, to, 1000));
                    }
                }
                final int summarised = passes / 2;
                if (summarised > 0)
                {
                    final double[] s = Arrays.copyOfRange(fromLast, (passes - summarised) * rounds, passes * rounds);
                    Arrays.sort(s);
                    System.out.printf("passes %d-%d, %d rounds: call from the last exit p50 %.1f, p99 %.1f, " +
                        "p99.9 %.0f, max %.0f µs; %d rounds over 1 ms%n", passes - summarised + 1, passes, s.length,
                        s[s.length / 2], s[(int)(s.length * 0.99)], s[(int)(s.length * 0.999)], s[s.length - 1],
                        over(s, 0, s.length, 1000));
                }
            }
        }
    }

    /** Passes 1-10, then 20, 50, 100, 200, 500, ...: the warm-up in a few lines. */
    private static boolean shown(final int pass)
    {
        int decade = 1;
        while (pass >= 10 * decade)
        {
            decade *= 10;
        }
        return pass <= 10 || pass == decade || pass == 2 * decade || pass == 5 * decade;
    }

    private static int over(final double[] v, final int from, final int to, final double limit)
    {
        int n = 0;
        for (int i = from; i < to; i++)
        {
            n += v[i] > limit ? 1 : 0;
        }
        return n;
    }

    private static String pct(final double[] v, final int from, final int to)
    {
        final double[] s = Arrays.copyOfRange(v, from, to);
        Arrays.sort(s);
        return String.format("%.1f/%.1f/%.1f/%.0f", s[s.length / 10], s[s.length / 2], s[s.length * 9 / 10],
            s[s.length - 1]);
    }
}
