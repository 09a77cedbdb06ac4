package io.jccl.model;

import java.util.Arrays;

/**
 * The cost of one call as a linear combination of the model's parameters: a formula ({@link CostFormula}) adds its
 * terms here, and the result can be priced with any {@link ModelParameters} ({@link #evaluate}) or read coefficient
 * by coefficient, which is what the least-squares fit needs (every formula is linear in α, β, β_c, β_r, β_k, α_f,
 * α_k and γ).
 * <p>
 * Which regime a term is priced in:
 * <ul>
 *   <li>a message of m bytes ({@link #messages}) is priced as the point-to-point measurement of m bytes was, in the
 *       regime of m: {@code α_r + m·β_r}; when the algorithm cuts it into chunks of c bytes, each chunk after the
 *       first adds one small-message α (regime 0): {@code (⌈m/c⌉ − 1)·α_0};</li>
 *   <li>local memory terms ({@link #copy}, {@link #read}, and the bytes of {@link #kernelReads}) are priced in the
 *       regime of the call's vector size n, which decides where the data lives in the memory hierarchy, and so are
 *       bytes {@link #carried} line by line from the core that wrote them, at the point-to-point β, and the memory
 *       part γ_m of a reduction's cost per byte ({@link #reduce});</li>
 *   <li>α_f ({@link #flags}), α_k (the call of each kernel read) and γ (the arithmetic part of {@link #reduce}, one
 *       per datatype and operator) have one value;</li>
 *   <li>every message, flag and kernel read of a collective is also one synchronisation step: σ while every rank
 *       has a core, σ_o·(p/c) while the p ranks share c &lt; p cores (σ_f·(p/c) for a flag, which waits for every
 *       rank rather than one peer); and a collective call ({@link #call}) costs ω·(p/c) while they share them,
 *       the round that brings every rank into the call, except a call with flag steps: its first flag step waits
 *       for that round, and σ_f prices it. A {@link #pointToPoint} message, which is what the pingpong measures,
 *       has none of these: its α is the whole of its latency.</li>
 * </ul>
 * Cores are shared. A lone message of a regime keeps 1 + ν cores busy ({@link Regime#nu()}), so k messages in flight
 * at once on c cores take max(1, k(1 + ν)/c) times as long per byte as the lone message the pingpong measured. That
 * factor is kept linear in ν for the fit: k/c·(1 + ν) when k ≥ c, 1 + ν(2k/c − 1) when c/2 &lt; k &lt; c (exact at
 * ν = 0 and 1), else 1. A rank's own copies, reads and reductions take max(1, p/c) times as long once the p ranks
 * outnumber the c cores. An exchange of two ranks on two cores thus costs one or two one-way messages' bytes,
 * as the protocol lets one message use one or both cores.
 * Reusable: {@link #reset} starts a new call. Not thread-safe.
 */
public final class CostTerms
{
    /** Per-regime parameters: the first ones of {@link Parameter}. */
    private static final int PER_REGIME = 7;

    private final ModelParameters regimes;
    private final double[] perRegime;
    private double flag;
    private double gamma;
    private double sync;
    private double syncOversubscribed;
    private double flagSyncOversubscribed;
    private double kernelCalls;
    private double callsOversubscribed;
    private double share;
    private int cores;
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
     * @param cores        c, the cores the ranks share.
     */
    public CostTerms reset(
        final int ranks, final long bytes, final long chunkBytes, final long stagingBytes, final int cores)
    {
        Arrays.fill(perRegime, 0.0);
        flag = 0.0;
        gamma = 0.0;
        sync = 0.0;
        syncOversubscribed = 0.0;
        flagSyncOversubscribed = 0.0;
        kernelCalls = 0.0;
        callsOversubscribed = 0.0;
        this.cores = Math.max(1, cores);
        share = ranks > this.cores ? (double)ranks / this.cores : 1.0;
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

    /**
     * {@code count} steps of a collective in which every rank sends a message of {@code messageBytes} (nothing for
     * empty messages): p messages in flight at once.
     */
    public void messages(final double count, final double messageBytes)
    {
        messages(count, messageBytes, ranks);
    }

    /**
     * {@code count} steps of a collective in each of which {@code concurrent} messages of {@code messageBytes} are in
     * flight at once (a tree's step), or which are limited by one rank's copies ({@code concurrent} = 1).
     */
    public void messages(final double count, final double messageBytes, final double concurrent)
    {
        if (count <= 0 || messageBytes <= 0)
        {
            return;
        }
        final double load = concurrent / cores;
        if (load >= 1.0)
        {
            message(count, messageBytes, load, load);
        }
        else
        {
            message(count, messageBytes, 1.0, Math.max(0.0, 2.0 * load - 1.0));
        }
        steps(count);
    }

    /**
     * {@code count} reads of {@code readBytes} each through the kernel ({@code process_vm_readv}: the single-copy
     * algorithms), every rank reading on its own core at once, each a step: α_k per read, and β_k per byte in the
     * regime of the call's vector (where the data lives). Ranks that outnumber the cores share them, p/c.
     */
    public void kernelReads(final double count, final double readBytes)
    {
        if (count <= 0 || readBytes <= 0)
        {
            return;
        }
        kernelCalls += count * share;
        perRegime[index(Parameter.KERNEL_READ, regimes.regimeOf(bytes))] += count * readBytes * share;
        steps(count);
    }

    /**
     * {@code count} more system calls of reads already counted by {@link #kernelReads} that go in pieces (a reducing
     * algorithm reads a long range in chunks that fit its bounce buffers): α_k each, no bytes and no step.
     */
    public void kernelReadPieces(final double count)
    {
        if (count > 0)
        {
            kernelCalls += count * share;
        }
    }

    /** One collective call: while the ranks outnumber the cores, the round of scheduling that brings all into it. */
    public void call()
    {
        if (share > 1.0)
        {
            callsOversubscribed += share;
        }
    }

    /** One message between two ranks timed on its own, as the pingpong measures it: α + mβ, no step. */
    public void pointToPoint(final double messageBytes)
    {
        message(1, messageBytes, 1.0, 0.0);
    }

    /**
     * @param fixed   the per-byte factor at ν = 0.
     * @param perNu   what each unit of ν adds to it.
     */
    private void message(final double count, final double messageBytes, final double fixed, final double perNu)
    {
        final int regime = regimes.regimeOf(Math.ceil(messageBytes));
        perRegime[index(Parameter.ALPHA, regime)] += count;
        perRegime[index(Parameter.BETA, regime)] += count * messageBytes * fixed;
        perRegime[index(Parameter.NU, regime)] += count * messageBytes * perNu;
        if (chunkBytes > 0 && messageBytes > chunkBytes)
        {
            perRegime[index(Parameter.ALPHA, 0)] += count * (Math.ceil(messageBytes / chunkBytes) - 1);
        }
    }

    /** ω's coefficient: none when the call has flag steps, whose first is the round ω prices. */
    private double callsOversubscribed()
    {
        return flagSyncOversubscribed > 0 ? 0 : callsOversubscribed;
    }

    /** {@code count} flag handoffs, steps of a collective that each wait for every rank's flag. */
    public void flags(final double count)
    {
        flag += count;
        if (share > 1.0)
        {
            flagSyncOversubscribed += count * share;
        }
        else
        {
            sync += count;
        }
    }

    /**
     * {@code count} cache-line handoffs that are not steps of their own: lines read right after a flag that
     * vouched for them, which wait for the line but not for another rank.
     */
    public void handoffs(final double count)
    {
        flag += count;
    }

    private void steps(final double count)
    {
        if (share > 1.0)
        {
            syncOversubscribed += count * share;
        }
        else
        {
            sync += count;
        }
    }

    /** {@code copiedBytes} copied within local (or just written) memory. */
    public void copy(final double copiedBytes)
    {
        perRegime[index(Parameter.COPY, regimes.regimeOf(bytes))] += copiedBytes * share;
    }

    /** {@code readBytes} read from peers' shared memory. */
    public void read(final double readBytes)
    {
        perRegime[index(Parameter.READ, regimes.regimeOf(bytes))] += readBytes * share;
    }

    /**
     * {@code carriedBytes} read by a rank as they land from the core that wrote them, line by line with the flag
     * inside (the low-latency protocol), which is how a small point-to-point message's payload moves: priced at the
     * point-to-point β of the call's regime, with no α and no step (the flag that delivers them is counted apart).
     */
    public void carried(final double carriedBytes)
    {
        perRegime[index(Parameter.BETA, regimes.regimeOf(bytes))] += carriedBytes * share;
    }

    /**
     * {@code reducedBytes} of one operand combined into an accumulator: γ per byte, and γ_m of the regime of the
     * call's vector, where its operands live.
     */
    public void reduce(final double reducedBytes)
    {
        gamma += reducedBytes * share;
        perRegime[index(Parameter.REDUCE_MEMORY, regimes.regimeOf(bytes))] += reducedBytes * share;
    }

    /**
     * The coefficient of {@code parameter} in {@code regime} (the regime is ignored for the others). ν's is in bytes:
     * its term is coefficient × β × ν of the regime.
     */
    public double coefficient(final Parameter parameter, final int regime)
    {
        return switch (parameter)
        {
            case FLAG -> flag;
            case GAMMA -> gamma;
            case SYNC -> sync;
            case SYNC_OVERSUBSCRIBED -> syncOversubscribed;
            case FLAG_SYNC_OVERSUBSCRIBED -> flagSyncOversubscribed;
            case KERNEL_CALL -> kernelCalls;
            case CALL_OVERSUBSCRIBED -> callsOversubscribed();
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
        double total = flag * parameters.flag() + gamma * gammaValue + sync * parameters.sync() +
            syncOversubscribed * parameters.syncOversubscribed() +
            flagSyncOversubscribed * parameters.flagSyncOversubscribed() + kernelCalls * parameters.kernelCall() +
            callsOversubscribed() * parameters.callOversubscribed();
        for (int regime = 0; regime < parameters.regimeCount(); regime++)
        {
            final Regime r = parameters.regimes().get(regime);
            total += perRegime[index(Parameter.ALPHA, regime)] * r.alpha() +
                perRegime[index(Parameter.BETA, regime)] * r.beta() +
                perRegime[index(Parameter.NU, regime)] * r.beta() * r.nu() +
                perRegime[index(Parameter.COPY, regime)] * r.copy() +
                perRegime[index(Parameter.READ, regime)] * r.read() +
                perRegime[index(Parameter.KERNEL_READ, regime)] * r.kernel() +
                perRegime[index(Parameter.REDUCE_MEMORY, regime)] * r.reduceMemory();
        }
        return total;
    }

    private static int index(final Parameter parameter, final int regime)
    {
        return regime * PER_REGIME + parameter.ordinal();
    }
}
