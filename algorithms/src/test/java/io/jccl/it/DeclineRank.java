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
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * One rank of {@link SingleCopyDeclineTest} and {@link SplitCallsTest}: for each argument {@code
 * collective:bytes:kind}, {@link #CALLS} float32 calls of that collective and size (sum, root 0; a reduce's root is the
 * last rank, and only it passes a receive buffer), each checked, then {@code RAN collective bytes kind algorithm}, the
 * algorithm the communicator ran last, and {@code PARTS collective bytes kind count:algorithm ...}, the collectives the
 * last call started, from the flight record ({@code :declined} after one that a rank declined). Collectives: {@code
 * allreduce}, {@code avg} (an allreduce of AVG), {@code broadcast}, {@code reduce}, {@code allgather}, {@code
 * reduce_scatter}, {@code alltoall}, and {@code allgatherv} and {@code reduce_scatterv} with uneven blocks (the even
 * ranks' half again an equal share, the odd ranks' half of one). Kinds: {@code heap} (float[] on every rank), {@code
 * direct} (direct buffers on every rank), {@code rank0heap} (float[] on rank 0, direct buffers on the others), {@code
 * othersheap} (the other way round) and {@code inplace} (an allreduce in place in a direct buffer).
 */
public final class DeclineRank
{
    private static final int CALLS = 3;
    private static final Pattern RECORDED = Pattern.compile(" #(\\d+) count=(\\d+) .* algorithm=(\\w+): (declined)?");

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
                final ShmCommunicator shm = (ShmCommunicator)world;
                long before = 0;
                for (int call = 0; call < CALLS; call++)
                {
                    before = lastRecorded(shm);
                    run(world, collective, count, kind, call);
                }
                final String label = collective + " " + parts[1] + " " + kind;
                System.out.println("RAN " + label + " " + shm.lastAlgorithm().name());
                final StringBuilder started = new StringBuilder("PARTS " + label);
                for (final String line : shm.flightRecord().split("\n"))
                {
                    final Matcher recorded = RECORDED.matcher(line);
                    if (recorded.find() && Long.parseLong(recorded.group(1)) > before)
                    {
                        started.append(' ').append(recorded.group(2)).append(':').append(recorded.group(3))
                            .append(recorded.group(4) != null ? ":declined" : "");
                    }
                }
                System.out.println(started);
            }
            System.out.println("OK rank " + world.rank());
        }
    }

    /** The sequence number of the last collective in the flight record, or 0. */
    private static long lastRecorded(final ShmCommunicator comm)
    {
        long last = 0;
        for (final String line : comm.flightRecord().split("\n"))
        {
            final Matcher recorded = RECORDED.matcher(line);
            if (recorded.find())
            {
                last = Math.max(last, Long.parseLong(recorded.group(1)));
            }
        }
        return last;
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
            case "avg" ->
            {
                final Floats send = new Floats(count, heap);
                final Floats recv = new Floats(count, heap);
                send.fill(i -> rank + call + i % 7);
                comm.allreduce(send.buf, recv.buf, ReduceOp.AVG);
                recv.check(i -> (p - 1) / 2f + call + i % 7, collective);
            }
            case "reduce" ->
            {
                final Floats send = new Floats(count, heap);
                final Floats recv = rank == p - 1 ? new Floats(count, heap) : null;
                send.fill(i -> rank + call + i % 7);
                comm.reduce(send.buf, recv == null ? null : recv.buf, ReduceOp.SUM, p - 1);
                if (recv != null)
                {
                    recv.check(i -> p * (p - 1) / 2f + p * (call + i % 7), collective);
                }
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
            case "allgatherv" ->
            {
                final int[] counts = unevenCounts(count, p);
                final int[] starts = starts(counts);
                final Floats send = new Floats(counts[rank], heap);
                final Floats recv = new Floats(count, heap);
                send.fill(i -> rank * 100 + call + i % 7);
                comm.allgatherv(send.buf, recv.buf, counts, null);
                recv.check(i ->
                {
                    final int owner = owner(starts, i);
                    return owner * 100 + call + (i - starts[owner]) % 7;
                }, collective);
            }
            case "reduce_scatterv" ->
            {
                final int[] counts = unevenCounts(count, p);
                final int start = starts(counts)[rank];
                final Floats send = new Floats(count, heap);
                final Floats recv = new Floats(counts[rank], heap);
                send.fill(i -> rank + call + i % 7);
                comm.reduceScatterv(send.buf, recv.buf, counts, ReduceOp.SUM);
                recv.check(i -> p * (p - 1) / 2f + p * (call + (start + i) % 7), collective);
            }
            default -> throw new IllegalArgumentException("not a collective of this rank: " + collective);
        }
    }

    /** {@code count} split unevenly: the even ranks half again an equal share, the odd ranks half of one. */
    private static int[] unevenCounts(final int count, final int p)
    {
        final int share = count / p;
        final int[] counts = new int[p];
        int sum = 0;
        for (int r = 0; r < p; r++)
        {
            counts[r] = r % 2 == 0 ? share + share / 2 : share - share / 2;
            sum += counts[r];
        }
        counts[p - 1] += count - sum;
        return counts;
    }

    /** Where each block starts, packed. */
    private static int[] starts(final int[] counts)
    {
        final int[] starts = new int[counts.length];
        for (int r = 1; r < counts.length; r++)
        {
            starts[r] = starts[r - 1] + counts[r - 1];
        }
        return starts;
    }

    /** The rank whose block holds element {@code i}. */
    private static int owner(final int[] starts, final int i)
    {
        int owner = 0;
        while (owner + 1 < starts.length && starts[owner + 1] <= i)
        {
            owner++;
        }
        return owner;
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
