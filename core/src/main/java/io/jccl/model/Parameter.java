package io.jccl.model;

/**
 * The parameters of jccl's cost model, all in microseconds (per message, per handoff, or per byte). The first seven
 * have one value per protocol regime ({@link Regime}); the others have one value (γ one per datatype and operator).
 */
public enum Parameter
{
    /** α: latency of one point-to-point message, µs. */
    ALPHA("alpha", "us", true),
    /** β: time per byte of a point-to-point message (the inverse of its bandwidth), µs/B. */
    BETA("beta", "us/B", true),
    /** β_c: time per byte copied within memory this rank owns or just wrote (mostly cached), µs/B. */
    COPY("beta_c", "us/B", true),
    /** β_r: time per byte read from a peer's shared memory (a cache miss to another core or to DRAM), µs/B. */
    READ("beta_r", "us/B", true),
    /**
     * ν: how much of a second core a lone message keeps busy, 0 (sender and receiver copy one after the other) to 1
     * (both copy at once); k messages in flight on c cores take max(1, k(1 + ν)/c) times as long per byte. Fitted, it
     * is not held to 1: in the regimes of messages from some 16 KiB up it comes out above (1.1-6.2 in 2026-12-02's
     * fits, of 2 ranks alone too), as messages in flight at once share the caches and the memory, not only the cores.
     */
    NU("nu", "", true),
    /**
     * β_k: time per byte one rank reads out of a peer's memory through the kernel (process_vm_readv, the
     * shm_single_copy algorithms), alone on its core, µs/B. A single-copy point-to-point message shares its bytes
     * between the two ends, so its β is about half of this.
     */
    KERNEL_READ("beta_k", "us/B", true),
    /**
     * γ_m: what a reduction adds per byte of one operand, beyond its datatype's and operator's γ, when the call's
     * vector is of the regime's size. {@code ./jccl fit} fits it in the last regime, the largest messages', where
     * the operands come from DRAM or the last-level cache and the loop's memory traffic (two operands read, one
     * written) costs the same for every datatype; γ is then the rate of operands in the caches near the core.
     */
    REDUCE_MEMORY("gamma_m", "us/B", true),
    /** α_f: one flag handoff, a release store seen by an acquire load on another core, µs. */
    FLAG("alpha_f", "us", false),
    /** γ: time per byte of reduction arithmetic (per byte of one operand), µs/B. */
    GAMMA("gamma", "us/B", false),
    /**
     * σ: what one synchronisation step of a collective (a message, or a flag waited for) costs beyond the α or α_f a
     * lone handoff costs, while every rank has a core of its own: matching, requests, the algorithm's bookkeeping.
     * Like NCCL's per-algorithm base latency, it is what a collective's step adds to the wire.
     */
    SYNC("sigma", "us", false),
    /**
     * σ_o: the same while ranks outnumber cores, per step and per rank sharing a core (p/c): the wait for the peer
     * to be scheduled, which a step pays whenever its peer is not running.
     */
    SYNC_OVERSUBSCRIBED("sigma_o", "us", false),
    /** α_k: what one read through the kernel costs beyond its bytes: the system call and its page pinning, µs. */
    KERNEL_CALL("alpha_k", "us", false),
    /**
     * ω: what one collective call costs while ranks outnumber cores, per rank sharing a core (p/c), whatever its
     * steps: the round of context switches that brings every rank into the call before its first step can
     * complete. A call with flag steps pays σ_f for it instead: its first flag step is that round.
     */
    CALL_OVERSUBSCRIBED("omega", "us", false),
    /**
     * σ_f: what one flag step of a shared-memory algorithm costs while ranks outnumber cores, per rank sharing a core.
     * A message step waits for one peer; a flag step (publish, then wait for every rank's flag) for the last of the
     * ranks to be scheduled, which costs more than σ_o.
     */
    FLAG_SYNC_OVERSUBSCRIBED("sigma_f", "us", false);

    private final String symbol;
    private final String unit;
    private final boolean perRegime;

    Parameter(final String symbol, final String unit, final boolean perRegime)
    {
        this.symbol = symbol;
        this.unit = unit;
        this.perRegime = perRegime;
    }

    /**
     * Name in output: alpha, beta, beta_c, beta_r, nu, beta_k, gamma_m, alpha_f, gamma, sigma, sigma_o, alpha_k, omega,
     * sigma_f.
     */
    public String symbol()
    {
        return symbol;
    }

    /** "us", "us/B", or "" (ν, a share of a core). */
    public String unit()
    {
        return unit;
    }

    /** True when the parameter has one value per regime. */
    public boolean perRegime()
    {
        return perRegime;
    }

    /** True for the per-byte parameters (printed as ns/B and GB/s). */
    public boolean perByte()
    {
        return unit.endsWith("/B");
    }
}
