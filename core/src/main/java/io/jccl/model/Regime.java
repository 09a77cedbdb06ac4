package io.jccl.model;

/**
 * One protocol regime: from {@code fromBytes} (inclusive) up to the next regime's start, a message of m bytes takes
 * {@code alpha + m·beta} µs, local memory terms use {@code copy}, {@code read} and {@code kernel} µs per byte, and a
 * reduction adds {@code reduceMemory} µs per byte to its datatype's γ.
 * Regimes come from
 * the breakpoints of the point-to-point measurements: the small-message protocol (flag in the data, one cache-line
 * handoff), the chunked one (data then a flag, pipelined), and often a last one where the data no longer fits in the
 * caches.
 * <p>
 * {@code nu} (ν) says how much of a second core a lone message of the regime keeps busy: 0 when its sender copies it
 * in and its receiver copies it out one after the other, 1 when both copy at once (single copy, or a pipelined
 * stream). A pingpong measures a lone message; k messages in flight at once on c cores need k(1 + ν) cores and take
 * max(1, k(1 + ν)/c) times as long per byte ({@link CostTerms}).
 *
 * @param fromBytes first message size of the regime; 0 for the first regime.
 * @param alpha     α, µs per message.
 * @param beta      β, µs per byte of a message.
 * @param copy      β_c, µs per byte copied locally.
 * @param read      β_r, µs per byte read from a peer's shared memory.
 * @param nu        ν, the second core a lone message keeps busy, 0 to 1 (fitted, it may exceed 1: {@link
 *                  Parameter#NU}).
 * @param kernel    β_k, µs per byte one rank reads from a peer's memory through the kernel.
 * @param reduceMemory γ_m, µs per byte of one operand a reduction adds to γ in the regime.
 */
public record Regime(
    long fromBytes, double alpha, double beta, double copy, double read, double nu, double kernel, double reduceMemory)
{
    /** A regime whose messages keep one core busy at a time (ν = 0), with the derived β_k ({@link #kernelOf}). */
    public Regime(final long fromBytes, final double alpha, final double beta, final double copy, final double read)
    {
        this(fromBytes, alpha, beta, copy, read, 0);
    }

    /** A regime with the derived β_k ({@link #kernelOf}). */
    public Regime(final long fromBytes, final double alpha, final double beta, final double copy, final double read,
        final double nu)
    {
        this(fromBytes, alpha, beta, copy, read, nu, kernelOf(beta));
    }

    /** A regime whose reductions cost what γ says (γ_m = 0). */
    public Regime(final long fromBytes, final double alpha, final double beta, final double copy, final double read,
        final double nu, final double kernel)
    {
        this(fromBytes, alpha, beta, copy, read, nu, kernel, 0);
    }

    /**
     * β_k where nothing measured it: twice the point-to-point β, since a single-copy message, which that β prices
     * once the messages are large, shares its bytes between its two ends, where a kernel read is one core's.
     */
    public static double kernelOf(final double beta)
    {
        return 2 * Math.max(0, beta);
    }

    /** The value of a per-regime parameter. */
    public double value(final Parameter parameter)
    {
        return switch (parameter)
        {
            case ALPHA -> alpha;
            case BETA -> beta;
            case COPY -> copy;
            case READ -> read;
            case NU -> nu;
            case KERNEL_READ -> kernel;
            case REDUCE_MEMORY -> reduceMemory;
            default -> throw new IllegalArgumentException(parameter + " is not a per-regime parameter");
        };
    }

    /** This regime with one per-regime parameter changed. */
    public Regime with(final Parameter parameter, final double value)
    {
        return switch (parameter)
        {
            case ALPHA -> new Regime(fromBytes, value, beta, copy, read, nu, kernel, reduceMemory);
            case BETA -> new Regime(fromBytes, alpha, value, copy, read, nu, kernel, reduceMemory);
            case COPY -> new Regime(fromBytes, alpha, beta, value, read, nu, kernel, reduceMemory);
            case READ -> new Regime(fromBytes, alpha, beta, copy, value, nu, kernel, reduceMemory);
            case NU -> new Regime(fromBytes, alpha, beta, copy, read, value, kernel, reduceMemory);
            case KERNEL_READ -> new Regime(fromBytes, alpha, beta, copy, read, nu, value, reduceMemory);
            case REDUCE_MEMORY -> new Regime(fromBytes, alpha, beta, copy, read, nu, kernel, value);
            default -> throw new IllegalArgumentException(parameter + " is not a per-regime parameter");
        };
    }
}
