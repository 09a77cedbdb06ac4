import io.jccl.Buf;
import io.jccl.Communicator;
import io.jccl.DataType;
import io.jccl.Jccl;
import io.jccl.ReduceOp;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;

/**
 * Small calls compared at one pace of the machine: blocks of CALLS barriers, 8-byte allreduces (float32 sum) and
 * allgathers of 4 bytes a rank alternate in one job, ROUNDS times after a round of warm-up. Each rank prints, per
 * operation, the median of its blocks' µs per call, the median of each block's time above the barrier block of its
 * round, and the context switches per call of its thread (/proc/thread-self/status). Block-to-block differences in
 * one job are steadier than times compared across jobs on a VM whose pace flips within minutes.
 * <p>
 * Build and run from the repository (the rank JVMs need jccl's classes, which `./jccl` builds):
 * <pre>
 *   ./jccl info >/dev/null; J=/usr/lib/jvm/temurin-25-jdk-amd64/bin
 *   $J/javac -cp core/target/classes -d /tmp/asc perf/AlternatingSmallCalls.java
 *   ./jccl run -n 4 --cp /tmp/asc AlternatingSmallCalls 20000 15
 * </pre>
 */
public final class AlternatingSmallCalls
{
    private static final String[] OPERATIONS = {"barrier", "allreduce", "allgather"};

    public static void main(final String[] args)
    {
        final int calls = args.length == 2 ? Integer.parseInt(args[0]) : 0;
        final int rounds = args.length == 2 ? Integer.parseInt(args[1]) : 0;
        if (calls < 1 || rounds < 1)
        {
            System.err.println("usage: AlternatingSmallCalls CALLS ROUNDS (both at least 1)");
            System.exit(2);
        }
        try (Communicator comm = Jccl.connect())
        {
            final Buf value = Buf.of(direct(8), DataType.FLOAT32);
            final Buf mine = Buf.of(direct(4), DataType.FLOAT32);
            final Buf gathered = Buf.of(direct(4 * comm.size()), DataType.FLOAT32);
            final double[][] micros = new double[OPERATIONS.length][rounds];
            final double[][] switches = new double[OPERATIONS.length][rounds];
            for (int round = -1; round < rounds; round++)
            {
                for (int k = 0; k < OPERATIONS.length; k++)
                {
                    comm.barrier();
                    final long switchesBefore = switches();
                    final long start = System.nanoTime();
                    for (int i = 0; i < calls; i++)
                    {
                        switch (k)
                        {
                            case 0 -> comm.barrier();
                            case 1 -> comm.allreduce(value, ReduceOp.SUM);
                            default -> comm.allgather(mine, gathered);
                        }
                    }
                    final long end = System.nanoTime();
                    if (round >= 0)
                    {
                        micros[k][round] = (end - start) / 1e3 / calls;
                        switches[k][round] = (double)(switches() - switchesBefore) / calls;
                    }
                }
            }
            final StringBuilder line = new StringBuilder("rank ").append(comm.rank()).append(':');
            for (int k = 0; k < OPERATIONS.length; k++)
            {
                final double[] above = new double[rounds];
                for (int round = 0; round < rounds; round++)
                {
                    above[round] = micros[k][round] - micros[0][round];
                }
                line.append(String.format(" %s %.3f µs (+%.3f) %.2f switches/call;", OPERATIONS[k],
                    median(micros[k]), median(above), median(switches[k])));
            }
            System.out.println(line);
        }
    }

    private static ByteBuffer direct(final int bytes)
    {
        return ByteBuffer.allocateDirect(bytes).order(ByteOrder.nativeOrder());
    }

    private static double median(final double[] values)
    {
        final double[] sorted = values.clone();
        Arrays.sort(sorted);
        return sorted[sorted.length / 2];
    }

    /** Context switches of this thread so far (a yield that switches counts as involuntary), or 0 if unknown. */
    private static long switches()
    {
        try
        {
            long total = 0;
            for (final String line : Files.readAllLines(Path.of("/proc/thread-self/status")))
            {
                if (line.startsWith("voluntary_ctxt_switches") || line.startsWith("nonvoluntary_ctxt_switches"))
                {
                    total += Long.parseLong(line.substring(line.indexOf(':') + 1).trim());
                }
            }
            return total;
        }
        catch (final IOException | NumberFormatException ex)
        {
            return 0;
        }
    }
}
