package io.jccl.algorithms;

import io.jccl.Collective;
import io.jccl.DataType;
import io.jccl.ReduceOp;
import io.jccl.model.Pace;
import io.jccl.model.TuningTable;
import io.jccl.spi.CollectiveAlgorithm;
import io.jccl.spi.CollectiveArgs;
import io.jccl.spi.CollectiveContext;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The remembered choice for small calls is the selector's own: long random streams of calls, drawn from groups of
 * shapes that differ in one thing each and repeated, through one {@link LastSmallCallChoice} and through the selector
 * alone, must choose the same algorithms and leave the same arguments, at 2, 4 and 8 ranks on 2 cores, with and
 * without single copy, at every pace. Leaving the count or the pace out of what the remembered choice compares, or
 * remembering calls on buffers in the shared segment, fails them.
 */
@Timeout(60)
class LastSmallCallChoiceTest
{
    private static final AlgorithmRegistry REGISTRY = AlgorithmRegistry.instance();
    private static final long STAGING = 4L << 20;
    private static final Collective[] COLLECTIVES = {Collective.BARRIER, Collective.BROADCAST, Collective.REDUCE,
        Collective.ALLREDUCE, Collective.GATHER, Collective.SCATTER, Collective.ALLGATHER, Collective.REDUCE_SCATTER,
        Collective.ALLTOALL};
    private static final DataType[] TYPES = {DataType.INT8, DataType.INT32, DataType.FLOAT32, DataType.FLOAT64};
    private static final ReduceOp[] OPS = {ReduceOp.SUM, ReduceOp.MAX, ReduceOp.PROD};
    private static final Pace[] PACES = {null, Pace.FAST, Pace.SLOW};

    /** One call's shape: what the communicator sets in the arguments before it selects. */
    private record Shape(Collective collective, DataType type, ReduceOp op, int root, long count, boolean sendHeap,
        boolean recvHeap, boolean inPlace, boolean symmetric, Pace pace, boolean betweenPaces)
    {
        CollectiveArgs args()
        {
            final CollectiveArgs args = new CollectiveArgs();
            args.collective = collective;
            args.type = type;
            args.op = reduces(collective) ? op : null;
            args.root = root;
            args.count = count;
            final Object send = sendHeap ? new byte[64] : null;
            args.sendBase = send;
            args.sendOffset = sendHeap ? 16 : 1 << 20;
            args.recvBase = inPlace ? send : recvHeap ? new byte[64] : null;
            args.recvOffset = inPlace ? args.sendOffset : recvHeap ? 16 : 2 << 20;
            args.sendSegmentOffset = symmetric ? 4096 : -1;
            args.recvSegmentOffset = symmetric ? 8192 : -1;
            args.maxCopyBytes = 64L << 20;
            args.betweenPaces = betweenPaces;
            return args;
        }
    }

    @Test
    void choosesWhatTheSelectorChoosesInAStreamOfCalls()
    {
        final SplittableRandom random = new SplittableRandom(70);
        for (final int ranks : new int[] {2, 4, 8})
        {
            final AlgorithmSelector shipped = new AlgorithmSelector(REGISTRY, null,
                TunedSelection.of(TuningTable.shipped(), ranks, REGISTRY, STAGING), 2);
            for (final AlgorithmSelector selector : List.of(shipped, shipped.with("allreduce:ring,broadcast:shm_ll")))
            {
                // one rank's view of jobs that differ in what the contexts report: a communicator's may change
                final int rank = random.nextInt(ranks);
                final List<CollectiveContext> contexts = new ArrayList<>();
                for (final long singleCopyBytes : new long[] {0, 4096, 32 * 1024})
                {
                    for (final boolean copiesStream : new boolean[] {false, true})
                    {
                        contexts.add(new LocalJob(ranks, STAGING, 1 << 20).singleCopy(singleCopyBytes)
                            .copiesStream(copiesStream).context(rank));
                    }
                }
                compareStreams(selector, contexts, pool(random, ranks), random);
            }
        }
    }

    @Test
    void remembersOnlySmallCallsOfPrivateMemoryThatAreNotVectorForms()
    {
        final CollectiveArgs small = new Shape(Collective.ALLREDUCE, DataType.FLOAT32, ReduceOp.SUM, 0, 1024, false,
            false, false, false, null, false).args();
        assertTrue(LastSmallCallChoice.remembered(small, 4096));
        assertFalse(LastSmallCallChoice.remembered(small, 4100));
        small.sendSegmentOffset = 0;
        assertFalse(LastSmallCallChoice.remembered(small, 4096));
        small.sendSegmentOffset = -1;
        small.recvSegmentOffset = 0;
        assertFalse(LastSmallCallChoice.remembered(small, 4096));
        small.recvSegmentOffset = -1;
        small.collective = Collective.ALLGATHERV;
        assertFalse(LastSmallCallChoice.remembered(small, 4096));
    }

    @Test
    void aRepeatedCallGetsTheRememberedChoiceAndARefusalIsNotRemembered()
    {
        final AlgorithmSelector selector = new AlgorithmSelector(REGISTRY, null,
            TunedSelection.of(TuningTable.shipped(), 2, REGISTRY, STAGING), 2);
        final LastSmallCallChoice choice = new LastSmallCallChoice(selector);
        final CollectiveContext context = new LocalJob(2, STAGING, 1 << 20).context(0);
        final Shape eightBytes = new Shape(Collective.ALLREDUCE, DataType.FLOAT32, ReduceOp.SUM, 0, 2, false, false,
            false, false, Pace.FAST, false);
        final CollectiveAlgorithm chosen = choice.select(eightBytes.args(), context, 8, Pace.FAST);
        assertEquals("shm_ll", chosen.name());
        assertSame(chosen, choice.select(eightBytes.args(), context, 8, Pace.FAST));
        // a forced algorithm that cannot serve a call refuses it every time
        final LastSmallCallChoice forced = new LastSmallCallChoice(selector.with("allreduce:shm_ll"));
        final Shape twoKib = new Shape(Collective.ALLREDUCE, DataType.FLOAT32, ReduceOp.SUM, 0, 512, false, false,
            false, false, Pace.FAST, false);
        for (int i = 0; i < 2; i++)
        {
            final IllegalArgumentException refusal = assertThrows(IllegalArgumentException.class,
                () -> forced.select(twoKib.args(), context, 2048, Pace.FAST));
            assertTrue(refusal.getMessage().contains("at most 1024 bytes"), refusal.getMessage());
        }
        assertEquals("shm_ll", forced.select(eightBytes.args(), context, 8, Pace.FAST).name());
    }

    @Test
    void aChoiceRememberedAtOnePaceIsNotTakenAtTheOther()
    {
        final LastSmallCallChoice choice = new LastSmallCallChoice(new AlgorithmSelector(REGISTRY, null,
            TunedSelection.of(TuningTable.shipped(), 2, REGISTRY, STAGING), 2));
        final CollectiveContext context = new LocalJob(2, STAGING, 1 << 20).singleCopy(32 * 1024).context(0);
        final Shape fast = new Shape(Collective.BROADCAST, DataType.FLOAT32, null, 0, 512, false, false, false, false,
            Pace.FAST, false);
        final Shape slow = new Shape(Collective.BROADCAST, DataType.FLOAT32, null, 0, 512, false, false, false, false,
            Pace.SLOW, false);
        for (int i = 0; i < 2; i++)
        {
            assertEquals("binomial", choice.select(fast.args(), context, 2048, Pace.FAST).name());
            assertEquals("binomial", choice.select(fast.args(), context, 2048, Pace.FAST).name());
            assertEquals("shm_eager", choice.select(slow.args(), context, 2048, Pace.SLOW).name());
            assertEquals("shm_eager", choice.select(slow.args(), context, 2048, Pace.SLOW).name());
        }
    }

    /**
     * Groups of shapes of up to 8 KiB a block, most at most {@link LastSmallCallChoice#MAX_BYTES}: a random shape, and
     * shapes that differ from it in one thing only, so that a choice remembered without looking at that thing would be
     * taken for a call it does not fit.
     */
    private static List<List<Shape>> pool(final SplittableRandom random, final int ranks)
    {
        final List<List<Shape>> pool = new ArrayList<>();
        for (int i = 0; i < 12; i++)
        {
            // the first: a 2 KiB broadcast, which 2 ranks send binomial at the fast pace, through shm_eager at the slow
            final boolean first = i == 0;
            final Collective collective = first ? Collective.BROADCAST :
                COLLECTIVES[random.nextInt(COLLECTIVES.length)];
            final DataType type = first ? DataType.FLOAT32 : TYPES[random.nextInt(TYPES.length)];
            final long count = collective == Collective.BARRIER ? 0 : first ? 512 :
                1 + random.nextInt(2048 / type.size());
            final Shape s = new Shape(collective, type, OPS[random.nextInt(OPS.length)], random.nextInt(ranks), count,
                random.nextBoolean(), random.nextBoolean(), random.nextInt(4) == 0, false,
                first ? Pace.FAST : PACES[random.nextInt(PACES.length)], random.nextInt(5) == 0);
            final int paceIndex = Arrays.asList(PACES).indexOf(s.pace());
            final Pace otherPace = PACES[(paceIndex + 1 + random.nextInt(2)) % PACES.length];
            final DataType otherType = TYPES[(Arrays.asList(TYPES).indexOf(type) + 1) % TYPES.length];
            final List<Shape> group = new ArrayList<>();
            pool.add(group);
            group.add(s);
            group.add(new Shape(collective, type, s.op(), s.root(), s.count(), s.sendHeap(), s.recvHeap(), s.inPlace(),
                true, s.pace(), s.betweenPaces()));
            group.add(new Shape(collective, type, s.op(), s.root(), 1 + random.nextInt(8192 / type.size()),
                s.sendHeap(), s.recvHeap(), s.inPlace(), false, s.pace(), s.betweenPaces()));
            group.add(new Shape(collective, otherType, s.op(), s.root(), s.count(), s.sendHeap(), s.recvHeap(),
                s.inPlace(), false, s.pace(), s.betweenPaces()));
            group.add(new Shape(collective, type, OPS[(Arrays.asList(OPS).indexOf(s.op()) + 1) % OPS.length], s.root(),
                s.count(), s.sendHeap(), s.recvHeap(), s.inPlace(), false, s.pace(), s.betweenPaces()));
            group.add(new Shape(collective, type, s.op(), (s.root() + 1) % ranks, s.count(), s.sendHeap(), s.recvHeap(),
                s.inPlace(), false, s.pace(), s.betweenPaces()));
            group.add(new Shape(collective, type, s.op(), s.root(), s.count(), !s.sendHeap(), s.recvHeap(), s.inPlace(),
                false, s.pace(), s.betweenPaces()));
            group.add(new Shape(collective, type, s.op(), s.root(), s.count(), s.sendHeap(), !s.recvHeap(), s.inPlace(),
                false, s.pace(), s.betweenPaces()));
            group.add(new Shape(collective, type, s.op(), s.root(), s.count(), s.sendHeap(), s.recvHeap(),
                !s.inPlace(), false, s.pace(), s.betweenPaces()));
            group.add(new Shape(collective, type, s.op(), s.root(), s.count(), s.sendHeap(), s.recvHeap(), s.inPlace(),
                false, otherPace, s.betweenPaces()));
            group.add(new Shape(collective, type, s.op(), s.root(), s.count(), s.sendHeap(), s.recvHeap(), s.inPlace(),
                false, s.pace(), !s.betweenPaces()));
        }
        return pool;
    }

    /**
     * Draws 6,000 calls from the pool, mostly from the group of the call before, each repeated up to four times, now
     * and then in another of the contexts, through one remembered choice and through the selector alone; compares
     * each call's outcome.
     */
    private static void compareStreams(final AlgorithmSelector selector, final List<CollectiveContext> contexts,
        final List<List<Shape>> pool, final SplittableRandom random)
    {
        final LastSmallCallChoice choice = new LastSmallCallChoice(selector);
        CollectiveContext context = contexts.get(0);
        List<Shape> group = pool.get(0);
        int calls = 0;
        while (calls < 6000)
        {
            if (random.nextInt(8) == 0)
            {
                context = contexts.get(random.nextInt(contexts.size()));
            }
            final CollectiveContext in = context;
            if (random.nextInt(8) == 0)
            {
                group = pool.get(random.nextInt(pool.size()));
            }
            final Shape shape = group.get(random.nextInt(group.size()));
            final long bytes =
                shape.count() * shape.type().size() * (perRankBlocks(shape.collective()) ? in.size() : 1);
            for (int repeat = 1 + random.nextInt(4); repeat > 0; repeat--, calls++)
            {
                final CollectiveArgs remembered = shape.args();
                final CollectiveArgs fresh = shape.args();
                final String whatRemembered = outcome(() -> choice.select(remembered, in, bytes, shape.pace()));
                final String whatFresh = outcome(() -> selector.select(fresh, in, bytes, shape.pace()));
                final String call = shape + " at " + bytes + " B, rank " + in.rank() + " of " + in.size() +
                    ", single copy from " + in.singleCopyBytes() + ", copies stream " + in.copiesStream();
                assertEquals(whatFresh, whatRemembered, call);
                assertEquals(fresh.chunkBytes, remembered.chunkBytes, call);
                assertEquals(fresh.declinedCopyMaxBytes, remembered.declinedCopyMaxBytes, call);
                assertEquals(fresh.declinedCopyMinBytes, remembered.declinedCopyMinBytes, call);
                assertEquals(fresh.sendSegmentOffset, remembered.sendSegmentOffset, call);
                assertEquals(fresh.recvSegmentOffset, remembered.recvSegmentOffset, call);
            }
        }
    }

    /** The chosen algorithm's name, or the refusal's message. */
    private static String outcome(final java.util.function.Supplier<CollectiveAlgorithm> select)
    {
        try
        {
            return select.get().name();
        }
        catch (final IllegalArgumentException | IllegalStateException ex)
        {
            return "refused: " + ex.getMessage();
        }
    }

    /** Collectives whose bytes count one block per rank (DESIGN.md section 7's whole vector). */
    private static boolean perRankBlocks(final Collective collective)
    {
        return collective == Collective.GATHER || collective == Collective.SCATTER ||
            collective == Collective.ALLGATHER || collective == Collective.REDUCE_SCATTER ||
            collective == Collective.ALLTOALL;
    }

    private static boolean reduces(final Collective collective)
    {
        return collective == Collective.REDUCE || collective == Collective.ALLREDUCE ||
            collective == Collective.REDUCE_SCATTER;
    }
}
