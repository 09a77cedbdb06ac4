package io.jccl.it;

import io.jccl.Buf;
import io.jccl.Communicator;
import io.jccl.DataType;
import io.jccl.Jccl;
import io.jccl.ReduceOp;
import io.jccl.engine.ShmCommunicator;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.FloatBuffer;

/**
 * One rank of {@link SingleCopyDeclineTest}: for each argument {@code collective:bytes:kind}, {@link #CALLS} float32
 * calls of that collective and size (sum, root 0), each checked, then {@code RAN collective bytes kind algorithm}, the
 * algorithm the communicator ran last. Kinds: {@code heap} (float[] on every rank), {@code direct} (direct buffers on
 * every rank), {@code rank0heap} (float[] on rank 0, direct buffers on the others), {@code othersheap} (the other way
 * round) and {@code inplace} (an allreduce in place in a direct buffer).
 */
public final class DeclineRank
{
    private static final int CALLS = 3;

    private DeclineRank()
    {
    }

    public static void main(final String[] args)
    {
        try (Communicator world = Jccl.connect())
        {
            for (final String spec : args)
            {
                final String[] parts = spec.split(":");
                final String collective = parts[0];
                final int count = Integer.parseInt(parts[1]) / Float.BYTES;
                final String kind = parts[2];
                for (int call = 0; call < CALLS; call++)
                {
                    run(world, collective, count, kind, call);
                }
                System.out.println("RAN " + collective + " " + parts[1] + " " + kind + " " +
                    ((ShmCommunicator)world).lastAlgorithm().name());
            }
            System.out.println("OK rank " + world.rank());
        }
    }

    private static void run(final Communicator comm, final String collective, final int count, final String kind,
        final int call)
    {
        final int p = comm.size();
        final int rank = comm.rank();
        final boolean heap = kind.equals("heap") || kind.equals("rank0heap") && rank == 0 ||
            kind.equals("othersheap") && rank != 0;
        switch (collective)
        {
            case "allreduce" ->
            {
                final Floats send = new Floats(count, heap);
                final Floats recv = kind.equals("inplace") ? send : new Floats(count, heap);
                send.fill(i -> rank + call + i % 7);
                comm.allreduce(send.buf, recv.buf, ReduceOp.SUM);
                recv.check(i -> p * (p - 1) / 2f + p * (call + i % 7), collective);
            }
            case "broadcast" ->
            {
                final Floats data = new Floats(count, heap);
                if (rank == 0)
                {
                    data.fill(i -> call + i % 7);
                }
                comm.broadcast(data.buf, 0);
                data.check(i -> call + i % 7, collective);
            }
            case "allgather" ->
            {
                final int block = count / p;
                final Floats send = new Floats(block, heap);
                final Floats recv = new Floats(block * p, heap);
                send.fill(i -> rank * 100 + call + i % 7);
                comm.allgather(send.buf, recv.buf);
                recv.check(i -> i / block * 100 + call + i % block % 7, collective);
            }
            case "reduce_scatter" ->
            {
                final int block = count / p;
                final Floats send = new Floats(block * p, heap);
                final Floats recv = new Floats(block, heap);
                send.fill(i -> rank + call + i % 7);
                comm.reduceScatter(send.buf, recv.buf, ReduceOp.SUM);
                recv.check(i -> p * (p - 1) / 2f + p * (call + (rank * block + i) % 7), collective);
            }
            case "alltoall" ->
            {
                final int block = count / p;
                final Floats send = new Floats(block * p, heap);
                final Floats recv = new Floats(block * p, heap);
                send.fill(i -> rank * 100 + i / block * 10 + call + i % block % 7);
                comm.alltoall(send.buf, recv.buf);
                recv.check(i -> i / block * 100 + rank * 10 + call + i % block % 7, collective);
            }
            default -> throw new IllegalArgumentException("not a collective of this rank: " + collective);
        }
    }

    /** Element i's value. */
    private interface Values
    {
        float at(int i);
    }

    /** Floats in a float[] or a direct buffer, and the Buf over them. */
    private static final class Floats
    {
        private final float[] array;
        private final FloatBuffer direct;
        private final Buf buf;

        Floats(final int count, final boolean heap)
        {
            if (heap)
            {
                array = new float[count];
                direct = null;
                buf = Buf.of(array);
            }
            else
            {
                final ByteBuffer bytes = ByteBuffer.allocateDirect(count * Float.BYTES).order(ByteOrder.nativeOrder());
                array = null;
                direct = bytes.asFloatBuffer();
                buf = Buf.of(bytes, DataType.FLOAT32);
            }
        }

        void fill(final Values values)
        {
            for (int i = 0; i < buf.count(); i++)
            {
                if (array != null)
                {
                    array[i] = values.at(i);
                }
                else
                {
                    direct.put(i, values.at(i));
                }
            }
        }

        void check(final Values expected, final String collective)
        {
            for (int i = 0; i < buf.count(); i++)
            {
                final float value = array != null ? array[i] : direct.get(i);
                if (value != expected.at(i))
                {
                    throw new IllegalStateException(collective + ": element " + i + " = " + value + ", not " +
                        expected.at(i));
                }
            }
        }
    }
}
