package io.jccl.it;

import io.jccl.Buf;
import io.jccl.Communicator;
import io.jccl.Jccl;
import io.jccl.ReduceOp;
import io.jccl.engine.PaceProbe;
import io.jccl.engine.ShmCommunicator;

/**
 * One rank of {@link PaceProbeTest}: {@code calls} float32 sum allreduces of {@code bytes} each (then, with a third
 * argument {@code dup}, as many on a duplicate of the world), each checked, printing after each
 * {@code RAN n algorithm pace}: the algorithm the communicator ran and the pace it chose by ({@code -} before the first
 * probe). Rank 0 ends with {@code PROBE us} per probe it ran.
 */
public final class PaceRank
{
    private PaceRank()
    {
    }

    public static void main(final String[] args)
    {
        final int calls = Integer.parseInt(args[0]);
        final int count = Integer.parseInt(args[1]) / Float.BYTES;
        try (Communicator world = Jccl.connect())
        {
            final StringBuilder probes = new StringBuilder();
            run(world, calls, count, "", probes);
            if (args.length > 2 && args[2].equals("dup"))
            {
                try (Communicator dup = world.dup())
                {
                    run(dup, calls, count, "dup ", probes);
                }
            }
            System.out.print(probes);
            System.out.println("OK rank " + world.rank());
        }
    }

    private static void run(final Communicator comm, final int calls, final int count, final String prefix,
        final StringBuilder probes)
    {
        final ShmCommunicator shm = (ShmCommunicator)comm;
        final PaceProbe probe = shm.paceProbe();
        final float[] values = new float[count];
        final float[] sums = new float[count];
        final int p = comm.size();
        long seen = 0;
        for (int call = 0; call < calls; call++)
        {
            for (int i = 0; i < count; i++)
            {
                values[i] = comm.rank() + call + i % 5;
            }
            comm.allreduce(Buf.of(values), Buf.of(sums), ReduceOp.SUM);
            for (int i = 0; i < count; i++)
            {
                final float expected = p * (p - 1) / 2.0f + p * (call + i % 5);
                if (sums[i] != expected)
                {
                    throw new IllegalStateException("call " + call + ": element " + i + " = " + sums[i] + ", not " +
                        expected);
                }
            }
            System.out.println("RAN " + prefix + call + " " + shm.lastAlgorithm().name() + " " +
                (probe == null || probe.pace() == null ? "-" : probe.pace().label()));
            if (probe != null && probe.probes() > seen && comm.rank() == 0)
            {
                seen = probe.probes();
                probes.append("PROBE ").append(probe.lastMicros()).append('\n');
            }
        }
    }
}
