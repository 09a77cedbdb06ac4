package io.jccl.model;

import io.jccl.Configuration;

/**
 * Predicts the time of a call from the algorithms' formulas ({@link CostFormulas}) and a parameter set, and picks
 * the fastest of several algorithms. {@link #predict} allocates nothing, but the model is not thread-safe (it
 * reuses one {@link CostTerms}); give each thread its own. Meant for start-up and tools: the engine's per-call path
 * is {@link TuningTable#lookup}.
 */
public final class CostModel
{
    private final ModelParameters parameters;
    private final long stagingBytes;
    private final int cores;
    private final CostTerms terms;

    /** A model with {@code parameters} and the default staging size. */
    public CostModel(final ModelParameters parameters)
    {
        this(parameters, Configuration.STAGING_BYTES_DEFAULT);
    }

    /**
     * A model with {@code parameters} for jobs on this machine's cores whose ranks have {@code stagingBytes} of
     * staging each.
     */
    public CostModel(final ModelParameters parameters, final long stagingBytes)
    {
        this(parameters, stagingBytes, Runtime.getRuntime().availableProcessors());
    }

    /** A model for jobs whose ranks share {@code cores} cores and have {@code stagingBytes} of staging each. */
    public CostModel(final ModelParameters parameters, final long stagingBytes, final int cores)
    {
        if (cores < 1)
        {
            throw new IllegalArgumentException("cores must be at least 1: " + cores);
        }
        this.parameters = parameters;
        this.stagingBytes = stagingBytes;
        this.cores = cores;
        this.terms = new CostTerms(parameters);
    }

    /** The model with the parameters jccl ships ({@link ModelParameters#shipped()}). */
    public static CostModel shipped()
    {
        return new CostModel(ModelParameters.shipped());
    }

    public ModelParameters parameters()
    {
        return parameters;
    }

    public long stagingBytes()
    {
        return stagingBytes;
    }

    /** c, the cores the ranks share: beyond them a collective's steps cost σ_o and its bytes p/c times as much. */
    public int cores()
    {
        return cores;
    }

    /** True when {@code collective}'s {@code algorithm} has a formula. */
    public static boolean knows(final String collective, final String algorithm)
    {
        return CostFormulas.find(collective, algorithm) != null;
    }

    /**
     * Predicted time of one call, µs.
     *
     * @param collective "allreduce", ... (or "pingpong", one way).
     * @param algorithm  the algorithm's name.
     * @param ranks      p.
     * @param bytes      n, the whole vector as nccl-tests counts it.
     * @param dtype      datatype label, for γ ("float32").
     * @param op         operator label, for γ ("sum").
     * @param chunkBytes chunk size, or 0 for the algorithm's default.
     */
    public double predict(
        final String collective, final String algorithm, final int ranks, final long bytes, final String dtype,
        final String op, final long chunkBytes)
    {
        return predict(formula(collective, algorithm), ranks, bytes, dtype, op, chunkBytes);
    }

    /** {@link #predict} of one formula (e.g. a zero-copy path's, {@link CostFormulas#find(String, String, boolean)}). */
    public double predict(
        final CostFormula formula, final int ranks, final long bytes, final String dtype, final String op,
        final long chunkBytes)
    {
        return terms(formula, ranks, bytes, chunkBytes).evaluate(parameters, parameters.gamma(dtype, op));
    }

    /** {@link #predict} of one formula at its default chunk size, with γ given. */
    public double predict(final CostFormula formula, final int ranks, final long bytes, final double gamma)
    {
        return terms(formula, ranks, bytes, 0).evaluate(parameters, gamma);
    }

    /** {@link #predict} with the default chunk size. */
    public double predict(
        final String collective, final String algorithm, final int ranks, final long bytes, final String dtype,
        final String op)
    {
        return predict(collective, algorithm, ranks, bytes, dtype, op, 0);
    }

    /**
     * The terms of one call, in this model's regimes, for fitting (valid until the next call on this model).
     * {@code chunkBytes} 0 means the algorithm's default.
     */
    public CostTerms terms(final CostFormula formula, final int ranks, final long bytes, final long chunkBytes)
    {
        terms.reset(ranks, bytes, chunkBytes > 0 ? chunkBytes : formula.defaultChunkBytes(), stagingBytes,
            cores);
        if (formula.collectiveCall())
        {
            terms.call();
        }
        formula.terms().add(terms);
        return terms;
    }

    /**
     * The fastest of {@code candidates} (algorithm names of {@code collective} that have formulas and serve the size;
     * others are skipped) for a call of {@code ranks} and {@code bytes}, with γ of {@code dtype}/{@code op}; null when
     * none has a formula.
     */
    public String fastest(
        final String collective, final int ranks, final long bytes, final String dtype, final String op,
        final Iterable<String> candidates)
    {
        String best = null;
        double bestTime = Double.POSITIVE_INFINITY;
        for (final String algorithm : candidates)
        {
            final CostFormula formula = CostFormulas.find(collective, algorithm);
            if (formula != null && formula.serves(ranks, bytes))
            {
                final double time = predict(collective, algorithm, ranks, bytes, dtype, op);
                if (time < bestTime)
                {
                    bestTime = time;
                    best = algorithm;
                }
            }
        }
        return best;
    }

    private static CostFormula formula(final String collective, final String algorithm)
    {
        final CostFormula formula = CostFormulas.find(collective, algorithm);
        if (formula == null)
        {
            throw new IllegalArgumentException("no cost formula for " + collective + ":" + algorithm);
        }
        return formula;
    }
}
