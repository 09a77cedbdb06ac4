package io.jccl.model;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * A complete parameter set of the cost model: the regimes (each with α, β, β_c, β_r, ν, β_k, γ_m), the flag handoff
 * α_f, the synchronisation costs σ and σ_o of a collective's steps (with and without a core per rank) and σ_f of its
 * flag steps while ranks outnumber cores, the cost α_k of a read through the kernel, the cost ω of a collective call
 * while ranks outnumber cores, and γ per datatype and operator ({@code "float32:sum"}; {@link #DEFAULT_GAMMA_KEY}
 * for the others). Immutable; the {@code with...} methods return changed copies. All times in µs, per-byte values in
 * µs/B.
 */
public final class ModelParameters
{
    /** Key of the γ used for datatype/operator pairs that have no value of their own. */
    public static final String DEFAULT_GAMMA_KEY = "default";

    /**
     * α_k where nothing measured it: a process_vm_readv of 8 bytes to 2 KiB took 0.6-0.7 µs in C on the 2-vCPU
     * KVM guest this project develops on (2026-11-24), a call from Java a little more.
     */
    public static final double KERNEL_CALL_DEFAULT = 0.7;

    private static final double NS_PER_US = 1000.0;

    private final List<Regime> regimes;
    private final long[] regimeStarts;
    private final double flag;
    private final double sync;
    private final double syncOversubscribed;
    private final double kernelCall;
    private final double callOversubscribed;
    private final double flagSyncOversubscribed;
    private final Map<String, Double> gamma;

    /** Parameters with σ = σ_o = ω = 0 (a collective's step costs what a lone handoff does) and the default α_k. */
    public ModelParameters(final List<Regime> regimes, final double flag, final Map<String, Double> gamma)
    {
        this(regimes, flag, 0, 0, gamma);
    }

    /** Parameters with the default α_k ({@link #KERNEL_CALL_DEFAULT}) and ω = 0. */
    public ModelParameters(
        final List<Regime> regimes, final double flag, final double sync, final double syncOversubscribed,
        final Map<String, Double> gamma)
    {
        this(regimes, flag, sync, syncOversubscribed, KERNEL_CALL_DEFAULT, 0, gamma);
    }

    /** Parameters whose flag steps cost what message steps do while ranks outnumber cores (σ_f = σ_o). */
    public ModelParameters(
        final List<Regime> regimes, final double flag, final double sync, final double syncOversubscribed,
        final double kernelCall, final double callOversubscribed, final Map<String, Double> gamma)
    {
        this(regimes, flag, sync, syncOversubscribed, kernelCall, callOversubscribed, syncOversubscribed, gamma);
    }

    /**
     * @param regimes                first one starting at 0, in increasing {@code fromBytes}.
     * @param flag                   α_f, µs.
     * @param sync                   σ, µs per step of a collective while every rank has a core.
     * @param syncOversubscribed     σ_o, µs per step and per rank sharing a core while ranks outnumber cores.
     * @param kernelCall             α_k, µs per read through the kernel.
     * @param callOversubscribed     ω, µs per collective call and per rank sharing a core while ranks outnumber cores.
     * @param flagSyncOversubscribed σ_f, µs per flag step and per rank sharing a core while ranks outnumber cores.
     * @param gamma                  γ by "dtype:op" key, µs/B; must hold {@link #DEFAULT_GAMMA_KEY}.
     */
    public ModelParameters(
        final List<Regime> regimes, final double flag, final double sync, final double syncOversubscribed,
        final double kernelCall, final double callOversubscribed, final double flagSyncOversubscribed,
        final Map<String, Double> gamma)
    {
        if (regimes.isEmpty() || regimes.get(0).fromBytes() != 0)
        {
            throw new IllegalArgumentException("the first regime must start at 0 bytes: " + regimes);
        }
        this.regimes = List.copyOf(regimes);
        this.regimeStarts = new long[regimes.size()];
        for (int i = 0; i < regimeStarts.length; i++)
        {
            regimeStarts[i] = regimes.get(i).fromBytes();
            if (i > 0 && regimeStarts[i] <= regimeStarts[i - 1])
            {
                throw new IllegalArgumentException("regimes must start at increasing sizes: " + regimes);
            }
        }
        if (!gamma.containsKey(DEFAULT_GAMMA_KEY))
        {
            throw new IllegalArgumentException("gamma needs a '" + DEFAULT_GAMMA_KEY + "' value");
        }
        this.flag = flag;
        this.sync = sync;
        this.syncOversubscribed = syncOversubscribed;
        this.kernelCall = kernelCall;
        this.callOversubscribed = callOversubscribed;
        this.flagSyncOversubscribed = flagSyncOversubscribed;
        this.gamma = Map.copyOf(gamma);
    }

    /**
     * The parameters jccl ships, used when there is no tuning file, from jccl's own measurements on the reference
     * machine (2 vCPUs of a shared KVM guest; ./jccl bench at 2 and 4 ranks, the fastest of three pingpong sweeps,
     * 2026-11-21) and its limits (DESIGN.md section 8: a cache-line handoff of about 50 ns):
     * <ul>
     *   <li>α, β: pingpong one way, 0.10 µs up to 40 B and about 0.2 µs at 512 B (small-message protocol, 0.15 ns/B);
     *       0.95 µs at 8 KiB to 86 µs at 2 MiB (chunked: 0.04 to 0.08 ns/B between sizes and runs, 0.065 taken);
     *       0.47 ms at 8 MiB to 5.0 ms at 64 MiB (13 GB/s).
     *       The chunked regimes' α (2 µs) also stands for what a message-passing step costs beyond a pingpong: its
     *       synchronisation with the peer and the chance that the peer is not running (4 ranks on 2 cores);</li>
     *   <li>β_c, β_r: the shared-memory broadcast of 8 MiB at 2 ranks moved its bytes at 0.045 ns/B for the copy
     *       into staging and the peer's read together (the bench's buffers stay in the last-level cache); β_c + β_r
     *       stays below β, since a point-to-point message is such a copy and such a read plus its protocol;</li>
     *   <li>α_f: about one cache-line handoff and its acquire, 0.06 µs;</li>
     *   <li>γ: 0.07 ns/B, what the SIMD kernels (Vector API) fitted for float32 sum in sweeps of 2026-11-24 on two
     *       machines (0.04-0.07). It moves one-shot allreduce up to 6.9 KiB at 2 ranks, 19 KiB at 3, 9.7 KiB at 4 and
     *       3.4 KiB at 8, where it measured faster than two-shot and recursive doubling (2 ranks, 2 KiB: 0.94-1.09 µs
     *       against two-shot's 1.09-1.29 in six runs; 3 ranks 4-16 KiB 6.1-9.6 against 8.1-11.3; 4 ranks 4 KiB
     *       5.7-11.4 against 7.0-10.0; 8 ranks 2-4 KiB 18.5-21.3 against 25.3). The array kernels' 0.3 ns/B, shipped
     *       before, priced one-shot's p − 1 reductions four times too dear; {@code ./jccl tune} fits the user's
     *       own;</li>
     *   <li>σ 0.05 µs and σ_o 0.9 µs per step (per rank sharing a core): what {@code ./jccl fit} found for
     *       allreduce on 2 and 4 ranks in the 2026-11-22 runs that stayed in one state of the machine (σ 0 to 0.1,
     *       σ_o 0.8 to 1.04). With σ_o, LL allreduce serves 4 ranks up to 1 KiB (measured 4.0-6.2 µs against
     *       two-shot's 9.0-9.1 at 128-256 B) instead of up to 128 B; a flag step costs the same (σ_f = σ_o); ν
     *       stays 0 (the classic model).</li>
     * </ul>
     * With these, the model picks what the fixed preference lists picked before it (LL for the smallest calls, then
     * the staged shared-memory algorithms; linear gather and scatter) at most sizes; it differs where measurements
     * did: one-shot allreduce after LL, two-shot from a few KiB, binomial reduce on 4 or more ranks for larger
     * messages.
     * {@code ./jccl tune} replaces them with a fit on the user's machine.
     */
    public static ModelParameters shipped()
    {
        // regime 0: small messages, one cache-line handoff each
        // regime 1: chunked messages that stay in the caches
        // regime 2: chunked messages larger than the staging area (4 MiB)
        final List<Regime> regimes = List.of(
            new Regime(0, 0.12, nsPerByte(0.15), nsPerByte(0.02), nsPerByte(0.03)),
            new Regime(4096, 2.0, nsPerByte(0.065), nsPerByte(0.02), nsPerByte(0.025)),
            new Regime(4L << 20, 2.0, nsPerByte(0.07), nsPerByte(0.02), nsPerByte(0.025)));
        return new ModelParameters(regimes, 0.06, 0.05, 0.9, Map.of(DEFAULT_GAMMA_KEY, nsPerByte(0.07)));
    }

    /** Converts ns per byte, the unit people read, into the model's µs per byte. */
    public static double nsPerByte(final double ns)
    {
        return ns / NS_PER_US;
    }

    public List<Regime> regimes()
    {
        return regimes;
    }

    public int regimeCount()
    {
        return regimeStarts.length;
    }

    /** Index of the regime a message of {@code bytes} falls in. */
    public int regimeOf(final double bytes)
    {
        int regime = 0;
        while (regime + 1 < regimeStarts.length && bytes >= regimeStarts[regime + 1])
        {
            regime++;
        }
        return regime;
    }

    /** Sizes where regimes 1, 2, ... start. */
    public long[] breakpoints()
    {
        final long[] breakpoints = new long[regimeStarts.length - 1];
        System.arraycopy(regimeStarts, 1, breakpoints, 0, breakpoints.length);
        return breakpoints;
    }

    public double flag()
    {
        return flag;
    }

    /** σ, µs per step of a collective while every rank has a core. */
    public double sync()
    {
        return sync;
    }

    /** σ_o, µs per step of a collective and per rank sharing a core, while ranks outnumber cores. */
    public double syncOversubscribed()
    {
        return syncOversubscribed;
    }

    /** α_k, µs per read through the kernel beyond its bytes. */
    public double kernelCall()
    {
        return kernelCall;
    }

    /** ω, µs per collective call and per rank sharing a core, while ranks outnumber cores. */
    public double callOversubscribed()
    {
        return callOversubscribed;
    }

    /** σ_f, µs per flag step of a collective and per rank sharing a core, while ranks outnumber cores. */
    public double flagSyncOversubscribed()
    {
        return flagSyncOversubscribed;
    }

    /** γ of a datatype and operator ({@code "float32"}, {@code "sum"}), or the default γ. */
    public double gamma(final String dtype, final String op)
    {
        final Double value = gamma.get(gammaKey(dtype, op));
        return value != null ? value : defaultGamma();
    }

    /** γ of the datatype/operator pairs without a value of their own. */
    public double defaultGamma()
    {
        return gamma.get(DEFAULT_GAMMA_KEY);
    }

    /** Every γ by key, the default included. */
    public Map<String, Double> gammas()
    {
        return gamma;
    }

    /** "float32:sum": lower case, the key of {@link #gamma(String, String)}. */
    public static String gammaKey(final String dtype, final String op)
    {
        return dtype.toLowerCase(Locale.ROOT) + ":" + op.toLowerCase(Locale.ROOT);
    }

    /** The value of {@code parameter} in {@code regime} (ignored for the others); γ is per key, see {@link #gamma}. */
    public double value(final Parameter parameter, final int regime)
    {
        return switch (parameter)
        {
            case FLAG -> flag;
            case SYNC -> sync;
            case SYNC_OVERSUBSCRIBED -> syncOversubscribed;
            case KERNEL_CALL -> kernelCall;
            case CALL_OVERSUBSCRIBED -> callOversubscribed;
            case FLAG_SYNC_OVERSUBSCRIBED -> flagSyncOversubscribed;
            case GAMMA -> defaultGamma();
            default -> regimes.get(regime).value(parameter);
        };
    }

    /** A copy with other regimes. */
    public ModelParameters withRegimes(final List<Regime> newRegimes)
    {
        return new ModelParameters(newRegimes, flag, sync, syncOversubscribed, kernelCall, callOversubscribed,
            flagSyncOversubscribed, gamma);
    }

    /** A copy with one per-regime value, or α_f, σ, σ_o, α_k, ω, σ_f or the default γ, changed. */
    public ModelParameters with(final Parameter parameter, final int regime, final double value)
    {
        return switch (parameter)
        {
            case FLAG -> new ModelParameters(regimes, value, sync, syncOversubscribed, kernelCall, callOversubscribed,
                flagSyncOversubscribed, gamma);
            case SYNC -> new ModelParameters(regimes, flag, value, syncOversubscribed, kernelCall, callOversubscribed,
                flagSyncOversubscribed, gamma);
            case SYNC_OVERSUBSCRIBED -> new ModelParameters(regimes, flag, sync, value, kernelCall, callOversubscribed,
                flagSyncOversubscribed, gamma);
            case KERNEL_CALL -> new ModelParameters(regimes, flag, sync, syncOversubscribed, value, callOversubscribed,
                flagSyncOversubscribed, gamma);
            case CALL_OVERSUBSCRIBED -> new ModelParameters(regimes, flag, sync, syncOversubscribed, kernelCall, value,
                flagSyncOversubscribed, gamma);
            case FLAG_SYNC_OVERSUBSCRIBED -> new ModelParameters(regimes, flag, sync, syncOversubscribed, kernelCall,
                callOversubscribed, value, gamma);
            case GAMMA -> withGamma(DEFAULT_GAMMA_KEY, value);
            default ->
            {
                final List<Regime> changed = new ArrayList<>(regimes);
                changed.set(regime, regimes.get(regime).with(parameter, value));
                yield withRegimes(changed);
            }
        };
    }

    /** A copy with γ of {@code key} ("float32:sum" or {@link #DEFAULT_GAMMA_KEY}) set. */
    public ModelParameters withGamma(final String key, final double value)
    {
        final Map<String, Double> changed = new LinkedHashMap<>(gamma);
        changed.put(key, value);
        return new ModelParameters(regimes, flag, sync, syncOversubscribed, kernelCall, callOversubscribed,
            flagSyncOversubscribed, changed);
    }

    /**
     * The JSON form (in µs and ns/B, the units people read): {@code {"regimes": [{"from_bytes", "alpha_us",
     * "beta_ns_per_byte", "copy_ns_per_byte", "read_ns_per_byte", "nu", "kernel_ns_per_byte",
     * "reduce_memory_ns_per_byte"}...], "flag_us",
     * "sync_us", "sync_oversubscribed_us", "kernel_call_us", "call_oversubscribed_us",
     * "flag_sync_oversubscribed_us", "gamma_ns_per_byte":
     * {key: v}}}.
     */
    public Map<String, Object> toJson()
    {
        final List<Object> regimeList = new ArrayList<>();
        for (final Regime regime : regimes)
        {
            final Map<String, Object> r = new LinkedHashMap<>();
            r.put("from_bytes", regime.fromBytes());
            r.put("alpha_us", regime.alpha());
            r.put("beta_ns_per_byte", regime.beta() * NS_PER_US);
            r.put("copy_ns_per_byte", regime.copy() * NS_PER_US);
            r.put("read_ns_per_byte", regime.read() * NS_PER_US);
            r.put("nu", regime.nu());
            r.put("kernel_ns_per_byte", regime.kernel() * NS_PER_US);
            r.put("reduce_memory_ns_per_byte", regime.reduceMemory() * NS_PER_US);
            regimeList.add(r);
        }
        final Map<String, Object> gammaJson = new LinkedHashMap<>();
        gamma.entrySet().stream().sorted(Map.Entry.comparingByKey())
            .forEach(e -> gammaJson.put(e.getKey(), e.getValue() * NS_PER_US));
        final Map<String, Object> json = new LinkedHashMap<>();
        json.put("regimes", regimeList);
        json.put("flag_us", flag);
        json.put("sync_us", sync);
        json.put("sync_oversubscribed_us", syncOversubscribed);
        json.put("kernel_call_us", kernelCall);
        json.put("call_oversubscribed_us", callOversubscribed);
        json.put("flag_sync_oversubscribed_us", flagSyncOversubscribed);
        json.put("gamma_ns_per_byte", gammaJson);
        return json;
    }

    /**
     * Reads the form {@link #toJson()} writes. Files written before some parameters existed load with ν, γ_m, σ, σ_o
     * and ω at 0, σ_f equal to σ_o, β_k derived from β ({@link Regime#kernelOf}) and α_k at
     * {@link #KERNEL_CALL_DEFAULT}.
     */
    public static ModelParameters fromJson(final Map<String, Object> json)
    {
        final List<Regime> regimes = new ArrayList<>();
        for (final Object item : Json.array(json, "regimes"))
        {
            if (!(item instanceof Map))
            {
                throw new IllegalArgumentException("each of 'regimes' must be an object");
            }
            @SuppressWarnings("unchecked")
            final Map<String, Object> r = (Map<String, Object>)item;
            final double beta = nsPerByte(Json.number(r, "beta_ns_per_byte"));
            regimes.add(new Regime((long)Json.number(r, "from_bytes"), Json.number(r, "alpha_us"), beta,
                nsPerByte(Json.number(r, "copy_ns_per_byte")), nsPerByte(Json.number(r, "read_ns_per_byte")),
                optional(r, "nu", 0), r.containsKey("kernel_ns_per_byte") ?
                nsPerByte(Json.number(r, "kernel_ns_per_byte")) : Regime.kernelOf(beta),
                nsPerByte(optional(r, "reduce_memory_ns_per_byte", 0))));
        }
        final Map<String, Double> gamma = new LinkedHashMap<>();
        for (final Map.Entry<String, Object> entry : Json.object(json, "gamma_ns_per_byte").entrySet())
        {
            if (!(entry.getValue() instanceof Number))
            {
                throw new IllegalArgumentException("gamma '" + entry.getKey() + "' must be a number");
            }
            gamma.put(entry.getKey(), nsPerByte(((Number)entry.getValue()).doubleValue()));
        }
        final double syncOversubscribed = optional(json, "sync_oversubscribed_us", 0);
        return new ModelParameters(regimes, Json.number(json, "flag_us"), optional(json, "sync_us", 0),
            syncOversubscribed, optional(json, "kernel_call_us", KERNEL_CALL_DEFAULT),
            optional(json, "call_oversubscribed_us", 0),
            optional(json, "flag_sync_oversubscribed_us", syncOversubscribed), gamma);
    }

    private static double optional(final Map<String, Object> json, final String key, final double absent)
    {
        return json.containsKey(key) ? Json.number(json, key) : absent;
    }

    @Override
    public boolean equals(final Object o)
    {
        return o instanceof ModelParameters other && regimes.equals(other.regimes) && flag == other.flag &&
            sync == other.sync && syncOversubscribed == other.syncOversubscribed && kernelCall == other.kernelCall &&
            callOversubscribed == other.callOversubscribed && flagSyncOversubscribed == other.flagSyncOversubscribed &&
            gamma.equals(other.gamma);
    }

    @Override
    public int hashCode()
    {
        return regimes.hashCode() * 31 + gamma.hashCode();
    }

    @Override
    public String toString()
    {
        return "ModelParameters" + toJson();
    }
}
