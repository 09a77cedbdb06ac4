package io.jccl.tools;

import io.jccl.Buf;
import io.jccl.Communicator;
import io.jccl.Jccl;
import io.jccl.ReduceOp;

import java.util.Arrays;

/**
 * A rank of {@link ResourceLimitsTest}. {@code hold}: connect and wait in bootstrap for ranks that never come (a
 * job's rank 0 that stays, or is killed to leave a stale segment). {@code isolated JOB ITERATIONS}: allreduce and
 * exchange values that carry the job's number, and check that only this job's values come back.
 */
public final class LimitsRank
{
    private LimitsRank()
    {
    }

    public static void main(final String[] args)
    {
        switch (args[0])
        {
            case "hold" ->
            {
                try (Communicator comm = Jccl.connect())
                {
                    throw new AssertionError("rank " + comm.rank() + " of a held job connected");
                }
            }
            case "isolated" -> isolated(Long.parseLong(args[1]), Integer.parseInt(args[2]));
            default -> throw new IllegalArgumentException("unknown mode " + args[0]);
        }
    }

    private static void isolated(final long job, final int iterations)
    {
        try (Communicator comm = Jccl.connect())
        {
            final int size = comm.size();
            final long[] values = new long[4096];
            final long[] sums = new long[values.length];
            final long[] received = new long[values.length];
            final int peer = (comm.rank() + 1) % size;
            final int from = (comm.rank() + size - 1) % size;
            for (int i = 0; i < iterations; i++)
            {
                for (int k = 0; k < values.length; k++)
                {
                    values[k] = value(job, comm.rank(), i, k);
                }
                comm.allreduce(Buf.of(values), Buf.of(sums), ReduceOp.SUM);
                comm.sendRecv(Buf.of(values), peer, 1, Buf.of(received), from, 1);
                for (int k = 0; k < values.length; k++)
                {
                    long expected = 0;
                    for (int r = 0; r < size; r++)
                    {
                        expected += value(job, r, i, k);
                    }
                    check(sums[k] == expected, "job " + job + " iteration " + i + ": sum " + k + " is " + sums[k] +
                        ", not " + expected);
                    check(received[k] == value(job, from, i, k), "job " + job + " iteration " + i + ": word " + k +
                        " from rank " + from + " is " + received[k]);
                }
                Arrays.fill(sums, 0);
            }
            System.out.println("OK job " + job + " rank " + comm.rank() + " iterations " + iterations);
        }
    }

    private static long value(final long job, final int rank, final int iteration, final int index)
    {
        return job * 1_000_000_000_000L + rank * 1_000_000_000L + iteration * 10_000L + index;
    }

    private static void check(final boolean condition, final String what)
    {
        if (!condition)
        {
            throw new AssertionError(what);
        }
    }
}
