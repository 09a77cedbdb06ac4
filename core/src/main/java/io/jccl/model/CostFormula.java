package io.jccl.model;

/**
 * The cost formula of one algorithm of one collective: what it adds to {@link CostTerms} for a call of p ranks and
 * n bytes, and the formula as people read it.
 *
 * @param collective        "allreduce", ..., or "pingpong" (one-way point-to-point) and "reduction" (a local kernel).
 * @param algorithm         the algorithm's name, as the registry and the bench name it.
 * @param text              the formula in α, β, β_c, β_r, α_f, γ, p and n, for help and reports.
 * @param defaultChunkBytes the chunk size the algorithm cuts messages into by default, 0 when it does not.
 * @param capacity          the largest n the algorithm serves at p ranks (the model never chooses it beyond).
 * @param terms             adds the terms of one call.
 */
public record CostFormula(
    String collective, String algorithm, String text, long defaultChunkBytes, Capacity capacity, Terms terms)
{
    /** No size limit. */
    public static final Capacity UNLIMITED = ranks -> Long.MAX_VALUE;

    /** A formula of an algorithm that serves every size. */
    public CostFormula(
        final String collective, final String algorithm, final String text, final long defaultChunkBytes,
        final Terms terms)
    {
        this(collective, algorithm, text, defaultChunkBytes, UNLIMITED, terms);
    }

    /** The largest n (bytes as nccl-tests count them) an algorithm serves at p ranks. */
    @FunctionalInterface
    public interface Capacity
    {
        long maxBytes(int ranks);
    }

    /** True when the algorithm serves calls of {@code bytes} at {@code ranks}. */
    public boolean serves(final int ranks, final long bytes)
    {
        return bytes <= capacity.maxBytes(ranks);
    }

    /** Adds the terms of a call whose p, n, chunk and staging sizes are in {@code t}. */
    @FunctionalInterface
    public interface Terms
    {
        void add(CostTerms t);
    }

    /** True for the collectives, false for a lone point-to-point message (pingpong) and a local kernel (reduction). */
    public boolean collectiveCall()
    {
        return !collective.equals("pingpong") && !collective.equals("reduction");
    }

    /** "allreduce:ring". */
    public String key()
    {
        return collective + ":" + algorithm;
    }
}
