package io.jccl.it;

import io.jccl.Buf;
import io.jccl.CollectiveMismatchException;
import io.jccl.Communicator;
import io.jccl.DataType;
import io.jccl.Jccl;
import io.jccl.LocCollectives;
import io.jccl.LocOp;
import io.jccl.spi.Elements;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Arrays;

import static io.jccl.it.P2pRank.check;
import static io.jccl.it.P2pRank.expect;

/**
 * One rank of {@link LocCollectivesTest}: MINLOC and MAXLOC over every datatype, in arrays, direct buffers and
 * symmetric memory, in place and not, allreduce, reduce to each root, reduce-scatter, reduce-scatterv, scan and exscan,
 * then the argument checks, each followed by a call that must work. A reduce-scatterv's blocks are of two sizes, every
 * second rank's half the others' (none for one pair), so that its segments' parts differ or not. Each rank's values
 * are drawn from a list of levels per type written in ascending order (extremes, -0.0 below 0.0, subnormals,
 * infinities, NaN in several bit patterns, the unsigned types' upper half), so the expected pair follows from the
 * levels' positions, not from an ordering computed again here. With the argument {@code mismatch}, a call whose value
 * widths differ between ranks instead. Prints "OK loc rank R" when every check held, and throws (exit 1) otherwise.
 */
public final class LocRank
{
    /**
     * Pairs of the largest calls: beyond a rank's staging area, so that the key reductions travel in chunks, and nine
     * segments and a part of {@code LocCollectives}' own.
     */
    private static final int LARGE = 300_000;
    /** Two of {@code LocCollectives}' segments (32,768 pairs) and a last one of a few pairs, which go one at a time. */
    private static final int SEGMENTS_AND_FEW = 2 * 32_768 + 5;
    private static final int[] COUNTS = {0, 1, 7, 1000};
    /**
     * Receive buffers apart from the send buffers start with the pairs of this rank number, which no job here has: a
     * result that does not come from the call shows.
     */
    private static final int NO_RANK = 1000;
    private static final DataType[] LARGE_TYPES = {DataType.UINT8, DataType.FLOAT32, DataType.FLOAT64};

    private enum Memory
    {
        ARRAY, DIRECT, SHARED
    }

    private enum Form
    {
        ALLREDUCE_IN_PLACE, ALLREDUCE, REDUCE_IN_PLACE, REDUCE, REDUCE_SCATTER_IN_PLACE, REDUCE_SCATTER,
        REDUCE_SCATTERV_IN_PLACE, REDUCE_SCATTERV, SCAN_IN_PLACE, SCAN, EXSCAN_IN_PLACE, EXSCAN;

        boolean inPlace()
        {
            return name().endsWith("IN_PLACE");
        }

        boolean reduceScatter()
        {
            return name().startsWith("REDUCE_SCATTER");
        }

        boolean rooted()
        {
            return this == REDUCE_IN_PLACE || this == REDUCE;
        }
    }

    private final Communicator comm;
    private final LocCollectives loc;
    private final int me;
    private final int ranks;
    /** Symmetric pools for send values, send indices, receive values, receive indices. */
    private final Buf[] shared = new Buf[4];
    private int calls;

    private LocRank(final Communicator comm)
    {
        this.comm = comm;
        this.loc = LocCollectives.of(comm);
        this.me = comm.rank();
        this.ranks = comm.size();
        for (int role = 0; role < shared.length; role++)
        {
            // values of up to 8 bytes, indices of 4: 7.2 MB of the 8 MiB a rank has by default
            shared[role] = comm.allocateShared((long)LARGE * (role % 2 == 0 ? Long.BYTES : Integer.BYTES),
                DataType.INT8);
        }
    }

    public static void main(final String[] args)
    {
        if (args.length == 1 && args[0].equals("mismatch"))
        {
            widthMismatch();
            return;
        }
        try (Communicator comm = Jccl.connect())
        {
            final LocRank rank = new LocRank(comm);
            rank.everyTypeOpMemoryAndForm();
            rank.largeCalls();
            rank.refusals();
            System.out.println("OK loc rank " + comm.rank() + " (" + rank.calls + " calls)");
        }
    }

    private void everyTypeOpMemoryAndForm()
    {
        for (final DataType type : DataType.values())
        {
            for (final LocOp op : LocOp.values())
            {
                for (final int count : COUNTS)
                {
                    for (final Memory memory : Memory.values())
                    {
                        for (final Form form : Form.values())
                        {
                            run(type, op, count, memory, form);
                        }
                    }
                }
            }
        }
    }

    private void largeCalls()
    {
        for (final DataType type : LARGE_TYPES)
        {
            for (final LocOp op : LocOp.values())
            {
                run(type, op, LARGE, Memory.values()[calls % 3], Form.ALLREDUCE);
                run(type, op, LARGE, Memory.values()[calls % 3], Form.REDUCE_IN_PLACE);
                run(type, op, SEGMENTS_AND_FEW, Memory.values()[calls % 3], Form.ALLREDUCE_IN_PLACE);
                run(type, op, LARGE / ranks, Memory.values()[calls % 3], Form.REDUCE_SCATTER);
                run(type, op, SEGMENTS_AND_FEW / ranks, Memory.values()[calls % 3], Form.REDUCE_SCATTER_IN_PLACE);
                run(type, op, LARGE / ranks, Memory.values()[calls % 3], Form.REDUCE_SCATTERV_IN_PLACE);
                run(type, op, SEGMENTS_AND_FEW / ranks, Memory.values()[calls % 3], Form.REDUCE_SCATTERV);
                run(type, op, LARGE, Memory.values()[calls % 3], Form.SCAN);
                run(type, op, SEGMENTS_AND_FEW, Memory.values()[calls % 3], Form.EXSCAN_IN_PLACE);
            }
        }
    }

    /**
     * One call of {@code count} pairs a rank's result (a reduce-scatter sends size × count; a reduce-scatterv sends
     * the sum of {@link #vCounts} and receives its own). Each send pair i is the level and index of element i of a
     * global numbering, so a result's pair follows from the levels of the ranks it reduces: every rank's, its own
     * prefix's, or none (a rank that receives nothing: its send pairs, and for an exscan on rank 0 its receive pairs,
     * must be as they were).
     */
    private void run(final DataType type, final LocOp op, final int count, final Memory memory, final Form form)
    {
        final int root = calls++ % ranks;
        final boolean v = form == Form.REDUCE_SCATTERV_IN_PLACE || form == Form.REDUCE_SCATTERV;
        final int[] counts = vCounts(count);
        int block = 0;
        int sent = count;
        int received = count;
        if (v)
        {
            sent = 0;
            for (int r = 0; r < ranks; r++)
            {
                block += r < me ? counts[r] : 0;
                sent += counts[r];
            }
            received = counts[me];
        }
        else if (form.reduceScatter())
        {
            block = me * count;
            sent = ranks * count;
        }
        final Buf values = buffer(memory, 0, type, sent);
        final Buf indices = buffer(memory, 1, DataType.INT32, sent);
        fill(values, indices, sent, me);
        final Buf recvValues;
        final Buf recvIndices;
        if (form.inPlace())
        {
            // a reduce-scatterv's in place is at the start of the send buffers, as the communicator's
            final int at = v ? 0 : block;
            recvValues = values.slice(at, received);
            recvIndices = indices.slice(at, received);
        }
        else
        {
            recvValues = buffer(memory, 2, type, received);
            recvIndices = buffer(memory, 3, DataType.INT32, received);
            fill(recvValues, recvIndices, received, NO_RANK);
        }
        final boolean nullReceive = form == Form.REDUCE && me != root;
        switch (form)
        {
            case ALLREDUCE_IN_PLACE -> loc.allreduce(values, indices, op);
            case ALLREDUCE -> loc.allreduce(values, indices, recvValues, recvIndices, op);
            case REDUCE_IN_PLACE -> loc.reduce(values, indices, op, root);
            case REDUCE -> loc.reduce(values, indices, nullReceive ? null : recvValues,
                nullReceive ? null : recvIndices, op, root);
            case REDUCE_SCATTER_IN_PLACE, REDUCE_SCATTER -> loc.reduceScatter(values, indices, recvValues,
                recvIndices, op);
            case REDUCE_SCATTERV_IN_PLACE, REDUCE_SCATTERV -> loc.reduceScatterv(values, indices, recvValues,
                recvIndices, counts, op);
            case SCAN_IN_PLACE -> loc.scan(values, indices, op);
            case SCAN -> loc.scan(values, indices, recvValues, recvIndices, op);
            case EXSCAN_IN_PLACE -> loc.exscan(values, indices, op);
            case EXSCAN -> loc.exscan(values, indices, recvValues, recvIndices, op);
        }
        final String what = op.label() + " " + type.label() + " x" + received + " " + memory + " " + form +
            (form.rooted() ? " to " + root : "") + ", rank " + me;
        final int reduced = switch (form)
        {
            case REDUCE_IN_PLACE, REDUCE -> me == root ? ranks : 0;
            case SCAN_IN_PLACE, SCAN -> me + 1;
            case EXSCAN_IN_PLACE, EXSCAN -> me;
            default -> ranks;
        };
        if (reduced == 0)
        {
            // the send pairs untouched, and an exscan's rank 0 receive pairs too
            checkPairs(type, values, indices, sent, what + " (send)", (i, pair) -> own(type, me, i, pair));
            if (!form.inPlace() && !nullReceive)
            {
                checkPairs(type, recvValues, recvIndices, received, what + " (receive)", (i, pair) -> own(type,
                    NO_RANK, i, pair));
            }
            return;
        }
        if (!form.inPlace())
        {
            checkPairs(type, values, indices, sent, what + " (send)", (i, pair) -> own(type, me, i, pair));
        }
        final int first = block;
        checkPairs(type, recvValues, recvIndices, received, what, (i, pair) ->
        {
            final int best = bestLevel(type, op, first + i, reduced);
            pair[0] = canonicalBits(type, best);
            pair[1] = smallestIndexAt(type, best, first + i, reduced);
        });
    }

    /** A reduce-scatterv's counts: {@code count} for even ranks, half of it for odd ones. */
    private int[] vCounts(final int count)
    {
        final int[] counts = new int[ranks];
        for (int r = 0; r < ranks; r++)
        {
            counts[r] = r % 2 == 0 ? count : count / 2;
        }
        return counts;
    }

    /** Pairs i below n := the level and index of element i of rank {@code r}. */
    private static void fill(final Buf values, final Buf indices, final int n, final int r)
    {
        for (int i = 0; i < n; i++)
        {
            Elements.putBits(values.type(), values.base(), values.offset(), i, levelBits(values.type(),
                level(values.type(), r, i), r));
            Elements.putBits(DataType.INT32, indices.base(), indices.offset(), i, index(r, i));
        }
    }

    /** Rank r's pair i as {@link #fill} stores it: (value bits, index). */
    private static void own(final DataType type, final int r, final int i, final long[] pair)
    {
        pair[0] = levelBits(type, level(type, r, i), r);
        pair[1] = index(r, i);
    }

    private interface ExpectedPair
    {
        /** {@code pair} := (value bits, index) expected at pair i. */
        void at(int i, long[] pair);
    }

    private static void checkPairs(final DataType type, final Buf values, final Buf indices, final int n,
        final String what, final ExpectedPair expected)
    {
        final long mask = type.size() == 8 ? -1L : (1L << 8 * type.size()) - 1;
        final long[] want = new long[2];
        for (int i = 0; i < n; i++)
        {
            final long gotValue = Elements.getBits(type, values.base(), values.offset(), i);
            final int gotIndex = (int)Elements.getBits(DataType.INT32, indices.base(), indices.offset(), i);
            expected.at(i, want);
            if (gotValue != (want[0] & mask) || gotIndex != (int)want[1])
            {
                throw new AssertionError(what + ": pair " + i + " is (0x" + Long.toHexString(gotValue) + ", " +
                    gotIndex + "), expected (0x" + Long.toHexString(want[0] & mask) + ", " + want[1] + ")");
            }
        }
    }

    /**
     * Rank 0 passes float32 values, the others float64 ones (run in check mode): every rank must get a
     * {@link CollectiveMismatchException} from the first call, which names the int64 and uint64 reductions.
     */
    private static void widthMismatch()
    {
        try (Communicator comm = Jccl.connect())
        {
            final Buf values = comm.rank() == 0 ? Buf.of(new float[1000]) : Buf.of(new double[1000]);
            try
            {
                LocCollectives.of(comm).allreduce(values, Buf.of(new int[1000]), LocOp.MAXLOC);
                throw new AssertionError("no mismatch reported");
            }
            catch (final CollectiveMismatchException e)
            {
                // a rank may see another rank before it has called ("has not called it yet"), but rank 0's call and
                // the others' 64-bit one are named: by rank 0 about a peer, by the others about themselves
                check(e.getMessage().contains("rank 0 allreduce(count=1000, int64, max)") &&
                    e.getMessage().contains("allreduce(count=1000, uint64, max)"), "mismatch message: " +
                    e.getMessage());
            }
            System.out.println("OK loc rank " + comm.rank());
        }
    }

    /** The argument checks throw on the calling rank before any collective; a call after them works. */
    private void refusals()
    {
        final double[] values = {me, -me};
        final int[] indices = {0, 1};
        expect(IllegalArgumentException.class, () -> loc.allreduce(Buf.of(values), Buf.of(indices, 0, 1),
            LocOp.MAXLOC), "one index a value");
        expect(IllegalArgumentException.class, () -> loc.allreduce(Buf.of(values), Buf.of(new long[2]),
            LocOp.MAXLOC), "indices are int32");
        expect(IllegalArgumentException.class, () -> loc.allreduce(Buf.of(values), Buf.of(indices),
            Buf.of(new double[2]).asReadOnly(), Buf.of(new int[2]), LocOp.MINLOC), "read-only");
        expect(IllegalArgumentException.class, () -> loc.allreduce(Buf.of(values), Buf.of(indices),
            Buf.of(new float[2]), Buf.of(new int[2]), LocOp.MINLOC),
            "receive values hold float32, send values float64");
        expect(IllegalArgumentException.class, () -> loc.allreduce(Buf.of(values), Buf.of(indices),
            Buf.of(new double[1]), Buf.of(new int[2]), LocOp.MINLOC), "receive values holds 1 elements");
        expect(IllegalArgumentException.class, () -> loc.allreduce(Buf.of(values), Buf.of(indices), null),
            "op is null");
        final double[] four = new double[4];
        expect(IllegalArgumentException.class, () -> loc.allreduce(Buf.of(four).slice(0, 2), Buf.of(indices),
            Buf.of(four).slice(1, 2), Buf.of(new int[2]), LocOp.MAXLOC), "send and receive values overlap without");
        final int[] ints = {me, me};
        expect(IllegalArgumentException.class, () -> loc.allreduce(Buf.of(ints), Buf.of(indices), Buf.of(indices),
            Buf.of(new int[2]), LocOp.MAXLOC), "send indices and receive values overlap");
        expect(IllegalArgumentException.class, () -> loc.reduce(Buf.of(values), Buf.of(indices), LocOp.MAXLOC,
            ranks), "root " + ranks + " is outside");
        expect(IllegalArgumentException.class, () -> loc.reduceScatter(Buf.of(values), Buf.of(indices),
            Buf.of(new double[3]), Buf.of(new int[3]), LocOp.MINLOC), "send values (size × receive count) holds 2 " +
            "elements, " + 3 * ranks + " are needed");
        final double[] blocks = new double[2 * ranks + 1];
        final int[] blockIndices = new int[2 * ranks + 1];
        expect(IllegalArgumentException.class, () -> loc.reduceScatter(Buf.of(blocks), Buf.of(blockIndices),
            Buf.of(blocks).slice(2 * me + 1, 2), Buf.of(new int[2]), LocOp.MINLOC),
            "receive values overlaps the other buffer without being exactly this rank's block");
        final int[] threeEach = new int[ranks];
        Arrays.fill(threeEach, 3);
        expect(IllegalArgumentException.class, () -> loc.reduceScatterv(Buf.of(values), Buf.of(indices),
            Buf.of(new double[3]), Buf.of(new int[3]), threeEach, LocOp.MAXLOC), "send values (the sum of counts) " +
            "holds 2 elements, " + 3 * ranks + " are needed");
        expect(IllegalArgumentException.class, () -> loc.reduceScatterv(Buf.of(values), Buf.of(indices),
            Buf.of(new double[1]), Buf.of(new int[1]), new int[ranks + 1], LocOp.MAXLOC),
            "counts must have one entry per rank (" + ranks + "), not " + (ranks + 1));
        final int[] twoEach = new int[ranks];
        Arrays.fill(twoEach, 2);
        expect(IllegalArgumentException.class, () -> loc.reduceScatterv(Buf.of(blocks), Buf.of(blockIndices),
            Buf.of(new double[1]), Buf.of(new int[2]), twoEach, LocOp.MINLOC), "receive values holds 1 elements");
        expect(IllegalArgumentException.class, () -> loc.reduceScatterv(Buf.of(blocks), Buf.of(blockIndices),
            Buf.of(blocks).slice(1, 2), Buf.of(new int[2]), twoEach, LocOp.MINLOC),
            "send and receive values overlap without being the same memory");
        expect(IllegalArgumentException.class, () -> loc.scan(Buf.of(values), Buf.of(indices), Buf.of(new float[2]),
            Buf.of(new int[2]), LocOp.MINLOC), "receive values hold float32, send values float64");
        expect(IllegalArgumentException.class, () -> loc.exscan(Buf.of(values), Buf.of(indices), null), "op is null");
        loc.allreduce(Buf.of(values), Buf.of(indices), LocOp.MAXLOC);
        check(values[0] == ranks - 1 && indices[0] == 0, "maxloc after the refusals: (" + values[0] + ", " +
            indices[0] + ")");
        check(values[1] == 0 && indices[1] == 1, "maxloc of -rank after the refusals: (" + values[1] + ", " +
            indices[1] + ")");
        final double[] value = {me};
        final int[] index = {me};
        loc.exscan(Buf.of(value), Buf.of(index), LocOp.MINLOC);
        check(value[0] == 0 && index[0] == 0, "exscan minloc after the refusals: (" + value[0] + ", " + index[0] +
            ")");
    }

    /** The winning level of element {@code i}: the largest (MAXLOC) or smallest (MINLOC) over ranks 0 to n - 1. */
    private static int bestLevel(final DataType type, final LocOp op, final int i, final int n)
    {
        int best = level(type, 0, i);
        for (int r = 1; r < n; r++)
        {
            final int l = level(type, r, i);
            best = op == LocOp.MAXLOC ? Math.max(best, l) : Math.min(best, l);
        }
        return best;
    }

    private static int smallestIndexAt(final DataType type, final int level, final int i, final int n)
    {
        int smallest = Integer.MAX_VALUE;
        for (int r = 0; r < n; r++)
        {
            if (level(type, r, i) == level)
            {
                smallest = Math.min(smallest, index(r, i));
            }
        }
        return smallest;
    }

    /** Rank r's level at element i: a hash, so that extremes are held by one rank or tied among several. */
    private static int level(final DataType type, final int r, final int i)
    {
        return Math.floorMod(mix(r * 1_000_003 + i), levels(type).length);
    }

    /** Rank r's index at element i: the int extremes now and then, else small and of either sign, often tied. */
    private static int index(final int r, final int i)
    {
        final int h = mix(r * 7919 + i * 31 + 12345);
        return switch (Math.floorMod(h, 13))
        {
            case 0 -> Integer.MAX_VALUE;
            case 1 -> Integer.MIN_VALUE;
            default -> (h >> 8) % 5;
        };
    }

    /** Murmur3's finaliser. */
    private static int mix(final int x)
    {
        int h = x * 0x9E3779B9;
        h ^= h >>> 16;
        h *= 0x85EBCA6B;
        h ^= h >>> 13;
        h *= 0xC2B2AE35;
        return h ^ h >>> 16;
    }

    /**
     * Each type's values in ascending order, as stored bits. The floating-point lists end with NaN, which ranks hold
     * in several bit patterns ({@link #levelBits}) and which comes back as the canonical NaN listed here.
     */
    private static long[] levels(final DataType type)
    {
        return switch (type)
        {
            case INT8 -> new long[] {-128, -1, 0, 1, 127};
            case UINT8 -> new long[] {0, 1, 0x7F, 0x80, 0xFF};
            case INT32 -> new long[] {Integer.MIN_VALUE, -70_000, -1, 0, 1, 70_000, Integer.MAX_VALUE};
            case UINT32 -> new long[] {0, 1, 0x7FFF_FFFFL, 0x8000_0000L, 0xFFFF_FFFEL, 0xFFFF_FFFFL};
            case INT64 -> new long[] {Long.MIN_VALUE, -(1L << 40) - 1, -(1L << 40), -1, 0, 1L << 40, Long.MAX_VALUE};
            case UINT64 -> new long[] {0, 1, Long.MAX_VALUE, Long.MIN_VALUE, -2, -1};
            case FLOAT16 -> new long[] {0xFC00, 0xFBFF, 0xBC00, 0x8001, 0x8000, 0x0000, 0x0001, 0x3C00, 0x7BFF,
                0x7C00, 0x7E00};
            case BFLOAT16 -> new long[] {0xFF80, 0xFF7F, 0xBF80, 0x8001, 0x8000, 0x0000, 0x0001, 0x3F80, 0x7F7F,
                0x7F80, 0x7FC0};
            case FLOAT32 -> new long[] {f(Float.NEGATIVE_INFINITY), f(-Float.MAX_VALUE), f(-1.5f),
                f(-Float.MIN_VALUE), f(-0.0f), f(0.0f), f(Float.MIN_VALUE), f(1.5f), f(1.5000001f), f(Float.MAX_VALUE),
                f(Float.POSITIVE_INFINITY), 0x7FC0_0000L};
            case FLOAT64 -> new long[] {d(Double.NEGATIVE_INFINITY), d(-Double.MAX_VALUE), d(-1.5),
                d(-Double.MIN_VALUE), d(-0.0), d(0.0), d(Double.MIN_VALUE), d(1.5), d(Math.nextUp(1.5)),
                d(Double.MAX_VALUE), d(Double.POSITIVE_INFINITY), 0x7FF8_0000_0000_0000L};
        };
    }

    /** The bits rank r stores for a level: a NaN level in a pattern of its own, of either sign, on most ranks. */
    private static long levelBits(final DataType type, final int level, final int r)
    {
        final long[] list = levels(type);
        final long bits = list[level];
        if (!type.isFloatingPoint() || level != list.length - 1 || r % 3 == 0)
        {
            return bits;
        }
        final long sign = r % 2 == 1 ? 1L << 8 * type.size() - 1 : 0;
        return bits | sign | r;
    }

    private static long canonicalBits(final DataType type, final int level)
    {
        return levels(type)[level];
    }

    private static long f(final float value)
    {
        return Float.floatToRawIntBits(value) & 0xFFFF_FFFFL;
    }

    private static long d(final double value)
    {
        return Double.doubleToRawLongBits(value);
    }

    /** A view of {@code count} elements of {@code type}; {@code role} 0-3 picks the symmetric pool. */
    private Buf buffer(final Memory memory, final int role, final DataType type, final int count)
    {
        return switch (memory)
        {
            case ARRAY -> switch (type)
            {
                case INT8, UINT8 -> Buf.of(new byte[count]).as(type);
                case FLOAT16, BFLOAT16 -> Buf.of(new short[count], type);
                case INT32, UINT32 -> Buf.of(new int[count]).as(type);
                case INT64, UINT64 -> Buf.of(new long[count]).as(type);
                case FLOAT32 -> Buf.of(new float[count]);
                case FLOAT64 -> Buf.of(new double[count]);
            };
            case DIRECT -> Buf.of(ByteBuffer.allocateDirect(count * type.size()).order(ByteOrder.nativeOrder()), type);
            case SHARED -> shared[role].slice(0, (long)count * type.size()).as(type);
        };
    }
}
