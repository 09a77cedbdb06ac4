package io.jccl.it;

import io.jccl.Collective;
import io.jccl.DataType;
import io.jccl.ReduceOp;
import io.jccl.algorithms.AlgorithmRegistry;
import io.jccl.it.ContractCase.Kind;
import io.jccl.it.ContractCase.Layout;

import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;

import static io.jccl.DataType.BFLOAT16;
import static io.jccl.DataType.FLOAT16;
import static io.jccl.DataType.FLOAT32;
import static io.jccl.DataType.FLOAT64;
import static io.jccl.DataType.INT32;
import static io.jccl.DataType.INT64;
import static io.jccl.DataType.INT8;
import static io.jccl.DataType.UINT32;
import static io.jccl.DataType.UINT64;
import static io.jccl.DataType.UINT8;

/**
 * The case list of the contract suite for one rank count, the same on every rank, and the block layouts of the v
 * forms, which every rank derives from the case alone. For each collective and each of its algorithms in the
 * registry:
 * <ul>
 *   <li>reductions: every datatype × op at small counts, a sweep of counts (0, 1, primes, counts that no rank
 *       count divides, ring and staging boundaries) over both roots and both in-place forms, inexact random floats
 *       for float16, bfloat16, float32 and float64 with SUM, AVG and PROD, and 16 MiB of float32 SUM and int64
 *       SUM;</li>
 *   <li>data movement: every datatype at two small counts, the same sweep of counts, and 16 MiB of float32 and
 *       int64;</li>
 *   <li>barrier: a late rank (0, last, middle) and 20 back-to-back barriers.</li>
 * </ul>
 * Buffer kinds (arrays, direct buffers, symmetric memory, and mixes) vary from case to case with the seed.
 */
final class ContractCases
{
    /** The "16 MiB" size: bytes of the whole vector as nccl-tests counts them (DESIGN.md section 7). */
    static final long BIG_BYTES = 16L << 20;

    private static final DataType[] TYPES = {INT8, INT32, INT64, FLOAT16, BFLOAT16, FLOAT32, FLOAT64, UINT8, UINT32,
        UINT64};
    private static final DataType[] FLOAT_TYPES = {FLOAT16, BFLOAT16, FLOAT32, FLOAT64};
    private static final ReduceOp[] OPS = ReduceOp.values();
    /** The operators that reduce every type, for the count sweep, whose types rotate. */
    private static final ReduceOp[] ARITHMETIC_OPS = {ReduceOp.SUM, ReduceOp.PROD, ReduceOp.MIN, ReduceOp.MAX,
        ReduceOp.AVG};
    /** The ops of unsigned types in the grid: those whose results differ from the signed type's, and SUM. */
    static final java.util.Set<ReduceOp> UNSIGNED_OPS =
        java.util.EnumSet.of(ReduceOp.MIN, ReduceOp.MAX, ReduceOp.AVG, ReduceOp.SUM);
    private static final ReduceOp[] INEXACT_OPS = {ReduceOp.SUM, ReduceOp.AVG, ReduceOp.PROD};
    /** Small counts for the datatype × op grid. */
    private static final long[] GRID_COUNTS = {1, 7, 31, 97, 1009, 13, 257};
    /**
     * The bitwise operators' vector in the grid, 1000 int8, 250 int32 or 125 int64 elements: past every type's scalar
     * limit ({@code Reductions.scalarLimit}: 384, 96 and 96), so that their SIMD and array loops run on every
     * algorithm's path, not only the scalar one the smaller grid counts take, and within the 1 KiB a rank that the
     * low-latency algorithms carry.
     */
    private static final int BITWISE_BYTES = 1000;
    /** The count sweep: empty, single, tiny, primes, around 1 MiB rings and the 512 KiB chunks of the classics. */
    private static final long[] SWEEP_COUNTS = {0, 1, 2, 3, 5, 13, 61, 127, 1000, 4099, 65_537, 300_007};
    /** Above this, block collectives divide the sweep count by the rank count to keep the totals alike. */
    private static final long BLOCK_SCALE_FROM = 4099;
    private static final long[] INEXACT_COUNTS = {1000, 4099};
    /** Send and receive kinds, picked per case by seed. */
    private static final Kind[][] KIND_PAIRS = {
        {Kind.ARRAY, Kind.ARRAY}, {Kind.DIRECT, Kind.DIRECT}, {Kind.SHARED, Kind.SHARED},
        {Kind.ARRAY, Kind.SHARED}, {Kind.SHARED, Kind.DIRECT}, {Kind.DIRECT, Kind.ARRAY}};
    private static final int GAP = 3;

    private final int ranks;
    private final List<ContractCase> cases = new ArrayList<>();

    private ContractCases(final int ranks)
    {
        this.ranks = ranks;
    }

    /** Every case for {@code ranks} ranks whose label matches {@code filter} (a regular expression, or null). */
    static List<ContractCase> build(final int ranks, final AlgorithmRegistry registry, final String filter)
    {
        final ContractCases builder = new ContractCases(ranks);
        for (final Collective collective : Collective.values())
        {
            for (final String algorithm : registry.of(collective).keySet())
            {
                builder.addAll(collective, algorithm);
            }
        }
        if (filter == null || filter.isBlank())
        {
            return builder.cases;
        }
        final Pattern pattern = Pattern.compile(filter);
        return builder.cases.stream().filter(c -> pattern.matcher(c.label()).find()).toList();
    }

    private void addAll(final Collective collective, final String algorithm)
    {
        if (collective == Collective.BARRIER)
        {
            add(collective, algorithm, null, null, 1, 0, false);
            add(collective, algorithm, null, null, 1, 1, false);
            add(collective, algorithm, null, null, 20, 2, false);
            return;
        }
        final boolean reduction = isReduction(collective);
        // every datatype × op (data movement: every datatype, at two counts). Unsigned types differ from the signed
        // ones only where order or division enters, and move as bytes: the grid gives them those ops and SUM alone;
        // the count sweep below gives them the others' cases too.
        for (int t = 0; t < TYPES.length; t++)
        {
            if (TYPES[t].isUnsigned() && !reduction)
            {
                continue;
            }
            if (reduction)
            {
                for (int o = 0; o < OPS.length; o++)
                {
                    if (!OPS[o].reduces(TYPES[t]) || TYPES[t].isUnsigned() && !UNSIGNED_OPS.contains(OPS[o]))
                    {
                        continue;
                    }
                    final int k = t * OPS.length + o;
                    final long count = OPS[o].isBitwise() ? BITWISE_BYTES / TYPES[t].size() :
                        GRID_COUNTS[k % GRID_COUNTS.length];
                    add(collective, algorithm, TYPES[t], OPS[o], count, k, false);
                }
            }
            else
            {
                add(collective, algorithm, TYPES[t], null, GRID_COUNTS[t % GRID_COUNTS.length], t, false);
                add(collective, algorithm, TYPES[t], null, GRID_COUNTS[(t + 3) % GRID_COUNTS.length], t + 1, false);
            }
        }
        // the count sweep, each count out of place with the last rank as root and in place with root 0
        for (int i = 0; i < SWEEP_COUNTS.length; i++)
        {
            final long n = blockCount(collective, SWEEP_COUNTS[i]);
            final DataType type = TYPES[(i + 5) % TYPES.length];
            final ReduceOp op = reduction ? ARITHMETIC_OPS[i % ARITHMETIC_OPS.length] : null;
            add(collective, algorithm, type, op, n, 2, false);
            add(collective, algorithm, type, op, n, 1, false);
        }
        if (reduction)
        {
            for (int t = 0; t < FLOAT_TYPES.length; t++)
            {
                for (int o = 0; o < INEXACT_OPS.length; o++)
                {
                    final int k = t * INEXACT_OPS.length + o;
                    add(collective, algorithm, FLOAT_TYPES[t], INEXACT_OPS[o],
                        INEXACT_COUNTS[k % INEXACT_COUNTS.length], k, true);
                }
            }
        }
        // 16 MiB
        add(collective, algorithm, FLOAT32, reduction ? ReduceOp.SUM : null, bigCount(collective, FLOAT32), 0, false);
        add(collective, algorithm, INT64, reduction ? ReduceOp.SUM : null, bigCount(collective, INT64), 3, false);
    }

    /**
     * Adds a case; {@code variant} bit 0 asks for the in-place form and bit 1 for the last rank as root, where the
     * collective has them.
     */
    private void add(final Collective collective, final String algorithm, final DataType type, final ReduceOp op,
        final long count, final int variant, final boolean inexact)
    {
        final int index = cases.size();
        final long seed = ContractValues.mix(ranks * 1_000_003L + index);
        final boolean inPlace = collective == Collective.BROADCAST || hasInPlace(collective) && (variant & 1) != 0;
        final int root = collective == Collective.BARRIER ? new int[] {0, ranks - 1, ranks / 2}[variant % 3] :
            hasRoot(collective) ? ((variant & 2) != 0 ? ranks - 1 : 0) : -1;
        final Kind[] kinds = KIND_PAIRS[(int)Math.floorMod(seed >>> 8, (long)KIND_PAIRS.length)];
        final boolean barrier = collective == Collective.BARRIER;
        final Kind recvKind = barrier ? null : kinds[1];
        final Kind sendKind = barrier || collective == Collective.BROADCAST ? null : inPlace ? recvKind : kinds[0];
        final Layout layout = hasLayout(collective) ? Layout.values()[index % Layout.values().length] : Layout.PACKED;
        cases.add(new ContractCase(index, collective, algorithm, type, op, count, root, inPlace, sendKind, recvKind,
            inexact, layout, seed));
    }

    private long blockCount(final Collective collective, final long n)
    {
        return isBlock(collective) && n > BLOCK_SCALE_FROM ? (n / ranks) | 1 : n;
    }

    private long bigCount(final Collective collective, final DataType type)
    {
        final long elements = BIG_BYTES / type.size();
        return isBlock(collective) ? elements / ranks : elements;
    }

    static boolean isReduction(final Collective c)
    {
        return c == Collective.REDUCE || c == Collective.ALLREDUCE || c == Collective.REDUCE_SCATTER ||
            c == Collective.REDUCE_SCATTERV || c == Collective.SCAN || c == Collective.EXSCAN;
    }

    static boolean hasRoot(final Collective c)
    {
        return c == Collective.BROADCAST || c == Collective.REDUCE || c == Collective.GATHER ||
            c == Collective.GATHERV || c == Collective.SCATTER || c == Collective.SCATTERV;
    }

    /** Collectives whose in-place form the Communicator javadoc defines (broadcast is in place by nature). */
    static boolean hasInPlace(final Collective c)
    {
        return c == Collective.REDUCE || c == Collective.ALLREDUCE || c == Collective.GATHER ||
            c == Collective.GATHERV || c == Collective.SCATTER || c == Collective.SCATTERV ||
            c == Collective.ALLGATHER || c == Collective.ALLGATHERV || c == Collective.REDUCE_SCATTER ||
            c == Collective.SCAN || c == Collective.EXSCAN;
    }

    /** Collectives whose count is one rank's block (reduce_scatterv's count is the total). */
    static boolean isBlock(final Collective c)
    {
        return c == Collective.GATHER || c == Collective.GATHERV || c == Collective.SCATTER ||
            c == Collective.SCATTERV || c == Collective.ALLGATHER || c == Collective.ALLGATHERV ||
            c == Collective.REDUCE_SCATTER || c == Collective.ALLTOALL || c == Collective.ALLTOALLV;
    }

    /** The v forms whose blocks may lie packed, apart or in reverse order ({@link Layout}). */
    static boolean hasLayout(final Collective c)
    {
        return c == Collective.GATHERV || c == Collective.SCATTERV || c == Collective.ALLGATHERV ||
            c == Collective.ALLTOALLV;
    }

    // ----------------------------------------------------------------------------------------- v-form layouts

    /**
     * Elements rank {@code from} contributes (gatherv, allgatherv), receives (scatterv) or sends to {@code to}
     * (alltoallv): 0, or n/2 to 3n/2.
     */
    static int blockCount(final ContractCase c, final int from, final int to)
    {
        final long h = ContractValues.mix(c.seed() ^ (from * 0x632BE59BD9B4E019L + to * 0x85157AF5L + 17));
        return Math.floorMod(h, 5L) == 0 ? 0 : Math.toIntExact(c.count() / 2 + Math.floorMod(h >>> 8,
            c.count() + 1));
    }

    /** gatherv, scatterv and allgatherv counts: each rank's block. */
    static int[] allgathervCounts(final ContractCase c, final int ranks)
    {
        final int[] counts = new int[ranks];
        for (int j = 0; j < ranks; j++)
        {
            counts[j] = blockCount(c, j, j);
        }
        return counts;
    }

    /** alltoallv counts of {@code rank} as sender ({@code sending}) or receiver. */
    static int[] alltoallvCounts(final ContractCase c, final int ranks, final int rank, final boolean sending)
    {
        final int[] counts = new int[ranks];
        for (int j = 0; j < ranks; j++)
        {
            counts[j] = sending ? blockCount(c, rank, j) : blockCount(c, j, rank);
        }
        return counts;
    }

    /** reduce_scatterv counts: the total split unevenly, some ranks getting nothing. */
    static int[] reduceScattervCounts(final ContractCase c, final int ranks)
    {
        final long[] weights = new long[ranks];
        long sum = 0;
        for (int j = 0; j < ranks; j++)
        {
            weights[j] = Math.floorMod(ContractValues.mix(c.seed() + 31L * j), 5L);
            sum += weights[j];
        }
        if (sum == 0)
        {
            java.util.Arrays.fill(weights, 1);
            sum = ranks;
        }
        final int[] counts = new int[ranks];
        long before = 0;
        long cumulative = 0;
        for (int j = 0; j < ranks; j++)
        {
            cumulative += weights[j];
            final long end = c.count() * cumulative / sum;
            counts[j] = Math.toIntExact(end - before);
            before = end;
        }
        return counts;
    }

    /** Displacements of the blocks for {@code layout} (packed ones for {@link Layout#PACKED}). */
    static int[] displacements(final int[] counts, final Layout layout)
    {
        final int[] displs = new int[counts.length];
        int at = 0;
        for (int k = 0; k < counts.length; k++)
        {
            final int j = layout == Layout.REVERSED ? counts.length - 1 - k : k;
            at += layout == Layout.PACKED ? 0 : GAP;
            displs[j] = at;
            at += counts[j];
        }
        return displs;
    }

    /** Elements a buffer needs to hold every block. */
    static long extent(final int[] counts, final int[] displs)
    {
        long end = 0;
        for (int j = 0; j < counts.length; j++)
        {
            end = Math.max(end, (long)displs[j] + counts[j]);
        }
        return end + (displs.length > 0 && displs[0] > 0 ? GAP : 0);
    }

    // ----------------------------------------------------------------------------------------- buffer sizes

    /** Elements of the send buffer of {@code rank}, or 0 when the call has none. */
    static long sendElements(final ContractCase c, final int ranks, final int rank)
    {
        final long n = c.count();
        return switch (c.collective())
        {
            case BARRIER, BROADCAST -> 0;
            case REDUCE, ALLREDUCE, GATHER, ALLGATHER, SCAN, EXSCAN -> n;
            case SCATTER, REDUCE_SCATTER, ALLTOALL -> ranks * n;
            case GATHERV, ALLGATHERV -> allgathervCounts(c, ranks)[rank];
            case SCATTERV ->
            {
                final int[] counts = allgathervCounts(c, ranks);
                yield extent(counts, displacements(counts, c.layout()));
            }
            case REDUCE_SCATTERV -> n;
            case ALLTOALLV ->
            {
                final int[] counts = alltoallvCounts(c, ranks, rank, true);
                yield extent(counts, displacements(counts, c.layout()));
            }
        };
    }

    /** Elements of the receive buffer of {@code rank}. */
    static long recvElements(final ContractCase c, final int ranks, final int rank)
    {
        final long n = c.count();
        return switch (c.collective())
        {
            case BARRIER -> 0;
            case BROADCAST, REDUCE, ALLREDUCE, SCATTER, REDUCE_SCATTER, SCAN, EXSCAN -> n;
            case GATHER, ALLGATHER, ALLTOALL -> ranks * n;
            case SCATTERV -> allgathervCounts(c, ranks)[rank];
            case GATHERV, ALLGATHERV ->
            {
                final int[] counts = allgathervCounts(c, ranks);
                yield extent(counts, displacements(counts, c.layout()));
            }
            case REDUCE_SCATTERV -> reduceScattervCounts(c, ranks)[rank];
            case ALLTOALLV ->
            {
                final int[] counts = alltoallvCounts(c, ranks, rank, false);
                yield extent(counts, displacements(counts, c.layout()));
            }
        };
    }

    /** Bytes of symmetric memory a rank needs for its send (role 0) or receive (role 1) buffers: the largest case. */
    static long sharedBytes(final List<ContractCase> cases, final int ranks, final int role)
    {
        long most = 0;
        for (final ContractCase c : cases)
        {
            if ((role == 0 ? c.sendKind() : c.recvKind()) == Kind.SHARED)
            {
                for (int r = 0; r < ranks; r++)
                {
                    final long elements = role == 0 ? sendElements(c, ranks, r) : recvElements(c, ranks, r);
                    most = Math.max(most, elements * c.type().size());
                }
            }
        }
        return most;
    }
}
