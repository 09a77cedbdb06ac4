package io.jccl;

import io.jccl.spi.ArgumentChecks;
import io.jccl.spi.Elements;
import org.agrona.UnsafeApi;

import java.util.Arrays;

import static io.jccl.LocKeys.index;
import static io.jccl.LocKeys.indexKey;
import static io.jccl.LocKeys.orderKey32;
import static io.jccl.LocKeys.orderKey64;
import static io.jccl.LocKeys.orderKeys32;
import static io.jccl.LocKeys.orderKeys64;
import static io.jccl.LocKeys.valueBits32;
import static io.jccl.LocKeys.valueBits64;

/**
 * MPI's MINLOC and MAXLOC: reduce, allreduce, reduce-scatter, scan and exscan of (value, index) pairs, element-wise,
 * to the smallest or largest value and, among the pairs holding it, the smallest index (MPI's rule for ties). The
 * values are a {@link Buf} of any {@link DataType}, the indices a {@link Buf} of {@link DataType#INT32} (MPI's
 * {@code MPI_FLOAT_INT}, {@code MPI_DOUBLE_INT}, {@code MPI_2INT}, ...: the index is an {@code int}). The classic use,
 * the largest value of a distributed vector and where it is:
 * <pre>
 *   LocCollectives loc = LocCollectives.of(comm);
 *   double[] value = {localMax};
 *   int[] index = {globalIndexOfLocalMax};
 *   loc.allreduce(Buf.of(value), Buf.of(index), LocOp.MAXLOC); // every rank: the maximum and its smallest index
 * </pre>
 * Values are ordered as Java orders them: integers signed, the unsigned types unsigned, floating-point values as
 * {@link Double#compare} does (-0.0 below 0.0, every NaN equal to every other and above +∞; a NaN comes back as the
 * canonical NaN).
 * <p>
 * Each call is the communicator's own collectives on keys that order as the pairs do. A value of up to 32 bits and
 * its index make one int64 key, reduced (or reduce-scattered, or scanned) by one MIN or MAX:
 * <pre>
 *   bit 63                            32 31                                0
 *   +-----------------------------------+----------------------------------+
 *   | the value as a signed int that    | the index, ordered so that the   |
 *   | orders as the values do           | smaller index wins a tie         |
 *   +-----------------------------------+----------------------------------+
 * </pre>
 * A 64-bit value (int64, uint64, float64) leaves no room for its index. In a reduce or an allreduce its key (a uint64)
 * is reduced first, then each rank offers its index where its key is the result ({@link Integer#MAX_VALUE} elsewhere)
 * to a MIN over int32, two reductions; up to 16 such pairs are instead gathered, (key, index) from every rank, and
 * reduced where they arrive, one collective. A reduce-scatter sends each rank the (key, index) pairs of its block by
 * one alltoall (a reduce-scatterv's by an alltoallv, or by an alltoall of parts padded to the widest where none holds
 * more than 16 pairs), each rank reducing those it receives. A scan or an exscan takes three scans (of the keys; of
 * where each prefix's best key began; of the indices offered since), for a rank's prefix is decided among its
 * predecessors alone, which a reduction of every rank's keys then indices cannot tell; up to 16 pairs take one scan of
 * every rank's pairs, each in its own block. Pairs go in segments of 32,768 (a reduce-scatter's spread over the ranks'
 * blocks), each packed, reduced and unpacked while its keys are in cache, so the scratch arrays this object keeps stay
 * small (256 KiB, 640 KiB for 64-bit values, up to 2 MiB with their reduce-scatters and scans); a call that repeats its
 * count (a reduce-scatterv's counts) allocates nothing. Beyond the reductions, a call converts 1.2-1.8 ns a pair
 * (float32; 1.8-2.9 for float64) on each rank. One object serves one call at a time, as its communicator does; all
 * ranks make the same calls with values of the same type, in the same order among the communicator's other collectives.
 * A rank whose values are of another width than the others' (float32 against float64) makes other collectives, which
 * check mode ({@code JCCL_CHECK=1}) reports at the first call as a mismatch of int64 and uint64 reductions or of a
 * reduction and a gather; values of one width but another type (float32 against int32) reduce keys alike and return
 * wrong results, as a collective of two such types does.
 * <p>
 * Arguments are checked on the calling rank before any collective: values and indices of one count, indices int32,
 * the receive buffers of the send buffers' types and holding as many elements, not read-only, each either the same
 * memory as its send buffer (in place) or apart from it, and apart from the other send buffer and from each other.
 */
public final class LocCollectives
{
    /** A Java array's largest length on HotSpot: the most pairs one call reduces. */
    private static final int MAX_PAIRS = Integer.MAX_VALUE - 8;
    /**
     * Pairs a segment: each segment's pairs are packed into keys, reduced and unpacked while the keys are in cache (at
     * most 256 KiB of them, 640 KiB for 64-bit values), one collective (two for 64-bit values) a segment.
     */
    private static final int SEGMENT = 32 * 1024;
    /**
     * Calls of up to this many pairs convert them one at a time, in code of their own: C2 neither unrolls nor
     * vectorises a loop whose profile saw it run a few times, and after 30,000 calls of one pair through the chunk
     * loops, a call of 65,536 took 1.5-1.6x as long.
     */
    private static final int FEW = 16;
    /** Pairs a chunk: the chunk arrays take 22 KiB. */
    private static final int CHUNK = 2048;
    private static final long BYTE_BASE = UnsafeApi.arrayBaseOffset(byte[].class);
    private static final long SHORT_BASE = UnsafeApi.arrayBaseOffset(short[].class);
    private static final long INT_BASE = UnsafeApi.arrayBaseOffset(int[].class);
    private static final long LONG_BASE = UnsafeApi.arrayBaseOffset(long[].class);

    private final Communicator comm;
    /** Each pair's key for values of up to 32 bits, and a reduce-scatter's block of them: a segment's worth at most. */
    private Scratch keys = new Scratch(Buf.of(new long[0]));
    private Scratch blockKeys = keys;
    /** 64-bit values: their keys (uint64), the reduced keys, and the indices each rank offers for them. */
    private Scratch wideKeys = new Scratch(Buf.of(new long[0]).as(DataType.UINT64));
    private Scratch reducedKeys = wideKeys;
    private Scratch offeredIndices = new Scratch(Buf.of(new int[0]));
    /** A 64-bit scan's ranks where each prefix's best key began. */
    private Scratch startRanks = offeredIndices;
    /**
     * 64-bit values' (key, index) pairs, two longs each, on their way out (this rank's) and in (every rank's, or every
     * rank's for this rank's block): gathers and scans of up to FEW pairs, and reduce-scatters.
     */
    private Scratch outPairs = keys;
    private Scratch inPairs = keys;
    /**
     * A chunk of pairs on its way between the buffers and the keys: values of 1 and 2 bytes as stored, values of up to
     * 32 bits and their keys sign-extended to int, indices.
     */
    private final byte[] byteChunk = new byte[CHUNK];
    private final short[] shortChunk = new short[CHUNK];
    private final int[] intChunk = new int[CHUNK];
    private final int[] indexChunk = new int[CHUNK];
    /**
     * A reduce-scatter's count a rank: the block form's, and a segment's part of each block; a 64-bit reduce-scatterv
     * segment's longs to and from each rank.
     */
    private final int[] blockCounts;
    private final int[] segmentCounts;
    private final int[] pairsOut;
    private final int[] pairsIn;

    private LocCollectives(final Communicator comm)
    {
        this.comm = java.util.Objects.requireNonNull(comm, "comm");
        this.blockCounts = new int[comm.size()];
        this.segmentCounts = new int[comm.size()];
        this.pairsOut = new int[comm.size()];
        this.pairsIn = new int[comm.size()];
    }

    /** MINLOC and MAXLOC on {@code comm}. */
    public static LocCollectives of(final Communicator comm)
    {
        return new LocCollectives(comm);
    }

    public Communicator communicator()
    {
        return comm;
    }

    /** In-place {@link #allreduce(Buf, Buf, Buf, Buf, LocOp)}: every rank's pairs replaced by the result. */
    public void allreduce(final Buf values, final Buf indices, final LocOp op)
    {
        allreduce(values, indices, values, indices, op);
    }

    /**
     * Reduces every rank's pairs ({@code sendValues[i]}, {@code sendIndices[i]}) element-wise by {@code op} into every
     * rank's ({@code recvValues[i]}, {@code recvIndices[i]}).
     */
    public void allreduce(final Buf sendValues, final Buf sendIndices, final Buf recvValues, final Buf recvIndices,
        final LocOp op)
    {
        final int count = checkSend(sendValues, sendIndices, op);
        checkReceive(sendValues, sendIndices, recvValues, recvIndices, count);
        reduce(sendValues, sendIndices, recvValues, recvIndices, op, -1, count);
    }

    /** In-place {@link #reduce(Buf, Buf, Buf, Buf, LocOp, int)}: {@code root}'s pairs replaced by the result. */
    public void reduce(final Buf values, final Buf indices, final LocOp op, final int root)
    {
        reduce(values, indices, values, indices, op, root);
    }

    /**
     * Reduces every rank's pairs element-wise by {@code op} into {@code root}'s ({@code recvValues[i]},
     * {@code recvIndices[i]}); the other ranks' receive buffers are neither read nor written (they may be null).
     */
    public void reduce(final Buf sendValues, final Buf sendIndices, final Buf recvValues, final Buf recvIndices,
        final LocOp op, final int root)
    {
        final int count = checkSend(sendValues, sendIndices, op);
        ArgumentChecks.checkRank(root, comm.size(), "root");
        if (comm.rank() == root)
        {
            checkReceive(sendValues, sendIndices, recvValues, recvIndices, count);
        }
        reduce(sendValues, sendIndices, recvValues, recvIndices, op, root, count);
    }

    /**
     * Reduces every rank's pairs (size × n each) element-wise by {@code op} and leaves block i of the result, n pairs,
     * in rank i's ({@code recvValues}, {@code recvIndices}): MPI's reduce-scatter (block) of pairs. n is the count of
     * {@code recvValues}; the send buffers hold at least size × n pairs. In place: each receive buffer is this rank's
     * block of its send buffer.
     */
    public void reduceScatter(final Buf sendValues, final Buf sendIndices, final Buf recvValues, final Buf recvIndices,
        final LocOp op)
    {
        checkSend(sendValues, sendIndices, op);
        final int count = checkBlockReceive(sendValues, sendIndices, recvValues, recvIndices);
        Arrays.fill(blockCounts, count);
        reduceScatter(sendValues, sendIndices, recvValues, recvIndices, op, blockCounts);
    }

    /**
     * Reduce-scatter with a count per rank (MPI's reduce-scatter of pairs): reduces every rank's pairs element-wise by
     * {@code op} and leaves rank i's block of the result, {@code counts[i]} pairs from the sum of the counts before
     * it, in rank i's ({@code recvValues}, {@code recvIndices}). Every rank passes the same counts; the send buffers
     * hold their sum at least. In place, as {@link Communicator#reduceScatterv}'s: each receive buffer is its send
     * buffer, the block landing at its start.
     */
    public void reduceScatterv(final Buf sendValues, final Buf sendIndices, final Buf recvValues,
        final Buf recvIndices, final int[] counts, final LocOp op)
    {
        checkSend(sendValues, sendIndices, op);
        ArgumentChecks.checkCounts(counts, comm.size(), "counts");
        ArgumentChecks.checkAtLeast(sendValues, ArgumentChecks.sum(counts), "send values (the sum of counts)");
        checkReceive(sendValues, sendIndices, recvValues, recvIndices, counts[comm.rank()]);
        reduceScatter(sendValues, sendIndices, recvValues, recvIndices, op, counts);
    }

    /** In-place {@link #scan(Buf, Buf, Buf, Buf, LocOp)}: every rank's pairs replaced by its prefix's result. */
    public void scan(final Buf values, final Buf indices, final LocOp op)
    {
        scan(values, indices, values, indices, op);
    }

    /**
     * Inclusive prefix reduction of pairs (MPI's scan): rank r's ({@code recvValues[i]}, {@code recvIndices[i]}) :=
     * the reduction by {@code op} of pair i of ranks 0 to r.
     */
    public void scan(final Buf sendValues, final Buf sendIndices, final Buf recvValues, final Buf recvIndices,
        final LocOp op)
    {
        prefix(sendValues, sendIndices, recvValues, recvIndices, op, true);
    }

    /** In-place {@link #exscan(Buf, Buf, Buf, Buf, LocOp)}: rank 0's pairs stay as they were. */
    public void exscan(final Buf values, final Buf indices, final LocOp op)
    {
        exscan(values, indices, values, indices, op);
    }

    /**
     * Exclusive prefix reduction of pairs (MPI's exscan): rank r's receive pairs := the reduction by {@code op} of the
     * pairs of ranks 0 to r - 1; rank 0's receive buffers are left as they were, as {@link Communicator#exscan} leaves
     * them.
     */
    public void exscan(final Buf sendValues, final Buf sendIndices, final Buf recvValues, final Buf recvIndices,
        final LocOp op)
    {
        prefix(sendValues, sendIndices, recvValues, recvIndices, op, false);
    }

    /** {@code root} -1: every rank receives. A call of no pairs still makes its collective, as every call does. */
    private void reduce(final Buf sendValues, final Buf sendIndices, final Buf recvValues, final Buf recvIndices,
        final LocOp op, final int root, final int count)
    {
        final ReduceOp keyOp = keyOp(op);
        final boolean receives = root < 0 || comm.rank() == root;
        final boolean packed = sendValues.type().size() <= Integer.BYTES;
        if (!packed && count <= FEW)
        {
            gatherFew(sendValues, sendIndices, recvValues, recvIndices, op, root, count);
            return;
        }
        ensureCapacity(Math.min(count, SEGMENT), packed);
        for (int from = 0; from == 0 || from < count; from += SEGMENT)
        {
            final int n = Math.min(SEGMENT, count - from);
            if (packed)
            {
                packKeys(sendValues, sendIndices, op, from, n, 0);
                reduceInPlace(keys.view(n), keyOp, root);
                if (receives)
                {
                    unpackKeys(keys, recvValues, recvIndices, op, from, n);
                }
                continue;
            }
            valueKeys(sendValues, from, n);
            comm.allreduce(wideKeys.view(n), reducedKeys.view(n), keyOp);
            offerIndices(sendIndices, from, n);
            reduceInPlace(offeredIndices.view(n), ReduceOp.MIN, root);
            if (receives)
            {
                writeReduced(recvValues, recvIndices, from, n);
            }
        }
    }

    /**
     * Rank r's block is {@code counts[r]} pairs from the sum of the counts before it. A segment takes up to
     * SEGMENT / size pairs of every block, from the same offset in each. Values of up to 32 bits: each segment's keys
     * reduce-scattered by MIN or MAX. 64-bit values: each segment's (key, index) pairs go to the ranks whose blocks
     * they are in by one alltoall (alltoallv), and each rank reduces the pairs it receives. A segment whose parts are
     * all alike takes the block collective, which has more algorithms than the v form, and so does a 64-bit segment
     * whose parts, none of more than FEW pairs, are padded to the widest.
     * <p>
     * A receive buffer is either apart from its send buffer, or its block of it, or its start (in place): a segment
     * writes the result's pairs {@code from} to {@code from + n} there, and each of those positions lies in some block
     * at an offset below {@code from + n}, in this segment or an earlier one, already read.
     */
    private void reduceScatter(final Buf sendValues, final Buf sendIndices, final Buf recvValues,
        final Buf recvIndices, final LocOp op, final int[] counts)
    {
        final int ranks = comm.size();
        final boolean packed = sendValues.type().size() <= Integer.BYTES;
        final int segment = Math.max(1, SEGMENT / ranks);
        int spread = 0;
        int largest = 0;
        for (final int count : counts)
        {
            spread += Math.min(count, segment);
            largest = Math.max(largest, count);
        }
        final int mine = Math.min(counts[comm.rank()], segment);
        if (packed)
        {
            keys = keys.atLeast(spread);
            blockKeys = blockKeys.atLeast(mine);
        }
        else
        {
            final int most = Math.min(largest, segment);
            final int padded = Math.min(most, FEW);
            ensureCapacity(most, false);
            ensurePairs(Math.max(spread, ranks * padded), ranks * Math.max(mine, padded));
        }
        final int[] parts = segmentCounts;
        for (int from = 0; from == 0 || from < largest; from += segment)
        {
            boolean alike = true;
            int widest = 0;
            for (int r = 0; r < ranks; r++)
            {
                parts[r] = Math.max(0, Math.min(segment, counts[r] - from));
                alike &= parts[r] == parts[0];
                widest = Math.max(widest, parts[r]);
            }
            // the block collectives where the parts are alike, and for 64-bit values where none holds more than a few
            // pairs, each part padded to the widest, for alltoall's low-latency path, which alltoallv has not (the odd
            // ranks' parts half the even ranks', alltoall against alltoallv: 2 ranks, 0.47 against 0.64 µs for one
            // pair, 0.59 against 0.93 for 16; 4 ranks on 2 cores, 4.1 against 11.6 and 4.7 against 13.0)
            final boolean blockForm = alike || !packed && widest <= FEW;
            int at = 0;
            int blockStart = 0;
            for (int r = 0; r < ranks; r++)
            {
                final int to = blockForm ? r * widest : at;
                if (packed)
                {
                    packKeys(sendValues, sendIndices, op, blockStart + from, parts[r], to);
                }
                else
                {
                    pairs(sendValues, sendIndices, blockStart + from, parts[r], to);
                }
                at += parts[r];
                blockStart += counts[r];
            }
            // the v collectives take the whole scratch arrays, whose counts they read no further than the parts':
            // a view a segment's shape would allocate for the shapes beyond the two a scratch keeps
            final int n = parts[comm.rank()];
            if (packed)
            {
                if (blockForm)
                {
                    comm.reduceScatter(keys.view(ranks * widest), blockKeys.view(n), keyOp(op));
                }
                else
                {
                    comm.reduceScatterv(keys.whole, blockKeys.whole, parts, keyOp(op));
                }
                unpackKeys(blockKeys, recvValues, recvIndices, op, from, n);
                continue;
            }
            if (blockForm)
            {
                comm.alltoall(outPairs.view(2 * ranks * widest), inPairs.view(2 * ranks * widest));
            }
            else
            {
                for (int r = 0; r < ranks; r++)
                {
                    pairsOut[r] = 2 * parts[r];
                    pairsIn[r] = 2 * n;
                }
                comm.alltoallv(outPairs.whole, pairsOut, null, inPairs.whole, pairsIn, null);
            }
            foldPairs(ranks, n, blockForm ? widest : n, op);
            writeReduced(recvValues, recvIndices, from, n);
        }
    }

    /**
     * Scan and exscan, their arguments checked first. Values of up to 32 bits: each segment's keys scanned by MIN or
     * MAX. 64-bit values: up to FEW pairs by one scan ({@link #scanFew}), more by three a segment ({@link #scanWide}).
     */
    private void prefix(final Buf sendValues, final Buf sendIndices, final Buf recvValues, final Buf recvIndices,
        final LocOp op, final boolean inclusive)
    {
        final int count = checkSend(sendValues, sendIndices, op);
        checkReceive(sendValues, sendIndices, recvValues, recvIndices, count);
        final boolean receives = inclusive || comm.rank() > 0;
        final boolean packed = sendValues.type().size() <= Integer.BYTES;
        if (!packed && count <= FEW)
        {
            scanFew(sendValues, sendIndices, op, inclusive, count);
            if (receives)
            {
                writeReduced(recvValues, recvIndices, 0, count);
            }
            return;
        }
        final int most = Math.min(count, SEGMENT);
        ensureCapacity(most, packed);
        if (!packed)
        {
            keys = keys.atLeast(most);
            startRanks = startRanks.atLeast(most);
        }
        for (int from = 0; from == 0 || from < count; from += SEGMENT)
        {
            final int n = Math.min(SEGMENT, count - from);
            if (!packed)
            {
                scanWide(sendValues, sendIndices, op, inclusive, from, n);
                if (receives)
                {
                    writeReduced(recvValues, recvIndices, from, n);
                }
                continue;
            }
            packKeys(sendValues, sendIndices, op, from, n, 0);
            scanInPlace(keys.view(n), keyOp(op), inclusive);
            if (receives)
            {
                unpackKeys(keys, recvValues, recvIndices, op, from, n);
            }
        }
    }

    /**
     * Up to FEW pairs of 64-bit values in one scan rather than three: each rank writes its (key, index) pairs into its
     * own block of a vector of a block a rank, zeros elsewhere, and a BOR scan (exscan) of the vector brings rank r the
     * blocks of ranks 0 to r (r - 1), which it reduces into {@code reducedKeys} and {@code offeredIndices}. At 4 ranks
     * on 2 cores one pair took 0.72-0.89 µs so, 2.4-2.6 by three scans; 16 pairs 2.6-3.3 µs, 3.1-3.9.
     */
    private void scanFew(final Buf values, final Buf indices, final LocOp op, final boolean inclusive,
        final int count)
    {
        final int ranks = comm.size();
        final int me = comm.rank();
        ensureCapacity(count, false);
        ensurePairs(count, ranks * count);
        pairs(values, indices, 0, count, 0);
        final long[] vector = (long[])inPairs.array;
        Arrays.fill(vector, 0, 2 * ranks * count, 0L);
        System.arraycopy(outPairs.array, 0, vector, 2 * me * count, 2 * count);
        scanInPlace(inPairs.view(2 * ranks * count), ReduceOp.BOR, inclusive);
        if (inclusive || me > 0)
        {
            foldPairs(inclusive ? me + 1 : me, count, count, op);
        }
    }

    /**
     * 64-bit values' pairs {@code from} to {@code from + n}, scanned (or exscanned) by three scans into
     * {@code reducedKeys} and {@code offeredIndices}. The ranks whose prefixes share a best key are consecutive: they
     * start at the rank whose key bettered every key before it, and each of them holds that key or a worse one. So:
     * <ol>
     * <li>an exscan of the keys gives each rank the best key before it, E, and with its own, its prefix's best K;</li>
     * <li>a MAX scan of int32, each rank offering its rank where its key is better than E (rank 0 always), gives the
     * rank S where its prefix's best began;</li>
     * <li>a MAX scan (exscan) of (S, index) as one int64 key, each rank offering its index where its key is K, gives
     * the latest S among the prefix and, among the ranks since it, the smallest index: of the pairs whose key is the
     * prefix's best.</li>
     * </ol>
     * A reduction of every rank's keys and then indices, as an allreduce makes, cannot tell which ranks' keys were the
     * best of each prefix: a rank's result is decided among its predecessors alone. Three scans move 20 bytes a pair;
     * an allgather of the pairs, each rank reducing those before it, took 1.5-2.5x their time at 2 ranks from 1,024
     * pairs.
     */
    private void scanWide(final Buf values, final Buf indices, final LocOp op, final boolean inclusive,
        final int from, final int n)
    {
        final int me = comm.rank();
        final boolean max = op == LocOp.MAXLOC;
        valueKeys(values, from, n);
        comm.exscan(wideKeys.view(n), reducedKeys.view(n), keyOp(op));
        final long[] own = (long[])wideKeys.array;
        final long[] best = (long[])reducedKeys.array;
        final int[] offered = (int[])offeredIndices.array;
        final int[] start = (int[])startRanks.array;
        readIndices(indices, from, n);
        for (int i = 0; i < n; i++)
        {
            final long key = own[i];
            final int order = me == 0 ? 1 : Long.compareUnsigned(key, best[i]);
            final boolean better = me == 0 || (max ? order > 0 : order < 0);
            start[i] = better ? me : -1;
            if (!better && order != 0)
            {
                offered[i] = Integer.MAX_VALUE;
            }
            if (inclusive && better)
            {
                best[i] = key;
            }
        }
        comm.scan(startRanks.view(n), ReduceOp.MAX);
        final long[] startAndIndex = (long[])keys.array;
        for (int i = 0; i < n; i++)
        {
            startAndIndex[i] = (long)start[i] << 32 | indexKey(LocOp.MAXLOC, offered[i]);
        }
        scanInPlace(keys.view(n), ReduceOp.MAX, inclusive);
        for (int i = 0; i < n; i++)
        {
            offered[i] = index(LocOp.MAXLOC, startAndIndex[i]);
        }
    }

    /**
     * Up to FEW pairs of 64-bit values in one collective rather than two: every rank's (key, index) pairs gathered
     * (to every rank, or to the root) and reduced where they arrive. At 2 ranks one float64 pair took 0.86 µs by the
     * two reductions.
     */
    private void gatherFew(final Buf sendValues, final Buf sendIndices, final Buf recvValues, final Buf recvIndices,
        final LocOp op, final int root, final int count)
    {
        final int ranks = comm.size();
        ensureCapacity(count, false);
        ensurePairs(count, ranks * count);
        pairs(sendValues, sendIndices, 0, count, 0);
        final Buf send = outPairs.view(2 * count);
        final Buf all = inPairs.view(2 * count * ranks);
        if (root < 0)
        {
            comm.allgather(send, all);
        }
        else
        {
            comm.gather(send, comm.rank() == root ? all : null, root);
        }
        if (root < 0 || comm.rank() == root)
        {
            foldPairs(ranks, count, count, op);
            writeReduced(recvValues, recvIndices, 0, count);
        }
    }

    /**
     * 64-bit values' pairs {@code from} to {@code from + n} into {@code outPairs} from pair {@code at} on: the value's
     * key, then the index.
     */
    private void pairs(final Buf values, final Buf indices, final int from, final int n, final int at)
    {
        valueKeys(values, from, n);
        final long[] key = (long[])wideKeys.array;
        final int[] index = (int[])offeredIndices.array;
        readIndices(indices, from, n);
        final long[] out = (long[])outPairs.array;
        for (int i = 0; i < n; i++)
        {
            out[2 * (at + i)] = key[i];
            out[2 * (at + i) + 1] = index[i];
        }
    }

    /**
     * {@code inPairs} holds blocks of (key, index) pairs, {@code stride} pairs apart: pair i of the first
     * {@code blocks} blocks, reduced, into {@code reducedKeys[i]} and {@code offeredIndices[i]}, for i below n.
     */
    private void foldPairs(final int blocks, final int n, final int stride, final LocOp op)
    {
        final long[] in = (long[])inPairs.array;
        final long[] reduced = (long[])reducedKeys.array;
        final int[] indices = (int[])offeredIndices.array;
        final boolean max = op == LocOp.MAXLOC;
        for (int i = 0; i < n; i++)
        {
            long key = in[2 * i];
            int index = (int)in[2 * i + 1];
            for (int b = 1; b < blocks; b++)
            {
                final long k = in[2 * (b * stride + i)];
                final int x = (int)in[2 * (b * stride + i) + 1];
                final int order = Long.compareUnsigned(k, key);
                if (max ? order > 0 : order < 0)
                {
                    key = k;
                    index = x;
                }
                else if (k == key && x < index)
                {
                    index = x;
                }
            }
            reduced[i] = key;
            indices[i] = index;
        }
    }

    /** The reduction of keys that orders pairs as {@code op} does. */
    private static ReduceOp keyOp(final LocOp op)
    {
        return op == LocOp.MAXLOC ? ReduceOp.MAX : ReduceOp.MIN;
    }

    private void scanInPlace(final Buf buf, final ReduceOp op, final boolean inclusive)
    {
        if (inclusive)
        {
            comm.scan(buf, op);
        }
        else
        {
            comm.exscan(buf, op);
        }
    }

    private void reduceInPlace(final Buf buf, final ReduceOp op, final int root)
    {
        if (root < 0)
        {
            comm.allreduce(buf, op);
        }
        else
        {
            comm.reduce(buf, buf, op, root);
        }
    }

    /*
     * The loops below go through a segment's pairs a chunk at a time: a chunk of values and one of indices are copied
     * into the chunk arrays and converted there, type by type in loops C2 can vectorise. (Elements' access of one
     * element at a time took 8 ns a pair; a pass over all the keys for each step, 4-5; these 1.2-1.3 for float32
     * values and 1.8-2.0 for float64, in cache.) Up to FEW pairs go one at a time, in code of their own.
     */

    /**
     * Pairs {@code from} to {@code from + n} of up to 32 bits into keys from key {@code at} on: the value's key high,
     * the index's low.
     */
    private void packKeys(final Buf values, final Buf indices, final LocOp op, final int from, final int n,
        final int at)
    {
        final DataType type = values.type();
        final long[] packed = (long[])keys.array;
        if (n <= FEW)
        {
            final int shift = Integer.SIZE - Byte.SIZE * type.size();
            for (int i = 0; i < n; i++)
            {
                final int bits = (int)Elements.getBits(type, values.base(), values.offset(), from + i) << shift >>
                    shift;
                final int index = (int)Elements.getBits(DataType.INT32, indices.base(), indices.offset(), from + i);
                packed[at + i] = (long)orderKey32(type, bits) << 32 | indexKey(op, index);
            }
            return;
        }
        final int[] bits = intChunk;
        final int[] index = indexChunk;
        for (int done = 0; done < n; done += CHUNK)
        {
            final int m = Math.min(CHUNK, n - done);
            readInts(values, from + done, m);
            orderKeys32(type, bits, m);
            UnsafeApi.copyMemory(indices.base(), indices.offset() + (long)(from + done) * Integer.BYTES, index,
                INT_BASE, (long)m * Integer.BYTES);
            for (int i = 0; i < m; i++)
            {
                packed[at + done + i] = (long)bits[i] << 32 | indexKey(op, index[i]);
            }
        }
    }

    /** The first n packed keys' values and indices into pairs {@code from} to {@code from + n} of the buffers. */
    private void unpackKeys(final Scratch source, final Buf values, final Buf indices, final LocOp op, final int from,
        final int n)
    {
        final DataType type = values.type();
        final long[] packed = (long[])source.array;
        if (n <= FEW)
        {
            for (int i = 0; i < n; i++)
            {
                Elements.putBits(type, values.base(), values.offset(), from + i,
                    valueBits32(type, (int)(packed[i] >> 32)));
                Elements.putBits(DataType.INT32, indices.base(), indices.offset(), from + i, index(op, packed[i]));
            }
            return;
        }
        final int[] bits = intChunk;
        final int[] index = indexChunk;
        for (int done = 0; done < n; done += CHUNK)
        {
            final int m = Math.min(CHUNK, n - done);
            for (int i = 0; i < m; i++)
            {
                final long key = packed[done + i];
                index[i] = index(op, key);
                bits[i] = (int)(key >> 32);
            }
            valueBits32(type, bits, m);
            writeInts(values, from + done, m);
            UnsafeApi.copyMemory(index, INT_BASE, indices.base(),
                indices.offset() + (long)(from + done) * Integer.BYTES, (long)m * Integer.BYTES);
        }
    }

    /** 64-bit values {@code from} to {@code from + n}: wideKeys := their order keys. */
    private void valueKeys(final Buf values, final int from, final int n)
    {
        final long[] own = (long[])wideKeys.array;
        if (n <= FEW)
        {
            for (int i = 0; i < n; i++)
            {
                own[i] = orderKey64(values.type(), Elements.getBits(values.type(), values.base(), values.offset(),
                    from + i));
            }
            return;
        }
        UnsafeApi.copyMemory(values.base(), values.offset() + (long)from * Long.BYTES, own, LONG_BASE,
            (long)n * Long.BYTES);
        orderKeys64(values.type(), own, n);
    }

    /** {@code offeredIndices[i]} := index {@code from + i} of {@code indices}, for i below n. */
    private void readIndices(final Buf indices, final int from, final int n)
    {
        UnsafeApi.copyMemory(indices.base(), indices.offset() + (long)from * Integer.BYTES, offeredIndices.array,
            INT_BASE, (long)n * Integer.BYTES);
    }

    /** A rank's index where its key is the reduced one; elsewhere one that loses every MIN. */
    private void offerIndices(final Buf indices, final int from, final int n)
    {
        final long[] own = (long[])wideKeys.array;
        final long[] reduced = (long[])reducedKeys.array;
        final int[] offered = (int[])offeredIndices.array;
        readIndices(indices, from, n);
        for (int i = 0; i < n; i++)
        {
            if (own[i] != reduced[i])
            {
                offered[i] = Integer.MAX_VALUE;
            }
        }
    }

    /**
     * 64-bit values: the reduced keys' values and the indices offered for them into pairs {@code from} to
     * {@code from + n} of the buffers (the keys overwritten).
     */
    private void writeReduced(final Buf values, final Buf indices, final int from, final int n)
    {
        reducedValues(values, from, n);
        UnsafeApi.copyMemory(offeredIndices.array, INT_BASE, indices.base(),
            indices.offset() + (long)from * Integer.BYTES, (long)n * Integer.BYTES);
    }

    private void reducedValues(final Buf values, final int from, final int n)
    {
        final long[] reduced = (long[])reducedKeys.array;
        if (n <= FEW)
        {
            for (int i = 0; i < n; i++)
            {
                Elements.putBits(values.type(), values.base(), values.offset(), from + i,
                    valueBits64(values.type(), reduced[i]));
            }
            return;
        }
        valueBits64(values.type(), reduced, n);
        UnsafeApi.copyMemory(reduced, LONG_BASE, values.base(), values.offset() + (long)from * Long.BYTES,
            (long)n * Long.BYTES);
    }

    /** {@code intChunk[i]} := the stored bits, sign-extended, of element {@code from + i}, for i below n. */
    private void readInts(final Buf values, final int from, final int n)
    {
        final int size = values.type().size();
        final long at = values.offset() + (long)from * size;
        final int[] bits = intChunk;
        switch (size)
        {
            case 1 ->
            {
                final byte[] chunk = byteChunk;
                UnsafeApi.copyMemory(values.base(), at, chunk, BYTE_BASE, n);
                for (int i = 0; i < n; i++)
                {
                    bits[i] = chunk[i];
                }
            }
            case 2 ->
            {
                final short[] chunk = shortChunk;
                UnsafeApi.copyMemory(values.base(), at, chunk, SHORT_BASE, 2L * n);
                for (int i = 0; i < n; i++)
                {
                    bits[i] = chunk[i];
                }
            }
            default -> UnsafeApi.copyMemory(values.base(), at, bits, INT_BASE, 4L * n);
        }
    }

    /** Element {@code from + i} of {@code values} := the low bits of {@code intChunk[i]}, for i below n. */
    private void writeInts(final Buf values, final int from, final int n)
    {
        final int size = values.type().size();
        final long at = values.offset() + (long)from * size;
        final int[] bits = intChunk;
        switch (size)
        {
            case 1 ->
            {
                final byte[] chunk = byteChunk;
                for (int i = 0; i < n; i++)
                {
                    chunk[i] = (byte)bits[i];
                }
                UnsafeApi.copyMemory(chunk, BYTE_BASE, values.base(), at, n);
            }
            case 2 ->
            {
                final short[] chunk = shortChunk;
                for (int i = 0; i < n; i++)
                {
                    chunk[i] = (short)bits[i];
                }
                UnsafeApi.copyMemory(chunk, SHORT_BASE, values.base(), at, 2L * n);
            }
            default -> UnsafeApi.copyMemory(bits, INT_BASE, values.base(), at, 4L * n);
        }
    }

    private int checkSend(final Buf values, final Buf indices, final LocOp op)
    {
        if (op == null)
        {
            throw new IllegalArgumentException("op is null: MINLOC or MAXLOC");
        }
        ArgumentChecks.checkBuffer(values, "send values", false);
        ArgumentChecks.checkBuffer(indices, "send indices", false);
        checkIndexType(indices, "send indices");
        if (values.count() != indices.count())
        {
            throw new IllegalArgumentException("send values hold " + values.count() + " elements and send indices " +
                indices.count() + ": one index a value");
        }
        if (values.count() > MAX_PAIRS)
        {
            throw new IllegalArgumentException(values.count() + " pairs are more than one call reduces (" +
                MAX_PAIRS + ")");
        }
        return (int)values.count();
    }

    /**
     * The receive buffers' types and counts, and how they lie: each the same memory as its send buffer (in place) or
     * apart from it, and apart from the other send buffer and from each other, for segments are written while later
     * ones are still to be read.
     */
    private static void checkReceive(final Buf sendValues, final Buf sendIndices, final Buf values, final Buf indices,
        final int count)
    {
        checkReceiveTypes(sendValues, values, indices);
        ArgumentChecks.checkAtLeast(values, count, "receive values");
        ArgumentChecks.checkAtLeast(indices, count, "receive indices");
        ArgumentChecks.checkNoPartialOverlap(sendValues, values, "values");
        ArgumentChecks.checkNoPartialOverlap(sendIndices, indices, "indices");
        checkCrossApart(sendValues, sendIndices, values, indices);
    }

    /**
     * A reduce-scatter's receive buffers: n pairs, n the count of the receive values, of the send buffers' types; the
     * send buffers hold size × n at least; each receive buffer is this rank's block of its send buffer (in place) or
     * apart from it, and apart from the other send buffer and from each other. Returns n.
     */
    private int checkBlockReceive(final Buf sendValues, final Buf sendIndices, final Buf values, final Buf indices)
    {
        checkReceiveTypes(sendValues, values, indices);
        final long count = values.count();
        ArgumentChecks.checkAtLeast(indices, count, "receive indices");
        ArgumentChecks.checkAtLeast(sendValues, count * comm.size(), "send values (size × receive count)");
        ArgumentChecks.checkOwnBlockOrApart(sendValues, values, comm.rank(), count, "receive values");
        ArgumentChecks.checkOwnBlockOrApart(sendIndices, indices, comm.rank(), count, "receive indices");
        checkCrossApart(sendValues, sendIndices, values, indices);
        return (int)count;
    }

    /** The receive buffers writable, the values of the send values' type, the indices int32. */
    private static void checkReceiveTypes(final Buf sendValues, final Buf values, final Buf indices)
    {
        ArgumentChecks.checkBuffer(values, "receive values", true);
        ArgumentChecks.checkBuffer(indices, "receive indices", true);
        if (values.type() != sendValues.type())
        {
            throw new IllegalArgumentException("receive values hold " + values.type().label() + ", send values " +
                sendValues.type().label());
        }
        checkIndexType(indices, "receive indices");
    }

    /** Each receive buffer apart from the other send buffer, and the two receive buffers apart from each other. */
    private static void checkCrossApart(final Buf sendValues, final Buf sendIndices, final Buf values,
        final Buf indices)
    {
        ArgumentChecks.checkApart(sendIndices, "send indices", values, "receive values");
        ArgumentChecks.checkApart(sendValues, "send values", indices, "receive indices");
        ArgumentChecks.checkApart(values, "receive values", indices, "receive indices");
    }

    private static void checkIndexType(final Buf indices, final String role)
    {
        if (indices.type() != DataType.INT32)
        {
            throw new IllegalArgumentException(role + " hold " + indices.type().label() + ": indices are int32");
        }
    }

    /** The key arrays for segments of up to {@code pairs} pairs: grown, never shrunk. */
    private void ensureCapacity(final int pairs, final boolean packed)
    {
        if (packed)
        {
            keys = keys.atLeast(pairs);
        }
        else
        {
            wideKeys = wideKeys.atLeast(pairs);
            reducedKeys = reducedKeys.atLeast(pairs);
            offeredIndices = offeredIndices.atLeast(pairs);
        }
    }

    /** The pair arrays for {@code out} pairs of this rank's and {@code in} received: grown, never shrunk. */
    private void ensurePairs(final int out, final int in)
    {
        outPairs = outPairs.atLeast(2 * out);
        inPairs = inPairs.atLeast(2 * in);
    }

    /**
     * A scratch array of longs or ints and its views: the whole array's, and the last two shorter ones asked for (a
     * call's segments and its last one), so that calls repeating their counts allocate nothing.
     */
    private static final class Scratch
    {
        final Object array;
        final Buf whole;
        private Buf last;
        private Buf previous;

        Scratch(final Buf whole)
        {
            this.array = whole.base();
            this.whole = whole;
            this.last = whole;
            this.previous = whole;
        }

        Buf view(final int count)
        {
            if (count == whole.count())
            {
                return whole;
            }
            if (last.count() != count)
            {
                final Buf older = last;
                last = previous.count() == count ? previous : whole.slice(0, count);
                previous = older;
            }
            return last;
        }

        /** This scratch, or a new one of the same type holding {@code count} elements when this one holds fewer. */
        Scratch atLeast(final int count)
        {
            if (whole.count() >= count)
            {
                return this;
            }
            final Buf grown = whole.type().size() == Long.BYTES ? Buf.of(new long[count]).as(whole.type()) :
                Buf.of(new int[count]);
            return new Scratch(grown);
        }
    }
}
