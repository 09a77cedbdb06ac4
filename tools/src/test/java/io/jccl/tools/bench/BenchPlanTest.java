package io.jccl.tools.bench;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Sizes, skips, rotation sets and region sizes of a sweep. */
@Timeout(10)
class BenchPlanTest
{
    private static final long SPAN = 64L << 20;

    @Test
    void sizesGoUpByFourLikeRunPeers()
    {
        final BenchPlan plan = plan("-n", "2", "--op", "allreduce,barrier");
        final List<Long> sizes = plan.sizesOf(BenchOp.ALLREDUCE);
        assertEquals(12, sizes.size());
        assertEquals(8L, sizes.get(0));
        assertEquals(32L, sizes.get(1));
        assertEquals(32L << 20, sizes.get(11));
        assertEquals(List.of(0L), plan.sizesOf(BenchOp.BARRIER));
        assertEquals(13, plan.rows());
        assertEquals(List.of(), plan.notes());
        assertEquals(32L << 20, plan.regionBytes());
    }

    @Test
    void stepTwoDoublesTheSizes()
    {
        final BenchPlan plan = plan("-n", "2", "--op", "pingpong", "--step", "2", "--max-bytes", "64m");
        final List<Long> sizes = plan.sizesOf(BenchOp.PINGPONG);
        assertEquals(24, sizes.size());
        assertEquals(16L, sizes.get(1));
        assertEquals(64L << 20, sizes.get(23));
    }

    @Test
    void blockedSizesThatDoNotSplitAreSkippedAndSaid()
    {
        final BenchPlan plan = plan("-n", "3", "--op", "allgather,allreduce", "--max-bytes", "64k");
        assertEquals(List.of(), plan.sizesOf(BenchOp.ALLGATHER));
        assertEquals(7, plan.sizesOf(BenchOp.ALLREDUCE).size());
        assertEquals(1, plan.blocks().size());
        assertEquals(List.of("allgather: skipped 7 sizes (8 B ... 32 KiB): not divisible into 3 equal blocks of " +
            "float32 elements"), plan.notes());

        final BenchPlan four = plan("-n", "4", "--op", "alltoall", "--max-bytes", "128");
        assertEquals(List.of(32L, 128L), four.sizesOf(BenchOp.ALLTOALL));
        assertEquals(List.of("alltoall: skipped 8 B: not divisible into 4 equal blocks of float32 elements"),
            four.notes());
    }

    @Test
    void partialElementsAreSkipped()
    {
        final BenchPlan plan = plan("-n", "2", "--op", "broadcast", "--min-bytes", "2", "--max-bytes", "32",
            "--dtype", "float64");
        assertEquals(List.of(8L, 32L), plan.sizesOf(BenchOp.BROADCAST));
        assertEquals(List.of("broadcast: skipped 2 B: not a whole number of float64 elements"), plan.notes());
    }

    @Test
    void pingPongOnOneRankAndAlgorithmsOfNoOperationAreSkipped()
    {
        final BenchPlan plan = plan("-n", "1", "--op", "all", "--algo", "ring", "--max-bytes", "8");
        assertTrue(plan.notes().contains("pingpong skipped: it needs 2 ranks or more"), plan.notes().toString());
        assertTrue(plan.notes().contains("barrier skipped: --algo ring names none of its algorithms"),
            plan.notes().toString());
        for (final BenchPlan.Block block : plan.blocks())
        {
            assertEquals("ring", block.algorithm());
        }
    }

    @Test
    void algorithmsOfAnOperationTakeTurnsAtEachSize()
    {
        final BenchPlan plan = plan("-n", "2", "--op", "gather,barrier,scatter", "--algo", "all", "--max-bytes",
            "128");
        final List<BenchPlan.Block> blocks = plan.blocks();
        assertEquals(List.of("gather:linear", "gather:binomial", "barrier:shm_flags", "barrier:dissemination",
            "scatter:linear", "scatter:binomial"), blocks.stream().map(b -> b.op().label() + ":" + b.algorithm())
            .toList());
        assertEquals(List.of(
            new BenchPlan.Step(0, 8), new BenchPlan.Step(1, 8),
            new BenchPlan.Step(1, 32), new BenchPlan.Step(0, 32),
            new BenchPlan.Step(0, 128), new BenchPlan.Step(1, 128),
            new BenchPlan.Step(2, 0), new BenchPlan.Step(3, 0),
            new BenchPlan.Step(4, 8), new BenchPlan.Step(5, 8),
            new BenchPlan.Step(5, 32), new BenchPlan.Step(4, 32),
            new BenchPlan.Step(4, 128), new BenchPlan.Step(5, 128)), plan.steps());
        assertEquals(plan.rows(), plan.steps().size());
    }

    @Test
    void hotUsesOneSetColdSpansTheCache()
    {
        final BenchPlan hot = plan("-n", "2", "--op", "allreduce", "--max-bytes", "1m");
        assertEquals(1, hot.sets(8));
        assertEquals(1, hot.sets(1 << 20));

        final BenchPlan cold = plan("-n", "2", "--op", "allreduce", "--max-bytes", "64m", "--cold");
        assertEquals(BenchPlan.MAX_COLD_SETS, cold.sets(8));
        assertEquals(64, cold.stride(8));
        assertEquals(64, cold.sets(1 << 20));
        assertEquals(2, cold.sets(32 << 20));
        assertEquals(64L << 20, cold.regionBytes());
        // both regions, scratch for twice the largest message (32 MiB), and 64 MiB for the rest
        assertEquals(2 * (64L << 20) + 2 * (32L << 20) + (64L << 20), cold.directMemoryBytes());
    }

    @Test
    void describesBlocks()
    {
        final BenchOptions options = BenchOptions.parse(new String[] {"-n", "4", "--op", "reduce", "--root", "2",
            "--reduce-op", "prod", "--dtype", "int64", "--cold"});
        assertEquals("# jccl: reduce, algorithm binomial, 4 ranks, int64, prod, root 2, cold buffers",
            new BenchPlan.Block(BenchOp.REDUCE, "binomial").describe(options));
    }

    @Test
    void iterationsScaleWithSizeAndFitTheTimeBudget()
    {
        assertEquals(20_000, Iterations.defaultIters(8 << 10));
        assertEquals(1_000, Iterations.defaultIters((8 << 10) + 1));
        assertEquals(1_000, Iterations.defaultIters(1 << 20));
        assertEquals(50, Iterations.defaultIters((1 << 20) + 1));
        assertEquals(2_001, Iterations.defaultWarmup(20_000));

        assertEquals(20_000, Iterations.timed(20_000, 1e-6), "fits");
        assertEquals(300, Iterations.timed(20_000, 1e-3), "0.3 s at 1 ms per call");
        assertEquals(200, Iterations.timed(20_000, 1.0), "never below a hundredth");
        assertEquals(5, Iterations.timed(50, 0.25), "nor below 5");
        assertEquals(50, Iterations.timed(50, 0), "no estimate");
        assertEquals(20, Iterations.warmupRound(2_001, 1e-3), "a round is 20 ms at the pace seen");
        assertEquals(1, Iterations.warmupRound(6, 10.0), "at least one call per round");
        assertEquals(6, Iterations.warmupRound(6, 1e-9), "at most the default warm-up per round");
    }

    private static BenchPlan plan(final String... args)
    {
        return new BenchPlan(BenchOptions.parse(args), SPAN);
    }
}
