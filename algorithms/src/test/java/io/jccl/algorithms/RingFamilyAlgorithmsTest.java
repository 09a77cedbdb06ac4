package io.jccl.algorithms;

import io.jccl.Collective;
import io.jccl.DataType;
import io.jccl.ReduceOp;
import io.jccl.spi.CollectiveAlgorithm;
import io.jccl.spi.CollectiveArgs;
import io.jccl.spi.Elements;
import io.jccl.spi.Memory;
import io.jccl.spi.Reductions;
import org.agrona.BufferUtil;
import org.agrona.UnsafeApi;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.stream.Stream;
import java.util.zip.CRC32;

import static io.jccl.DataType.BFLOAT16;
import static io.jccl.DataType.FLOAT16;
import static io.jccl.DataType.FLOAT32;
import static io.jccl.DataType.FLOAT64;
import static io.jccl.DataType.INT32;
import static io.jccl.DataType.INT64;
import static io.jccl.DataType.INT8;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * Every ring-family algorithm on 1 to 8 ranks (threads of one {@link LocalJob}), over counts that do not divide by
 * the rank count, every listed type and several operators, out of place and in place, on heap and off heap. Each
 * rank checks its whole buffer region against a reference computed locally from the same seeded inputs: the result
 * where the collective writes, and every other byte (guards, gaps between v blocks, the send input) unchanged.
 * Inputs are small integers (or ±1, ±2 for PROD) so every type represents the exact result, whatever the order of
 * reduction. Replicated results are also compared bit for bit across ranks, including for inexact random floats.
 * A {@link GcPressure} thread keeps young collections moving the heap buffers meanwhile.
 */
@Timeout(60)
class RingFamilyAlgorithmsTest
{
    private static final int[] RANKS = {1, 2, 3, 4, 5, 8};
    private static final long[] COUNTS = {0, 1, 2, 7, 13, 1000, 4099};
    private static final DataType[] TYPES = {INT32, INT64, FLOAT32, FLOAT64, BFLOAT16, INT8};
    private static final Set<DataType> PROD_TYPES = Set.of(INT32, FLOAT64, BFLOAT16, INT8);
    private static final Set<DataType> MIN_TYPES = Set.of(INT64, FLOAT32, INT8);
    /** Not a multiple of any block size: chunk counts differ between the blocks of one step. */
    private static final int SMALL_CHUNK_BYTES = 40;
    private static final int GUARD = 64;
    private static final byte FILL = 0x5A;
    private static final long BYTE_BASE = UnsafeApi.arrayBaseOffset(byte[].class);
    private static final int MAX_FAILURES_PER_RANK = 5;
    private static final double[] PROD_INPUTS = {-2, -1, 1, 2};

    /** Where send and recv sit: apart, at the same start ({@link CollectiveArgs#inPlace()}), or own block in place. */
    enum Layout
    {
        SEPARATE, SAME_START, OWN_BLOCK
    }

    /** Inputs: exact small integers for an operator, raw bits (no arithmetic), or random floats in [0.5, 2). */
    enum Inputs
    {
        EXACT, BITS, RANDOM
    }

    record Case(long count, DataType type, ReduceOp op, Layout layout, Inputs inputs, boolean offHeap, long seed)
    {
        @Override
        public String toString()
        {
            return "count=" + count + " " + type.label() + (op == null ? "" : " " + op.label()) + " " + layout +
                " " + inputs + (offHeap ? " off-heap" : " heap");
        }
    }

    static Stream<Arguments> algorithmsAndRanks()
    {
        return withRanks(RingFamilyAlgorithms.all());
    }

    static Stream<Arguments> smallChunkAlgorithmsAndRanks()
    {
        return withRanks(RingFamilyAlgorithms.all(SMALL_CHUNK_BYTES));
    }

    static Stream<Arguments> allreduceAndRanks()
    {
        return algorithmsAndRanks().filter(a -> a.get()[2] == Collective.ALLREDUCE);
    }

    @ParameterizedTest(name = "{0} on {3} ranks")
    @MethodSource("algorithmsAndRanks")
    void exactResultsOutOfPlaceAndInPlace(final String label, final CollectiveAlgorithm algorithm,
        final Collective collective, final int ranks)
    {
        final List<Case> cases = new ArrayList<>();
        final boolean reduces = reduces(collective);
        for (final long count : COUNTS)
        {
            for (final DataType type : TYPES)
            {
                if (reduces)
                {
                    for (final ReduceOp op : opsFor(type))
                    {
                        addCase(cases, count, type, op, Layout.SEPARATE, Inputs.EXACT);
                    }
                }
                else
                {
                    addCase(cases, count, type, null, Layout.SEPARATE, Inputs.BITS);
                }
                for (final Layout layout : inPlaceLayouts(collective))
                {
                    addCase(cases, count, type, reduces ? ReduceOp.SUM : null, layout,
                        reduces ? Inputs.EXACT : Inputs.BITS);
                }
            }
        }
        runCases(algorithm, collective, ranks, cases);
    }

    @ParameterizedTest(name = "{0} on {3} ranks, 40-byte chunks")
    @MethodSource("smallChunkAlgorithmsAndRanks")
    void exactResultsInSmallChunks(final String label, final CollectiveAlgorithm algorithm,
        final Collective collective, final int ranks)
    {
        final boolean reduces = reduces(collective);
        final List<Case> cases = new ArrayList<>();
        for (final long count : new long[]{7, 13, 1000, 4099})
        {
            for (final DataType type : new DataType[]{INT64, FLOAT16, BFLOAT16, INT8})
            {
                addCase(cases, count, type, reduces ? ReduceOp.SUM : null, Layout.SEPARATE,
                    reduces ? Inputs.EXACT : Inputs.BITS);
                if (reduces)
                {
                    addCase(cases, count, type, ReduceOp.MAX, Layout.SEPARATE, Inputs.EXACT);
                }
                for (final Layout layout : inPlaceLayouts(collective))
                {
                    addCase(cases, count, type, reduces ? ReduceOp.PROD : null, layout,
                        reduces ? Inputs.EXACT : Inputs.BITS);
                }
            }
        }
        runCases(algorithm, collective, ranks, cases);
    }

    @ParameterizedTest(name = "{0} on {3} ranks")
    @MethodSource("allreduceAndRanks")
    void randomFloatsGiveTheSameBitsOnEveryRank(final String label, final CollectiveAlgorithm algorithm,
        final Collective collective, final int ranks)
    {
        final List<Case> cases = new ArrayList<>();
        for (final long count : new long[]{1000, 4099})
        {
            for (final DataType type : new DataType[]{FLOAT32, FLOAT64, BFLOAT16, FLOAT16})
            {
                for (final ReduceOp op : new ReduceOp[]{ReduceOp.SUM, ReduceOp.PROD})
                {
                    addCase(cases, count, type, op, Layout.SEPARATE, Inputs.RANDOM);
                    addCase(cases, count, type, op, Layout.SAME_START, Inputs.RANDOM);
                }
            }
        }
        runCases(algorithm, collective, ranks, cases);
    }

    @Test
    void catalogHasOneUniqueNamePerCollective()
    {
        final List<CollectiveAlgorithm> all = RingFamilyAlgorithms.all();
        assertEquals(10, all.size());
        final Set<String> keys = new HashSet<>();
        for (final CollectiveAlgorithm algorithm : all)
        {
            for (final Collective collective : algorithm.collectives())
            {
                assertTrue(keys.add(collective.label() + "/" + algorithm.name()), collective + " " + algorithm.name());
            }
            assertFalse(algorithm.description().isEmpty());
        }
        assertEquals(Set.of("allreduce/ring", "allreduce/recursive_doubling", "allreduce/rabenseifner",
            "allgather/ring", "allgather/recursive_doubling", "allgatherv/ring", "reduce_scatter/ring",
            "reduce_scatter/recursive_halving", "reduce_scatterv/ring", "scan/recursive_doubling",
            "exscan/recursive_doubling"), keys);
        assertThrows(IllegalArgumentException.class, () -> RingFamilyAlgorithms.all(12));
        assertThrows(IllegalArgumentException.class, () -> RingFamilyAlgorithms.all(0));
    }

    // ---------------------------------------------------------------------------------------------------- running

    private static void runCases(final CollectiveAlgorithm algorithm, final Collective collective, final int ranks,
        final List<Case> cases)
    {
        final LocalJob job = new LocalJob(ranks);
        final long[][] digests = new long[ranks][cases.size()];
        final List<String> failures = Collections.synchronizedList(new ArrayList<>());
        try (GcPressure ignored = new GcPressure())
        {
            job.run(context ->
            {
                final int rank = context.rank();
                final CollectiveArgs args = new CollectiveArgs();
                int rankFailures = 0;
                for (int i = 0; i < cases.size(); i++)
                {
                    final Case c = cases.get(i);
                    final Geometry g = new Geometry(collective, c, ranks, rank);
                    final Region region = new Region(g.regionBytes, c.offHeap);
                    region.fill(FILL);
                    writeInputs(g, c, rank, region);
                    final byte[] expected = region.toArray();
                    writeExpected(g, c, ranks, rank, expected);

                    args.clear();
                    args.collective = collective;
                    args.type = c.type;
                    args.op = c.op;
                    args.count = c.count;
                    args.counts = g.counts;
                    args.displs = g.displs;
                    args.sendBase = region.base;
                    args.sendOffset = region.offset + g.sendAt;
                    args.recvBase = region.base;
                    args.recvOffset = region.offset + g.recvAt;
                    context.begin();
                    algorithm.run(context, args);

                    final byte[] actual = region.toArray();
                    digests[rank][i] = resultDigest(collective, g, c, actual);
                    final String mismatch = c.inputs == Inputs.RANDOM ?
                        compareApproximately(g, c, ranks, expected, actual) : compareExactly(g, c, expected, actual);
                    if (mismatch != null && rankFailures++ < MAX_FAILURES_PER_RANK)
                    {
                        failures.add(algorithm.name() + " " + collective.label() + " p=" + ranks + " rank " + rank +
                            " " + c + ": " + mismatch);
                    }
                }
            });
        }
        if (replicated(collective))
        {
            for (int i = 0; i < cases.size(); i++)
            {
                for (int r = 1; r < ranks; r++)
                {
                    if (digests[r][i] != digests[0][i])
                    {
                        failures.add(algorithm.name() + " " + collective.label() + " p=" + ranks + " " +
                            cases.get(i) + ": rank " + r + "'s result differs in its bits from rank 0's");
                    }
                }
            }
        }
        if (!failures.isEmpty())
        {
            fail(failures.size() + " failures:\n" + String.join("\n", failures));
        }
    }

    private static void addCase(final List<Case> cases, final long count, final DataType type, final ReduceOp op,
        final Layout layout, final Inputs inputs)
    {
        final int index = cases.size();
        cases.add(new Case(count, type, op, layout, inputs, (index & 1) == 1, 0x9E3779B97F4A7C15L * (index + 1)));
    }

    /** Every algorithm on every collective it serves (the scan serves scan and exscan), on every rank count. */
    private static Stream<Arguments> withRanks(final List<CollectiveAlgorithm> algorithms)
    {
        final List<Arguments> arguments = new ArrayList<>();
        for (final CollectiveAlgorithm algorithm : algorithms)
        {
            for (final Collective collective : algorithm.collectives().stream().sorted().toList())
            {
                for (final int ranks : RANKS)
                {
                    arguments.add(Arguments.of(collective.label() + "/" + algorithm.name(), algorithm, collective,
                        ranks));
                }
            }
        }
        return arguments.stream();
    }

    private static boolean reduces(final Collective collective)
    {
        return collective == Collective.ALLREDUCE || collective == Collective.REDUCE_SCATTER ||
            collective == Collective.REDUCE_SCATTERV || isScan(collective);
    }

    private static boolean isScan(final Collective collective)
    {
        return collective == Collective.SCAN || collective == Collective.EXSCAN;
    }

    private static boolean replicated(final Collective collective)
    {
        return collective == Collective.ALLREDUCE || collective == Collective.ALLGATHER ||
            collective == Collective.ALLGATHERV;
    }

    private static List<Layout> inPlaceLayouts(final Collective collective)
    {
        return collective == Collective.ALLREDUCE || isScan(collective) ? List.of(Layout.SAME_START) :
            List.of(Layout.SAME_START, Layout.OWN_BLOCK);
    }

    private static List<ReduceOp> opsFor(final DataType type)
    {
        final List<ReduceOp> ops = new ArrayList<>(List.of(ReduceOp.SUM, ReduceOp.MAX));
        if (PROD_TYPES.contains(type))
        {
            ops.add(ReduceOp.PROD);
        }
        if (MIN_TYPES.contains(type))
        {
            ops.add(ReduceOp.MIN);
        }
        if (!type.isFloatingPoint())
        {
            ops.add(ReduceOp.BXOR);
        }
        return ops;
    }

    // -------------------------------------------------------------------------------------------------- geometry

    /**
     * Byte positions inside one rank's region. The v forms use uneven counts (some zero) with displacements in
     * reverse rank order and a one-element gap before each block, so gaps must stay untouched.
     */
    static final class Geometry
    {
        final int[] counts;
        final int[] displs;
        /** Element index in the reduction input where recv element 0's inputs sit (reduce forms). */
        final long inputStart;
        /** Ranks whose inputs the result reduces, from rank 0: all, or a prefix (scan: rank + 1; exscan: rank). */
        final int reducedRanks;
        final long sendElements;
        final long recvElements;
        final long sendAt;
        final long recvAt;
        final long sendBytes;
        final long recvBytes;
        final long regionBytes;

        Geometry(final Collective collective, final Case c, final int size, final int rank)
        {
            final long n = c.count;
            final int e = c.type.size();
            final boolean vector = collective == Collective.ALLGATHERV || collective == Collective.REDUCE_SCATTERV;
            if (vector)
            {
                counts = new int[size];
                displs = new int[size];
                for (int i = 0; i < size; i++)
                {
                    counts[i] = (int) ((n * (i + 2) / 3 + i) % (n + 1));
                }
                displs[size - 1] = 1;
                for (int i = size - 2; i >= 0; i--)
                {
                    displs[i] = displs[i + 1] + counts[i + 1] + 1;
                }
            }
            else
            {
                counts = null;
                displs = null;
            }
            final long vectorElements = vector ? displs[0] + counts[0] + 1 : 0;
            reducedRanks = collective == Collective.SCAN ? rank + 1 : collective == Collective.EXSCAN ? rank : size;
            switch (collective)
            {
                case ALLREDUCE, SCAN, EXSCAN ->
                {
                    sendElements = n;
                    recvElements = n;
                    inputStart = 0;
                }
                case ALLGATHER ->
                {
                    sendElements = n;
                    recvElements = size * n;
                    inputStart = 0;
                }
                case ALLGATHERV ->
                {
                    sendElements = counts[rank];
                    recvElements = vectorElements;
                    inputStart = 0;
                }
                case REDUCE_SCATTER ->
                {
                    sendElements = size * n;
                    recvElements = n;
                    inputStart = rank * n;
                }
                case REDUCE_SCATTERV ->
                {
                    sendElements = vectorElements;
                    recvElements = counts[rank];
                    inputStart = displs[rank];
                }
                default -> throw new IllegalArgumentException(collective.label());
            }
            sendBytes = sendElements * e;
            recvBytes = recvElements * e;
            if (c.layout == Layout.SEPARATE)
            {
                sendAt = GUARD;
                recvAt = GUARD + sendBytes + GUARD;
                regionBytes = recvAt + recvBytes + GUARD;
                return;
            }
            final boolean recvContains = collective == Collective.ALLREDUCE || collective == Collective.ALLGATHER ||
                collective == Collective.ALLGATHERV || isScan(collective);
            final long ownBlock = switch (collective)
            {
                case ALLGATHER -> rank * n * e;
                case REDUCE_SCATTER -> rank * n * e;
                case ALLGATHERV, REDUCE_SCATTERV -> (long) displs[rank] * e;
                default -> 0;
            };
            final long inner = c.layout == Layout.OWN_BLOCK ? ownBlock : 0;
            sendAt = recvContains ? GUARD + inner : GUARD;
            recvAt = recvContains ? GUARD : GUARD + inner;
            regionBytes = GUARD + Math.max(sendBytes, recvBytes) + GUARD;
        }
    }

    // ----------------------------------------------------------------------------------------- inputs, reference

    private static void writeInputs(final Geometry g, final Case c, final int rank, final Region region)
    {
        final int e = c.type.size();
        for (long i = 0; i < g.sendElements; i++)
        {
            final long at = region.offset + g.sendAt + i * e;
            if (c.inputs == Inputs.BITS)
            {
                Elements.putBits(c.type, region.base, at, 0, mix(c.seed, rank, i));
            }
            else
            {
                Elements.put(c.type, region.base, at, 0, input(c, rank, i));
            }
        }
    }

    /** Overwrites the recv positions of the pre-run snapshot with the expected result. */
    private static void writeExpected(final Geometry g, final Case c, final int size, final int rank,
        final byte[] expected)
    {
        final int e = c.type.size();
        final long recvAt = BYTE_BASE + g.recvAt;
        if (c.inputs == Inputs.BITS)
        {
            for (int block = 0; block < size; block++)
            {
                final long blockCount = g.counts == null ? c.count : g.counts[block];
                final long blockStart = g.displs == null ? block * c.count : g.displs[block];
                for (long i = 0; i < blockCount; i++)
                {
                    Elements.putBits(c.type, expected, recvAt + (blockStart + i) * e, 0, mix(c.seed, block, i));
                }
            }
            return;
        }
        // an exclusive scan's rank 0 reduces nothing: its receive buffer keeps what it held
        for (long i = 0; i < g.recvElements && g.reducedRanks > 0; i++)
        {
            Elements.put(c.type, expected, recvAt + i * e, 0, reference(c, g.reducedRanks, g.inputStart + i));
        }
    }

    /** The reduction over ranks 0 .. size-1, in double: exact for EXACT inputs. */
    private static double reference(final Case c, final int size, final long index)
    {
        double result = input(c, 0, index);
        for (int r = 1; r < size; r++)
        {
            final double x = input(c, r, index);
            result = switch (c.op)
            {
                case SUM, AVG -> result + x;
                case PROD -> result * x;
                case MIN -> Math.min(result, x);
                case MAX -> Math.max(result, x);
                case BAND -> (long)result & (long)x;
                case BOR -> (long)result | (long)x;
                case BXOR -> (long)result ^ (long)x;
            };
        }
        return result;
    }

    /** Rank {@code rank}'s input element {@code index}, as the type stores it. */
    private static double input(final Case c, final int rank, final long index)
    {
        final long bits = mix(c.seed, rank, index);
        if (c.inputs == Inputs.RANDOM)
        {
            final double value = 0.5 + 1.5 * ((bits >>> 11) * 0x1.0p-53);
            return switch (c.type)
            {
                case FLOAT32 -> (float) value;
                case BFLOAT16 -> Reductions.bfloat16ToFloat(Reductions.floatToBfloat16((float) value));
                case FLOAT16 -> Float.float16ToFloat(Float.floatToFloat16((float) value));
                default -> value;
            };
        }
        return switch (c.op)
        {
            case SUM, AVG -> Math.floorMod(bits, 17) - 8;
            case PROD -> PROD_INPUTS[(int) (bits & 3)];
            case MIN, MAX, BAND, BOR, BXOR -> Math.floorMod(bits, 201) - 100;
        };
    }

    private static String compareExactly(final Geometry g, final Case c, final byte[] expected, final byte[] actual)
    {
        final int at = Arrays.mismatch(expected, actual);
        if (at < 0)
        {
            return null;
        }
        final long inRecv = at - g.recvAt;
        if (inRecv >= 0 && inRecv < g.recvBytes)
        {
            final long element = inRecv / c.type.size();
            final long offset = BYTE_BASE + g.recvAt + element * c.type.size();
            return "recv element " + element + " is " + Elements.get(c.type, actual, offset, 0) + ", expected " +
                Elements.get(c.type, expected, offset, 0);
        }
        return "byte " + at + " outside the result changed (send at " + g.sendAt + ", recv at " + g.recvAt +
            ", region " + g.regionBytes + ")";
    }

    private static String compareApproximately(final Geometry g, final Case c, final int size, final byte[] expected,
        final byte[] actual)
    {
        final double epsilon = switch (c.type)
        {
            case BFLOAT16 -> 0x1.0p-8;
            case FLOAT16 -> 0x1.0p-11;
            case FLOAT32 -> 0x1.0p-24;
            default -> 0x1.0p-53;
        };
        final double tolerance = 2 * size * epsilon;
        final int e = c.type.size();
        for (long i = 0; i < g.recvElements; i++)
        {
            final long offset = BYTE_BASE + g.recvAt + i * e;
            final double want = reference(c, size, g.inputStart + i);
            final double got = Elements.get(c.type, actual, offset, 0);
            if (!(Math.abs(got - want) <= tolerance * Math.abs(want)))
            {
                return "recv element " + i + " is " + got + ", expected about " + want;
            }
        }
        final long recvEnd = g.recvAt + g.recvBytes;
        if (!Arrays.equals(expected, 0, (int) g.recvAt, actual, 0, (int) g.recvAt) ||
            !Arrays.equals(expected, (int) recvEnd, expected.length, actual, (int) recvEnd, actual.length))
        {
            return "bytes outside the result changed";
        }
        return null;
    }

    // ---------------------------------------------------------------------------------------------- memory access

    /** One rank's buffer region: a byte array or aligned off-heap memory, addressed as (base, offset). */
    static final class Region
    {
        final Object base;
        final long offset;
        final int bytes;
        private final ByteBuffer keepAlive;

        Region(final long bytes, final boolean offHeap)
        {
            this.bytes = Math.toIntExact(bytes);
            if (offHeap)
            {
                keepAlive = BufferUtil.allocateDirectAligned(Math.max(64, this.bytes), 64);
                base = null;
                offset = BufferUtil.address(keepAlive);
            }
            else
            {
                keepAlive = null;
                base = new byte[this.bytes];
                offset = BYTE_BASE;
            }
        }

        void fill(final byte value)
        {
            Memory.fill(base, offset, bytes, value);
        }

        byte[] toArray()
        {
            final byte[] copy = new byte[bytes];
            Memory.copy(base, offset, copy, BYTE_BASE, bytes);
            return copy;
        }
    }

    /** SplitMix64 of (seed, rank, index). */
    private static long mix(final long seed, final int rank, final long index)
    {
        long z = seed + 0x632BE59BD9B4E019L * (rank + 1) + 0x9E3779B97F4A7C15L * (index + 1);
        z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
        z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
        return z ^ (z >>> 31);
    }

    /** CRC of the result bytes: recv, or for allgatherv only its blocks (its gaps keep rank-specific bytes). */
    private static long resultDigest(final Collective collective, final Geometry g, final Case c,
        final byte[] region)
    {
        final CRC32 crc = new CRC32();
        if (collective != Collective.ALLGATHERV)
        {
            crc.update(region, (int) g.recvAt, (int) g.recvBytes);
        }
        else
        {
            final int e = c.type.size();
            for (int block = 0; block < g.counts.length; block++)
            {
                crc.update(region, (int) (g.recvAt + (long) g.displs[block] * e), g.counts[block] * e);
            }
        }
        return crc.getValue();
    }
}
