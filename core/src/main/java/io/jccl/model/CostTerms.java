package io.jccl.model;

import java.util.Arrays;

/**
 * The cost of one call as a linear combination of the model's parameters: a formula ({@link CostFormula}) adds its
 * terms here, and the result can be priced with any {@link ModelParameters} ({@link #evaluate}) or read coefficient
 * by coefficient, which is what the least-squares fit needs (every formula is linear in α, β, β_c, β_r, α_f and γ).
 * <p>
 * Which regime a term is priced in:
 * <ul>
 *   <li>a message of m bytes ({@link #messages}) is priced as the point-to-point measurement of m bytes was, in the
 *       regime of m: {@code α_r + m·β_r}; when the algorithm cuts it into chunks of c bytes, each chunk after the
 *       first adds one small-message α (regime 0): {@code (⌈m/c⌉ − 1)·α_0};</li>
 *   <li>local memory terms ({@link #copy}, {@link #read}) are priced in the regime of the call's vector size n, which
 *       decides where the data lives in the memory hierarchy;</li>
 *   <li>α_f ({@link #flags}) and γ ({@link #reduce}) have one value.</li>
 * </ul>
 * Reusable: {@link #reset} starts a new call. Not thread-safe.
 */
public final class CostTerms
{
    private static final int PER_REGIME = 4;

    private final ModelParameters regimes;
    private final double[] perRegime;
    private double flag;
    private double gamma;
    private int ranks;
    private long bytes;
    private long chunkBytes;
    private long stagingBytes;

    /** Terms over the regimes of {@code regimes} (only their boundaries matter here). */
    public CostTerms(final ModelParameters regimes)
    {
        this.regimes = regimes;
        this.perRegime = new double[PER_REGIME * regimes.regimeCount()];
    }

    /**
     * Starts the terms of a new call.
     *
     * @param ranks        p, the number of ranks.
     * @param bytes        n, the size of the whole vector as nccl-tests counts it (DESIGN.md section 7).
     * @param chunkBytes   chunk size of algorithms that cut messages, 0 when they do not.
     * @param stagingBytes S, staging bytes per rank, for the shared-memory algorithms.
     */
    public CostTerms reset(final int ranks, final long bytes, final long chunkBytes, final long stagingBytes)
    {
        Arrays.fill(perRegime, 0.0);
        flag = 0.0;
        gamma = 0.0;
        this.ranks = ranks;
        this.bytes = bytes;
        this.chunkBytes = chunkBytes;
        this.stagingBytes = stagingBytes;
        return this;
    }

    /** p. */
    public int ranks()
    {
        return ranks;
    }

    /** n, bytes of the whole vector. */
    public long bytes()
    {
        return bytes;
    }

    /** Chunk size the algorithm cuts messages into, 0 when it does not. */
    public long chunkBytes()
    {
        return chunkBytes;
    }

    /** S, staging bytes per rank. */
    public long stagingBytes()
    {
        return stagingBytes;
    }

    /** {@code count} messages of {@code messageBytes} each (nothing for empty messages). */
    public void messages(final double count, final double messageBytes)
    {
        if (count <= 0 || messageBytes <= 0)
        {
            return;
        }
        final int regime = regimes.regimeOf(Math.ceil(messageBytes));
        perRegime[index(Parameter.ALPHA, regime)] += count;
        perRegime[index(Parameter.BETA, regime)] += count * messageBytes;
        if (chunkBytes > 0 && messageBytes > chunkBytes)
        {
            perRegime[index(Parameter.ALPHA, 0)] += count * (Math.ceil(messageBytes / chunkBytes) - 1);
        }
    }

    /** {@code count} flag handoffs. */
    public void flags(final double count)
    {
        flag += count;
    }

    /** {@code copiedBytes} copied within local (or just written) memory. */
    public void copy(final double copiedBytes)
    {
        perRegime[index(Parameter.COPY, regimes.regimeOf(bytes))] += copiedBytes;
    }

    /** {@code readBytes} read from peers' shared memory. */
    public void read(final double readBytes)
    {
        perRegime[index(Parameter.READ, regimes.regimeOf(bytes))] += readBytes;
    }

    /** {@code reducedBytes} of one operand combined into an accumulator. */
    public void reduce(final double reducedBytes)
    {
        gamma += reducedBytes;
    }

    /** The coefficient of {@code parameter} in {@code regime} (the regime is ignored for α_f and γ). */
    public double coefficient(final Parameter parameter, final int regime)
    {
        return switch (parameter)
        {
            case FLAG -> flag;
            case GAMMA -> gamma;
            default -> perRegime[index(parameter, regime)];
        };
    }

    /** The predicted time, µs, with {@code parameters} (same regimes) and γ = {@code gammaValue} µs/B. */
    public double evaluate(final ModelParameters parameters, final double gammaValue)
    {
        if (parameters.regimeCount() * PER_REGIME != perRegime.length)
        {
            throw new IllegalArgumentException("terms have " + perRegime.length / PER_REGIME + " regimes, the " +
                "parameters " + parameters.regimeCount());
        }
        double total = flag * parameters.flag() + gamma * gammaValue;
        for (int regime = 0; regime < parameters.regimeCount(); regime++)
        {
            final Regime r = parameters.regimes().get(regime);
            total += perRegime[index(Parameter.ALPHA, regime)] * r.alpha() +
                perRegime[index(Parameter.BETA, regime)] * r.beta() +
                perRegime[index(Parameter.COPY, regime)] * r.copy() +
                perRegime[index(Parameter.READ, regime)] * r.read();
        }
        return total;
    }

    private static int index(final Parameter parameter, final int regime)
    {
        return regime * PER_REGIME + parameter.ordinal();
    }
}
