package io.jccl.algorithms;

import io.jccl.Collective;
import io.jccl.DataType;
import io.jccl.ReduceOp;
import io.jccl.model.CostModel;
import io.jccl.model.ModelParameters;
import io.jccl.model.Pace;
import io.jccl.model.TuningTable;
import io.jccl.model.TuningTable.Rule;
import io.jccl.spi.CollectiveAlgorithm;
import io.jccl.spi.CollectiveArgs;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.lang.management.ManagementFactory;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The lookup arrays built from a tuning table, and how the selector uses them; one JVM, no transport. */
@Timeout(30)
class TunedSelectionTest
{
    private static final AlgorithmRegistry REGISTRY = AlgorithmRegistry.instance();
    private static final long STAGING = 4L << 20;

    /** allreduce at 4 ranks: ring, then rabenseifner cut in 64 KiB chunks, a gap, then recursive doubling. */
    private static TuningTable table()
    {
        return new TuningTable(ModelParameters.shipped(), Map.of("source", "test"), List.of(
            new Rule(Collective.ALLREDUCE, 4, 0, 1000, "ring", 0),
            new Rule(Collective.ALLREDUCE, 4, 1000, 5000, "rabenseifner", 65536),
            new Rule(Collective.ALLREDUCE, 4, 10_000, Long.MAX_VALUE, "recursive_doubling", 0),
            new Rule(Collective.ALLREDUCE, 2, 0, Long.MAX_VALUE, "shm_twoshot", 0),
            new Rule(Collective.BROADCAST, 4, 64, Long.MAX_VALUE, "binomial", 0)));
    }

    @Test
    void rangesOfTheFileAtThisRankCountWithGapsLeftToThePreferenceList()
    {
        final TunedSelection selection = TunedSelection.of(table(), 4, REGISTRY, STAGING);
        final CollectiveAlgorithm ring = REGISTRY.find(Collective.ALLREDUCE, "ring");
        final CollectiveAlgorithm doubling = REGISTRY.find(Collective.ALLREDUCE, "recursive_doubling");
        assertSame(ring, selection.choose(Collective.ALLREDUCE, 0));
        assertSame(ring, selection.choose(Collective.ALLREDUCE, 999));
        final CollectiveAlgorithm rabenseifner = selection.choose(Collective.ALLREDUCE, 1000);
        assertEquals("rabenseifner", rabenseifner.name());
        assertNotSame(REGISTRY.find(Collective.ALLREDUCE, "rabenseifner"), rabenseifner,
            "a chunk size of its own means an instance of its own");
        assertSame(rabenseifner, selection.choose(Collective.ALLREDUCE, 4999));
        assertNull(selection.choose(Collective.ALLREDUCE, 5000));
        assertNull(selection.choose(Collective.ALLREDUCE, 9999));
        assertSame(doubling, selection.choose(Collective.ALLREDUCE, 10_000));
        assertSame(doubling, selection.choose(Collective.ALLREDUCE, Long.MAX_VALUE));
        // the broadcast rule starts at 64 bytes: below it, nothing
        assertNull(selection.choose(Collective.BROADCAST, 63));
        assertEquals("binomial", selection.choose(Collective.BROADCAST, 64).name());
        // collectives the file has no rules for are the model's: allgatherv's as allgather's, whose formulas it
        // shares (the low-latency one while its blocks fit LL lines); the other v forms' one algorithm each
        assertEquals("shm_ll", selection.choose(Collective.ALLGATHERV, 64).name());
        for (final long bytes : new long[] {64, 4096, 65536, 1 << 20})
        {
            assertEquals(selection.choose(Collective.ALLGATHER, bytes).name(),
                selection.choose(Collective.ALLGATHERV, bytes).name(), bytes + " B");
        }
        assertEquals("pairwise", selection.choose(Collective.ALLTOALLV, 4096).name());
        assertEquals("linear", selection.choose(Collective.GATHERV, 4096).name());
        assertEquals("[0 B, 1000 B) ring; [1000 B, 5000 B) rabenseifner; [5000 B, 10000 B) (preference list); " +
            "[10000 B, ∞) recursive_doubling", selection.describe(Collective.ALLREDUCE));
    }

    @Test
    void theModelChoosesForCollectivesTheFileDoesNotCover()
    {
        final TunedSelection selection = TunedSelection.of(table(), 4, REGISTRY, STAGING);
        final CostModel model = new CostModel(ModelParameters.shipped(), STAGING);
        for (final Collective collective : List.of(Collective.ALLGATHER, Collective.REDUCE_SCATTER,
            Collective.ALLTOALL, Collective.REDUCE, Collective.GATHER, Collective.BARRIER))
        {
            final List<String> names = List.copyOf(REGISTRY.of(collective).keySet());
            final List<Rule> rules = TuningTable.modelRules(model, collective, 4, names);
            for (final Rule rule : rules)
            {
                for (final long bytes : new long[] {rule.minBytes(), rule.maxBytes() - 1})
                {
                    assertEquals(rule.algorithm(), selection.choose(collective, bytes).name(),
                        collective.label() + " at " + bytes);
                }
            }
        }
        // the file's rules at 2 ranks only count for 2 ranks; at 2 ranks, allreduce is the file's
        assertEquals("shm_twoshot", TunedSelection.of(table(), 2, REGISTRY, STAGING)
            .choose(Collective.ALLREDUCE, 8).name());
        // without any file the model chooses allreduce too
        final TunedSelection shipped = TunedSelection.of(TuningTable.shipped(), 4, REGISTRY, STAGING);
        final List<String> names = List.copyOf(REGISTRY.of(Collective.ALLREDUCE).keySet());
        for (long bytes = 8; bytes <= 64L << 20; bytes *= 4)
        {
            final String fastest = model.fastest("allreduce", 4, bytes, "float32", "sum", names);
            final double chosen = model.predict("allreduce", shipped.choose(Collective.ALLREDUCE, bytes).name(), 4,
                bytes, "float32", "sum");
            // rules switch on a quarter-octave grid: next to a switch the choice may lag by one step
            assertTrue(chosen <= 1.1 * model.predict("allreduce", fastest, 4, bytes, "float32", "sum"),
                bytes + " bytes: " + shipped.choose(Collective.ALLREDUCE, bytes).name() + " against " + fastest);
        }
    }

    @Test
    void rulesThatCannotBeBuiltAreRefusedWithTheirName()
    {
        final TuningTable unknown = new TuningTable(ModelParameters.shipped(), Map.of(),
            List.of(new Rule(Collective.ALLREDUCE, 3, 0, Long.MAX_VALUE, "telepathy", 0)));
        final IllegalArgumentException ex = assertThrows(IllegalArgumentException.class,
            () -> TunedSelection.of(unknown, 3, REGISTRY, STAGING));
        assertTrue(ex.getMessage().contains("telepathy"), ex.getMessage());
        // at another rank count the rule is not used, so it is not checked
        TunedSelection.of(unknown, 2, REGISTRY, STAGING);
        final TuningTable tinyChunk = new TuningTable(ModelParameters.shipped(), Map.of(),
            List.of(new Rule(Collective.ALLREDUCE, 3, 0, Long.MAX_VALUE, "shm_oneshot", 100)));
        final IllegalArgumentException chunk = assertThrows(IllegalArgumentException.class,
            () -> TunedSelection.of(tinyChunk, 3, REGISTRY, STAGING));
        assertTrue(chunk.getMessage().contains("below 4096"), chunk.getMessage());
    }

    @Test
    void lookupAllocatesNothing()
    {
        final TunedSelection selection = TunedSelection.of(table(), 4, REGISTRY, STAGING);
        final com.sun.management.ThreadMXBean threads =
            (com.sun.management.ThreadMXBean)ManagementFactory.getThreadMXBean();
        final long id = Thread.currentThread().getId();
        long sink = 0;
        long least = Long.MAX_VALUE;
        for (int round = 0; round < 5; round++)
        {
            final long before = threads.getThreadAllocatedBytes(id);
            for (int i = 0; i < 100_000; i++)
            {
                final CollectiveAlgorithm a = selection.choose(Collective.ALLREDUCE, i * 37L);
                sink += a == null ? 1 : a.name().length();
            }
            final long allocated = threads.getThreadAllocatedBytes(id) - before;
            if (round >= 2)
            {
                least = Math.min(least, allocated);
            }
        }
        // one object per lookup would be 1.6 MB a round; what remains is the JIT's and the bean's own bookkeeping,
        // which a compilation in the middle of a round can take beyond 4 KiB (4208 and 4432 bytes, 2026-12-05): the
        // least of three warm rounds
        assertTrue(least < 4096, least + " bytes allocated by 100000 lookups");
        assertTrue(sink > 0);
    }

    @Test
    void selectorTakesTheTunedChoiceFallsBackWhenItCannotServeAndForcingWins()
    {
        final TuningTable oneShotEverywhere = new TuningTable(ModelParameters.shipped(), Map.of(),
            List.of(new Rule(Collective.ALLREDUCE, 2, 0, Long.MAX_VALUE, "shm_oneshot", 0)));
        final AlgorithmSelector selector = new AlgorithmSelector(REGISTRY, null,
            TunedSelection.of(oneShotEverywhere, 2, REGISTRY, STAGING));
        final CollectiveArgs args = allreduce(256 * 1024);
        // 1 MiB: above where the old fixed list stopped using one-shot, but the file says one-shot
        assertEquals("shm_oneshot", selector.select(args, new LocalJob(2).context(0), 1 << 20).name());
        // a staging area too small for one-shot (and two-shot): the preference list's next one, ring
        assertEquals("ring", selector.select(args, new LocalJob(2, 64, 4096).context(0), 1 << 20).name());
        // forcing wins over the file
        assertEquals("rabenseifner", selector.with("allreduce:rabenseifner")
            .select(args, new LocalJob(2).context(0), 1 << 20).name());
        // choices for 2 ranks are not used on 3
        assertEquals("shm_oneshot", selector.select(args, new LocalJob(3).context(0), 1024).name());
        assertEquals("shm_twoshot", selector.select(args, new LocalJob(3).context(0), 1 << 20).name());
    }

    @Test
    void theSelectorChoosesByThePaceItIsGivenWhereTheFilePartsThem()
    {
        final TuningTable paced = new TuningTable(ModelParameters.shipped(), Map.of(), List.of(
            new Rule(Collective.ALLREDUCE, 2, 0, Long.MAX_VALUE, "shm_twoshot", 0),
            new Rule(Collective.ALLREDUCE, 2, 0, 4096, "shm_oneshot", 0, Pace.FAST),
            new Rule(Collective.ALLREDUCE, 2, 4096, Long.MAX_VALUE, "ring", 65536, Pace.FAST),
            new Rule(Collective.ALLREDUCE, 2, 0, Long.MAX_VALUE, "recursive_doubling", 0, Pace.SLOW)),
            List.of(new TuningTable.PaceSplit(2, 60, 27, 130)));
        final TunedSelection tuned = TunedSelection.of(paced, 2, REGISTRY, STAGING);
        assertEquals(60, tuned.paceSplit().thresholdMicros());
        final AlgorithmSelector selector = new AlgorithmSelector(REGISTRY, null, tuned);
        final CollectiveArgs args = allreduce(16 * 1024);
        final var context = new LocalJob(2).context(0);
        assertEquals("shm_twoshot", selector.select(args, context, 64 * 1024, null).name());
        final CollectiveAlgorithm fastRing = selector.select(args, context, 64 * 1024, Pace.FAST);
        assertEquals("ring", fastRing.name());
        assertNotSame(REGISTRY.find(Collective.ALLREDUCE, "ring"), fastRing, "the fast rule's ring, cut in its chunks");
        assertEquals("recursive_doubling", selector.select(args, context, 64 * 1024, Pace.SLOW).name());
        assertEquals("shm_oneshot", tuned.atPace(Pace.FAST).choose(Collective.ALLREDUCE, 1024).name());
        // a collective without rules of one pace takes the choices for both, here the model's
        assertEquals(tuned.choose(Collective.BROADCAST, 1024).name(),
            tuned.atPace(Pace.SLOW).choose(Collective.BROADCAST, 1024).name());
        // a rank count the file does not part: one selection for every pace
        final TunedSelection four = TunedSelection.of(paced, 4, REGISTRY, STAGING);
        assertNull(four.paceSplit());
        assertSame(four, four.atPace(Pace.FAST));
    }

    @Test
    void aRulesChunkSizeTravelsWithTheCallUnlessTheConfigurationSetsOne()
    {
        final TuningTable chunked = new TuningTable(ModelParameters.shipped(), Map.of(), List.of(
            new Rule(Collective.ALLREDUCE, 2, 0, 1 << 20, "shm_twoshot", 65536),
            new Rule(Collective.ALLREDUCE, 2, 1 << 20, Long.MAX_VALUE, "ring", 131072)));
        final TunedSelection selection = TunedSelection.of(chunked, 2, REGISTRY, STAGING);
        assertEquals("[0 B, 1 MiB) shm_twoshot chunk 64 KiB; [1 MiB, ∞) ring", selection.describe(Collective.ALLREDUCE));
        final AlgorithmSelector selector = new AlgorithmSelector(REGISTRY, null, selection);
        final CollectiveArgs args = allreduce(64 * 1024);
        assertEquals("shm_twoshot", selector.select(args, new LocalJob(2).context(0), 256 * 1024).name());
        assertEquals(65536, args.chunkBytes, "the rule's chunk, per call");
        args.chunkBytes = 8192;
        selector.select(args, new LocalJob(2).context(0), 256 * 1024);
        assertEquals(8192, args.chunkBytes, "jccl.chunk.bytes wins");
        // the ring's chunk is its instance's: the call carries none
        args.chunkBytes = 0;
        final CollectiveAlgorithm ring = selector.select(args, new LocalJob(2).context(0), 4 << 20);
        assertEquals("ring", ring.name());
        assertNotSame(REGISTRY.find(Collective.ALLREDUCE, "ring"), ring);
        assertEquals(0, args.chunkBytes);
    }

    /**
     * Without a tuning file, large messages that travel single-copy take their collective's single-copy algorithm
     * (binomial broadcast's point-to-point messages; allgather's, reduce-scatter's and alltoall's reads of every peer;
     * allreduce's and reduce's, only at 2 ranks); small ones, jobs without single copy, ranks that share cores
     * and tuning files do not. Needs 2 cores, as every machine this project runs on has.
     */
    @Test
    void singleCopyMessagesTakeThePointToPointAlgorithmsUnlessATuningFileSaysOtherwise()
    {
        org.junit.jupiter.api.Assumptions.assumeTrue(Runtime.getRuntime().availableProcessors() >= 2);
        final AlgorithmSelector shipped = shippedSelector(2);
        final LocalJob two = new LocalJob(2).singleCopy(64 * 1024);
        final LocalJob twoWithout = new LocalJob(2);
        final long mib = 1 << 20;
        assertEquals("binomial", shipped.select(args(Collective.BROADCAST, mib / 4), two.context(0), mib).name());
        assertEquals("shm_single_copy",
            shipped.select(args(Collective.ALLTOALL, mib / 4), two.context(0), mib).name());
        assertEquals("shm_single_copy",
            shipped.select(args(Collective.ALLGATHER, mib / 8), two.context(0), mib).name());
        assertEquals("shm_single_copy",
            shipped.select(args(Collective.REDUCE_SCATTER, mib / 8), two.context(0), mib).name());
        // reduce from 64 KiB (the point-to-point threshold set above the rule's 32 KiB) to 512 KiB, binomial beyond (to
        // 4 MiB)
        assertEquals("binomial", shipped.select(reduce(mib / 4), two.context(0), mib).name());
        assertEquals("shm_single_copy", shipped.select(reduce(mib / 8), two.context(0), mib / 2).name());
        assertEquals("shm_single_copy", shipped.select(reduce(16 * 1024), two.context(0), 64 * 1024).name());
        assertNotEquals("shm_single_copy", shipped.select(reduce(8 * 1024), two.context(0), 32 * 1024).name());
        assertTrue(List.of(shipped.describeSingleCopy(2, 64 * 1024).split("; "))
            .contains("reduce shm_single_copy from 65536 B to 524288 B and from 4194304 B, binomial from 4194304 B " +
                "below 8388608 B where heap arrays' copies stream"),
            shipped.describeSingleCopy(2, 64 * 1024));
        assertEquals("shm_single_copy", shipped.select(allreduce(mib / 4), two.context(0), mib).name());
        // allreduce from 128 KiB (a half of 64 KiB, the point-to-point threshold set above its default) to 16 MiB, the
        // single-copy two-shot beyond, and neither for symmetric send buffers, which two-shot reads in place
        assertNotEquals("shm_single_copy", shipped.select(allreduce(16 * 1024), two.context(0), 64 * 1024).name());
        assertEquals("shm_single_copy", shipped.select(allreduce(4 * mib), two.context(0), 16 * mib).name());
        final CollectiveArgs large = allreduce(4 * mib + 1);
        assertEquals("shm_single_copy_twoshot", shipped.select(large, two.context(0), 16 * mib + 4).name());
        assertEquals("allreduce shm_single_copy from 131072 B to 16777216 B, shm_single_copy_twoshot beyond " +
            "(beyond 524288 B between the paces)",
            shipped.describeSingleCopy(2, 64 * 1024).replaceAll(".*(allreduce[^;]*).*", "$1"));
        assertTrue(List.of(shipped.describeSingleCopy(2, 32 * mib).split("; "))
            .contains("allreduce shm_single_copy_twoshot from 67108864 B"), shipped.describeSingleCopy(2, 32 * mib));
        large.sendSegmentOffset = 0;
        assertFalse(shipped.select(large, two.context(0), 16 * mib + 4).name().startsWith("shm_single_copy"));
        final CollectiveArgs symmetric = allreduce(mib / 4);
        symmetric.sendSegmentOffset = 0;
        assertNotEquals("shm_single_copy", shipped.select(symmetric, two.context(0), mib).name());
        // at the default point-to-point threshold (32 KiB) the rule's own: allgather, alltoall and reduce-scatter from
        // blocks of 16 KiB, allreduce from 8 KiB (halves of 4 KiB)
        final LocalJob twoFrom32k = new LocalJob(2).singleCopy(32 * 1024);
        for (final Collective c : List.of(Collective.ALLGATHER, Collective.ALLTOALL, Collective.REDUCE_SCATTER))
        {
            final long count = c == Collective.ALLTOALL ? 8192 : 4096; // alltoall counts the whole vector
            assertEquals("shm_single_copy", shipped.select(args(c, count), twoFrom32k.context(0), 32 * 1024).name(),
                c.label());
            assertNotEquals("shm_single_copy",
                shipped.select(args(c, count / 2), twoFrom32k.context(0), 16 * 1024).name(), c.label());
        }
        assertEquals("shm_single_copy", shipped.select(allreduce(2048), twoFrom32k.context(0), 8192).name());
        assertNotEquals("shm_single_copy", shipped.select(allreduce(1024), twoFrom32k.context(0), 4096).name());
        assertEquals("shm_single_copy", shipped.select(reduce(8192), twoFrom32k.context(0), 32 * 1024).name());
        assertNotEquals("shm_single_copy", shipped.select(reduce(4096), twoFrom32k.context(0), 16 * 1024).name());
        // below the threshold (64 KiB here, the point-to-point one), and without single copy: as before (broadcast:
        // binomial at 2 ranks either way, twoRanksBroadcastAndReduceWithOneMessageUnlessATuningFileSaysOtherwise)
        for (final Collective c : List.of(Collective.ALLTOALL, Collective.ALLGATHER, Collective.REDUCE_SCATTER))
        {
            assertEquals(shipped.select(args(c, 4096), twoWithout.context(0), 32 * 1024).name(),
                shipped.select(args(c, 4096), two.context(0), 32 * 1024).name(), c.label());
            assertNotEquals(shipped.select(args(c, mib / 8), two.context(0), mib).name(),
                shipped.select(args(c, mib / 8), twoWithout.context(0), mib).name(), c.label());
        }
        // 4 ranks on this 2-core machine share cores: the shipped model's choice, with or without single copy
        final AlgorithmSelector atFour = shippedSelector(4);
        assertEquals(atFour.select(args(Collective.ALLGATHER, mib / 16), new LocalJob(4).context(0), mib).name(),
            atFour.select(args(Collective.ALLGATHER, mib / 16), new LocalJob(4).singleCopy(65536).context(0), mib)
                .name());
        assertEquals(atFour.select(allreduce(mib / 4), new LocalJob(4).context(0), mib).name(),
            atFour.select(allreduce(mib / 4), new LocalJob(4).singleCopy(65536).context(0), mib).name());
        assertEquals(atFour.select(reduce(mib / 16), new LocalJob(4).context(0), mib / 4).name(),
            atFour.select(reduce(mib / 16), new LocalJob(4).singleCopy(65536).context(0), mib / 4).name());
        final AlgorithmSelector measured = measuredSelector(Collective.BROADCAST, 2, "shm_direct");
        assertEquals("shm_direct", measured.select(args(Collective.BROADCAST, mib / 4), two.context(0), mib).name());
    }

    /**
     * While every rank has a core, the single-copy rule gives way at the fast pace (the communicator's probe found
     * staging as fast as single copy) to the choices it replaces, and holds at the slow pace and before the first
     * probe; so do 2-rank broadcasts, binomial at the slow pace, from the size where its message goes single copy up
     * to 2 MiB. The communicator probes only where the rule applies: with single copy, without a measured tuning file.
     * While ranks share cores, broadcast's (shm_single_copy from 32 KiB at 4 ranks), allreduce's (the single-copy
     * two-shot from 512 KiB), allgather's, reduce-scatter's and alltoall's (from 128 KiB) hold at the slow pace alone,
     * and beyond two ranks a core alltoall's alone, at either pace. Needs 2 or 3 cores.
     */
    @Test
    void singleCopyGivesWayAtTheFastPaceWhileEveryRankHasACore()
    {
        final int cores = Runtime.getRuntime().availableProcessors();
        org.junit.jupiter.api.Assumptions.assumeTrue(cores >= 2 && cores <= 3);
        final AlgorithmSelector shipped = shippedSelector(2);
        final LocalJob two = new LocalJob(2).singleCopy(32 * 1024);
        final long mib = 1 << 20;
        final Map<CollectiveArgs, String> stagedChoices = new java.util.LinkedHashMap<>();
        stagedChoices.put(allreduce(mib / 4), "shm_twoshot");
        stagedChoices.put(allreduce(2048), "shm_twoshot");
        stagedChoices.put(args(Collective.ALLGATHER, mib / 8), "shm_direct");
        stagedChoices.put(args(Collective.ALLTOALL, mib / 4), "shm_direct");
        stagedChoices.put(args(Collective.REDUCE_SCATTER, mib / 8), "shm_direct");
        stagedChoices.put(reduce(mib / 16), "binomial");
        for (final Map.Entry<CollectiveArgs, String> call : stagedChoices.entrySet())
        {
            final CollectiveArgs args = call.getKey();
            final long bytes = args.count * (args.collective == Collective.ALLGATHER ||
                args.collective == Collective.REDUCE_SCATTER ? 2 : 1) * Float.BYTES;
            final String label = args.collective.label() + " of " + bytes + " B";
            assertEquals("shm_single_copy", shipped.select(args, two.context(0), bytes).name(), label);
            assertEquals("shm_single_copy", shipped.select(args, two.context(0), bytes, Pace.SLOW).name(), label);
            assertEquals(call.getValue(), shipped.select(args, two.context(0), bytes, Pace.FAST).name(), label);
        }
        // beyond 16 MiB the single-copy two-shot, which gives way in the same way
        final CollectiveArgs large = allreduce(4 * mib + 1);
        final long largeBytes = 16 * mib + 4;
        assertEquals("shm_single_copy_twoshot", shipped.select(large, two.context(0), largeBytes).name());
        assertEquals("shm_single_copy_twoshot", shipped.select(large, two.context(0), largeBytes, Pace.SLOW).name());
        assertEquals("shm_twoshot", shipped.select(large, two.context(0), largeBytes, Pace.FAST).name());
        // between the paces, beyond 512 KiB; and a heap array's copy declines the call at every size
        final CollectiveArgs between = allreduce(mib / 8 + 1);
        between.betweenPaces = true;
        assertEquals("shm_single_copy_twoshot", shipped.select(between, two.context(0), mib / 2 + 4, Pace.SLOW).name());
        assertEquals(0, between.declinedCopyMinBytes);
        assertEquals(Long.MAX_VALUE, between.declinedCopyMaxBytes);
        final CollectiveArgs half = allreduce(mib / 8);
        assertEquals("shm_single_copy", shipped.select(half, two.context(0), mib / 2, Pace.SLOW).name());
        assertEquals(512 * 1024, half.declinedCopyMinBytes, "not between the paces: the window of declines");
        half.betweenPaces = true;
        assertEquals("shm_single_copy", shipped.select(half, two.context(0), mib / 2, Pace.SLOW).name());
        assertEquals(0, half.declinedCopyMinBytes);
        // 2-rank broadcasts: binomial, one message, but at the fast pace from where that message goes single copy
        // up to 2 MiB, the eager slots' size (the model's choice there; shm_direct where the slots are smaller)
        for (final long bytes : new long[] {32 * 1024, mib, 2 * mib, 2 * mib + 4, 8 * mib, 32 * mib})
        {
            final CollectiveArgs broadcast = args(Collective.BROADCAST, bytes / 4);
            assertEquals("binomial", shipped.select(broadcast, two.context(0), bytes).name(), bytes + " B");
            assertEquals("binomial", shipped.select(broadcast, two.context(0), bytes, Pace.SLOW).name(), bytes + " B");
            final String fast = shipped.select(broadcast, two.context(0), bytes, Pace.FAST).name();
            assertTrue(bytes <= 2 * mib ? fast.equals("shm_eager") || fast.equals("shm_direct") :
                fast.equals("binomial"), bytes + " B: " + fast);
        }
        assertEquals("binomial",
            shipped.select(args(Collective.BROADCAST, 2048), two.context(0), 8192, Pace.FAST).name());
        // below 12 KiB, not at the fast pace, the eager slots; below 513 B the shipped model's choice at every pace
        final Map<Long, String> slowBroadcasts = new java.util.TreeMap<>(Map.of(513L, "shm_eager", 4096L, "shm_eager",
            12287L, "shm_eager", 12288L, "binomial", 16384L, "binomial"));
        final LocalJob twoStaging = new LocalJob(2, STAGING, 1 << 20).singleCopy(32 * 1024);
        for (final long bytes : List.of(512L, 513L, 4096L, 12287L, 12288L, 16384L))
        {
            // bytes of int8, off the heap as the bench's buffers are
            final CollectiveArgs broadcast = args(Collective.BROADCAST, bytes);
            broadcast.type = DataType.INT8;
            broadcast.sendBase = null;
            broadcast.recvBase = null;
            final String label = bytes + " B";
            final String atFast = shipped.select(broadcast, twoStaging.context(0), bytes, Pace.FAST).name();
            final String expected = slowBroadcasts.getOrDefault(bytes, atFast);
            assertEquals(expected, shipped.select(broadcast, twoStaging.context(0), bytes, Pace.SLOW).name(), label);
            assertEquals(expected, shipped.select(broadcast, twoStaging.context(0), bytes).name(), label);
            assertEquals(bytes == 512 ? atFast : "binomial", atFast, label);
            // without single copy no probe reads the pace: as at the fast pace
            assertEquals(atFast, shipped.select(broadcast, new LocalJob(2, STAGING, 1 << 20).context(0), bytes).name(),
                label);
        }
        // 2-rank reduces: binomial up to 4 MiB, single copy again from 4 MiB (where heap arrays' copies stream, from
        // 8 MiB), but at the fast pace shm_direct from 2 MiB
        final LocalJob twoStreaming = new LocalJob(2).singleCopy(32 * 1024).copiesStream(true);
        for (final long bytes : new long[] {2 * mib, 4 * mib - 4, 4 * mib, 8 * mib - 4, 8 * mib, 32 * mib})
        {
            final CollectiveArgs reduce = reduce(bytes / 4);
            final String slow = bytes >= 4 * mib ? "shm_single_copy" : "binomial";
            assertEquals(slow, shipped.select(reduce, two.context(0), bytes).name(), bytes + " B");
            assertEquals(slow, shipped.select(reduce, two.context(0), bytes, Pace.SLOW).name(), bytes + " B");
            assertEquals(0, reduce.declinedCopyMaxBytes, "a 2-rank reduce's heap copy goes ahead");
            assertEquals(bytes >= 8 * mib ? "shm_single_copy" : "binomial",
                shipped.select(reduce, twoStreaming.context(0), bytes, Pace.SLOW).name(), bytes + " B, streaming");
            assertEquals("shm_direct", shipped.select(reduce, two.context(0), bytes, Pace.FAST).name(), bytes + " B");
        }
        assertEquals("shm_single_copy", shipped.select(reduce(mib / 8), twoStreaming.context(0), mib / 2,
            Pace.SLOW).name(), "the rule's small reduces stay single copy");
        assertEquals("binomial", shipped.select(reduce(mib / 4), two.context(0), mib, Pace.FAST).name());
        assertEquals("shm_direct", shipped.select(reduce(2 * mib), new LocalJob(2).context(0), 8 * mib).name(),
            "without single copy");
        assertTrue(shipped.describeSingleCopy(2, 32 * 1024).contains("reduce shm_single_copy from 32768 B to " +
            "524288 B and from 4194304 B"), shipped.describeSingleCopy(2, 32 * 1024));
        assertTrue(shipped.describeRankRules(2, 32 * 1024).startsWith("broadcast binomial from 513 B (below 12288 B " +
            "shm_eager, but at the fast pace and between the paces) (from 32768 B, where its message goes " +
            "single copy, up to 2097152 B, not at the fast pace); reduce binomial up to 4194304 B (from 2097152 B " +
            "not at the fast pace); "), shipped.describeRankRules(2, 32 * 1024));
        assertTrue(shipped.describeRankRules(2, 0).startsWith("broadcast binomial from 513 B; "),
            shipped.describeRankRules(2, 0));
        assertTrue(shipped.followsPace(2, 32 * 1024));
        assertFalse(shipped.followsPace(2, 0), "no single copy, no rule to follow the pace");
        final AlgorithmSelector atFour = shippedSelector(4);
        assertTrue(atFour.followsPace(4, 256 * 1024), "4 ranks: allreduce's rule follows the pace");
        assertFalse(atFour.followsPace(4, 0));
        assertTrue(atFour.with("allreduce:ring").followsPace(4, 256 * 1024));
        assertTrue(atFour.with("broadcast:binomial,allreduce:ring,allgather:ring,reduce_scatter:ring")
            .followsPace(4, 256 * 1024), "alltoall's rule follows the pace too");
        assertFalse(atFour.with("broadcast:binomial,reduce:binomial,allreduce:ring,allgather:ring," +
            "reduce_scatter:ring,alltoall:pairwise,allgatherv:ring,reduce_scatterv:ring").followsPace(4, 256 * 1024));
        final LocalJob fourSingleCopy = new LocalJob(4, STAGING, 1 << 20).singleCopy(256 * 1024);
        // allreduce: the single-copy two-shot at the slow pace from 512 KiB, on private send buffers; the choice it
        // replaces at the fast pace and before the first probe
        final LocalJob fourWithout = new LocalJob(4, STAGING, 1 << 20);
        for (final long bytes : new long[] {mib / 2, 8 * mib, 64 * mib})
        {
            final CollectiveArgs allreduce = allreduce(bytes / 4);
            final String staged = atFour.select(allreduce, fourWithout.context(0), bytes).name();
            assertNotEquals("shm_single_copy_twoshot", staged);
            assertEquals("shm_single_copy_twoshot",
                atFour.select(allreduce, fourSingleCopy.context(0), bytes, Pace.SLOW).name(), bytes + " B");
            // the rule's call may be declined (a rank's heap array), and then runs what the rule replaced
            assertEquals(AlgorithmSelector.declinedCopyMaxBytes(true), allreduce.declinedCopyMaxBytes);
            assertEquals(512 * 1024, allreduce.declinedCopyMinBytes);
            allreduce.declined = true;
            assertEquals(staged,
                atFour.selectAfterDecline(allreduce, fourSingleCopy.context(0), bytes, Pace.SLOW).name());
            assertFalse(allreduce.declinedCopyMaxBytes > 0 || allreduce.declined);
            assertEquals(staged, atFour.select(allreduce, fourSingleCopy.context(0), bytes, Pace.FAST).name());
            assertEquals(staged, atFour.select(allreduce, fourSingleCopy.context(0), bytes).name());
        }
        assertNotEquals("shm_single_copy_twoshot",
            atFour.select(allreduce(mib / 8 - 1), fourSingleCopy.context(0), mib / 2 - 4, Pace.SLOW).name());
        final CollectiveArgs symmetric = allreduce(mib / 8);
        symmetric.sendSegmentOffset = 0;
        assertNotEquals("shm_single_copy_twoshot",
            atFour.select(symmetric, fourSingleCopy.context(0), mib / 2, Pace.SLOW).name());
        // broadcast from 32 KiB, allgather, reduce-scatter and alltoall from 128 KiB: shm_single_copy at the slow
        // pace alone
        for (final Collective collective : List.of(Collective.BROADCAST, Collective.ALLGATHER,
            Collective.REDUCE_SCATTER, Collective.ALLTOALL))
        {
            final long bytes = switch (collective)
            {
                case BROADCAST -> 32 * 1024;
                default -> 128 * 1024;
            };
            // the vector's elements for broadcast, a rank's block's for the others (float32)
            final CollectiveArgs at = args(collective, bytes / 4 / (collective == Collective.BROADCAST ? 1 : 4));
            final String staged = atFour.select(at, fourWithout.context(0), bytes).name();
            assertNotEquals("shm_single_copy", staged, collective.label());
            assertEquals("shm_single_copy", atFour.select(at, fourSingleCopy.context(0), bytes, Pace.SLOW).name(),
                collective.label());
            assertEquals(staged, atFour.select(at, fourSingleCopy.context(0), bytes, Pace.FAST).name());
            assertEquals(staged, atFour.select(at, fourSingleCopy.context(0), bytes).name());
            final CollectiveArgs below = args(collective, at.count / 2);
            assertNotEquals("shm_single_copy",
                atFour.select(below, fourSingleCopy.context(0), bytes / 2, Pace.SLOW).name(), collective.label());
        }
        // a 512 KiB alltoall or allgather chosen at the slow pace because the probe found the machine between its
        // paces (PaceProbe.SHARED_CORES_BETWEEN_PACES_RATIO): single copy, whose copy of a heap array declines at
        // every size
        for (final Collective collective : new Collective[] {Collective.ALLTOALL, Collective.ALLGATHER})
        {
            final CollectiveArgs blocksBetween = args(collective, mib / 2 / 4 / 4);
            blocksBetween.betweenPaces = true;
            assertEquals("shm_single_copy",
                atFour.select(blocksBetween, fourSingleCopy.context(0), mib / 2, Pace.SLOW).name(), collective.label());
            assertEquals(0, blocksBetween.declinedCopyMinBytes, collective.label());
            assertEquals(Long.MAX_VALUE, blocksBetween.declinedCopyMaxBytes, collective.label());
        }
        // reduce: shm_single_copy from 128 KiB at the slow pace alone, binomial from 4 MiB where heap arrays' copies
        // stream; a heap array's copy may decline single copy
        final LocalJob fourStreaming = new LocalJob(4, STAGING, 1 << 20).singleCopy(256 * 1024).copiesStream(true);
        for (final long bytes : new long[] {128 * 1024, 2 * mib, 2 * mib + 4, 4 * mib - 4, 4 * mib, 8 * mib, 32 * mib})
        {
            final CollectiveArgs reduce = reduce(bytes / 4);
            final String staged = atFour.select(reduce, fourWithout.context(0), bytes).name();
            assertEquals(bytes >= 2 * mib ? "shm_direct" : "binomial", staged);
            assertEquals("shm_single_copy", atFour.select(reduce, fourSingleCopy.context(0), bytes, Pace.SLOW).name(),
                "reduce of " + bytes + " B where copies do not stream");
            assertEquals(bytes >= 4 * mib ? "binomial" : "shm_single_copy",
                atFour.select(reduce, fourStreaming.context(0), bytes, Pace.SLOW).name(), "reduce of " + bytes + " B");
            assertEquals(AlgorithmSelector.declinedCopyMaxBytes(true), reduce.declinedCopyMaxBytes);
            assertEquals(128 * 1024, reduce.declinedCopyMinBytes, "a reduce's copies decline from the rule's start");
            reduce.declined = true;
            assertEquals(staged, atFour.selectAfterDecline(reduce, fourSingleCopy.context(0), bytes, Pace.SLOW).name());
            assertEquals(staged, atFour.select(reduce, fourSingleCopy.context(0), bytes, Pace.FAST).name());
            assertEquals(staged, atFour.select(reduce, fourSingleCopy.context(0), bytes).name());
        }
        assertEquals("binomial", atFour.select(reduce(32 * 1024 - 1), fourSingleCopy.context(0), 128 * 1024 - 4,
            Pace.SLOW).name());
        assertTrue(atFour.with("broadcast:binomial,allreduce:ring,allgather:ring,reduce_scatter:ring," +
            "alltoall:pairwise").followsPace(4, 256 * 1024), "reduce's rule follows the pace too");
        // more than two ranks a core: no allreduce rule, no probe (alltoall's rule holds at either pace:
        // oversubscribedAlltoallReadsLargeBlocksSingleCopy)
        final AlgorithmSelector atEight = shippedSelector(8);
        assertFalse(atEight.followsPace(8, 256 * 1024));
        assertNotEquals("shm_single_copy_twoshot", atEight.select(allreduce(2 * mib),
            new LocalJob(8, STAGING, 1 << 20).singleCopy(256 * 1024).context(0), 8 * mib, Pace.SLOW).name());
        final AlgorithmSelector measured = measuredSelector(Collective.BROADCAST, 2, "shm_direct");
        assertFalse(measured.followsPace(2, 32 * 1024), "a measured tuning file has no single-copy rule");
    }

    /**
     * Without a tuning file, when ranks outnumber cores, broadcasts from 1 KiB to 8 KiB take binomial (below,
     * shm_ll) and reduces up to 128 KiB, larger reduces shm_direct, gathers and scatters linear, scans and exscans the
     * chain beyond 1 KiB (with a core per rank: the shipped model); a measured tuning file decides for itself. Needs at most 3 cores, as every machine this
     * project runs on has, so 4 ranks share cores.
     */
    @Test
    void oversubscribedSmallBroadcastsAndReducesTakeBinomialUnlessATuningFileSaysOtherwise()
    {
        org.junit.jupiter.api.Assumptions.assumeTrue(Runtime.getRuntime().availableProcessors() <= 3);
        final AlgorithmSelector atFour = shippedSelector(4);
        final LocalJob four = new LocalJob(4, STAGING, 1 << 20);
        assertEquals("binomial", atFour.select(args(Collective.BROADCAST, 2048 / 4), four.context(0), 2048).name());
        assertEquals("binomial", atFour.select(args(Collective.BROADCAST, 8192 / 4), four.context(0), 8192).name());
        // below 1 KiB the low-latency protocol, whose calls do not wait for a tree's levels to be scheduled
        assertEquals("shm_ll", atFour.select(args(Collective.BROADCAST, 2), four.context(0), 8).name());
        assertEquals("shm_ll", atFour.select(args(Collective.BROADCAST, 128), four.context(0), 512).name());
        assertEquals("binomial", atFour.select(args(Collective.BROADCAST, 256), four.context(0), 1024).name());
        // beyond 8 KiB the eager slots, whose root also runs ahead, up to all of them (2 MiB)
        assertEquals("shm_eager",
            atFour.select(args(Collective.BROADCAST, 65536 / 4), four.context(0), 65536).name());
        assertEquals("shm_eager",
            atFour.select(args(Collective.BROADCAST, (2 << 20) / 4), four.context(0), 2 << 20).name());
        assertNotEquals("shm_eager",
            atFour.select(args(Collective.BROADCAST, (4 << 20) / 4), four.context(0), 4 << 20).name());
        assertEquals("binomial", atFour.select(reduce(128 / 4), four.context(0), 128).name());
        assertEquals("binomial", atFour.select(reduce(131072 / 4), four.context(0), 131072).name());
        for (final long bytes : new long[] {131076, 512 * 1024, 8L << 20})
        {
            assertEquals("shm_direct", atFour.select(reduce(bytes / 4), four.context(0), bytes).name(),
                "reduce of " + bytes + " B");
        }
        // gathers and scatters: linear at every size, where the shipped model takes binomial at some
        for (final Collective rooted : new Collective[] {Collective.GATHER, Collective.SCATTER})
        {
            for (final long bytes : new long[] {65536, 6L << 20, 64L << 20})
            {
                assertEquals("linear", atFour.select(args(rooted, bytes / 16), four.context(0), bytes).name(),
                    rooted.label() + " of " + bytes + " B");
            }
        }
        // scans and exscans: the chain beyond the low-latency scan's 1 KiB, where the shipped model takes recursive
        // doubling up to 128 KiB
        for (final Collective prefix : new Collective[] {Collective.SCAN, Collective.EXSCAN})
        {
            assertEquals("shm_ll", atFour.select(prefix(prefix, 256), four.context(0), 1024).name());
            for (final long bytes : new long[] {1028, 32768, 131072, 8L << 20})
            {
                assertEquals("chain", atFour.select(prefix(prefix, bytes / 4), four.context(0), bytes).name(),
                    prefix.label() + " of " + bytes + " B");
            }
        }
        assertEquals("broadcast binomial from 1024 B up to 8192 B; reduce binomial up to 131072 B, shm_direct beyond; " +
            "gather linear at every size; scatter linear at every size; scan chain beyond what shm_ll serves; " +
            "exscan chain beyond what shm_ll serves", atFour.describeRankRules(4));
        final AlgorithmSelector measured = measuredSelector(Collective.BROADCAST, 4, "shm_direct");
        assertEquals("shm_direct",
            measured.select(args(Collective.BROADCAST, 2048 / 4), four.context(0), 2048).name());
        assertNotEquals("linear", measured.select(args(Collective.GATHER, (64 << 20) / 16), four.context(0),
            64L << 20).name(), "a measured file at 4 ranks without gather rules: the model it carries");
        assertNotEquals("chain", measured.select(prefix(Collective.SCAN, 2048 / 4), four.context(0), 2048).name(),
            "a measured file at 4 ranks without scan rules: the model it carries");
        // with a core each, the model's choice: recursive doubling beyond shm_ll at 2 ranks
        final AlgorithmSelector atTwo = shippedSelector(2);
        final LocalJob two = new LocalJob(2, STAGING, 1 << 20);
        assertEquals("recursive_doubling", atTwo.select(prefix(Collective.SCAN, 2048 / 4), two.context(0), 2048)
            .name());
    }

    private static CollectiveArgs prefix(final Collective collective, final long count)
    {
        final CollectiveArgs args = allreduce(count);
        args.collective = collective;
        return args;
    }

    /**
     * Without a tuning file, 2 ranks with a core each broadcast with binomial above 512 B (up to it with the shipped
     * model's shm_ll) and reduce with it up to 4 MiB, where it is one message; at 3 ranks with a core each the rule
     * does not apply, and a measured tuning file decides for itself. Needs 2 cores, as every machine this project
     * runs on has.
     */
    @Test
    void twoRanksBroadcastAndReduceWithOneMessageUnlessATuningFileSaysOtherwise()
    {
        org.junit.jupiter.api.Assumptions.assumeTrue(Runtime.getRuntime().availableProcessors() >= 2);
        final AlgorithmSelector atTwo = shippedSelector(2);
        final LocalJob two = new LocalJob(2, STAGING, 1 << 20);
        for (final long bytes : new long[] {516, 768, 1024, 2048, 4096, 8192, 32768, 1 << 20, 8L << 20})
        {
            assertEquals("binomial", atTwo.select(args(Collective.BROADCAST, bytes / 4), two.context(0), bytes).name(),
                "broadcast of " + bytes + " B");
        }
        for (final long bytes : new long[] {8, 256, 512})
        {
            assertEquals("shm_ll", atTwo.select(args(Collective.BROADCAST, bytes / 4), two.context(0), bytes).name(),
                "broadcast of " + bytes + " B");
        }
        for (final long bytes : new long[] {8, 2048, 65536, 4L << 20})
        {
            assertEquals("binomial", atTwo.select(reduce(bytes / 4), two.context(0), bytes).name(),
                "reduce of " + bytes + " B");
        }
        assertNotEquals("binomial", atTwo.select(reduce((8L << 20) / 4), two.context(0), 8L << 20).name());
        assertEquals("broadcast binomial from 513 B; reduce binomial up to 4194304 B; allreduce recursive_doubling " +
            "from 2048 B below 8192 B; allgather, allgatherv, reduce_scatter, reduce_scatterv, alltoall shm_direct " +
            "from 512 B below 1024 B; allgather ring from 16384 B below 65536 B where single copy does not take it; " +
            "allgatherv ring from 16384 B below 65536 B where single copy does not take it; alltoall pairwise from " +
            "16384 B below 65536 B where single copy does not take it", atTwo.describeRankRules(2));

        // symmetric buffers: the zero-copy path first, as before
        assertEquals("shm_direct",
            atTwo.select(symmetric(Collective.BROADCAST, 8192 / 4, false, true), two.context(0), 8192).name());

        final AlgorithmSelector measured = measuredSelector(Collective.BROADCAST, 2, "shm_eager");
        assertEquals("shm_eager", measured.select(args(Collective.BROADCAST, 2048 / 4), two.context(0), 2048).name());
        assertNull(measured.describeRankRules(2));
        if (Runtime.getRuntime().availableProcessors() >= 3)
        {
            assertNull(shippedSelector(3).describeRankRules(3));
        }
    }

    /**
     * Without a tuning file, 2-rank allreduces of private send buffers from 2 KiB to below 8 KiB take recursive
     * doubling, one message each way; smaller ones, symmetric send buffers, other rank counts and tuning files do not.
     */
    @Test
    void twoRanksAllreduceSmallVectorsWithOneMessageEachWay()
    {
        org.junit.jupiter.api.Assumptions.assumeTrue(Runtime.getRuntime().availableProcessors() >= 2);
        final AlgorithmSelector atTwo = shippedSelector(2);
        final LocalJob two = new LocalJob(2, STAGING, 1 << 20);
        for (final long bytes : new long[] {2048, 4096, 8188})
        {
            assertEquals("recursive_doubling", atTwo.select(allreduce(bytes / 4), two.context(0), bytes).name(),
                "allreduce of " + bytes + " B");
        }
        for (final long bytes : new long[] {8, 1024, 2044, 8192})
        {
            assertNotEquals("recursive_doubling", atTwo.select(allreduce(bytes / 4), two.context(0), bytes).name(),
                "allreduce of " + bytes + " B");
        }
        final CollectiveArgs symmetricSend = allreduce(4096 / 4);
        symmetricSend.sendSegmentOffset = 0;
        assertNotEquals("recursive_doubling", atTwo.select(symmetricSend, two.context(0), 4096).name());

        final AlgorithmSelector atFour = shippedSelector(4);
        assertNotEquals("recursive_doubling",
            atFour.select(allreduce(4096 / 4), new LocalJob(4, STAGING, 1 << 20).context(0), 4096).name());
        final AlgorithmSelector measured = measuredSelector(Collective.ALLREDUCE, 2, "shm_oneshot");
        assertEquals("shm_oneshot", measured.select(allreduce(4096 / 4), two.context(0), 4096).name());
    }

    /**
     * Without a tuning file, 2-rank allgathers, alltoalls and reduce-scatters from 512 B to below 1 KiB take
     * shm_direct where the shipped model keeps shm_ll; smaller ones, buffers read in place and tuning files do not.
     */
    @Test
    void twoRanksStageSmallBlocksUnderOneFlag()
    {
        org.junit.jupiter.api.Assumptions.assumeTrue(Runtime.getRuntime().availableProcessors() >= 2);
        final AlgorithmSelector atTwo = shippedSelector(2);
        final LocalJob two = new LocalJob(2, STAGING, 1 << 20);
        for (final Collective collective : List.of(Collective.ALLGATHER, Collective.ALLTOALL,
            Collective.REDUCE_SCATTER))
        {
            // bytes of both ranks' blocks, float32
            for (final long bytes : new long[] {512, 768, 1016})
            {
                assertEquals("shm_direct", atTwo.select(args(collective, bytes / 8), two.context(0), bytes).name(),
                    collective.label() + " of " + bytes + " B");
            }
            for (final long bytes : new long[] {256, 504})
            {
                assertEquals("shm_ll", atTwo.select(args(collective, bytes / 8), two.context(0), bytes).name(),
                    collective.label() + " of " + bytes + " B");
            }
            assertEquals("shm_ll",
                atTwo.select(symmetric(collective, 512 / 8, true, true), two.context(0), 512).name(),
                collective.label() + " read in place");
        }
        assertTrue(atTwo.describeRankRules(2).contains("; allgather, allgatherv, reduce_scatter, reduce_scatterv, " +
            "alltoall shm_direct from 512 B below 1024 B; "), atTwo.describeRankRules(2));
        final String forcedAlltoall = atTwo.with("alltoall:pairwise").describeRankRules(2);
        assertTrue(forcedAlltoall.contains("; allgather, allgatherv, reduce_scatter, reduce_scatterv shm_direct from " +
            "512 B below 1024 B; allgather ring ") && !forcedAlltoall.contains("alltoall pairwise"), forcedAlltoall);
        final AlgorithmSelector measured = measuredSelector(Collective.ALLGATHER, 2, "shm_ll");
        assertEquals("shm_ll", measured.select(args(Collective.ALLGATHER, 512 / 8), two.context(0), 512).name());
    }

    /**
     * Without a tuning file, 2-rank allgathers and alltoalls from 16 KiB to below 64 KiB that the single-copy rule
     * does not take run ring and pairwise, one message each way; reduce-scatters, buffers read in place, other sizes
     * and tuning files do not.
     */
    @Test
    void twoRanksExchangeMidSizedBlocksAsOneMessageEachWay()
    {
        org.junit.jupiter.api.Assumptions.assumeTrue(Runtime.getRuntime().availableProcessors() >= 2);
        final AlgorithmSelector atTwo = shippedSelector(2);
        final LocalJob two = new LocalJob(2, STAGING, 1 << 20).singleCopy(32 * 1024);
        final LocalJob twoStaged = new LocalJob(2, STAGING, 1 << 20);
        for (final Collective collective : List.of(Collective.ALLGATHER, Collective.ALLTOALL))
        {
            final String messages = collective == Collective.ALLGATHER ? "ring" : "pairwise";
            // bytes of both ranks' blocks, float32
            for (final long bytes : new long[] {16 * 1024, 32 * 1024 - 8})
            {
                for (final Pace pace : new Pace[] {null, Pace.FAST, Pace.SLOW})
                {
                    assertEquals(messages, atTwo.select(args(collective, bytes / 8), two.context(0), bytes, pace)
                        .name(), collective.label() + " of " + bytes + " B at " + pace);
                }
            }
            for (final long bytes : new long[] {32 * 1024, 64 * 1024 - 8})
            {
                final String label = collective.label() + " of " + bytes + " B";
                assertEquals(messages, atTwo.select(args(collective, bytes / 8), two.context(0), bytes, Pace.FAST)
                    .name(), label);
                assertEquals("shm_single_copy", atTwo.select(args(collective, bytes / 8), two.context(0), bytes,
                    Pace.SLOW).name(), label);
                assertEquals("shm_single_copy", atTwo.select(args(collective, bytes / 8), two.context(0), bytes)
                    .name(), label + " before a probe");
                assertEquals(messages, atTwo.select(args(collective, bytes / 8), twoStaged.context(0), bytes).name(),
                    label + " without single copy");
            }
            for (final long bytes : new long[] {16 * 1024 - 8, 64 * 1024})
            {
                assertNotEquals(messages, atTwo.select(args(collective, bytes / 8), two.context(0), bytes, Pace.FAST)
                    .name(), collective.label() + " of " + bytes + " B");
            }
            assertEquals("shm_direct", atTwo.select(symmetric(collective, 32 * 1024 / 8, true, true),
                two.context(0), 32 * 1024, Pace.FAST).name(), collective.label() + " read in place");
        }
        assertEquals("shm_direct", atTwo.select(args(Collective.REDUCE_SCATTER, 32 * 1024 / 8), two.context(0),
            32 * 1024, Pace.FAST).name());
        assertTrue(atTwo.describeRankRules(2).endsWith("; allgather ring from 16384 B below 65536 B where single " +
            "copy does not take it; allgatherv ring from 16384 B below 65536 B where single copy does not take it; " +
            "alltoall pairwise from 16384 B below 65536 B where single copy does not take it"),
            atTwo.describeRankRules(2));
        final AlgorithmSelector measured = measuredSelector(Collective.ALLGATHER, 2, "shm_direct");
        assertEquals("shm_direct",
            measured.select(args(Collective.ALLGATHER, 32 * 1024 / 8), twoStaged.context(0), 32 * 1024).name());
    }

    /**
     * The engine's selector at {@code ranks} ranks with a measured tuning file whose one rule takes {@code algorithm}
     * for every {@code collective} call.
     */
    private static AlgorithmSelector measuredSelector(final Collective collective, final int ranks,
        final String algorithm)
    {
        final java.nio.file.Path file = writeTable(new TuningTable(ModelParameters.shipped(), Map.of(), List.of(
            new Rule(collective, ranks, 0, Long.MAX_VALUE, algorithm, 0))));
        return new AlgorithmSelector(REGISTRY, null, TunedSelection.load(io.jccl.Configuration.builder().rank(0)
            .worldSize(ranks).set(TuningTable.FILE_PROP_NAME, file.toString()).build(), REGISTRY));
    }

    private static java.nio.file.Path writeTable(final TuningTable table)
    {
        try
        {
            final java.nio.file.Path file = java.nio.file.Files.createTempFile("jccl-tuning", ".json");
            table.write(file);
            file.toFile().deleteOnExit();
            return file;
        }
        catch (final java.io.IOException ex)
        {
            throw new java.io.UncheckedIOException(ex);
        }
    }

    /**
     * Without a tuning file, beyond two ranks a core, alltoall reads blocks of 64 KiB and more single copy at either
     * pace, whatever the point-to-point threshold (256 KiB there), and no other collective does; up to two ranks a
     * core, all five at the slow pace alone ({@link #singleCopyGivesWayAtTheFastPaceWhileEveryRankHasACore}), as the
     * log at connect says. Needs 2 or 3 cores.
     */
    @Test
    void oversubscribedAlltoallReadsLargeBlocksSingleCopy()
    {
        final int cores = Runtime.getRuntime().availableProcessors();
        org.junit.jupiter.api.Assumptions.assumeTrue(cores >= 2 && cores <= 3);
        final AlgorithmSelector atEight = shippedSelector(8);
        final LocalJob eight = new LocalJob(8, STAGING, 1 << 20);
        final LocalJob eightSingleCopy = new LocalJob(8, STAGING, 1 << 20).singleCopy(256 * 1024);
        for (final Pace pace : new Pace[] {null, Pace.FAST, Pace.SLOW})
        {
            assertEquals("shm_single_copy", atEight.select(args(Collective.ALLTOALL, 65536 / 4),
                eightSingleCopy.context(0), 8 * 65536, pace).name(), "pace " + pace);
        }
        assertNotEquals("shm_single_copy",
            atEight.select(args(Collective.ALLTOALL, 32768 / 4), eightSingleCopy.context(0), 8 * 32768).name());
        assertNotEquals("shm_single_copy",
            atEight.select(args(Collective.ALLTOALL, 65536 / 4), eight.context(0), 8 * 65536).name());
        assertNotEquals("shm_single_copy", atEight.select(args(Collective.ALLGATHER, (4 << 20) / 4),
            eightSingleCopy.context(0), 32 << 20, Pace.SLOW).name());
        assertEquals("alltoall shm_single_copy from 524288 B", atEight.describeSingleCopy(8, 256 * 1024));
        assertEquals("broadcast shm_single_copy from 32768 B at the slow pace; reduce shm_single_copy from 131072 B, " +
            "binomial from 4194304 B where heap arrays' copies stream at the slow pace; allreduce " +
            "shm_single_copy_twoshot from 524288 B at the slow pace; allgather shm_single_copy from 131072 B at the " +
            "slow pace; allgatherv shm_single_copy from 131072 B at the slow pace; reduce_scatter shm_single_copy " +
            "from 131072 B at the slow pace; reduce_scatterv shm_single_copy from 131072 B at the slow pace; " +
            "alltoall shm_single_copy from 131072 B at the slow pace", shippedSelector(4).describeSingleCopy(4,
            256 * 1024));
    }

    /**
     * Broadcasts, allgathers, alltoalls, reduce-scatters and reduces that shm_direct serves zero-copy take it from
     * 4 KiB (from 128 KiB when ranks outnumber cores, and below 4 KiB their buffers then count as private, an
     * allreduce's too), ahead of the single-copy rule and of a tuning file's choice; private buffers do not.
     */
    @Test
    void symmetricBuffersAreReadInPlace()
    {
        final AlgorithmSelector atTwo = shippedSelector(2);
        final LocalJob two = new LocalJob(2, STAGING, 1 << 20).singleCopy(32 * 1024);
        assertEquals("shm_direct", atTwo.select(symmetric(Collective.BROADCAST, 4096 / 4, false, true),
            two.context(0), 4096).name());
        assertNotEquals("shm_direct", atTwo.select(symmetric(Collective.BROADCAST, 2048 / 4, false, true),
            two.context(0), 2048).name());
        assertEquals("shm_direct", atTwo.select(symmetric(Collective.ALLGATHER, (1 << 20) / 4, true, false),
            two.context(0), 2 << 20).name());
        assertEquals("shm_direct", atTwo.select(symmetric(Collective.ALLTOALL, (1 << 20) / 4, true, true),
            two.context(0), 2 << 20).name());
        assertEquals("shm_single_copy", atTwo.select(args(Collective.ALLTOALL, (1 << 20) / 4), two.context(0),
            2 << 20).name());
        assertEquals("shm_direct", atTwo.select(symmetric(Collective.REDUCE_SCATTER, (1 << 20) / 4, true, false),
            two.context(0), 2 << 20).name());
        assertEquals("shm_single_copy", atTwo.select(args(Collective.REDUCE_SCATTER, (1 << 20) / 4), two.context(0),
            2 << 20).name());
        final CollectiveArgs symmetricReduce = reduce((1 << 20) / 4);
        symmetricReduce.sendBase = null;
        symmetricReduce.sendOffset = 1 << 20;
        symmetricReduce.sendSegmentOffset = 0;
        assertEquals("shm_direct", atTwo.select(symmetricReduce, two.context(0), 1 << 20).name());
        assertEquals("binomial", atTwo.select(reduce((1 << 20) / 4), two.context(0), 1 << 20).name());
        // allreduce is not among them: two-shot reads symmetric buffers in place, chosen by the model
        assertNotEquals("shm_direct", atTwo.select(symmetric(Collective.ALLREDUCE, (1 << 20) / 4, true, true),
            two.context(0), 1 << 20).name());

        final AlgorithmSelector measured = measuredSelector(Collective.BROADCAST, 2, "binomial");
        assertEquals("shm_direct", measured.select(symmetric(Collective.BROADCAST, 65536 / 4, false, true),
            two.context(0), 65536).name());
        assertEquals("binomial", measured.select(args(Collective.BROADCAST, 65536 / 4), two.context(0), 65536)
            .name());

        if (Runtime.getRuntime().availableProcessors() <= 3)
        {
            final AlgorithmSelector atFour = shippedSelector(4);
            final LocalJob four = new LocalJob(4, STAGING, 1 << 20);
            assertNotEquals("shm_direct", atFour.select(symmetric(Collective.BROADCAST, 65536 / 4, false, true),
                four.context(0), 65536).name());
            assertEquals("shm_direct", atFour.select(symmetric(Collective.BROADCAST, 131072 / 4, false, true),
                four.context(0), 131072).name());
            // below 4 KiB the buffers count as private there, so that shm_direct stages them
            final CollectiveArgs small = selected(atFour, four, Collective.ALLGATHER, 2048 / 16, 2048);
            assertEquals(-1, small.sendSegmentOffset);
            assertEquals(-1, small.recvSegmentOffset);
            assertEquals(0, selected(atFour, four, Collective.ALLGATHER, 8192 / 16, 8192).sendSegmentOffset);
            // and so do small allreduces, which one- and two-shot would otherwise read in place
            final CollectiveArgs smallAllreduce = selected(atFour, four, Collective.ALLREDUCE, 512 / 4, 512);
            assertEquals(-1, smallAllreduce.sendSegmentOffset);
            assertEquals(-1, smallAllreduce.recvSegmentOffset);
            assertEquals(0, selected(atFour, four, Collective.ALLREDUCE, 8192 / 4, 8192).sendSegmentOffset);
        }
        // with a core each, small allreduces keep reading in place
        assertEquals(0, selected(atTwo, two, Collective.ALLREDUCE, 512 / 4, 512).sendSegmentOffset);
    }

    /**
     * A call of {@code bytes} on symmetric send and recv buffers, after {@code selector} chose for it on rank 0 of
     * {@code job} (which may have set the buffers to count as private).
     */
    private static CollectiveArgs selected(final AlgorithmSelector selector, final LocalJob job,
        final Collective collective, final long count, final long bytes)
    {
        final CollectiveArgs args = symmetric(collective, count, true, true);
        selector.select(args, job.context(0), bytes);
        return args;
    }

    /** Arguments of a call whose send and recv buffers lie in the shared segment as asked (no memory behind them). */
    private static CollectiveArgs symmetric(final Collective collective, final long count, final boolean send,
        final boolean recv)
    {
        final CollectiveArgs args = args(collective, count);
        if (send)
        {
            args.sendBase = null;
            args.sendOffset = 1 << 20;
            args.sendSegmentOffset = 0;
        }
        if (recv)
        {
            args.recvBase = null;
            args.recvOffset = 1 << 21;
            args.recvSegmentOffset = 1 << 20;
        }
        return args;
    }

    /** The forced choices read alike however they are spelled: what ranks compare at connect. */
    @Test
    void forcedChoicesAreDescribedInTheCollectivesOrder()
    {
        assertNull(shippedSelector(2).describeForced());
        assertEquals("barrier:shm_flags,allreduce:ring",
            shippedSelector(2).with("allreduce:RING, Barrier:shm_flags").describeForced());
        assertEquals(shippedSelector(2).with("barrier:shm_flags,allreduce:ring").describeForced(),
            shippedSelector(2).with(" allreduce:ring ,barrier:shm_flags").describeForced());
    }

    /**
     * Allgatherv and reduce-scatterv with equal counts take what their block forms take, without a tuning file: the
     * single-copy rule by the pace, the 2-rank rules, the model's choice, with the same window of declined copies; at
     * 2 ranks with a core each and at 4 sharing 2 or 3 cores, with single copy and without.
     */
    @Test
    void vectorFormsFollowTheirBlockFormsRules()
    {
        final int cores = Runtime.getRuntime().availableProcessors();
        org.junit.jupiter.api.Assumptions.assumeTrue(cores >= 2 && cores <= 3);
        final long mib = 1 << 20;
        final long[] sizes = {8, 512, 2048, 32 * 1024, 128 * 1024, mib, 8 * mib, 32 * mib};
        final Pace[] paces = {null, Pace.SLOW, Pace.FAST};
        final Collective[][] forms = {{Collective.ALLGATHER, Collective.ALLGATHERV},
            {Collective.REDUCE_SCATTER, Collective.REDUCE_SCATTERV}};
        int checked = 0;
        for (final int ranks : new int[] {2, 4})
        {
            final AlgorithmSelector shipped = shippedSelector(ranks);
            for (final LocalJob job : List.of(new LocalJob(ranks), new LocalJob(ranks).singleCopy(32 * 1024)))
            {
                for (final Collective[] form : forms)
                {
                    for (final long bytes : sizes)
                    {
                        for (final Pace pace : paces)
                        {
                            final long block = bytes / Float.BYTES / ranks;
                            final CollectiveArgs blocks = args(form[0], block);
                            final CollectiveArgs vector = vectorArgs(form[1], block, ranks);
                            blocks.op = vector.op;
                            final String label = form[1].label() + " of " + bytes + " B at " + ranks + " ranks, " +
                                pace + ", single copy " + job.context(0).singleCopyBytes();
                            assertEquals(shipped.select(blocks, job.context(0), bytes, pace).name(),
                                shipped.select(vector, job.context(0), bytes, pace).name(), label);
                            assertEquals(blocks.declinedCopyMaxBytes, vector.declinedCopyMaxBytes, label);
                            assertEquals(blocks.declinedCopyMinBytes, vector.declinedCopyMinBytes, label);
                            checked++;
                        }
                    }
                }
            }
        }
        assertEquals(2 * 2 * 2 * sizes.length * paces.length, checked);
        assertEquals(Collective.ALLGATHER, AlgorithmSelector.ruledAs(Collective.ALLGATHERV));
        assertEquals(Collective.REDUCE_SCATTER, AlgorithmSelector.ruledAs(Collective.REDUCE_SCATTERV));
        assertEquals(Collective.ALLTOALLV, AlgorithmSelector.ruledAs(Collective.ALLTOALLV),
            "alltoallv's ranks do not know one another's bytes");
    }

    /** A v form's arguments at equal counts of {@code count} elements (float32, heap arrays). */
    private static CollectiveArgs vectorArgs(final Collective collective, final long count, final int ranks)
    {
        final CollectiveArgs args = args(collective, count);
        args.op = collective == Collective.REDUCE_SCATTERV ? ReduceOp.SUM : null;
        args.counts = new int[ranks];
        args.displs = new int[ranks];
        for (int r = 0; r < ranks; r++)
        {
            args.counts[r] = (int)count;
            args.displs[r] = (int)(r * count);
        }
        return args;
    }

    /** The engine's selector with the shipped model at {@code ranks} ranks and no tuning file. */
    private static AlgorithmSelector shippedSelector(final int ranks)
    {
        return new AlgorithmSelector(REGISTRY, null,
            TunedSelection.of(TuningTable.shipped(), ranks, REGISTRY, STAGING));
    }

    private static CollectiveArgs args(final Collective collective, final long count)
    {
        final CollectiveArgs args = allreduce(count);
        args.collective = collective;
        args.op = null;
        return args;
    }

    private static CollectiveArgs reduce(final long count)
    {
        final CollectiveArgs args = allreduce(count);
        args.collective = Collective.REDUCE;
        return args;
    }

    private static CollectiveArgs allreduce(final long count)
    {
        final CollectiveArgs args = new CollectiveArgs();
        args.collective = Collective.ALLREDUCE;
        args.type = DataType.FLOAT32;
        args.op = ReduceOp.SUM;
        args.count = count;
        args.sendBase = new float[(int)count];
        args.recvBase = new float[(int)count];
        return args;
    }
}
