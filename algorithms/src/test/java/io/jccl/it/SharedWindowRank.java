package io.jccl.it;

import io.jccl.Buf;
import io.jccl.Communicator;
import io.jccl.DataType;
import io.jccl.Jccl;
import io.jccl.ReduceOp;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.FloatBuffer;
import java.nio.LongBuffer;

import static io.jccl.it.P2pRank.check;
import static io.jccl.it.P2pRank.expect;

/**
 * One rank of {@link SharedWindowsTest}: symmetric memory as a shared-memory window. Each rank writes its own buffer
 * through {@code asByteBuffer()} and reads every peer's through {@code peerView}, writes into its neighbour's, counts
 * with atomics in rank 0's memory, hands out work by {@code getAndAdd}, runs a collective on memory written through
 * the views, and reads a view after the communicator has closed; then the refusals. Prints "OK window rank R" when
 * every check held, and throws (exit 1) otherwise.
 */
public final class SharedWindowRank
{
    private static final int LONGS = 1024;
    /** Not a multiple of 16: the next allocation starts at an offset that alignment moved. */
    private static final int FLOATS = 1001;
    private static final int ADDS = 20_000;
    private static final int ITEMS = 50_000;
    private static final VarHandle LONG_AT = MethodHandles.byteBufferViewVarHandle(long[].class,
        ByteOrder.nativeOrder());

    public static void main(final String[] args)
    {
        final ByteBuffer afterClose;
        final long expectedAfterClose;
        final int me;
        try (Communicator comm = Jccl.connect())
        {
            me = comm.rank();
            final int p = comm.size();
            final Buf longs = comm.allocateShared(LONGS, DataType.INT64);
            final Buf floats = comm.allocateShared(FLOATS, DataType.FLOAT32);
            final Buf counters = comm.allocateShared(2, DataType.INT64);

            ownWritesPeersRead(comm, longs);
            writesIntoTheNeighbour(comm, floats);
            atomicsAcrossRanks(comm, counters);
            collectiveOnViewedMemory(comm, longs);
            readOnlyAndSlices(comm, longs);
            refusals(comm, longs);

            final int next = (me + 1) % p;
            afterClose = comm.peerView(longs, next).asByteBuffer();
            expectedAfterClose = afterClose.getLong(8 * 7);
            check(expectedAfterClose == p * (long)p * 7 + (long)p * (p - 1) / 2 * 1000,
                "rank " + next + "'s element 7 after the allreduce: " + expectedAfterClose);
            comm.barrier();
        }
        // the mapping stays while a view of it is reachable, the communicator closed or not
        check(afterClose.getLong(8 * 7) == expectedAfterClose, "a view read after close");
        System.out.println("OK window rank " + me);
    }

    /** Rank r fills its buffer with r·1,000,000 + i; after a barrier every rank reads every rank's in place. */
    private static void ownWritesPeersRead(final Communicator comm, final Buf longs)
    {
        final int me = comm.rank();
        final ByteBuffer own = longs.asByteBuffer();
        check(own.isDirect() && own.capacity() == LONGS * 8 && own.order() == ByteOrder.nativeOrder(),
            "own view: " + own);
        final LongBuffer mine = own.asLongBuffer();
        for (int i = 0; i < LONGS; i++)
        {
            mine.put(i, me * 1_000_000L + i);
        }
        comm.barrier();
        for (int r = 0; r < comm.size(); r++)
        {
            final Buf view = comm.peerView(longs, r);
            check(view.isShared() && view.count() == LONGS && view.type() == DataType.INT64, "view of " + r);
            check(r != me || view == longs, "this rank's own view is its buffer");
            final LongBuffer theirs = view.asByteBuffer().asLongBuffer();
            for (int i = 0; i < LONGS; i++)
            {
                check(theirs.get(i) == r * 1_000_000L + i, "rank " + r + "'s element " + i + ": " + theirs.get(i));
            }
        }
        comm.barrier();
    }

    /** Each rank writes its right neighbour's buffer; after a barrier each finds its left neighbour's numbers. */
    private static void writesIntoTheNeighbour(final Communicator comm, final Buf floats)
    {
        final int me = comm.rank();
        final int p = comm.size();
        final FloatBuffer right = comm.peerView(floats, (me + 1) % p).asByteBuffer().asFloatBuffer();
        for (int i = 0; i < FLOATS; i++)
        {
            right.put(i, me + i * 0.5f);
        }
        comm.barrier();
        final int left = (me + p - 1) % p;
        final FloatBuffer own = floats.asByteBuffer().asFloatBuffer();
        for (int i = 0; i < FLOATS; i++)
        {
            check(own.get(i) == left + i * 0.5f, "element " + i + " from rank " + left + ": " + own.get(i));
        }
        comm.barrier();
    }

    /**
     * Rank 0's first counter: every rank adds 1 to it 20,000 times at once. Its second: a work queue, from which the
     * ranks claim the items 0..49,999 by getAndAdd until none is left; every item is claimed once.
     */
    private static void atomicsAcrossRanks(final Communicator comm, final Buf counters)
    {
        final int p = comm.size();
        final ByteBuffer zero = comm.peerView(counters, 0).asByteBuffer();
        if (comm.rank() == 0)
        {
            zero.putLong(0, 0).putLong(8, 0);
        }
        comm.barrier();
        for (int i = 0; i < ADDS; i++)
        {
            final long ignored = (long)LONG_AT.getAndAdd(zero, 0, 1L);
        }
        long claimed = 0;
        long sum = 0;
        for (long item = (long)LONG_AT.getAndAdd(zero, 8, 1L); item < ITEMS;
            item = (long)LONG_AT.getAndAdd(zero, 8, 1L))
        {
            claimed++;
            sum += item;
        }
        comm.barrier();
        check((long)LONG_AT.getAcquire(zero, 0) == (long)ADDS * p, "the counter: " + zero.getLong(0));
        final long[] totals = {claimed, sum};
        comm.allreduce(Buf.of(totals), ReduceOp.SUM);
        check(totals[0] == ITEMS && totals[1] == (long)ITEMS * (ITEMS - 1) / 2,
            "items claimed " + totals[0] + ", their sum " + totals[1]);
    }

    /** An allreduce in place on the buffer the views wrote: element i becomes the sum over r of r·1,000,000 + i. */
    private static void collectiveOnViewedMemory(final Communicator comm, final Buf longs)
    {
        final int me = comm.rank();
        final int p = comm.size();
        final LongBuffer own = longs.asByteBuffer().asLongBuffer();
        for (int i = 0; i < LONGS; i++)
        {
            own.put(i, me * 1000L + (long)p * i);
        }
        comm.allreduce(longs, ReduceOp.SUM);
        for (int i = 0; i < LONGS; i++)
        {
            final long expected = (long)p * (p - 1) / 2 * 1000 + (long)p * p * i;
            check(own.get(i) == expected, "allreduce element " + i + ": " + own.get(i) + ", not " + expected);
        }
        comm.barrier();
    }

    /** Read-only stays read-only; a slice's view is the view's slice; another type sees the same bytes. */
    private static void readOnlyAndSlices(final Communicator comm, final Buf longs)
    {
        final int peer = (comm.rank() + 1) % comm.size();
        final Buf readOnly = comm.peerView(longs.asReadOnly(), peer);
        check(readOnly.isReadOnly() && readOnly.asByteBuffer().isReadOnly(), "a read-only buffer's view");
        final ByteBuffer whole = comm.peerView(longs, peer).asByteBuffer();
        final ByteBuffer slice = comm.peerView(longs.slice(10, 5), peer).asByteBuffer();
        check(slice.capacity() == 40, "a slice's view holds " + slice.capacity() + " bytes");
        for (int i = 0; i < 5; i++)
        {
            check(slice.getLong(8 * i) == whole.getLong(8 * (10 + i)), "slice element " + i);
        }
        final Buf asInts = comm.peerView(longs.as(DataType.INT32), peer);
        check(asInts.count() == 2L * LONGS && asInts.asByteBuffer().getLong(8 * 3) == whole.getLong(8 * 3),
            "the int32 view of the same bytes");
    }

    private static void refusals(final Communicator comm, final Buf longs)
    {
        final int p = comm.size();
        expect(IllegalArgumentException.class, () -> comm.peerView(Buf.of(new long[4]), 0), "allocateShared");
        expect(IllegalArgumentException.class, () -> comm.peerView(null, 0), "null");
        final String ranks = " is outside 0.." + (p - 1);
        expect(IllegalArgumentException.class, () -> comm.peerView(longs, p), "peer " + p + ranks);
        expect(IllegalArgumentException.class, () -> comm.peerView(longs, -1), "peer -1" + ranks);
        if (p > 1)
        {
            // a peer's memory is not this rank's to take the twin of
            final Buf theirs = comm.peerView(longs, (comm.rank() + 1) % p);
            expect(IllegalArgumentException.class, () -> comm.peerView(theirs, 0), "this rank allocated");
        }
        expect(UnsupportedOperationException.class, () -> Buf.of(new float[2]).asByteBuffer(), "float[]");
        // a sub-communicator's symmetric memory lies in its own segment
        try (Communicator sub = comm.split(0, comm.rank()))
        {
            final Buf subLongs = sub.allocateShared(4, DataType.INT64);
            expect(IllegalArgumentException.class, () -> comm.peerView(subLongs, 0), "this communicator");
            subLongs.asByteBuffer().putLong(0, 40 + sub.rank());
            sub.barrier();
            check(sub.peerView(subLongs, 0).asByteBuffer().getLong(0) == 40, "the sub-communicator's window");
            sub.barrier();
        }
        comm.barrier();
    }
}
