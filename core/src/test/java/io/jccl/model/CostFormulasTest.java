package io.jccl.model;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

@Timeout(10)
class CostFormulasTest
{
    private static final double ALPHA = 2.0;
    private static final double BETA = 0.001;
    private static final double COPY = 0.0003;
    private static final double READ = 0.0005;
    private static final double FLAG = 0.1;
    private static final double GAMMA = 0.0002;

    /** Enough cores that no rank count here shares one: the classic formulas assume a processor per rank. */
    private static final int CORES = 64;

    /**
     * One regime, so that the classic closed forms hold exactly; no chunking (chunk larger than any message); σ = σ_o
     * = 0.
     */
    private final CostModel model = new CostModel(new ModelParameters(
        List.of(new Regime(0, ALPHA, BETA, COPY, READ)), FLAG, Map.of(ModelParameters.DEFAULT_GAMMA_KEY, GAMMA)),
        4L << 20, CORES);

    private double predict(final String collective, final String algorithm, final int p, final long n)
    {
        return model.predict(collective, algorithm, p, n, "float32", "sum", 1L << 40);
    }

    @Test
    void classicFormulasOfThakurRabenseifnerGropp()
    {
        final long n = 1 << 20;
        for (final int p : new int[] {2, 4, 8})
        {
            final double lg = Math.log(p) / Math.log(2);
            final double share = (double)n * (p - 1) / p;
            assertClose(2 * (p - 1) * ALPHA + 2 * share * BETA + share * GAMMA, predict("allreduce", "ring", p, n));
            assertClose(lg * (ALPHA + n * BETA + n * GAMMA), predict("allreduce", "recursive_doubling", p, n));
            assertClose(2 * lg * ALPHA + 2 * share * BETA + share * GAMMA, predict("allreduce", "rabenseifner", p, n));
            assertClose(lg * (ALPHA + n * BETA), predict("broadcast", "binomial", p, n));
            assertClose((p - 1) * ALPHA + share * BETA, predict("allgather", "ring", p, n));
            assertClose(lg * ALPHA + share * BETA, predict("allgather", "recursive_doubling", p, n));
            assertClose(lg * ALPHA + share * (BETA + GAMMA), predict("reduce_scatter", "recursive_halving", p, n));
            assertClose((p - 1) * ALPHA + share * BETA, predict("alltoall", "pairwise", p, n));
            assertClose(lg * (ALPHA + n / 2.0 * BETA) + (lg + 2) * n * COPY, predict("alltoall", "bruck", p, n));
            assertClose(lg * ALPHA, predict("barrier", "dissemination", p, n) - lg * BETA);
        }
    }

    /**
     * Every message and flag of a collective is a step costing σ, or σ_o·(p/c) once ranks outnumber cores; k messages
     * in flight need k(1 + ν) cores, a rank's own work one; the pingpong's lone message has no step.
     */
    @Test
    void stepsCostSigmaAndOversubscribedRanksTakeTurns()
    {
        final double sigma = 0.3;
        final double sigmaO = 4.0;
        // ν = 1: a lone message keeps both its ends copying at once
        final ModelParameters parameters = new ModelParameters(List.of(new Regime(0, ALPHA, BETA, COPY, READ, 1)),
            FLAG, sigma, sigmaO, Map.of(ModelParameters.DEFAULT_GAMMA_KEY, GAMMA));
        final CostModel twoCores = new CostModel(parameters, 4L << 20, 2);
        final long n = 1 << 20;
        assertClose(ALPHA + n * BETA, twoCores.predict("pingpong", "p2p", 2, n, "int8", "sum"));
        // 2 ranks on 2 cores: an exchange's two messages share the two cores
        final double share2 = n / 2.0;
        assertClose(2 * (ALPHA + sigma) + 2 * 2 * share2 * BETA + share2 * GAMMA,
            twoCores.predict("allreduce", "ring", 2, n, "float32", "sum", 1L << 40));
        // 4 ranks on 2 cores: four messages at once need 8 cores; each core runs two ranks' reductions in turn
        final double share4 = n * 3 / 4.0;
        assertClose(6 * (ALPHA + 2 * sigmaO) + 4 * 2 * share4 * BETA + 2 * share4 * GAMMA,
            twoCores.predict("allreduce", "ring", 4, n, "float32", "sum", 1L << 40));
        // a binomial broadcast over 4 ranks: one message, then two at once
        assertClose(2 * ALPHA + 2 * 2 * sigmaO + n * BETA + 2 * n * BETA,
            twoCores.predict("broadcast", "binomial", 4, n, "float32", "sum"));
        // ν = 0: sender and receiver copy one after the other, so an exchange's two messages use a core each
        final CostModel oneCoreEach = new CostModel(parameters.withRegimes(List.of(
            new Regime(0, ALPHA, BETA, COPY, READ, 0))), 4L << 20, 2);
        assertClose(2 * (ALPHA + sigma) + 2 * share2 * BETA + share2 * GAMMA,
            oneCoreEach.predict("allreduce", "ring", 2, n, "float32", "sum", 1L << 40));
        assertClose(FLAG + sigma + (1 + 8 / 7.0) * 1024 * COPY + 8 / 7.0 * 1024 * BETA + 1024 * GAMMA,
            twoCores.predict("allreduce", "shm_ll", 2, 1024, "float32", "sum"));
    }

    @Test
    void recursiveAlgorithmsFoldWhenRanksAreNotAPowerOfTwo()
    {
        final long n = 1 << 16;
        // p = 6: q = 4, two steps, plus the fold 2(α + nβ) + nγ
        assertClose(2 * (ALPHA + n * BETA + n * GAMMA) + 2 * (ALPHA + n * BETA) + n * GAMMA,
            predict("allreduce", "recursive_doubling", 6, n));
    }

    /** A v form with equal counts, as the bench runs it, costs its plain form's algorithm, which it runs. */
    @Test
    void vectorFormsCostTheirPlainFormsWithEqualCounts()
    {
        final String[][] forms = {{"gatherv", "gather", "linear"}, {"scatterv", "scatter", "linear"},
            {"allgatherv", "allgather", "ring"}, {"allgatherv", "allgather", "shm_ll"},
            {"allgatherv", "allgather", "shm_direct"}, {"allgatherv", "allgather", "shm_single_copy"},
            {"reduce_scatterv", "reduce_scatter", "ring"}, {"reduce_scatterv", "reduce_scatter", "shm_ll"},
            {"reduce_scatterv", "reduce_scatter", "shm_direct"},
            {"reduce_scatterv", "reduce_scatter", "shm_single_copy"},
            {"alltoallv", "alltoall", "pairwise"}};
        final Map<String, List<String>> algorithms = new LinkedHashMap<>();
        for (final String[] form : forms)
        {
            algorithms.computeIfAbsent(form[0], f -> new ArrayList<>()).add(form[2]);
            if (!form[2].startsWith("shm_"))
            {
                assertEquals(form[2], CostFormulas.reference(form[0]));
            }
            for (final int p : new int[] {2, 4, 8})
            {
                // 8 B a block, a block beyond a ring (linear's other branch), and chunked ring steps
                for (final long n : new long[] {8L * p, 4L << 20, 64L << 20})
                {
                    assertClose(predict(form[1], form[2], p, n), predict(form[0], form[2], p, n));
                }
            }
        }
        algorithms.forEach((form, names) -> assertEquals(names, CostFormulas.algorithms(form), form));
        // on shared buffers shm_direct's v forms read in place as their block forms do
        for (final String[] form : new String[][] {{"allgatherv", "allgather"}, {"reduce_scatterv", "reduce_scatter"}})
        {
            assertEquals(CostFormulas.find(form[1], "shm_direct", true).text(),
                CostFormulas.find(form[0], "shm_direct", true).text(), form[0]);
        }
    }

    @Test
    void sharedMemoryFormulasCountChunksOfHalfTheStaging()
    {
        final long n = 8L << 20;
        // S/2: what the LL region (256 slots each of 1, 4, 10 and 19 lines, 544 KiB) and the eager region (8
        // slots of 256 KiB and a line) leave of 4 MiB, halved
        assertEquals(((4L << 20) - 256 * 34 * 64 - 8 * ((256 << 10) + 64)) / 2 & ~63L,
            CostFormulas.stagingHalfBytes(4L << 20));
        assertEquals(((4L << 20) - 64 - 256 * 34 * 64) / 2 & ~63L, CostFormulas.stagingHalfBytes((4L << 20) - 64),
            "below 4 MiB, no eager region");
        // K = ⌈8 MiB / 0.73 MiB⌉ = 11 chunks
        assertClose(22 * FLAG + n * COPY + 3 * n * (READ + GAMMA), predict("allreduce", "shm_oneshot", 4, n));
        assertClose(44 * FLAG + n * COPY + 2 * 0.75 * n * READ + 0.75 * n * GAMMA,
            predict("allreduce", "shm_twoshot", 4, n));
        // one chunk's two handoffs and the staging release the root waits for before its next call
        assertClose(3 * FLAG + 8 * COPY + 8 * READ, predict("broadcast", "shm_direct", 4, 8));
        // the broadcast's chunks are at most 256 KiB: 8 MiB in 32, each two handoffs
        assertClose(65 * FLAG + n * COPY + n * READ, predict("broadcast", "shm_direct", 4, n));
        // the eager slot: the stamp and the payload it guards, no release to wait for
        assertClose(2 * FLAG + 8 * COPY + 8 * READ, predict("broadcast", "shm_eager", 4, 8));
        // the LL protocol: one handoff, every payload byte as 8/7 bytes of 64-byte lines, read as they land (β)
        assertClose(FLAG + 8 * 8.0 / 7 * (COPY + BETA), predict("broadcast", "shm_ll", 4, 8));
    }

    /**
     * On buffers in the shared segment the shared-memory algorithms read (and write) peers' buffers in place: no
     * chunks, no staging copy; the other algorithms run as on private buffers.
     */
    @Test
    void zeroCopyPathsOnSharedBuffers()
    {
        final long n = 8L << 20;
        for (final int p : new int[] {2, 4})
        {
            final double share = (double)n * (p - 1) / p;
            assertClose(4 * FLAG + share * READ, predictShared("broadcast", "shm_direct", p, n));
            assertClose(3 * FLAG + n / (double)p * COPY + share * READ, predictShared("allgather", "shm_direct", p, n));
            assertClose(3 * FLAG + n / (double)p * COPY + share * READ, predictShared("alltoall", "shm_direct", p, n));
            assertClose(3 * FLAG + share * (READ + GAMMA), predictShared("reduce_scatter", "shm_direct", p, n));
            assertClose(3 * FLAG + (p - 1) * n * (READ + GAMMA), predictShared("reduce", "shm_direct", p, n));
            assertClose(3 * FLAG + (p - 1) * n * (READ + GAMMA), predictShared("allreduce", "shm_oneshot", p, n));
            assertClose(3 * FLAG + share * (2 * READ + GAMMA) + n / (double)p * COPY,
                predictShared("allreduce", "shm_twoshot", p, n));
            // no zero-copy path: the same formula as on private buffers
            assertEquals(CostFormulas.find("allreduce", "ring"), CostFormulas.find("allreduce", "ring", true));
            assertEquals(CostFormulas.find("allreduce", "shm_ll"), CostFormulas.find("allreduce", "shm_ll", true));
        }
        assertTrue(CostFormulas.hasZeroCopyPath("broadcast", "shm_direct"));
        assertFalse(CostFormulas.hasZeroCopyPath("broadcast", "binomial"));
        assertEquals(CostFormulas.find("broadcast", "shm_direct"), CostFormulas.find("broadcast", "shm_direct", false));
    }

    private double predictShared(final String collective, final String algorithm, final int p, final long n)
    {
        return model.predict(CostFormulas.find(collective, algorithm, true), p, n, "float32", "sum", 0);
    }

    @Test
    void chunkingAddsOneSmallMessageLatencyPerChunk()
    {
        final double whole = predict("allreduce", "ring", 2, 4 << 20);
        final double chunked = model.predict("allreduce", "ring", 2, 4 << 20, "float32", "sum", 512 << 10);
        // two steps of 2 MiB, each in 4 chunks: 3 more latencies per step
        assertClose(whole + 6 * ALPHA, chunked);
    }

    @Test
    void messagesArePricedInTheRegimeOfTheirSize()
    {
        final CostModel twoRegimes = new CostModel(new ModelParameters(List.of(
            new Regime(0, 0.1, 0.002, 0, 0), new Regime(4096, 3.0, 0.0005, 0, 0)), 0.1,
            Map.of(ModelParameters.DEFAULT_GAMMA_KEY, 0.0)), 4L << 20, CORES);
        assertClose(0.1 + 1024 * 0.002, twoRegimes.predict("pingpong", "p2p", 2, 1024, "int8", "sum"));
        assertClose(3.0 + 8192 * 0.0005, twoRegimes.predict("pingpong", "p2p", 2, 8192, "int8", "sum"));
        // ring allgather of 16 KiB at 4 ranks: 3 messages of 4 KiB, in the second regime
        assertClose(3 * (3.0 + 4096 * 0.0005), twoRegimes.predict("allgather", "ring", 4, 16384, "int8", "sum"));
    }

    /**
     * The single-copy algorithms' reads through the kernel cost α_k per read and β_k per byte in the regime of the
     * vector, each rank on its own core (no ν); the reducing ones read in pieces of 256 KiB.
     */
    @Test
    void kernelReadsArePricedWithAlphaKAndBetaK()
    {
        final double alphaK = 0.7;
        final CostModel twoRegimes = new CostModel(new ModelParameters(List.of(
            new Regime(0, 0.1, 0.002, 0, 0, 0, 0.004), new Regime(32768, 3.0, 0.0005, 0.0001, 0, 2.0, 0.001)),
            0.1, 0, 0, alphaK, 0, Map.of(ModelParameters.DEFAULT_GAMMA_KEY, 0.0)), 4L << 20, 2);
        // allgather of 8 KiB at 2 ranks: two flags, one read of 4 KiB at β_k of the regime of 8 KiB, and the own
        // block's copy (free here)
        assertClose(2 * 0.1 + alphaK + 4096 * 0.004,
            twoRegimes.predict("allgather", "shm_single_copy", 2, 8192, "int8", "sum"));
        // a 1 MiB alltoall at 2 ranks reads 512 KiB at β_k, and copies its own block at β_c
        assertClose(2 * 0.1 + alphaK + 524288 * 0.001 + 524288 * 0.0001,
            twoRegimes.predict("alltoall", "shm_single_copy", 2, 1 << 20, "int8", "sum"));
        // a 1 MiB allreduce reads the peer's vector in 4 reads of 256 KiB
        assertClose(2 * 0.1 + 4 * alphaK + (1 << 20) * 0.001,
            twoRegimes.predict("allreduce", "shm_single_copy", 2, 1 << 20, "int8", "sum"));
        // its two-shot form reads the peer's half in 2 reads of 256 KiB, then the peer's reduced half in one, after
        // a third flag
        assertClose(3 * 0.1 + 3 * alphaK + (1 << 20) * 0.001,
            twoRegimes.predict("allreduce", "shm_single_copy_twoshot", 2, 1 << 20, "int8", "sum"));
        // a 1 MiB broadcast: the root's token, one read of the whole vector, the readers' tokens
        assertClose(2 * 0.1 + alphaK + (1 << 20) * 0.001,
            twoRegimes.predict("broadcast", "shm_single_copy", 2, 1 << 20, "int8", "sum"));
    }

    /**
     * A reduction costs γ of its datatype and operator per byte, and γ_m of the regime of the call's vector, where
     * its operands live, whatever the size of the messages that carry them.
     */
    @Test
    void reductionsAddTheMemoryCostOfTheVectorsRegime()
    {
        final double gammaM = 0.0004;
        final CostModel twoRegimes = new CostModel(new ModelParameters(List.of(
            new Regime(0, ALPHA, BETA, COPY, READ), new Regime(1 << 20, ALPHA, BETA, COPY, READ, 0, 0, gammaM)),
            FLAG, Map.of(ModelParameters.DEFAULT_GAMMA_KEY, GAMMA)), 4L << 20, CORES);
        assertClose(4096 * GAMMA, twoRegimes.predict("reduction", "kernel", 1, 4096, "float32", "sum"));
        assertClose((4 << 20) * (GAMMA + gammaM),
            twoRegimes.predict("reduction", "kernel", 1, 4 << 20, "float32", "sum"));
        // ring allreduce of 2 MiB at 4 ranks: messages of 512 KiB (first regime), 3 reductions of 512 KiB of a
        // vector in the second
        final double ring = 6 * (ALPHA + 524288 * BETA) + 3 * 524288 * (GAMMA + gammaM);
        assertClose(ring, twoRegimes.predict("allreduce", "ring", 4, 2 << 20, "float32", "sum"));
        assertEquals(gammaM, twoRegimes.parameters().value(Parameter.REDUCE_MEMORY, 1));
        assertEquals(0.0, twoRegimes.parameters().value(Parameter.REDUCE_MEMORY, 0));
    }

    /** Ranks that outnumber cores cost ω·p/c per collective call, besides σ_o·p/c per step; a pingpong none. */
    @Test
    void oversubscribedCallsCostOmega()
    {
        final double omega = 1.1;
        final double syncOversubscribed = 0.6;
        final CostModel shared = new CostModel(new ModelParameters(List.of(new Regime(0, ALPHA, BETA, COPY, READ)),
            FLAG, 0, syncOversubscribed, 0.7, omega, Map.of(ModelParameters.DEFAULT_GAMMA_KEY, GAMMA)), 4L << 20, 2);
        // recursive doubling of 8 bytes at 4 ranks on 2 cores: 2 steps of 4 messages in flight, one call, p/c = 2
        final double load = 4 / 2.0;
        assertClose(2 * (ALPHA + 8 * BETA * load) + 2 * syncOversubscribed * 2 + omega * 2 + 2 * 8 * GAMMA * 2,
            shared.predict("allreduce", "recursive_doubling", 4, 8, "float32", "sum"));
        // with a core per rank neither applies
        assertClose(ALPHA + 8 * BETA + 8 * GAMMA, shared.predict("allreduce", "recursive_doubling", 2, 8, "float32",
            "sum"));
        assertClose(ALPHA + 8 * BETA, shared.predict("pingpong", "p2p", 4, 8, "float32", "sum"));
    }

    /**
     * While ranks outnumber cores a flag step costs σ_f·p/c, not σ_o·p/c, and a call with flag steps no ω: its first
     * flag step waits for the round that brings every rank into the call.
     */
    @Test
    void oversubscribedFlagStepsCostSigmaFInsteadOfOmega()
    {
        final double omega = 1.1;
        final double syncOversubscribed = 0.6;
        final double flagSync = 1.7;
        final CostModel shared = new CostModel(new ModelParameters(List.of(new Regime(0, ALPHA, BETA, COPY, READ)),
            FLAG, 0, syncOversubscribed, 0.7, omega, flagSync, Map.of(ModelParameters.DEFAULT_GAMMA_KEY, GAMMA)),
            4L << 20, 2);
        final CostModel sameSteps = new CostModel(new ModelParameters(List.of(new Regime(0, ALPHA, BETA, COPY, READ)),
            FLAG, 0, syncOversubscribed, 0.7, omega, Map.of(ModelParameters.DEFAULT_GAMMA_KEY, GAMMA)), 4L << 20, 2);
        // one-shot of 8 bytes at 4 ranks on 2 cores: one flag step at p/c = 2, plus what does not depend on them
        final double withFlagSync = shared.predict("allreduce", "shm_oneshot", 4, 8, "float32", "sum");
        final double withSigmaO = sameSteps.predict("allreduce", "shm_oneshot", 4, 8, "float32", "sum");
        assertClose(2 * (flagSync - syncOversubscribed), withFlagSync - withSigmaO);
        assertEquals(syncOversubscribed, sameSteps.parameters().flagSyncOversubscribed());
        // a message-passing call still pays ω and σ_o
        assertClose(2 * (ALPHA + 8 * BETA * 2) + 2 * syncOversubscribed * 2 + omega * 2 + 2 * 8 * GAMMA * 2,
            shared.predict("allreduce", "recursive_doubling", 4, 8, "float32", "sum"));
        assertEquals(0.0, shared.terms(CostFormulas.find("allreduce", "shm_oneshot"), 4, 8, 0)
            .coefficient(Parameter.CALL_OVERSUBSCRIBED, 0));
    }

    @Test
    void fastestAndUnknownNames()
    {
        assertEquals("shm_oneshot", model.fastest("allreduce", 4, 64, "float32", "sum",
            List.of("ring", "shm_oneshot", "no_such")));
        assertNull(model.fastest("allreduce", 4, 64, "float32", "sum", List.of("no_such")));
        assertNull(CostFormulas.find("allreduce", "no_such"));
        assertTrue(CostFormulas.algorithms("allreduce").containsAll(List.of("ring", "recursive_doubling",
            "rabenseifner", "reduce_broadcast", "shm_oneshot", "shm_twoshot")));
        assertEquals("ring", CostFormulas.reference("allreduce"));
        // the LL algorithms carry at most 1 KiB per rank: the model never chooses them beyond
        assertTrue(CostFormulas.find("allreduce", "shm_ll").serves(4, 1024));
        assertFalse(CostFormulas.find("allreduce", "shm_ll").serves(4, 1025));
        assertTrue(CostFormulas.find("allgather", "shm_ll").serves(4, 4096));
        assertFalse(CostFormulas.find("allgather", "shm_ll").serves(4, 4100));
        assertNull(model.fastest("allreduce", 4, 2048, "float32", "sum", List.of("shm_ll")));
    }

    private static void assertClose(final double expected, final double actual)
    {
        assertEquals(expected, actual, 1e-9 * Math.abs(expected) + 1e-12);
    }
}
