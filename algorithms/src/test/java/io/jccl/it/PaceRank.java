package io.jccl.it;

import io.jccl.Buf;
import io.jccl.Collective;
import io.jccl.Communicator;
import io.jccl.DataType;
import io.jccl.Jccl;
import io.jccl.ReduceOp;
import io.jccl.engine.PaceProbe;
import io.jccl.engine.ShmCommunicator;
import io.jccl.model.Pace;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Arrays;

/**
 * One rank of {@link PaceProbeTest}: {@code calls} float32 sum allreduces of {@code bytes} each (then, with a third
 * argument {@code dup}, as many on a duplicate of the world), each checked, printing after each
 * {@code RAN n algorithm pace}: the algorithm the communicator ran and the pace it chose by ({@code -} before the first
 * probe), {@code band} (or {@code large}) after a fast pace when the probe kept single copy for the band (or the large
 * calls) the call lies in, and {@code between} when the probe put the call between the paces ({@code between copies}
 * where the transport then sent the collectives' heap arrays out of a streaming copy, which it must not). Rank 0 ends
 * with {@code PROBE us} per probe it ran. With a third argument {@code direct}, the calls take direct buffers rather
 * than float[], whose copies for single copy a rank may decline; with {@code reduce}, they are reduces of direct
 * buffers to rank 0 ({@link #runReduces}); with {@code broadcast}, broadcasts of direct buffers from rank 0
 * ({@link #runBroadcasts}); with {@code alltoall} or {@code allgather}, alltoalls or allgathers of direct buffers
 * ({@link #runBlockCalls}), with {@code heap-alltoall}, alltoalls of float[]; with {@code probe-first}, the allreduces
 * after {@link ShmCommunicator#probePace} ({@code PROBED} and what it returned). With a third argument
 * {@code nonblocking}, the calls are non-blocking allreduces, each awaited and checked (they run on the progress
 * thread's duplicate, whose algorithm and probes the rank cannot see: {@code NB n} after each).
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
            if (args.length > 2 && args[2].equals("broadcast"))
            {
                runBroadcasts(world, calls, count);
                System.out.println("OK rank " + world.rank());
                return;
            }
            if (args.length > 2 && args[2].equals("reduce"))
            {
                runReduces(world, calls, count);
                System.out.println("OK rank " + world.rank());
                return;
            }
            if (args.length > 2 && (args[2].equals("alltoall") || args[2].equals("heap-alltoall") ||
                args[2].equals("allgather")))
            {
                runBlockCalls(world, calls, count,
                    args[2].equals("allgather") ? Collective.ALLGATHER : Collective.ALLTOALL,
                    args[2].equals("heap-alltoall"));
                System.out.println("OK rank " + world.rank());
                return;
            }
            if (args.length > 2 && args[2].equals("nonblocking"))
            {
                runNonBlocking(world, calls, count);
                System.out.println("OK rank " + world.rank());
                return;
            }
            if (args.length > 2 && args[2].equals("probe-first"))
            {
                System.out.println("PROBED " + ((ShmCommunicator)world).probePace());
            }
            final StringBuilder probes = new StringBuilder();
            run(world, calls, count, "", probes, args.length > 2 && args[2].equals("direct"));
            if (args.length > 2 && args[2].equals("dup"))
            {
                try (Communicator dup = world.dup())
                {
                    run(dup, calls, count, "dup ", probes, false);
                }
            }
            System.out.print(probes);
            System.out.println("OK rank " + world.rank());
        }
    }

    private static void run(final Communicator comm, final int calls, final int count, final String prefix,
        final StringBuilder probes, final boolean direct)
    {
        final ShmCommunicator shm = (ShmCommunicator)comm;
        final PaceProbe probe = shm.paceProbe();
        final float[] values = new float[count];
        final float[] sums = new float[count];
        final ByteBuffer directSend = direct ? floats(count) : null;
        final ByteBuffer directRecv = direct ? floats(count) : null;
        final int p = comm.size();
        long seen = 0;
        for (int call = 0; call < calls; call++)
        {
            fill(values, comm.rank(), call);
            if (direct)
            {
                directSend.asFloatBuffer().put(0, values);
                comm.allreduce(Buf.of(directSend, DataType.FLOAT32), Buf.of(directRecv, DataType.FLOAT32),
                    ReduceOp.SUM);
                directRecv.asFloatBuffer().get(0, sums);
            }
            else
            {
                comm.allreduce(Buf.of(values), Buf.of(sums), ReduceOp.SUM);
            }
            check(sums, p, call);
            final long bytes = (long)count * Float.BYTES;
            final boolean band = probe != null && probe.pace() == Pace.FAST && probe.bandSingleCopy() &&
                PaceProbe.inBand(Collective.ALLREDUCE, bytes);
            final boolean large = probe != null && probe.largeCallTakesSingleCopy(Collective.ALLREDUCE, bytes);
            final boolean between = probe != null &&
                probe.betweenPaces(Collective.ALLREDUCE, bytes, probe.paceFor(Collective.ALLREDUCE, bytes));
            System.out.println("RAN " + prefix + call + " " + shm.lastAlgorithm().name() + " " +
                (probe == null || probe.pace() == null ? "-" : probe.pace().label()) + (band ? " band" : "") +
                (large ? " large" : "") + (between ? " between" : "") +
                (between && shm.transport().stagesHeapSends() ? " copies" : ""));
            if (probe != null && probe.probes() > seen && comm.rank() == 0)
            {
                seen = probe.probes();
                probes.append("PROBE ").append(probe.lastMicros()).append('\n');
            }
        }
    }

    /**
     * {@code calls} float32 sum reduces to rank 0 of direct buffers, each checked there, printing after each
     * {@code RAN n algorithm pace}, with {@code between} after a slow pace whose probe put the large calls between the
     * paces.
     */
    private static void runReduces(final Communicator comm, final int calls, final int count)
    {
        final ShmCommunicator shm = (ShmCommunicator)comm;
        final PaceProbe probe = shm.paceProbe();
        final float[] values = new float[count];
        final float[] sums = new float[count];
        final ByteBuffer send = floats(count);
        final ByteBuffer recv = floats(count);
        for (int call = 0; call < calls; call++)
        {
            fill(values, comm.rank(), call);
            send.asFloatBuffer().put(0, values);
            comm.reduce(Buf.of(send, DataType.FLOAT32), Buf.of(recv, DataType.FLOAT32), ReduceOp.SUM, 0);
            if (comm.rank() == 0)
            {
                recv.asFloatBuffer().get(0, sums);
                check(sums, comm.size(), call);
            }
            System.out.println("RAN " + call + " " + shm.lastAlgorithm().name() + " " +
                paceOf(probe, Collective.REDUCE, (long)count * Float.BYTES));
        }
    }

    /**
     * {@code calls} float32 broadcasts from rank 0 of direct buffers, each checked, printing after each {@code RAN n
     * algorithm pace}, with {@code large} after a fast pace whose probe kept single copy's choices for the call, and
     * {@code between} after a slow pace whose probe put the large calls between the paces.
     */
    private static void runBroadcasts(final Communicator comm, final int calls, final int count)
    {
        final ShmCommunicator shm = (ShmCommunicator)comm;
        final float[] values = new float[count];
        final float[] received = new float[count];
        final ByteBuffer buffer = floats(count);
        for (int call = 0; call < calls; call++)
        {
            fill(values, 0, call);
            if (comm.rank() == 0)
            {
                buffer.asFloatBuffer().put(0, values);
            }
            comm.broadcast(Buf.of(buffer, DataType.FLOAT32), 0);
            buffer.asFloatBuffer().get(0, received);
            if (!Arrays.equals(values, received))
            {
                throw new IllegalStateException("call " + call + ": rank " + comm.rank() + " received other values");
            }
            System.out.println("RAN " + call + " " + shm.lastAlgorithm().name() + " " +
                paceOf(shm.paceProbe(), Collective.BROADCAST, (long)count * Float.BYTES));
        }
    }

    /**
     * The last probe's pace ({@code -} before the first), with {@code large} where a call of {@code bytes} of
     * {@code collective} takes the slow pace's choices at the fast pace, and {@code between} at a slow pace between the
     * paces.
     */
    private static String paceOf(final PaceProbe probe, final Collective collective, final long bytes)
    {
        if (probe == null || probe.pace() == null)
        {
            return "-";
        }
        final boolean between = probe.pace() == Pace.SLOW &&
            probe.betweenPaces(Collective.ALLREDUCE, PaceProbe.LARGE_MIN_BYTES, Pace.SLOW);
        return probe.pace().label() + (probe.largeCallTakesSingleCopy(collective, bytes) ? " large" : "") +
            (between ? " between" : "");
    }

    /**
     * {@code calls} float32 alltoalls or allgathers ({@code collective}) of direct buffers (or of float[] where
     * {@code heap}) of {@code count} elements (a block of {@code count / p} for each rank: an allgather's send buffer
     * is one), each checked, printing after each {@code RAN n algorithm pace}, with {@code between} where the probe put
     * the call between the paces.
     */
    private static void runBlockCalls(final Communicator comm, final int calls, final int count,
        final Collective collective, final boolean heap)
    {
        final boolean allgather = collective == Collective.ALLGATHER;
        final ShmCommunicator shm = (ShmCommunicator)comm;
        final PaceProbe probe = shm.paceProbe();
        final int p = comm.size();
        final int block = count / p;
        final int sendCount = allgather ? block : block * p;
        final float[] send = new float[sendCount];
        final float[] recv = new float[block * p];
        final ByteBuffer directSend = heap ? null : floats(sendCount);
        final ByteBuffer directRecv = heap ? null : floats(block * p);
        for (int call = 0; call < calls; call++)
        {
            for (int i = 0; i < sendCount; i++)
            {
                send[i] = blockValue(comm.rank(), allgather ? 0 : i / block, call, i % block);
            }
            if (!heap)
            {
                directSend.asFloatBuffer().put(0, send);
            }
            final Buf sendBuf = heap ? Buf.of(send) : Buf.of(directSend, DataType.FLOAT32);
            final Buf recvBuf = heap ? Buf.of(recv) : Buf.of(directRecv, DataType.FLOAT32);
            if (allgather)
            {
                comm.allgather(sendBuf, recvBuf);
            }
            else
            {
                comm.alltoall(sendBuf, recvBuf);
            }
            if (!heap)
            {
                directRecv.asFloatBuffer().get(0, recv);
            }
            for (int i = 0; i < block * p; i++)
            {
                final float expected = blockValue(i / block, allgather ? 0 : comm.rank(), call, i % block);
                if (recv[i] != expected)
                {
                    throw new IllegalStateException("call " + call + ": element " + i + " = " + recv[i] + ", not " +
                        expected);
                }
            }
            final long bytes = (long)block * p * Float.BYTES;
            final boolean between = probe != null &&
                probe.betweenPaces(collective, bytes, probe.paceFor(collective, bytes));
            System.out.println("RAN " + call + " " + shm.lastAlgorithm().name() + " " +
                (probe == null || probe.pace() == null ? "-" : probe.pace().label()) + (between ? " between" : ""));
        }
    }

    /** Element {@code i} of the block rank {@code from} sends rank {@code to} in call {@code call}. */
    private static float blockValue(final int from, final int to, final int call, final int i)
    {
        return from * 100 + to * 10 + call + i % 5;
    }

    private static ByteBuffer floats(final int count)
    {
        return ByteBuffer.allocateDirect(count * Float.BYTES).order(ByteOrder.nativeOrder());
    }

    private static void runNonBlocking(final Communicator comm, final int calls, final int count)
    {
        final float[] values = new float[count];
        final float[] sums = new float[count];
        for (int call = 0; call < calls; call++)
        {
            fill(values, comm.rank(), call);
            comm.iallreduce(Buf.of(values), Buf.of(sums), ReduceOp.SUM).await();
            check(sums, comm.size(), call);
            System.out.println("NB " + call);
        }
    }

    private static void fill(final float[] values, final int rank, final int call)
    {
        for (int i = 0; i < values.length; i++)
        {
            values[i] = rank + call + i % 5;
        }
    }

    private static void check(final float[] sums, final int p, final int call)
    {
        for (int i = 0; i < sums.length; i++)
        {
            final float expected = p * (p - 1) / 2.0f + p * (call + i % 5);
            if (sums[i] != expected)
            {
                throw new IllegalStateException("call " + call + ": element " + i + " = " + sums[i] + ", not " +
                    expected);
            }
        }
    }
}
