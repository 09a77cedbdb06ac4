package io.jccl.tools.fit;

import io.jccl.model.CostModel;
import io.jccl.model.ModelParameters;
import io.jccl.model.Regime;

import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;

/**
 * Bench CSV generated from known parameters with multiplicative Gaussian noise (seeded): what a sweep of a machine
 * that follows the model exactly would measure.
 */
final class SyntheticResults
{
    static final String HEADER = "collective,algorithm,ranks,bytes,dtype,avg_us,min_us,max_us,iters,algbw_GBps," +
        "busbw_GBps,wrong\n";

    /** Cores of the synthetic machine: its 4-rank rows are oversubscribed. */
    static final int CORES = 2;

    /** Algorithms swept per collective, at 2 and 4 ranks. */
    static final Map<String, List<String>> SWEEP = Map.of(
        "allreduce", List.of("ring", "recursive_doubling", "rabenseifner", "shm_oneshot", "shm_twoshot",
            "shm_single_copy"),
        "reduce_scatter", List.of("ring", "recursive_halving", "shm_direct", "shm_single_copy"),
        "allgather", List.of("ring", "bruck", "shm_direct", "shm_single_copy"),
        "broadcast", List.of("binomial", "shm_direct"));

    private SyntheticResults()
    {
    }

    /**
     * The truth: three regimes (small messages to 4 KiB, chunked in cache to 4 MiB, then DRAM with no latency of its
     * own), α_f 0.08 µs, σ 0.15 µs per step, σ_o 1.2 µs per step and rank sharing a core, α_k 1.1 µs per kernel
     * read, ω 0.9 µs per call and rank sharing a core, σ_f 1.6 µs per flag step and rank sharing a core, γ 0.06 ns/B
     * for float32 sum, and 0.09 ns/B more (γ_m) for the vectors of the last regime.
     */
    static ModelParameters truth()
    {
        return new ModelParameters(List.of(
            new Regime(0, 0.2, ns(0.10), ns(0.03), ns(0.05), 0, ns(0.3)),
            new Regime(4096, 1.5, ns(0.05), ns(0.02), ns(0.04), 0, ns(0.07)),
            new Regime(4L << 20, 0.0, ns(0.12), ns(0.08), ns(0.10), 0, ns(0.2), ns(0.09))),
            0.08, 0.15, 1.2, 1.1, 0.9, 1.6, Map.of(ModelParameters.DEFAULT_GAMMA_KEY, ns(0.06), "float32:sum", ns(0.06)));
    }

    /** Pingpong and every algorithm of {@link #SWEEP} from 8 B to 64 MiB (×2), noise of relative sd {@code noise}. */
    static String csv(final ModelParameters parameters, final double noise, final long seed)
    {
        final CostModel model = new CostModel(parameters, 4L << 20, CORES);
        final Random random = new Random(seed);
        final StringBuilder csv = new StringBuilder(HEADER);
        for (long bytes = 8; bytes <= 64L << 20; bytes *= 2)
        {
            row(csv, "pingpong", "p2p", 2, bytes, model.predict("pingpong", "p2p", 2, bytes, "int8", "sum"), noise,
                random);
        }
        for (final String collective : List.of("allreduce", "reduce_scatter", "allgather", "broadcast"))
        {
            for (final String algorithm : SWEEP.get(collective))
            {
                for (final int ranks : new int[] {2, 4})
                {
                    for (long bytes = 64; bytes <= 64L << 20; bytes *= 2)
                    {
                        row(csv, collective, algorithm, ranks, bytes,
                            model.predict(collective, algorithm, ranks, bytes, "float32", "sum"), noise, random);
                    }
                }
            }
        }
        return csv.toString();
    }

    private static void row(
        final StringBuilder csv, final String collective, final String algorithm, final int ranks, final long bytes,
        final double micros, final double noise, final Random random)
    {
        final double measured = micros * Math.exp(noise * random.nextGaussian());
        csv.append(String.format(Locale.ROOT, "%s,%s,%d,%d,%s,%.6g,%.6g,%.6g,100,0,0,0%n", collective, algorithm, ranks,
            bytes, "pingpong".equals(collective) ? "int8" : "float32", measured, measured, measured));
    }

    static double ns(final double nsPerByte)
    {
        return ModelParameters.nsPerByte(nsPerByte);
    }
}
