package io.jccl.model;

/**
 * One protocol regime: from {@code fromBytes} (inclusive) up to the next regime's start, a message of m bytes takes
 * {@code alpha + m·beta} µs, and local memory terms use {@code copy} and {@code read} µs per byte. Regimes come from
 * the breakpoints of the point-to-point measurements: the small-message protocol (flag in the data, one cache-line
 * handoff), the chunked one (data then a flag, pipelined), and often a last one where the data no longer fits in the
 * caches.
 *
 * @param fromBytes first message size of the regime; 0 for the first regime.
 * @param alpha     α, µs per message.
 * @param beta      β, µs per byte of a message.
 * @param copy      β_c, µs per byte copied locally.
 * @param read      β_r, µs per byte read from a peer's shared memory.
 */
public record Regime(long fromBytes, double alpha, double beta, double copy, double read)
{
    /** The value of a per-regime parameter. */
    public double value(final Parameter parameter)
    {
        return switch (parameter)
        {
            case ALPHA -> alpha;
            case BETA -> beta;
            case COPY -> copy;
            case READ -> read;
            default -> throw new IllegalArgumentException(parameter + " is not a per-regime parameter");
        };
    }

    /** This regime with one per-regime parameter changed. */
    public Regime with(final Parameter parameter, final double value)
    {
        return switch (parameter)
        {
            case ALPHA -> new Regime(fromBytes, value, beta, copy, read);
            case BETA -> new Regime(fromBytes, alpha, value, copy, read);
            case COPY -> new Regime(fromBytes, alpha, beta, value, read);
            case READ -> new Regime(fromBytes, alpha, beta, copy, value);
            default -> throw new IllegalArgumentException(parameter + " is not a per-regime parameter");
        };
    }
}
