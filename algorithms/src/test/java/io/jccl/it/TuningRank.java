package io.jccl.it;

import io.jccl.Buf;
import io.jccl.Communicator;
import io.jccl.Jccl;
import io.jccl.ReduceOp;
import io.jccl.engine.ShmCommunicator;

/**
 * One rank of {@link TuningFileTest}: runs each call named by its arguments ({@code allreduce:4096},
 * {@code broadcast:64}, {@code allgather:1536}; bytes of float32 as nccl-tests count them), checks the result, and
 * prints {@code RAN collective bytes algorithm}: the algorithm the communicator really ran. With {@code split}
 * first, the calls run on the sub-communicator of the ranks of equal parity.
 */
public final class TuningRank
{
    private TuningRank()
    {
    }

    public static void main(final String[] args)
    {
        try (Communicator world = Jccl.connect())
        {
            // "split" first: run the calls on the sub-communicator of the ranks of equal parity instead
            final boolean split = args.length > 0 && args[0].equals("split");
            final Communicator comm = split ? world.split(world.rank() % 2, world.rank()) : world;
            final ShmCommunicator shm = (ShmCommunicator)comm;
            for (final String call : split ? java.util.Arrays.copyOfRange(args, 1, args.length) : args)
            {
                final String collective = call.substring(0, call.indexOf(':'));
                final int bytes = Integer.parseInt(call.substring(call.indexOf(':') + 1));
                switch (collective)
                {
                    case "allreduce" -> allreduce(comm, bytes / 4);
                    case "broadcast" -> broadcast(comm, bytes / 4);
                    case "allgather" -> allgather(comm, bytes / 4 / comm.size());
                    default -> throw new IllegalArgumentException("unknown collective " + collective);
                }
                System.out.println("RAN " + collective + " " + bytes + " " + shm.lastAlgorithm().name());
            }
            System.out.println("OK rank " + comm.rank());
            if (split)
            {
                comm.close();
            }
        }
    }

    private static void allreduce(final Communicator comm, final int count)
    {
        final float[] values = new float[count];
        for (int i = 0; i < count; i++)
        {
            values[i] = comm.rank() + i % 7;
        }
        final float[] sums = new float[count];
        comm.allreduce(Buf.of(values), Buf.of(sums), ReduceOp.SUM);
        final int p = comm.size();
        for (int i = 0; i < count; i++)
        {
            check(sums[i] == p * (p - 1) / 2.0f + p * (i % 7), "allreduce element " + i + " = " + sums[i]);
        }
    }

    private static void broadcast(final Communicator comm, final int count)
    {
        final float[] values = new float[count];
        for (int i = 0; i < count; i++)
        {
            values[i] = comm.rank() == 0 ? i * 3 + 1 : -1;
        }
        comm.broadcast(Buf.of(values), 0);
        for (int i = 0; i < count; i++)
        {
            check(values[i] == i * 3 + 1, "broadcast element " + i + " = " + values[i]);
        }
    }

    private static void allgather(final Communicator comm, final int block)
    {
        final float[] mine = new float[block];
        for (int i = 0; i < block; i++)
        {
            mine[i] = comm.rank() * 1000 + i;
        }
        final float[] all = new float[block * comm.size()];
        comm.allgather(Buf.of(mine), Buf.of(all));
        for (int i = 0; i < all.length; i++)
        {
            check(all[i] == (i / block) * 1000 + i % block, "allgather element " + i + " = " + all[i]);
        }
    }

    private static void check(final boolean condition, final String what)
    {
        if (!condition)
        {
            throw new AssertionError(what);
        }
    }
}
