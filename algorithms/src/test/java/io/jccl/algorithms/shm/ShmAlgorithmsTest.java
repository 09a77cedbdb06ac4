package io.jccl.algorithms.shm;

import io.jccl.Collective;
import io.jccl.DataType;
import io.jccl.JcclException;
import io.jccl.ReduceOp;
import io.jccl.algorithms.GcPressure;
import io.jccl.algorithms.LocalJob;
import io.jccl.algorithms.SharedMemoryAlgorithms;
import io.jccl.algorithms.shm.ShmRankDriver.Call;
import io.jccl.algorithms.shm.ShmRankDriver.Layout;
import io.jccl.spi.CollectiveAlgorithm;
import io.jccl.spi.CollectiveArgs;
import org.agrona.BufferUtil;
import org.agrona.UnsafeApi;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

import java.lang.ref.Reference;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.locks.LockSupport;
import java.util.stream.IntStream;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The shared-memory algorithms on 1 to 8 ranks (threads of one JVM): every call of a long sequence in one job is
 * checked element by element, bit for bit, against a reference folded in rank order, on every rank. The sequence
 * crosses counts (0, odd, not divisible by p, larger than the 8 KiB staging area so chunks alternate) with data
 * types and operators, and rotates roots and buffer layouts (private, in place, symmetric zero-copy), with no pause
 * between calls, so reuse races between operations and chunks show up as wrong values. A {@link GcPressure} thread
 * keeps young collections moving the heap buffers meanwhile.
 */
@Timeout(60)
class ShmAlgorithmsTest
{
    private static final int[] RANKS = {1, 2, 3, 4, 5, 8};
    private static final long[] COUNTS = {0, 1, 7, 13, 1000, 4099, 9000};
    private static final DataType[] TYPES =
        {DataType.INT8, DataType.INT32, DataType.FLOAT32, DataType.FLOAT64, DataType.BFLOAT16};
    private static final ReduceOp[] OPS = {ReduceOp.SUM, ReduceOp.PROD, ReduceOp.MIN, ReduceOp.MAX};
    private static final Layout[] LAYOUTS = Stream.of(Layout.values())
        .filter(layout -> layout != Layout.SYMMETRIC_OVERLAPPING).toArray(Layout[]::new);
    private static final long STAGING_BYTES = 8 * 1024;
    /**
     * The staging-protocol algorithms; the low-latency ones need a larger staging area, and single copy reads peers'
     * buffers without staging: both have tests of their own.
     */
    private static final List<CollectiveAlgorithm> STAGED = SharedMemoryAlgorithms.all().stream()
        .filter(algorithm -> !isLowLatency(algorithm) && !isSingleCopy(algorithm) && !isEager(algorithm)).toList();
    private static final List<CollectiveAlgorithm> SINGLE_COPY = SharedMemoryAlgorithms.all().stream()
        .filter(ShmAlgorithmsTest::isSingleCopy).toList();
    /** Single-copy reads from 64 KiB up, as a transport whose ranks all passed the probe would report. */
    private static final long SINGLE_COPY_BYTES = 64 * 1024;
    /**
     * Every collective of every low-latency algorithm (the scan serves scan and exscan); the v forms with equal counts,
     * as {@link ShmRankDriver} runs them ({@code CollectiveContractTest} runs uneven and empty blocks between rank
     * JVMs).
     */
    private static final List<Served> LOW_LATENCY = SharedMemoryAlgorithms.all().stream()
        .filter(ShmAlgorithmsTest::isLowLatency)
        .flatMap(algorithm -> algorithm.collectives().stream().sorted().map(c -> new Served(algorithm, c))).toList();
    /** Large enough for the low-latency region ({@link LowLatencyProtocol#MIN_STAGING_BYTES}). */
    private static final long LL_STAGING_BYTES = LowLatencyProtocol.MIN_STAGING_BYTES;
    /** Large enough for the eager and low-latency regions ({@link EagerProtocol#MIN_STAGING_BYTES}). */
    private static final long EAGER_STAGING_BYTES = EagerProtocol.MIN_STAGING_BYTES;

    static Stream<Arguments> algorithmsAndRanks()
    {
        final List<Arguments> arguments = new ArrayList<>();
        for (final CollectiveAlgorithm algorithm : STAGED)
        {
            for (final int ranks : RANKS)
            {
                arguments.add(Arguments.of(algorithm, ranks));
            }
        }
        return arguments.stream();
    }

    @ParameterizedTest(name = "{0} on {1} ranks")
    @MethodSource("algorithmsAndRanks")
    void computesExactResultsOverConsecutiveOperations(final CollectiveAlgorithm algorithm, final int ranks)
    {
        final List<Call> calls = new ArrayList<>();
        int i = 0;
        for (final long count : COUNTS)
        {
            for (final DataType type : TYPES)
            {
                for (final ReduceOp op : OPS)
                {
                    calls.add(call(algorithm, type, op, count, i % ranks, LAYOUTS[i % LAYOUTS.length]));
                    i++;
                }
            }
        }
        runJob(ranks, STAGING_BYTES, calls);
    }

    /**
     * Every type, op, buffer layout (heap and symmetric, in place and shifted) and count, up to several read chunks
     * of {@link SingleCopyReads#READ_CHUNK_BYTES}, in one job per rank count, interleaved with two-shot so that the
     * flags of both protocols follow each other.
     */
    @ParameterizedTest(name = "{0} ranks")
    @MethodSource("ranks")
    void singleCopyComputesExactResultsOverConsecutiveOperations(final int ranks)
    {
        final List<Call> calls = new ArrayList<>();
        int i = 0;
        for (final long count : new long[]{0, 1, 7, 4099, 65_536, 100_003})
        {
            for (final DataType type : TYPES)
            {
                for (final ReduceOp op : OPS)
                {
                    // every algorithm meets every layout
                    final Layout layout = Layout.values()[(i / SINGLE_COPY.size()) % Layout.values().length];
                    calls.add(call(SINGLE_COPY.get(i % SINGLE_COPY.size()), type, op, count, i % ranks, layout));
                    if (i % 7 == 0)
                    {
                        calls.add(call(new ShmTwoShotAllreduce(), type, op, 13, 0, LAYOUTS[i % LAYOUTS.length]));
                    }
                    i++;
                }
            }
        }
        runJob(ranks, STAGING_BYTES, calls);
    }

    static IntStream ranks()
    {
        return IntStream.of(RANKS);
    }

    /**
     * A heap block is copied for the peers: into the rank's staging area when it fits, which the published word marks
     * and the peers copy out of, else into scratch, which they read through the "kernel"; an off-heap block is
     * published where it lies. Every result exact.
     */
    @Test
    void singleCopyStagesTheCopiesThatFitTheStagingArea()
    {
        final LocalJob job = new LocalJob(2, STAGING_BYTES, 1 << 16).singleCopy(SINGLE_COPY_BYTES);
        final int[] counts = {256, 4096, 4096}; // 1 KiB of floats fits the 8 KiB staging area, 16 KiB does not
        final long[] words = new long[2 * counts.length];
        final long[] addresses = new long[2];
        job.run(context ->
        {
            final int rank = context.rank();
            for (int k = 0; k < counts.length; k++)
            {
                final int count = counts[k];
                final float[] send = new float[count];
                for (int i = 0; i < count; i++)
                {
                    send[i] = rank * count + i;
                }
                final float[] recv = new float[2 * count];
                final CollectiveArgs args = new CollectiveArgs();
                args.collective = Collective.ALLGATHER;
                args.type = DataType.FLOAT32;
                args.count = count;
                final boolean offHeap = k == 2;
                ByteBuffer direct = null;
                if (offHeap)
                {
                    direct = ByteBuffer.allocateDirect(4 * count).order(ByteOrder.nativeOrder());
                    direct.asFloatBuffer().put(send);
                    addresses[rank] = BufferUtil.address(direct);
                }
                args.sendBase = offHeap ? null : send;
                args.sendOffset = offHeap ? addresses[rank] : UnsafeApi.arrayBaseOffset(float[].class);
                args.recvBase = recv;
                args.recvOffset = UnsafeApi.arrayBaseOffset(float[].class);
                context.begin();
                new ShmSingleCopyAllgather().run(context, args);
                Reference.reachabilityFence(direct);
                words[2 * k + rank] = context.getFlag(rank, ShmProtocol.SLOT_ADDRESS);
                for (int i = 0; i < 2 * count; i++)
                {
                    assertEquals(i, recv[i], "element " + i + " of " + 2 * count + " on rank " + rank);
                }
            }
        });
        for (int rank = 0; rank < 2; rank++)
        {
            assertEquals(SingleCopyReads.STAGED, words[rank], "a staged block is published at offset 0");
            assertTrue(words[2 + rank] > 0, "a block beyond the staging area goes to scratch");
            assertEquals(addresses[rank], words[4 + rank], "an off-heap block is published where it lies");
        }
    }

    @Test
    void singleCopyIsRefusedWhereTheKernelCannotCopy()
    {
        final CollectiveArgs args = new CollectiveArgs();
        args.collective = Collective.ALLREDUCE;
        args.type = DataType.FLOAT32;
        args.op = ReduceOp.SUM;
        args.count = 1 << 20;
        for (final CollectiveAlgorithm singleCopy : SINGLE_COPY)
        {
            args.collective = singleCopy.collectives().iterator().next();
            final String reason = singleCopy.unsupportedReason(args, 2, new LocalJob(2).context(0));
            assertNotNull(reason);
            assertTrue(reason.contains("single copy"), reason);
            assertNull(singleCopy.unsupportedReason(args, 2,
                new LocalJob(2).singleCopy(SINGLE_COPY_BYTES).context(0)));
        }
    }

    @ParameterizedTest(name = "{0} ranks")
    @ValueSource(ints = {2, 3, 8})
    void interleavesEveryAlgorithmInOneJob(final int ranks)
    {
        final List<CollectiveAlgorithm> algorithms = STAGED;
        final List<Call> calls = new ArrayList<>();
        int i = 0;
        for (int round = 0; round < 3; round++)
        {
            for (final long count : new long[]{1, 13, 4099})
            {
                for (final CollectiveAlgorithm algorithm : algorithms)
                {
                    calls.add(call(algorithm, TYPES[i % TYPES.length], OPS[i % OPS.length], count, i % ranks,
                        LAYOUTS[i % LAYOUTS.length]));
                    i++;
                }
            }
        }
        runJob(ranks, STAGING_BYTES, calls);
    }

    @ParameterizedTest(name = "{0} ranks")
    @ValueSource(ints = {2, 3, 8})
    void tinyStagingAreaForcesManyChunks(final int ranks)
    {
        final List<Call> calls = new ArrayList<>();
        int i = 0;
        for (final CollectiveAlgorithm algorithm : STAGED)
        {
            for (final long count : new long[]{1, 13, 100})
            {
                for (final DataType type : new DataType[]{DataType.INT8, DataType.FLOAT64, DataType.BFLOAT16})
                {
                    calls.add(call(algorithm, type, OPS[i % OPS.length], count, i % ranks,
                        LAYOUTS[i % LAYOUTS.length]));
                    i++;
                }
            }
        }
        runJob(ranks, 128, calls);
    }

    @ParameterizedTest(name = "{0} ranks")
    @ValueSource(ints = {2, 3, 5})
    void zeroCopyPathsSurvivePartiallyOverlappingBuffers(final int ranks)
    {
        final List<Call> calls = new ArrayList<>();
        int i = 0;
        for (final CollectiveAlgorithm algorithm : List.of(new ShmOneShotAllreduce(), new ShmTwoShotAllreduce(),
            new ShmDirectAllgather(), new ShmDirectAlltoall(), new ShmDirectReduceScatter(), new ShmDirectReduce()))
        {
            for (final long count : new long[]{7, 4099, 9000})
            {
                for (final DataType type : new DataType[]{DataType.FLOAT32, DataType.BFLOAT16})
                {
                    calls.add(call(algorithm, type, OPS[i % OPS.length], count, 0, Layout.SYMMETRIC_OVERLAPPING));
                    i++;
                }
            }
        }
        runJob(ranks, STAGING_BYTES, calls);
    }

    /** Zero-copy paths find each peer's buffer where that peer's view lies, not at the offset of their own. */
    @ParameterizedTest(name = "{0} ranks")
    @ValueSource(ints = {2, 3, 5})
    void zeroCopyPathsFollowEachRanksOwnViews(final int ranks)
    {
        final List<Call> calls = new ArrayList<>();
        int i = 0;
        for (final CollectiveAlgorithm algorithm : List.of(new ShmOneShotAllreduce(), new ShmTwoShotAllreduce(),
            new ShmDirectAllgather(), new ShmDirectAlltoall(), new ShmDirectReduceScatter(), new ShmDirectReduce(),
            new ShmDirectBroadcast()))
        {
            for (final long count : new long[]{7, 4099, 9000})
            {
                calls.add(call(algorithm, TYPES[i % TYPES.length], OPS[i % OPS.length], count, i % ranks,
                    Layout.SYMMETRIC_STAGGERED));
                i++;
            }
        }
        runJob(ranks, STAGING_BYTES, calls);
    }

    /** One algorithm for one of its collectives. */
    record Served(CollectiveAlgorithm algorithm, Collective collective)
    {
        @Override
        public String toString()
        {
            return collective.label() + ":" + algorithm.name();
        }
    }

    /** Every algorithm serves one collective but the scan, which serves scan and exscan, each under a unique name. */
    @Test
    void everyAlgorithmServesItsCollectivesUnderAUniqueName()
    {
        final Set<String> seen = new HashSet<>();
        for (final CollectiveAlgorithm algorithm : SharedMemoryAlgorithms.all())
        {
            assertTrue(algorithm.name().startsWith("shm_"), algorithm.name());
            assertEquals(algorithm instanceof ShmLowLatencyScan ? 2 : 1, algorithm.collectives().size(),
                algorithm.name());
            for (final Collective collective : algorithm.collectives())
            {
                assertTrue(seen.add(collective + ":" + algorithm.name()));
            }
            assertTrue(algorithm.description().length() > 20, algorithm.name());
        }
        assertEquals(29, seen.size());
    }

    static Stream<Arguments> lowLatencyAlgorithmsAndRanks()
    {
        final List<Arguments> arguments = new ArrayList<>();
        for (final Served served : LOW_LATENCY)
        {
            for (final int ranks : RANKS)
            {
                arguments.add(Arguments.of(served, ranks));
            }
        }
        return arguments.stream();
    }

    @ParameterizedTest(name = "{0} on {1} ranks")
    @MethodSource("lowLatencyAlgorithmsAndRanks")
    void lowLatencyComputesExactResultsOverConsecutiveOperations(final Served algorithm, final int ranks)
    {
        final List<Call> calls = new ArrayList<>();
        int i = 0;
        for (final DataType type : TYPES)
        {
            final long largest = largestLowLatencyCount(algorithm, type, ranks);
            // one line's payload, a short slot's and a medium slot's, and one element more: each slot size's largest
            // and the first count past it
            final long line = lowLatencyCount(algorithm, type, ranks, LowLatencyProtocol.LINE_PAYLOAD);
            final long shortSlot = lowLatencyCount(algorithm, type, ranks,
                LowLatencyProtocol.SHORT_SLOT_LINES * LowLatencyProtocol.LINE_PAYLOAD);
            final long mediumSlot = lowLatencyCount(algorithm, type, ranks,
                LowLatencyProtocol.MEDIUM_SLOT_LINES * LowLatencyProtocol.LINE_PAYLOAD);
            for (final long count : new long[]{0, 1, 3, 7, 13, Math.min(line, largest), Math.min(line + 1, largest),
                shortSlot, shortSlot + 1, mediumSlot, mediumSlot + 1, largest - 1, largest})
            {
                for (final ReduceOp op : OPS)
                {
                    calls.add(call(algorithm, type, op, count, i % ranks, LAYOUTS[i % LAYOUTS.length]));
                    i++;
                }
            }
        }
        runJob(ranks, LL_STAGING_BYTES, calls);
    }

    /**
     * Low-latency calls between staged ones of every kind, for many more operations than there are LL slots: a slot
     * is only rewritten once every peer has read it, whatever ran in between (a broadcast root waits for nobody).
     */
    @ParameterizedTest(name = "{0} ranks")
    @ValueSource(ints = {2, 3, 8})
    void lowLatencySlotsAreReusedSafelyBetweenOtherAlgorithms(final int ranks)
    {
        final List<Call> calls = new ArrayList<>();
        int i = 0;
        for (int round = 0; round < 4 * LowLatencyProtocol.SLOTS; round++)
        {
            final Served low = LOW_LATENCY.get(round % LOW_LATENCY.size());
            final CollectiveAlgorithm staged = STAGED.get(round % STAGED.size());
            final DataType type = TYPES[i % TYPES.length];
            calls.add(call(low, type, OPS[i % OPS.length], 1 + round % 5, i % ranks, LAYOUTS[i % LAYOUTS.length]));
            i++;
            calls.add(call(low, type, OPS[i % OPS.length], largestLowLatencyCount(low, type, ranks), i % ranks,
                LAYOUTS[i % LAYOUTS.length]));
            i++;
            // a short slot's worth, 2-4 lines (65-224 bytes before rounding down to whole elements and blocks), and a
            // medium slot's, 5-10 lines (261-560)
            calls.add(call(low, type, OPS[i % OPS.length], lowLatencyCount(low, type, ranks,
                LowLatencyProtocol.SHORT_SLOT_LINES * LowLatencyProtocol.LINE_PAYLOAD - round % 160), i % ranks,
                LAYOUTS[i % LAYOUTS.length]));
            i++;
            calls.add(call(low, type, OPS[i % OPS.length], lowLatencyCount(low, type, ranks,
                LowLatencyProtocol.MEDIUM_SLOT_LINES * LowLatencyProtocol.LINE_PAYLOAD - round % 300), i % ranks,
                LAYOUTS[i % LAYOUTS.length]));
            i++;
            if (round % 3 == 0)
            {
                calls.add(call(staged, type, OPS[i % OPS.length], 13, i % ranks, LAYOUTS[i % LAYOUTS.length]));
                i++;
            }
        }
        runJob(ranks, LL_STAGING_BYTES, calls);
    }

    /**
     * After an exchange a writer skips the look at the peers for up to {@code SLOTS} operations; a broadcast root
     * that then runs ahead through a long stream must still wait before its slots come round again.
     */
    @ParameterizedTest(name = "{0} ranks")
    @ValueSource(ints = {2, 3, 8})
    void lowLatencyBroadcastRootRunningAheadAfterAnExchangeWaitsForItsReaders(final int ranks)
    {
        final Served broadcast = lowLatency(Collective.BROADCAST);
        final Served allreduce = lowLatency(Collective.ALLREDUCE);
        final List<Call> calls = new ArrayList<>();
        int i = 0;
        for (int round = 0; round < 3; round++)
        {
            calls.add(call(allreduce, TYPES[i % TYPES.length], ReduceOp.SUM, 1 + round, 0, Layout.PRIVATE));
            i++;
            for (int b = 0; b < 3 * LowLatencyProtocol.SLOTS; b++)
            {
                calls.add(call(broadcast, TYPES[i % TYPES.length], ReduceOp.SUM, 1 + b % 7, round % ranks,
                    LAYOUTS[i % LAYOUTS.length]));
                i++;
            }
        }
        runJob(ranks, LL_STAGING_BYTES, calls);
    }

    private static Served lowLatency(final Collective collective)
    {
        return LOW_LATENCY.stream().filter(served -> served.collective() == collective).findFirst().orElseThrow();
    }

    @Test
    void lowLatencyRefusesLargeCallsAndSmallStagingAreas()
    {
        final LocalJob job = new LocalJob(4, LL_STAGING_BYTES, 4096);
        final LocalJob small = new LocalJob(4, STAGING_BYTES, 4096);
        for (final Served served : LOW_LATENCY)
        {
            final CollectiveAlgorithm algorithm = served.algorithm();
            final CollectiveArgs args = new CollectiveArgs();
            args.collective = served.collective();
            args.type = DataType.INT32;
            args.op = ReduceOp.SUM;
            args.count = largestLowLatencyCount(served, DataType.INT32, 4);
            args.counts = equalCounts(served, args.count, 4);
            assertNull(algorithm.unsupportedReason(args, 4, job.context(0)), algorithm.name());
            assertTrue(algorithm.supports(args, 4, job.context(0)), algorithm.name());
            final String tooSmall = algorithm.unsupportedReason(args, 4, small.context(0));
            assertNotNull(tooSmall, algorithm.name());
            assertTrue(tooSmall.contains("staging area of at least"), tooSmall);
            assertFalse(algorithm.supports(args, 4, small.context(0)), algorithm.name());
            args.count++;
            args.counts = equalCounts(served, args.count, 4);
            final String tooLarge = algorithm.unsupportedReason(args, 4, job.context(0));
            assertNotNull(tooLarge, algorithm.name());
            assertTrue(tooLarge.contains("at most " + LowLatencyProtocol.MAX_BYTES + " bytes"), tooLarge);
            assertFalse(algorithm.supports(args, 4, job.context(0)), algorithm.name());
        }
    }

    /**
     * The v forms' low-latency algorithms answer from what every rank knows alike: the largest block (allgatherv) or
     * the whole input (reduce-scatterv), not this rank's own count, so that no rank picks another algorithm.
     */
    @Test
    void lowLatencyVectorFormsRefuseByWhatEveryRankKnows()
    {
        final LocalJob job = new LocalJob(4, LL_STAGING_BYTES, 4096);
        final LocalJob small = new LocalJob(4, STAGING_BYTES, 4096);
        final CollectiveAlgorithm allgatherv = new ShmLowLatencyAllgatherv();
        final CollectiveAlgorithm reduceScatterv = new ShmLowLatencyReduceScatterv();
        final int perLine = (int)(LowLatencyProtocol.MAX_BYTES / Integer.BYTES);
        final int[][] fits = {{1, perLine, 0, 3}, {perLine / 4, perLine / 4, perLine / 2, 0}};
        final int[][] tooLarge = {{1, perLine + 1, 0, 3}, {perLine / 4, perLine / 4, perLine / 2, 1}};
        final CollectiveAlgorithm[] algorithms = {allgatherv, reduceScatterv};
        final Collective[] collectives = {Collective.ALLGATHERV, Collective.REDUCE_SCATTERV};
        for (int a = 0; a < algorithms.length; a++)
        {
            for (int rank = 0; rank < 4; rank++)
            {
                final CollectiveArgs args = new CollectiveArgs();
                args.collective = collectives[a];
                args.type = DataType.INT32;
                args.op = ReduceOp.SUM;
                args.counts = fits[a];
                args.count = fits[a][rank];
                assertNull(algorithms[a].unsupportedReason(args, 4, job.context(rank)), args.collective + " " + rank);
                final String noStaging = algorithms[a].unsupportedReason(args, 4, small.context(rank));
                assertNotNull(noStaging);
                assertTrue(noStaging.contains("staging area of at least"), noStaging);
                args.counts = tooLarge[a];
                args.count = tooLarge[a][rank];
                final String reason = algorithms[a].unsupportedReason(args, 4, job.context(rank));
                assertNotNull(reason, args.collective + " " + rank);
                assertTrue(reason.contains("at most " + LowLatencyProtocol.MAX_BYTES + " bytes"), reason);
                assertNull(algorithms[a].unsupportedReason(args, 1, job.context(0)), "one rank: a copy");
            }
        }
    }

    /**
     * The staged shm_direct allgatherv and reduce-scatterv run the chunks of the largest block: every rank of 4 refuses
     * a call whose largest block would need too many chunks, whatever its own count (0 among them), with the same
     * reason, and accepts one whose blocks fit; a call on symmetric buffers stages nothing and is accepted.
     */
    @Test
    void directVectorFormsRefuseByTheLargestBlock()
    {
        final LocalJob job = new LocalJob(4, 512, 4096);
        final CollectiveAlgorithm[] algorithms = {new ShmDirectAllgatherv(), new ShmDirectReduceScatterv()};
        final Collective[] collectives = {Collective.ALLGATHERV, Collective.REDUCE_SCATTERV};
        final int[] fits = {1, 2, 0, 3};
        final int[] tooLarge = {1, Integer.MAX_VALUE / 2, 0, 3};
        for (int a = 0; a < algorithms.length; a++)
        {
            final Set<String> reasons = new HashSet<>();
            for (int rank = 0; rank < 4; rank++)
            {
                final CollectiveArgs args = new CollectiveArgs();
                args.collective = collectives[a];
                args.type = DataType.INT8;
                args.op = ReduceOp.SUM;
                args.counts = fits;
                args.count = fits[rank];
                assertNull(algorithms[a].unsupportedReason(args, 4, job.context(rank)), args.collective + " " + rank);
                args.counts = tooLarge;
                args.count = tooLarge[rank];
                final String reason = algorithms[a].unsupportedReason(args, 4, job.context(rank));
                assertNotNull(reason, args.collective + " " + rank);
                assertTrue(reason.contains("chunks"), reason);
                reasons.add(reason);
                args.sendSegmentOffset = 0;
                args.recvSegmentOffset = 0;
                assertNull(algorithms[a].unsupportedReason(args, 4, job.context(rank)), "zero-copy stages nothing");
            }
            assertEquals(1, reasons.size(), "every rank refuses alike: " + reasons);
        }
    }

    /**
     * Eager broadcasts of every size up to a slot, from rotating roots and buffer layouts, for several times as many
     * operations as there are slots, between low-latency and staged calls that share the staging areas' regions and
     * flags: a slot is only rewritten once every peer has read it.
     */
    @ParameterizedTest(name = "{0} ranks")
    @MethodSource("ranks")
    void eagerBroadcastComputesExactResultsOverConsecutiveOperations(final int ranks)
    {
        final CollectiveAlgorithm eager = new ShmEagerBroadcast();
        final Served low = lowLatency(Collective.ALLREDUCE);
        final List<Call> calls = new ArrayList<>();
        int i = 0;
        for (final DataType type : TYPES)
        {
            final long largest = EagerProtocol.MAX_BYTES / type.size();
            for (final long count : new long[]{0, 1, 7, 1000, largest / 2 + 1, largest - 1, largest})
            {
                calls.add(call(eager, type, ReduceOp.SUM, count, i % ranks, LAYOUTS[i % LAYOUTS.length]));
                i++;
                if (i % 5 == 0)
                {
                    calls.add(call(low, type, OPS[i % OPS.length], 3, 0, LAYOUTS[i % LAYOUTS.length]));
                    calls.add(call(STAGED.get(i % STAGED.size()), type, OPS[i % OPS.length], 13, i % ranks,
                        LAYOUTS[i % LAYOUTS.length]));
                }
            }
        }
        runJob(ranks, EAGER_STAGING_BYTES, calls);
    }

    /**
     * The staged broadcast cuts vectors into chunks of {@link ShmDirectBroadcast#CHUNK_BYTES} when its staging halves
     * are larger: vectors of one to several chunks (and not a whole number of them), from rotating roots and buffer
     * layouts, between staged calls that use the halves whole, arrive exact.
     */
    @ParameterizedTest(name = "{0} ranks")
    @ValueSource(ints = {2, 3})
    void directBroadcastPipelinesChunksSmallerThanItsStagingHalves(final int ranks)
    {
        final CollectiveAlgorithm direct = new ShmDirectBroadcast();
        final CollectiveAlgorithm twoShot = new ShmTwoShotAllreduce();
        final long chunkElements = ShmDirectBroadcast.CHUNK_BYTES / DataType.FLOAT32.size();
        final List<Call> calls = new ArrayList<>();
        int i = 0;
        for (final long count : new long[]{chunkElements, chunkElements + 1, 3 * chunkElements - 5, 5 * chunkElements})
        {
            calls.add(call(direct, DataType.FLOAT32, ReduceOp.SUM, count, i % ranks, LAYOUTS[i % LAYOUTS.length]));
            calls.add(call(twoShot, DataType.FLOAT32, ReduceOp.SUM, 3 * chunkElements + 7, 0,
                LAYOUTS[i % LAYOUTS.length]));
            i++;
        }
        runJob(ranks, 16 * ShmDirectBroadcast.CHUNK_BYTES, calls);
    }

    /**
     * After an exchange a writer skips the look at the peers for a while; an eager root that then runs through a
     * stream of three times its slots must still wait before each slot comes round again.
     */
    @ParameterizedTest(name = "{0} ranks")
    @ValueSource(ints = {2, 3, 8})
    void eagerBroadcastRootRunningAheadWaitsForItsReaders(final int ranks)
    {
        final CollectiveAlgorithm eager = new ShmEagerBroadcast();
        final Served allreduce = lowLatency(Collective.ALLREDUCE);
        final List<Call> calls = new ArrayList<>();
        int i = 0;
        for (int round = 0; round < 3; round++)
        {
            calls.add(call(allreduce, TYPES[i % TYPES.length], ReduceOp.SUM, 1 + round, 0, Layout.PRIVATE));
            i++;
            for (int b = 0; b < 3 * EagerProtocol.SLOTS; b++)
            {
                calls.add(call(eager, TYPES[i % TYPES.length], ReduceOp.SUM, 1 + b * 97, round % ranks,
                    LAYOUTS[i % LAYOUTS.length]));
                i++;
            }
        }
        runJob(ranks, EAGER_STAGING_BYTES, calls);
    }

    /**
     * Calls of one to all the eager slots, and parts of slots, with readers that start each call late: each size
     * places its slots differently, so a root that runs ahead comes back to slots that calls of other sizes wrote
     * last, and must wait for their readers (a root that took a slot as free because no call of its own size had
     * used it for {@code SLOTS} calls overwrote calls not yet read).
     */
    @ParameterizedTest(name = "{0} ranks")
    @ValueSource(ints = {2, 3, 8})
    void eagerBroadcastCallsOfEverySlotCountShareTheSlots(final int ranks)
    {
        final CollectiveAlgorithm eager = new ShmEagerBroadcast();
        final long slotElements = EagerProtocol.SLOT_PAYLOAD / DataType.INT32.size();
        final List<Call> calls = new ArrayList<>();
        int i = 0;
        for (int round = 0; round < 2; round++)
        {
            for (final long slots : new long[]{1, 2, 8, 3, 1, 5, 2, 4, 1, 7, 6, 1, 1, 1, 2, 1})
            {
                final long count = slots * slotElements - (i % 3 == 0 ? 0 : slotElements / 2 + i);
                calls.add(call(eager, DataType.INT32, ReduceOp.SUM, count, round, LAYOUTS[i % LAYOUTS.length]));
                i++;
            }
        }
        runJob(ranks, EAGER_STAGING_BYTES, calls, 200_000);
    }

    @Test
    void eagerRefusesLargeCallsAndSmallStagingAreas()
    {
        final CollectiveAlgorithm eager = new ShmEagerBroadcast();
        final CollectiveArgs args = new CollectiveArgs();
        args.collective = Collective.BROADCAST;
        args.type = DataType.INT32;
        args.count = EagerProtocol.MAX_BYTES / 4;
        assertNull(eager.unsupportedReason(args, 4, new LocalJob(4, EAGER_STAGING_BYTES, 4096).context(0)));
        final String tooSmall = eager.unsupportedReason(args, 4, new LocalJob(4, LL_STAGING_BYTES, 4096).context(0));
        assertNotNull(tooSmall);
        assertTrue(tooSmall.contains("staging area of at least"), tooSmall);
        args.count++;
        final String tooLarge = eager.unsupportedReason(args, 4, new LocalJob(4, EAGER_STAGING_BYTES, 4096).context(0));
        assertNotNull(tooLarge);
        assertTrue(tooLarge.contains("at most " + EagerProtocol.MAX_BYTES + " bytes"), tooLarge);
    }

    @Test
    void chunkSizeOfTheCallBoundsTheStagingHalf()
    {
        final CollectiveArgs args = new CollectiveArgs();
        final LocalJob job = new LocalJob(2, 1 << 20, 4096);
        // 1 MiB: the low-latency region, no eager one (that needs EagerProtocol.MIN_STAGING_BYTES)
        final long whole = ((1 << 20) - LowLatencyProtocol.REGION_BYTES) / 2 & ~63L;
        assertEquals(whole, ShmProtocol.halfStagingBytes(job.context(0), args));
        args.chunkBytes = 4096 + 63;
        assertEquals(4096, ShmProtocol.halfStagingBytes(job.context(0), args), "whole cache lines");
        args.chunkBytes = 8L << 20;
        assertEquals(whole, ShmProtocol.halfStagingBytes(job.context(0), args), "never more than half the area");
    }

    /**
     * The cost model's chunk half is the protocols': the staging area less the LL and eager regions, halved; and its
     * copies of the protocols' sizes are theirs.
     */
    @ParameterizedTest
    @ValueSource(longs = {4096, 256 << 10, 1 << 20, (4 << 20) - 64, 4 << 20, 6 << 20, 16 << 20})
    void costModelsStagingHalfIsTheProtocols(final long stagingBytes)
    {
        final LocalJob job = new LocalJob(2, stagingBytes, 4096);
        assertEquals(ShmProtocol.halfStagingBytes(job.context(0), new CollectiveArgs()),
            io.jccl.model.CostFormulas.stagingHalfBytes(stagingBytes));
        assertEquals(EagerProtocol.MAX_BYTES, io.jccl.model.CostFormulas.EAGER_MAX_BYTES);
        assertEquals(LowLatencyProtocol.MAX_BYTES, io.jccl.model.CostFormulas.LL_MAX_BYTES);
        assertEquals(ShmDirectBroadcast.CHUNK_BYTES, io.jccl.model.CostFormulas.DIRECT_BROADCAST_CHUNK_BYTES);
    }

    /** A v form's counts, {@code count} on each of {@code ranks} ranks; null for the other collectives. */
    private static int[] equalCounts(final Served served, final long count, final int ranks)
    {
        if (ShmRankDriver.blockForm(served.collective()) == served.collective())
        {
            return null;
        }
        final int[] counts = new int[ranks];
        java.util.Arrays.fill(counts, Math.toIntExact(count));
        return counts;
    }

    /** The largest count (elements per block where the collective has blocks) that fits one LL slot. */
    private static long largestLowLatencyCount(final Served served, final DataType type, final int ranks)
    {
        return lowLatencyCount(served, type, ranks, LowLatencyProtocol.MAX_BYTES);
    }

    /** The largest count (elements per block where the collective has blocks) whose LL publish fits in bytes. */
    private static long lowLatencyCount(final Served served, final DataType type, final int ranks, final long bytes)
    {
        final Collective collective = ShmRankDriver.blockForm(served.collective());
        final int blocks = collective == Collective.ALLTOALL || collective == Collective.REDUCE_SCATTER ? ranks : 1;
        return bytes / type.size() / blocks;
    }

    private static boolean isLowLatency(final CollectiveAlgorithm algorithm)
    {
        return algorithm.name().equals("shm_ll");
    }

    private static boolean isEager(final CollectiveAlgorithm algorithm)
    {
        return algorithm.name().equals("shm_eager");
    }

    private static boolean isSingleCopy(final CollectiveAlgorithm algorithm)
    {
        return algorithm instanceof SingleCopyAlgorithm;
    }

    @Test
    void explainsWhenTheStagingAreaIsTooSmall()
    {
        final LocalJob tiny = new LocalJob(8, 64, 4096);
        final LocalJob small = new LocalJob(8, 256, 4096);
        for (final CollectiveAlgorithm algorithm : STAGED)
        {
            final Collective collective = algorithm.collectives().iterator().next();
            final CollectiveArgs args = new CollectiveArgs();
            args.collective = collective;
            args.type = DataType.FLOAT64;
            args.op = ReduceOp.SUM;
            args.count = 1000;
            if (collective == Collective.BARRIER)
            {
                assertNull(algorithm.unsupportedReason(args, 8, tiny.context(0)));
                continue;
            }
            final String reason = algorithm.unsupportedReason(args, 8, tiny.context(0));
            assertNotNull(reason, algorithm.name());
            assertTrue(reason.contains("staging area of at least"), reason);
            assertNull(algorithm.unsupportedReason(args, 1, tiny.context(0)), "one rank needs no staging");

            // 8 ranks × 8 bytes fill a 64-byte column of a 128-byte half: alltoall and reduce-scatter just fit
            assertNull(algorithm.unsupportedReason(args, 8, small.context(0)), algorithm.name());

            args.collective = collective == Collective.BROADCAST ? Collective.REDUCE : Collective.BROADCAST;
            assertNotNull(algorithm.unsupportedReason(args, 8, small.context(0)));
        }
    }

    @Test
    void refusesRanksThatDisagreeAboutSymmetricMemory()
    {
        final LocalJob job = new LocalJob(2, STAGING_BYTES, 1 << 16);
        final CollectiveAlgorithm oneShot = new ShmOneShotAllreduce();
        final JcclException failure = assertThrows(JcclException.class, () -> job.run(context ->
        {
            final long address = job.segmentAddress() + job.symmetricSegmentOffset(context.rank());
            final CollectiveArgs args = new CollectiveArgs();
            args.collective = Collective.ALLREDUCE;
            args.type = DataType.INT32;
            args.op = ReduceOp.SUM;
            args.count = 16;
            args.sendOffset = address;
            args.recvOffset = address + 1024;
            args.sendSegmentOffset = context.rank() == 0 ? address - job.segmentAddress() : -1;
            context.begin();
            oneShot.run(context, args);
        }));
        assertTrue(failure.getMessage().contains("every rank must pass buffers from allocateShared"),
            failure.getMessage());
    }

    private static Call call(
        final CollectiveAlgorithm algorithm, final DataType type, final ReduceOp op, final long count, final int root,
        final Layout layout)
    {
        return call(new Served(algorithm, algorithm.collectives().iterator().next()), type, op, count, root, layout);
    }

    private static Call call(
        final Served served, final DataType type, final ReduceOp op, final long count, final int root,
        final Layout layout)
    {
        final Collective collective = served.collective();
        final Collective form = ShmRankDriver.blockForm(collective);
        final boolean reduces = form == Collective.REDUCE || form == Collective.ALLREDUCE ||
            form == Collective.REDUCE_SCATTER || form == Collective.SCAN || form == Collective.EXSCAN;
        return new Call(served.algorithm(), collective, type, reduces ? op : null,
            collective == Collective.BARRIER ? 0 : count, root, layout);
    }

    private static void runJob(final int ranks, final long stagingBytes, final List<Call> calls)
    {
        runJob(ranks, stagingBytes, calls, 0);
    }

    /** {@link #runJob}, every rank but a call's root starting the call {@code lateNanos} late. */
    private static void runJob(final int ranks, final long stagingBytes, final List<Call> calls, final long lateNanos)
    {
        long largest = 0;
        for (final Call call : calls)
        {
            largest = Math.max(largest, call.count() * call.type().size());
        }
        final long symmetricBytes =
            (2 * ranks * largest + 4 * ShmRankDriver.GUARD + 2L * ranks * ShmRankDriver.STAGGER + 4095) & ~4095L;
        final LocalJob job = new LocalJob(ranks, stagingBytes, symmetricBytes).singleCopy(SINGLE_COPY_BYTES);
        final AtomicLongArray hashes = new AtomicLongArray(calls.size() * ranks);
        final AtomicIntegerArray arrivals = new AtomicIntegerArray(calls.size());
        try (GcPressure ignored = new GcPressure())
        {
            job.run(context ->
            {
                final ShmRankDriver driver = new ShmRankDriver(job, context, hashes, arrivals);
                for (final Call call : calls)
                {
                    if (lateNanos > 0 && context.rank() != call.root())
                    {
                        LockSupport.parkNanos(lateNanos);
                    }
                    driver.run(call);
                }
            });
        }

        // each rank matched the reference bit for bit; say so once more across ranks for the replicated results
        for (int i = 0; i < calls.size(); i++)
        {
            final Collective collective = ShmRankDriver.blockForm(calls.get(i).collective());
            if (collective == Collective.ALLREDUCE || collective == Collective.ALLGATHER ||
                collective == Collective.BROADCAST)
            {
                for (int r = 1; r < ranks; r++)
                {
                    assertEquals(hashes.get(i * ranks), hashes.get(i * ranks + r), calls.get(i) + " rank " + r);
                }
            }
        }
    }
}
