import io.jccl.Buf;
import io.jccl.Communicator;
import io.jccl.Jccl;
import io.jccl.ReduceOp;

import java.util.Arrays;
import java.util.concurrent.TimeUnit;

/**
 * What a non-blocking collective costs beyond the blocking one: blocks of CALLS 8-byte allreduces (float32 sum)
 * made blocking, as iallreduce(...).await() (the caller runs it), and as iallreduce(...).await(1, MINUTES) (a timed
 * await leaves it to the progress thread: a wake-up, its waits for the peers, the completion), alternating ROUNDS
 * times after a round of warm-up. Rank 0 prints the median of each form's blocks in µs per call.
 * <p>
 * Build and run from the repository (the rank JVMs need jccl's classes, which `./jccl` builds):
 * <pre>
 *   ./jccl info >/dev/null; J=/usr/lib/jvm/temurin-25-jdk-amd64/bin
 *   $J/javac -cp core/target/classes -d /tmp/nbrt perf/NonBlockingRoundTrip.java
 *   ./jccl run -n 2 --cp /tmp/nbrt NonBlockingRoundTrip 20000 15
 * </pre>
 */
public final class NonBlockingRoundTrip
{
    public static void main(final String[] args)
    {
        final int calls = args.length == 2 ? Integer.parseInt(args[0]) : 0;
        final int rounds = args.length == 2 ? Integer.parseInt(args[1]) : 0;
        if (calls < 1 || rounds < 1)
        {
            System.err.println("usage: NonBlockingRoundTrip CALLS ROUNDS (both at least 1)");
            System.exit(2);
        }
        try (Communicator comm = Jccl.connect())
        {
            final Buf buf = Buf.of(new float[2]);
            final double[] blocking = new double[rounds];
            final double[] nonBlocking = new double[rounds];
            final double[] timed = new double[rounds];
            for (int round = -1; round < rounds; round++)
            {
                comm.barrier();
                long start = System.nanoTime();
                for (int i = 0; i < calls; i++)
                {
                    comm.allreduce(buf, ReduceOp.SUM);
                }
                final double b = (System.nanoTime() - start) / 1e3 / calls;
                comm.barrier();
                start = System.nanoTime();
                for (int i = 0; i < calls; i++)
                {
                    comm.iallreduce(buf, ReduceOp.SUM).await();
                }
                final double n = (System.nanoTime() - start) / 1e3 / calls;
                comm.barrier();
                start = System.nanoTime();
                for (int i = 0; i < calls; i++)
                {
                    if (!comm.iallreduce(buf, ReduceOp.SUM).await(1, TimeUnit.MINUTES))
                    {
                        throw new IllegalStateException("an 8-byte iallreduce took over a minute");
                    }
                }
                final double t = (System.nanoTime() - start) / 1e3 / calls;
                if (round >= 0)
                {
                    blocking[round] = b;
                    nonBlocking[round] = n;
                    timed[round] = t;
                }
            }
            if (comm.rank() == 0)
            {
                System.out.printf("allreduce 8 B, %d ranks, medians of %d blocks of %d calls: blocking %.3f µs, " +
                    "iallreduce + await %.3f µs, iallreduce + timed await %.3f µs%n", comm.size(), rounds, calls,
                    median(blocking), median(nonBlocking), median(timed));
            }
        }
    }

    private static double median(final double[] values)
    {
        final double[] sorted = values.clone();
        Arrays.sort(sorted);
        final int m = sorted.length / 2;
        return sorted.length % 2 == 1 ? sorted[m] : (sorted[m - 1] + sorted[m]) / 2;
    }
}
