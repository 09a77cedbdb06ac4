package io.jccl.algorithms.shm;

import io.jccl.Collective;
import io.jccl.DataType;
import io.jccl.ReduceOp;
import io.jccl.algorithms.LocalJob;
import io.jccl.spi.CollectiveAlgorithm;
import io.jccl.spi.CollectiveArgs;
import io.jccl.spi.Elements;
import io.jccl.spi.Memory;
import org.agrona.UnsafeApi;

import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.atomic.AtomicLongArray;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

/**
 * One rank of a test job: lays out the buffers of one collective call (private arrays or symmetric memory, separate
 * or aliased), fills inputs that depend on the operation, runs the algorithm, and checks every element of the result
 * bit for bit against a reference computed here in rank order, plus the guard bytes around the buffers.
 * <p>
 * Every element access goes through {@link Elements}, whose null-base branch keeps C2 from writing the inputs
 * where a moved array used to be (see its class comment; the fill loop here was the case that failed).
 */
final class ShmRankDriver
{
    /** Where the buffers of one call live and how they alias. */
    enum Layout
    {
        PRIVATE(false, false, Aliasing.SEPARATE),
        IN_PLACE(false, false, Aliasing.OWN_BLOCK),
        IN_PLACE_FIRST_BLOCK(false, false, Aliasing.FIRST_BLOCK),
        SYMMETRIC_SEND(true, false, Aliasing.SEPARATE),
        SYMMETRIC_BOTH(true, true, Aliasing.SEPARATE),
        SYMMETRIC_IN_PLACE(true, true, Aliasing.OWN_BLOCK),
        SYMMETRIC_IN_PLACE_FIRST_BLOCK(true, true, Aliasing.FIRST_BLOCK),
        /** Separate symmetric views, each rank's {@link #STAGGER} bytes further into its region than the last's. */
        SYMMETRIC_STAGGERED(true, true, Aliasing.SEPARATE),
        /** Zero-copy paths only: the staged ones require views that coincide or do not overlap. */
        SYMMETRIC_OVERLAPPING(true, true, Aliasing.SHIFTED_BY_ONE);

        final boolean sharedSend;
        final boolean sharedRecv;
        final Aliasing aliasing;

        Layout(final boolean sharedSend, final boolean sharedRecv, final Aliasing aliasing)
        {
            this.sharedSend = sharedSend;
            this.sharedRecv = sharedRecv;
            this.aliasing = aliasing;
        }
    }

    /**
     * In place, the smaller view lies inside the larger: at this rank's block (MPI's convention for allgather and
     * reduce-scatter) or at the first block; equal-sized views simply coincide. Shifted: recv starts one element
     * after send, a partial overlap.
     */
    enum Aliasing
    {
        SEPARATE, OWN_BLOCK, FIRST_BLOCK, SHIFTED_BY_ONE
    }

    /** One collective call, identical on every rank. */
    record Call(CollectiveAlgorithm algorithm, Collective collective, DataType type, ReduceOp op, long count,
        int root, Layout layout)
    {
        @Override
        public String toString()
        {
            return algorithm.name() + " " + collective.label() + " " + type.label() + " " +
                (op == null ? "" : op.label() + " ") + "count=" + count + " root=" + root + " " + layout;
        }
    }

    static final int GUARD = 64;

    /** Bytes by which {@link Layout#SYMMETRIC_STAGGERED} moves each rank's views past the previous rank's. */
    static final int STAGGER = 64;
    private static final byte POISON = (byte) 0x5A;
    /** An element of {@link #POISON} bytes (8 of them; the comparison masks it to the element's size). */
    private static final long POISON_BITS = 0x5A5A_5A5A_5A5A_5A5AL;
    private static final byte GUARD_BYTE = (byte) 0xC3;
    private static final long GUARD_BITS = GUARD_BYTE & 0xFFL;
    private static final long BYTE_BASE = UnsafeApi.arrayBaseOffset(byte[].class);

    private final LocalJob job;
    private final LocalJob.LocalContext context;
    private final CollectiveArgs args = new CollectiveArgs();
    private final int rank;
    private final int size;
    private final long symmetricSegmentOffset;
    private final long symmetricAddress;
    private final AtomicLongArray resultHashes;
    private final AtomicIntegerArray barrierArrivals;
    private int operation;

    ShmRankDriver(
        final LocalJob job,
        final LocalJob.LocalContext context,
        final AtomicLongArray resultHashes,
        final AtomicIntegerArray barrierArrivals)
    {
        this.job = job;
        this.context = context;
        this.rank = context.rank();
        this.size = context.size();
        this.symmetricSegmentOffset = job.symmetricSegmentOffset(rank);
        this.symmetricAddress = job.segmentAddress() + symmetricSegmentOffset;
        this.resultHashes = resultHashes;
        this.barrierArrivals = barrierArrivals;
    }

    /** Runs one call on this rank and checks it; the operation index seeds the inputs. */
    void run(final Call call)
    {
        final int index = operation++;
        context.begin();
        if (call.collective == Collective.BARRIER)
        {
            runBarrier(call, index);
            return;
        }

        final int elementSize = call.type.size();
        final long n = call.count;
        final Collective form = blockForm(call.collective);
        final long sendElements = switch (form)
        {
            case BROADCAST -> 0;
            case REDUCE_SCATTER, ALLTOALL -> size * n;
            default -> n;
        };
        final long recvElements = switch (form)
        {
            case ALLGATHER, ALLTOALL -> size * n;
            default -> n;
        };
        final boolean hasSend = call.collective != Collective.BROADCAST;
        final boolean hasRecv = call.collective != Collective.REDUCE || rank == call.root;
        final long sendBytes = sendElements * elementSize;
        final long recvBytes = recvElements * elementSize;
        final Layout layout = call.layout;
        final boolean aliased = layout.aliasing != Aliasing.SEPARATE && hasSend && hasRecv;

        // lay out: one region (array or symmetric memory) per separate view, with guard bytes on both sides
        final Object sendBase;
        final long sendOffset;
        final Object recvBase;
        final long recvOffset;
        final boolean sendShared;
        final boolean recvShared;
        if (aliased)
        {
            final boolean shifted = layout.aliasing == Aliasing.SHIFTED_BY_ONE;
            final long regionBytes = shifted ? Math.max(sendBytes, recvBytes + elementSize) :
                Math.max(sendBytes, recvBytes);
            final Object base = layout.sharedSend ? null : new byte[(int) regionBytes + 2 * GUARD];
            final long start = (layout.sharedSend ? symmetricAddress : BYTE_BASE) + GUARD;
            final long shift = layout.aliasing == Aliasing.OWN_BLOCK && sendBytes != recvBytes ?
                rank * Math.min(sendBytes, recvBytes) : 0;
            sendBase = base;
            recvBase = base;
            sendOffset = sendBytes < recvBytes && !shifted ? start + shift : start;
            recvOffset = shifted ? start + elementSize : (recvBytes < sendBytes ? start + shift : start);
            sendShared = layout.sharedSend;
            recvShared = layout.sharedSend;
            fillGuards(base, start, regionBytes);
        }
        else
        {
            // broadcast has only a recv view: its placement follows sharedSend, so the zero-copy path is reached
            recvShared = call.collective == Collective.BROADCAST ? layout.sharedSend : layout.sharedRecv;
            sendShared = layout.sharedSend;
            final long stagger = layout == Layout.SYMMETRIC_STAGGERED ? (long) rank * STAGGER : 0;
            final long sendRegion = stagger + GUARD + ((sendBytes + GUARD + 63) & ~63L);
            sendBase = sendShared ? null : new byte[(int) sendBytes + 2 * GUARD];
            sendOffset = (sendShared ? symmetricAddress + stagger : BYTE_BASE) + GUARD;
            recvBase = hasRecv && !recvShared ? new byte[(int) recvBytes + 2 * GUARD] : null;
            recvOffset = !hasRecv ? 0 : (recvShared ? symmetricAddress + sendRegion + stagger : BYTE_BASE) + GUARD;
            fillGuards(sendBase, sendOffset, sendBytes);
            if (hasRecv)
            {
                fillGuards(recvBase, recvOffset, recvBytes);
            }
        }

        // inputs depend on the operation index, so a rank that runs ahead into the next call and overwrites its
        // buffers while a peer still reads them shows up as a wrong value
        if (hasRecv)
        {
            Memory.fill(recvBase, recvOffset, recvBytes, POISON);
        }
        if (call.collective == Collective.BROADCAST)
        {
            if (rank == call.root)
            {
                fillInputs(call.type, index, rank, recvBase, recvOffset, recvElements);
            }
        }
        else
        {
            fillInputs(call.type, index, rank, sendBase, sendOffset, sendElements);
        }

        args.clear();
        args.collective = call.collective;
        args.type = call.type;
        args.op = call.op;
        args.root = call.root;
        args.count = n;
        args.sendBase = hasSend ? sendBase : null;
        args.sendOffset = hasSend ? sendOffset : 0;
        args.sendSegmentOffset = hasSend && sendShared ? sendOffset - job.segmentAddress() : -1;
        args.recvBase = hasRecv ? recvBase : null;
        args.recvOffset = hasRecv ? recvOffset : 0;
        args.recvSegmentOffset = hasRecv && recvShared ? recvOffset - job.segmentAddress() : -1;
        if (form != call.collective)
        {
            args.counts = new int[size];
            args.displs = new int[size];
            for (int r = 0; r < size; r++)
            {
                args.counts[r] = Math.toIntExact(n);
                args.displs[r] = Math.toIntExact(r * n);
            }
        }

        assertNull(call.algorithm.unsupportedReason(args, size, context), call.toString());
        call.algorithm.run(context, args);

        if (hasRecv)
        {
            checkResult(call, index, recvBase, recvOffset, aliased);
            resultHashes.set(index * size + rank, hash(recvBase, recvOffset, recvBytes));
        }
        final long regionBytes = aliased ? Math.max(sendOffset + sendBytes, recvOffset + recvBytes) -
            Math.min(sendOffset, recvOffset) : sendBytes;
        final long regionOffset = aliased ? Math.min(sendOffset, recvOffset) : sendOffset;
        checkGuards(call, sendBase, regionOffset, regionBytes);
        if (hasRecv && !aliased)
        {
            checkGuards(call, recvBase, recvOffset, recvBytes);
        }
    }

    /**
     * The collective a call runs and is checked as: allgatherv and reduce-scatterv as their block forms, with equal
     * counts and packed displacements.
     */
    static Collective blockForm(final Collective collective)
    {
        return switch (collective)
        {
            case ALLGATHERV -> Collective.ALLGATHER;
            case REDUCE_SCATTERV -> Collective.REDUCE_SCATTER;
            default -> collective;
        };
    }

    private void runBarrier(final Call call, final int index)
    {
        // the last rank to arrive dawdles first, so a barrier that lets anyone through early is caught
        if (rank == index % size)
        {
            Thread.yield();
            Thread.yield();
        }
        barrierArrivals.incrementAndGet(index);
        args.clear();
        args.collective = Collective.BARRIER;
        assertNull(call.algorithm.unsupportedReason(args, size, context), call.toString());
        call.algorithm.run(context, args);
        assertEquals(size, barrierArrivals.get(index), () -> "rank " + rank + " left " + call + " early");
    }

    private void checkResult(final Call call, final int index, final Object base, final long offset,
        final boolean inPlace)
    {
        final long mask = call.type.size() == 8 ? -1L : (1L << 8 * call.type.size()) - 1;
        final long n = call.count;
        final Collective form = blockForm(call.collective);
        final int elements =
            Math.toIntExact(form == Collective.ALLGATHER || form == Collective.ALLTOALL ? size * n : n);
        for (int j = 0; j < elements; j++)
        {
            final long expected = switch (form)
            {
                case BROADCAST -> input(call.type, index, call.root, j);
                case REDUCE, ALLREDUCE -> reference(call, index, j);
                case REDUCE_SCATTER -> reference(call, index, rank * n + j);
                case ALLGATHER -> input(call.type, index, (int) (j / n), j % n);
                case ALLTOALL -> input(call.type, index, (int) (j / n), rank * n + j % n);
                case SCAN -> reference(call, index, j, rank + 1);
                // rank 0's exclusive result is none: its receive buffer keeps its poison, or its input in place
                case EXSCAN -> rank > 0 ? reference(call, index, j, rank) :
                    inPlace ? input(call.type, index, 0, j) : POISON_BITS;
                default -> throw new AssertionError(call.collective);
            };
            final long actual = Elements.getBits(call.type, base, offset, j);
            if (actual != (expected & mask))
            {
                throw new AssertionError("rank " + rank + " of " + size + ", operation " + index + " (" + call +
                    "): element " + j + " is 0x" + Long.toHexString(actual) + ", expected 0x" +
                    Long.toHexString(expected & mask));
            }
        }
    }

    /** x_0 op x_1 op ... op x_(p-1) for element {@code j} of the send buffers, folded in rank order. */
    private long reference(final Call call, final int index, final long j)
    {
        return reference(call, index, j, size);
    }

    /** x_0 op ... op x_(ranks-1) for element {@code j}: a prefix's reduction. */
    private static long reference(final Call call, final int index, final long j, final int ranks)
    {
        long acc = input(call.type, index, 0, j);
        for (int r = 1; r < ranks; r++)
        {
            acc = combine(call.type, call.op, acc, input(call.type, index, r, j));
        }
        return acc;
    }

    /** Element {@code j} of rank {@code r}'s input in operation {@code index}, as raw bits sign-extended. */
    static long input(final DataType type, final int index, final int r, final long j)
    {
        long h = index * 0x9E3779B97F4A7C15L + r * 0xC2B2AE3D27D4EB4FL + j * 0x165667B19E3779F9L;
        h = (h ^ (h >>> 31)) * 0xBF58476D1CE4E5B9L;
        h ^= h >>> 29;
        final double unit = (h >>> 11) * 0x1.0p-53;
        return switch (type)
        {
            case INT8, UINT8 -> (byte) h;
            case INT32, UINT32 -> (int) h;
            case INT64, UINT64 -> h;
            case FLOAT32 -> Float.floatToRawIntBits((float) (4 * unit - 2));
            case FLOAT64 -> Double.doubleToRawLongBits(4 * unit - 2);
            case FLOAT16 -> Float.floatToFloat16((float) (4 * unit - 2));
            case BFLOAT16 -> toBfloat16((float) (4 * unit - 2));
        };
    }

    /** The reference arithmetic, written independently of the kernels under test. */
    static long combine(final DataType type, final ReduceOp op, final long a, final long b)
    {
        return switch (type)
        {
            case INT8 -> (byte) combineLong(op, a, b);
            case INT32 -> (int) combineLong(op, a, b);
            case INT64 -> combineLong(op, a, b);
            case UINT8 -> (byte) combineUnsigned(op, a & 0xFFL, b & 0xFFL);
            case UINT32 -> (int) combineUnsigned(op, a & 0xFFFF_FFFFL, b & 0xFFFF_FFFFL);
            case UINT64 -> combineUnsigned(op, a, b);
            case FLOAT32 -> Float.floatToRawIntBits(
                combineFloat(op, Float.intBitsToFloat((int) a), Float.intBitsToFloat((int) b)));
            case FLOAT64 -> Double.doubleToRawLongBits(
                combineDouble(op, Double.longBitsToDouble(a), Double.longBitsToDouble(b)));
            case FLOAT16 -> Float.floatToFloat16(
                combineFloat(op, Float.float16ToFloat((short) a), Float.float16ToFloat((short) b)));
            case BFLOAT16 -> toBfloat16(combineFloat(op, fromBfloat16(a), fromBfloat16(b)));
        };
    }

    private static long combineLong(final ReduceOp op, final long a, final long b)
    {
        return switch (op)
        {
            case SUM, AVG -> a + b;
            case PROD -> a * b;
            case MIN -> Math.min(a, b);
            case MAX -> Math.max(a, b);
            case BAND -> a & b;
            case BOR -> a | b;
            case BXOR -> a ^ b;
        };
    }

    /** MIN and MAX by unsigned order; the rest as signed arithmetic, which gives the same bits. */
    private static long combineUnsigned(final ReduceOp op, final long a, final long b)
    {
        return switch (op)
        {
            case MIN -> Long.compareUnsigned(a, b) <= 0 ? a : b;
            case MAX -> Long.compareUnsigned(a, b) >= 0 ? a : b;
            default -> combineLong(op, a, b);
        };
    }

    private static float combineFloat(final ReduceOp op, final float a, final float b)
    {
        return switch (op)
        {
            case SUM, AVG -> a + b;
            case PROD -> a * b;
            case MIN -> Math.min(a, b);
            case MAX -> Math.max(a, b);
            case BAND, BOR, BXOR -> throw new IllegalArgumentException(op + " of floating point");
        };
    }

    private static double combineDouble(final ReduceOp op, final double a, final double b)
    {
        return switch (op)
        {
            case SUM, AVG -> a + b;
            case PROD -> a * b;
            case MIN -> Math.min(a, b);
            case MAX -> Math.max(a, b);
            case BAND, BOR, BXOR -> throw new IllegalArgumentException(op + " of floating point");
        };
    }

    private static float fromBfloat16(final long bits)
    {
        return Float.intBitsToFloat(((int) bits & 0xFFFF) << 16);
    }

    /** Round to nearest, ties to even (no NaNs occur in these inputs). */
    private static short toBfloat16(final float value)
    {
        final int bits = Float.floatToRawIntBits(value);
        final int lsb = (bits >>> 16) & 1;
        return (short) ((bits + 0x7FFF + lsb) >>> 16);
    }

    private static void fillInputs(final DataType type, final int index, final int r, final Object base,
        final long offset, final long elements)
    {
        final int count = Math.toIntExact(elements);
        for (int j = 0; j < count; j++)
        {
            Elements.putBits(type, base, offset, j, input(type, index, r, j));
        }
    }

    private static long hash(final Object base, final long offset, final long bytes)
    {
        long h = 1125899906842597L;
        final int length = Math.toIntExact(bytes);
        for (int i = 0; i < length; i++)
        {
            h = 31 * h + Elements.getBits(DataType.INT8, base, offset, i);
        }
        return h;
    }

    private static void fillGuards(final Object base, final long offset, final long bytes)
    {
        Memory.fill(base, offset - GUARD, GUARD, GUARD_BYTE);
        Memory.fill(base, offset + bytes, GUARD, GUARD_BYTE);
    }

    private void checkGuards(final Call call, final Object base, final long offset, final long bytes)
    {
        for (int i = 0; i < GUARD; i++)
        {
            if (Elements.getBits(DataType.INT8, base, offset - GUARD, i) != GUARD_BITS ||
                Elements.getBits(DataType.INT8, base, offset + bytes, i) != GUARD_BITS)
            {
                throw new AssertionError("rank " + rank + ": " + call + " wrote outside its buffers");
            }
        }
    }
}
