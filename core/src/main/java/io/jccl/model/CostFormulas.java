package io.jccl.model;

import io.jccl.Configuration;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The cost formula of every jccl algorithm, by collective and name, as their classes document them (Thakur,
 * Rabenseifner and Gropp 2005 for the message-passing ones; the shared-memory ones from their own chunk protocol,
 * see {@code io.jccl.algorithms.shm}). Symbols: p ranks, n bytes of the whole vector as nccl-tests counts it,
 * lg p = ⌈log₂ p⌉, q = 2^⌊log₂ p⌋ (recursive algorithms fold p − q ranks first), S staging bytes per rank, S/2 the
 * chunk half of what the low-latency and eager regions leave of it, and K = ⌈staged bytes / (S/2)⌉ chunks.
 * {@code M(k, m)} is k messages of m bytes, each α + m·β in the regime of m, its bytes priced for the messages in
 * flight at once on the cores there are (see {@link CostTerms}); α_k and β_k price the shm_single_copy algorithms'
 * reads through the kernel. Every collective call also costs ω·p/c while its p ranks share c &lt; p cores
 * ({@link CostTerms#call}).
 */
public final class CostFormulas
{
    /** Chunk of the ring and recursive algorithms (io.jccl.algorithms.pattern.Exchange.CHUNK_BYTES_DEFAULT). */
    public static final long EXCHANGE_CHUNK_BYTES = 512 * 1024;

    /**
     * Most bytes one kernel read of a reducing single-copy algorithm moves
     * (io.jccl.algorithms.shm.SingleCopyReads.READ_CHUNK_BYTES): a longer read is several calls.
     */
    public static final long KERNEL_READ_CHUNK_BYTES = 256 * 1024;

    /** Chunk of the staged shm_direct broadcast (io.jccl.algorithms.shm.ShmDirectBroadcast.CHUNK_BYTES). */
    public static final long DIRECT_BROADCAST_CHUNK_BYTES = 256 * 1024;

    /** Chunk of the chain broadcast (io.jccl.algorithms.broadcast.ChainBroadcast.CHUNK_BYTES_DEFAULT). */
    public static final long CHAIN_CHUNK_BYTES = 256 * 1024;

    /** Chunk of the chain scan (io.jccl.algorithms.scan.ChainScan.CHUNK_BYTES_DEFAULT). */
    public static final long CHAIN_SCAN_CHUNK_BYTES = 256 * 1024;

    private static final long CACHE_LINE = 64;
    /** Bytes moved per payload byte by the low-latency protocol: 64-byte lines carry 56 payload bytes. */
    private static final double LL_LINE_FACTOR = 64.0 / 56.0;

    /** Payload bytes per rank of the low-latency protocol (io.jccl.algorithms.shm.LowLatencyProtocol.MAX_BYTES). */
    public static final long LL_MAX_BYTES = 1024;

    /** Payload bytes of the eager protocol's slot (io.jccl.algorithms.shm.EagerProtocol.SLOT_PAYLOAD). */
    private static final long EAGER_SLOT_BYTES = 256 * 1024;

    /** The eager protocol's slots per rank (io.jccl.algorithms.shm.EagerProtocol.SLOTS). */
    private static final int EAGER_SLOTS = 8;

    /** The eager protocol's largest call, all its slots (io.jccl.algorithms.shm.EagerProtocol.MAX_BYTES). */
    public static final long EAGER_MAX_BYTES = EAGER_SLOTS * EAGER_SLOT_BYTES;

    /**
     * The low-latency protocol's region at the end of a staging area of at least 1 MiB, which the chunk halves leave
     * out (io.jccl.algorithms.shm.LowLatencyProtocol: 256 slots each of 1, 4, 10 and 19 lines).
     */
    private static final long LL_REGION_BYTES = 256 * (1 + 4 + 10 + 19) * CACHE_LINE;
    private static final long LL_MIN_STAGING_BYTES = 1024 * 1024;

    /**
     * The eager protocol's region before it in a staging area of at least 4 MiB (io.jccl.algorithms.shm.EagerProtocol:
     * its slots, each {@link #EAGER_SLOT_BYTES} and a line).
     */
    private static final long EAGER_REGION_BYTES = EAGER_SLOTS * (EAGER_SLOT_BYTES + CACHE_LINE);
    private static final long EAGER_MIN_STAGING_BYTES = 4L << 20;

    /**
     * Cache-line handoffs one staged step waits for: the flag, then the first line of the data it guards (the data
     * is only read once the flag's acquire has seen it). The LL protocol needs one: its flag is in the data.
     */
    private static final int STAGED_HANDOFFS = 2;
    /** {@link #singleCopyReduction}: a single-copy reduce's root, and every rank of a single-copy allreduce. */
    private static final String SINGLE_COPY_REDUCTION = "2α_f + (p − 1)·(⌈n/R⌉·α_k + nβ_k) + (p − 1)n·γ, R = 256 KiB";

    private static final Map<String, CostFormula> FORMULAS = catalog();

    /**
     * The zero-copy paths the shared-memory algorithms take on buffers in the shared segment (allocateShared, bench
     * --shared): read or write peers' buffers in place instead of staging.
     */
    private static final Map<String, CostFormula> ZERO_COPY = zeroCopyCatalog();

    private CostFormulas()
    {
    }

    /** The formula of {@code collective}'s algorithm {@code algorithm}, or null when jccl has none. */
    public static CostFormula find(final String collective, final String algorithm)
    {
        return FORMULAS.get(collective + ":" + algorithm);
    }

    /**
     * The formula of {@code collective}'s algorithm {@code algorithm} on buffers in the shared segment
     * ({@code shared}: its zero-copy path, when it has one) or on private buffers; null when jccl has none.
     */
    public static CostFormula find(final String collective, final String algorithm, final boolean shared)
    {
        final CostFormula zeroCopy = shared ? ZERO_COPY.get(collective + ":" + algorithm) : null;
        return zeroCopy != null ? zeroCopy : find(collective, algorithm);
    }

    /** True when {@code collective}'s {@code algorithm} reads or writes buffers in the shared segment in place. */
    public static boolean hasZeroCopyPath(final String collective, final String algorithm)
    {
        return ZERO_COPY.containsKey(collective + ":" + algorithm);
    }

    /** Every formula, collective by collective. */
    public static List<CostFormula> all()
    {
        return List.copyOf(FORMULAS.values());
    }

    /** Names of the algorithms of {@code collective} that have a formula. */
    public static List<String> algorithms(final String collective)
    {
        final List<String> names = new ArrayList<>();
        for (final CostFormula formula : FORMULAS.values())
        {
            if (formula.collective().equals(collective))
            {
                names.add(formula.algorithm());
            }
        }
        return Collections.unmodifiableList(names);
    }

    /**
     * The algorithm a measurement without an algorithm name (another library's, e.g. the peers' Open MPI CSV) is
     * modelled with: the classic choice for the collective.
     */
    public static String reference(final String collective)
    {
        return switch (collective)
        {
            case "pingpong" -> "p2p";
            case "barrier" -> "dissemination";
            case "allreduce", "allgather", "reduce_scatter", "allgatherv", "reduce_scatterv" -> "ring";
            case "alltoall", "alltoallv" -> "pairwise";
            case "gather", "scatter", "gatherv", "scatterv" -> "linear";
            case "scan", "exscan" -> "recursive_doubling";
            case "reduction" -> "kernel";
            default -> "binomial";
        };
    }

    /** ⌈log₂ p⌉, 0 for one rank. */
    public static int lg(final int p)
    {
        return p <= 1 ? 0 : 32 - Integer.numberOfLeadingZeros(p - 1);
    }

    /** q = 2^⌊log₂ p⌋, the ranks recursive doubling and halving work on after the fold. */
    public static int floorPow2(final int p)
    {
        return Integer.highestOneBit(p);
    }

    /** K: chunks of one staging half ({@link #stagingHalfBytes}) needed for {@code stagedBytes}, at least 1. */
    public static double chunks(final CostTerms t, final double stagedBytes)
    {
        return Math.max(1.0, Math.ceil(stagedBytes / stagingHalfBytes(t.stagingBytes())));
    }

    /**
     * S/2: the chunk half of a staging area of {@code stagingBytes}, what the low-latency and eager regions leave of
     * it halved, in whole cache lines (io.jccl.algorithms.shm.ShmProtocol.halfStagingBytes).
     */
    public static long stagingHalfBytes(final long stagingBytes)
    {
        final long regions = (stagingBytes >= LL_MIN_STAGING_BYTES ? LL_REGION_BYTES : 0) +
            (stagingBytes >= EAGER_MIN_STAGING_BYTES ? EAGER_REGION_BYTES : 0);
        return Math.max(CACHE_LINE, ((stagingBytes - regions) >> 1) & ~(CACHE_LINE - 1));
    }

    private static Map<String, CostFormula> catalog()
    {
        final List<CostFormula> list = new ArrayList<>();
        list.add(new CostFormula("pingpong", "p2p", "α + nβ (one way)", 0, t -> t.pointToPoint(t.bytes())));
        list.add(new CostFormula("reduction", "kernel", "nγ (a = a op b over n bytes)", 0,
            t -> t.reduce(t.bytes())));
        addBarrierAndBroadcast(list);
        addReduceAndAllreduce(list);
        addGatherAndScatter(list);
        addAllgatherAndReduceScatter(list);
        addAlltoall(list);
        addScan(list);
        addLowLatency(list);
        addVectorForms(list);
        return byKey(list);
    }

    /**
     * The vector forms run their plain form's algorithm block by block (RingAllgatherv circulates as RingAllgather,
     * LinearGatherv sends as LinearGather, PairwiseAlltoall serves both, the low-latency allgatherv and
     * reduce-scatterv publish and read as the plain ones), so with equal counts, as the bench runs them, a call costs
     * the plain form's. Their texts say what unequal counts change.
     */
    private static void addVectorForms(final List<CostFormula> list)
    {
        final Map<String, CostFormula> plain = byKey(list);
        for (final String[] form : new String[][] {
            {"gatherv", "gather", "linear", "the root takes the other blocks in turn: their bytes for (p − 1)·n/p"},
            {"scatterv", "scatter", "linear", "the root sends the other blocks in turn: their bytes for (p − 1)·n/p"},
            {"allgatherv", "allgather", "ring", "each step waits for its largest block: n/p is the largest"},
            {"allgatherv", "allgather", "shm_ll", "a rank copies λ times the blocks it reads; n/p the largest block"},
            {"allgatherv", "allgather", "shm_direct", "the chunks are the largest block's: n/p the largest"},
            {"allgatherv", "allgather", "shm_single_copy", "a rank reads the blocks of its peers"},
            {"reduce_scatterv", "reduce_scatter", "ring", "each step waits for its largest block: n/p is the largest"},
            {"reduce_scatterv", "reduce_scatter", "shm_ll", "a rank copies and reduces its own block of each input"},
            {"reduce_scatterv", "reduce_scatter", "shm_direct", "the chunks are the largest block's: n/p the largest"},
            {"reduce_scatterv", "reduce_scatter", "shm_single_copy",
                "a rank reads and reduces its own block of each input"},
            {"alltoallv", "alltoall", "pairwise", "step k waits for the larger of its pair's two blocks"}})
        {
            final CostFormula of = plain.get(form[1] + ":" + form[2]);
            list.add(new CostFormula(form[0], of.algorithm(), of.text() + " with equal counts; else " + form[3],
                of.defaultChunkBytes(), of.capacity(), of.terms()));
        }
    }

    /** {@code formulas} by {@link CostFormula#key()}, in their order. */
    private static Map<String, CostFormula> byKey(final List<CostFormula> formulas)
    {
        final Map<String, CostFormula> map = new LinkedHashMap<>();
        for (final CostFormula formula : formulas)
        {
            map.put(formula.key(), formula);
        }
        return Collections.unmodifiableMap(map);
    }

    private static void addBarrierAndBroadcast(final List<CostFormula> list)
    {
        list.add(new CostFormula("barrier", "dissemination", "lg p·α", 0,
            t -> t.messages(lg(t.ranks()), 1)));
        list.add(new CostFormula("barrier", "shm_flags", "α_f (every rank waits for all flags at once)", 0,
            t -> t.flags(1)));

        list.add(new CostFormula("broadcast", "binomial", "lg p·(α + nβ)", 0,
            t -> treeMessages(t, t.bytes())));
        list.add(new CostFormula("broadcast", "chain", "(p − 2 + C)·(α + (n/C)β), C = ⌈n/s⌉ chunks of s bytes",
            CHAIN_CHUNK_BYTES, t ->
            {
                // the chain's chunks are its messages: C of them pass p − 1 links, pipelined
                final double chunks = Math.max(1.0, Math.ceil((double)t.bytes() / t.chunkBytes()));
                t.messages(t.ranks() - 2 + chunks, t.bytes() / chunks, t.ranks() - 1);
            }));
        list.add(new CostFormula("broadcast", "scatter_allgather",
            "Σ_{k=1..lg p} M(1, n/2^k) + M(p − 1, n/p) ≈ (lg p + p − 1)α + 2n(p − 1)/p·β", 0, t ->
            {
                final int p = t.ranks();
                // step 1: binomial scatter, halving the message at every level
                halvingMessages(t);
                // step 2: ring allgather of the p blocks
                t.messages(p - 1, (double)t.bytes() / p);
            }));
        list.add(new CostFormula("broadcast", "shm_direct",
            "(2K + 1)·α_f + nβ_c + nβ_r, K = ⌈n/min(S/2, 256 KiB)⌉", 0, t ->
        {
            // the chunks' handoffs, and the staging areas' release, which the root waits for before its next call
            final double chunks = Math.max(chunks(t, t.bytes()),
                Math.ceil((double)t.bytes() / DIRECT_BROADCAST_CHUNK_BYTES));
            t.flags(STAGED_HANDOFFS * chunks + 1);
            t.copy(t.bytes());
            t.read(t.bytes());
        }));
        list.add(new CostFormula("broadcast", "shm_single_copy", "2α_f + α_k + nβ_k", 0, t ->
        {
            // the root's token, then every other rank reads its buffer through the kernel at once; the done token
            t.flags(2);
            t.kernelReads(1, t.bytes());
        }));
        list.add(new CostFormula("broadcast", "shm_eager", "2α_f + nβ_c + nβ_r, n ≤ 2 MiB", 0,
            ranks -> EAGER_MAX_BYTES, t ->
        {
            // the stamp, then the payload it guards; a call of several slots reads one while the root fills the next,
            // and the root does not wait for the readers' release
            t.flags(STAGED_HANDOFFS);
            t.copy(t.bytes());
            t.read(t.bytes());
        }));
    }

    private static void addReduceAndAllreduce(final List<CostFormula> list)
    {
        list.add(new CostFormula("reduce", "binomial", "lg p·(α + nβ + nγ)", 0, t ->
        {
            treeMessages(t, t.bytes());
            t.reduce((double)lg(t.ranks()) * t.bytes());
        }));
        list.add(new CostFormula("reduce", "shm_direct", "2K·α_f + nβ_c + (p − 1)n·(β_r + γ), K = ⌈n/(S/2)⌉", 0,
            t -> oneShot(t, false)));
        // the root reads each peer's whole send buffer through the kernel and reduces it
        list.add(new CostFormula("reduce", "shm_single_copy", SINGLE_COPY_REDUCTION, 0,
            CostFormulas::singleCopyReduction));

        list.add(new CostFormula("allreduce", "ring", "2(p − 1)α + 2n(p − 1)/p·β + n(p − 1)/p·γ",
            EXCHANGE_CHUNK_BYTES, t ->
            {
                final int p = t.ranks();
                // reduce-scatter then allgather: 2(p − 1) steps of one block n/p
                t.messages(2.0 * (p - 1), (double)t.bytes() / p);
                t.reduce((double)t.bytes() * (p - 1) / p);
            }));
        list.add(new CostFormula("allreduce", "recursive_doubling",
            "lg q·(α + nβ + nγ), + fold 2(α + nβ) + nγ when p ≠ q", EXCHANGE_CHUNK_BYTES, t ->
            {
                final int q = floorPow2(t.ranks());
                t.messages(lg(q), t.bytes());
                t.reduce((double)lg(q) * t.bytes());
                fold(t, q);
            }));
        list.add(new CostFormula("allreduce", "rabenseifner",
            "Σ_{k=1..lg q} 2·M(1, n/2^k) + n(q − 1)/q·γ ≈ 2 lg p·α + 2n(p − 1)/p·β + n(p − 1)/p·γ, " +
            "+ fold 2(α + nβ) + nγ when p ≠ q", EXCHANGE_CHUNK_BYTES, t ->
            {
                final int q = floorPow2(t.ranks());
                // recursive-halving reduce-scatter and recursive-doubling allgather move the same halves
                for (int k = 1; k <= lg(q); k++)
                {
                    t.messages(2, t.bytes() / Math.pow(2, k));
                }
                t.reduce((double)t.bytes() * (q - 1) / q);
                fold(t, q);
            }));
        list.add(new CostFormula("allreduce", "reduce_broadcast", "2 lg p·(α + nβ) + lg p·nγ", 0, t ->
        {
            treeMessages(t, t.bytes());
            treeMessages(t, t.bytes());
            t.reduce((double)lg(t.ranks()) * t.bytes());
        }));
        list.add(new CostFormula("allreduce", "shm_oneshot", "2K·α_f + nβ_c + (p − 1)n·(β_r + γ), K = ⌈n/(S/2)⌉", 0,
            t -> oneShot(t, true)));
        list.add(new CostFormula("allreduce", "shm_twoshot",
            "4K·α_f + nβ_c + 2n(p − 1)/p·β_r + n(p − 1)/p·γ, K = ⌈n/(S/2)⌉", 0, t ->
            {
                final int p = t.ranks();
                final double others = (double)t.bytes() * (p - 1) / p;
                // stage the p − 1 blocks peers reduce and publish; reduce the own block; copy all reduced blocks
                stagedExchange(t, 2, chunks(t, t.bytes()));
                t.copy(others + (double)t.bytes() / p);
                t.read(2 * others);
                t.reduce(others);
            }));
        // every rank does what a single-copy reduce's root does, all ranks at once
        list.add(new CostFormula("allreduce", "shm_single_copy", SINGLE_COPY_REDUCTION, 0,
            CostFormulas::singleCopyReduction));
        list.add(new CostFormula("allreduce", "shm_single_copy_twoshot",
            "3α_f + (p − 1)·(⌈n/(pR)⌉·α_k + (n/p)β_k) + n(p − 1)/p·γ + (p − 1)·(α_k + (n/p)β_k), R = 256 KiB", 0, t ->
            {
                // a single-copy reduce-scatter, a flag step, then a single-copy allgather of the reduced blocks
                final int p = t.ranks();
                t.flags(3);
                chunkedKernelReads(t, p - 1, (double)t.bytes() / p);
                t.reduce((double)t.bytes() * (p - 1) / p);
                t.kernelReads(p - 1, (double)t.bytes() / p);
            }));
    }

    /** Each peer's whole send buffer read through the kernel in reads of R and reduced: a flag step each way. */
    private static void singleCopyReduction(final CostTerms t)
    {
        final int p = t.ranks();
        t.flags(2);
        chunkedKernelReads(t, p - 1, t.bytes());
        t.reduce((double)(p - 1) * t.bytes());
    }

    private static void addGatherAndScatter(final List<CostFormula> list)
    {
        for (final String collective : new String[] {"gather", "scatter"})
        {
            list.add(new CostFormula(collective, "linear",
                "α + (n/p)β + (p − 2)(n/p)·β_" + (collective.equals("gather") ? "r" : "c") +
                " while n/p fits a ring, else (p − 1)·(α + (n/p)β)", 0, t -> linear(t, collective.equals("gather"))));
            list.add(new CostFormula(collective, "binomial",
                "Σ_{k=1..lg p} M(1, n/2^k) ≈ lg p·α + n(p − 1)/p·β", 0, t -> halvingMessages(t)));
        }
    }

    private static void addAllgatherAndReduceScatter(final List<CostFormula> list)
    {
        list.add(new CostFormula("allgather", "ring", "(p − 1)α + n(p − 1)/p·β", EXCHANGE_CHUNK_BYTES,
            t -> t.messages(t.ranks() - 1, (double)t.bytes() / t.ranks())));
        list.add(new CostFormula("allgather", "recursive_doubling",
            "Σ_{k=0..lg q−1} M(1, 2^k·n/q) ≈ lg p·α + n(p − 1)/p·β, + fold M(1, n/p) + M(1, n) when p ≠ q",
            EXCHANGE_CHUNK_BYTES, t ->
            {
                final int p = t.ranks();
                final int q = floorPow2(p);
                // the data held doubles every step
                for (int k = 0; k < lg(q); k++)
                {
                    t.messages(1, t.bytes() * Math.pow(2, k) / q);
                }
                if (p != q)
                {
                    // the p − q folded ranks send their block in and get everything back
                    t.messages(1, (double)t.bytes() / p, p - q);
                    t.messages(1, t.bytes(), p - q);
                }
            }));
        list.add(new CostFormula("allgather", "bruck",
            "Σ_k M(1, min(2^k, p − 2^k)·n/p) + nβ_c ≈ lg p·α + n(p − 1)/p·β + nβ_c", 0, t ->
            {
                final int p = t.ranks();
                for (int k = 0; k < lg(p); k++)
                {
                    final int blocks = Math.min(1 << k, p - (1 << k));
                    t.messages(1, (double)t.bytes() * blocks / p);
                }
                // the final rotation puts every block at its place
                t.copy(t.bytes());
            }));
        list.add(new CostFormula("allgather", "shm_direct",
            "2K·α_f + 2(n/p)β_c + n(p − 1)/p·β_r, K = ⌈(n/p)/(S/2)⌉", 0, t ->
            {
                final int p = t.ranks();
                stagedExchange(t, 1, chunks(t, (double)t.bytes() / p));
                t.copy(2.0 * t.bytes() / p);
                t.read((double)t.bytes() * (p - 1) / p);
            }));

        list.add(new CostFormula("allgather", "shm_single_copy", "2α_f + (p − 1)·(α_k + (n/p)β_k) + (n/p)β_c", 0,
            t ->
            {
                // every rank reads each peer's block through the kernel straight into recv, all ranks at once
                final int p = t.ranks();
                t.flags(2);
                t.kernelReads(p - 1, (double)t.bytes() / p);
                t.copy((double)t.bytes() / p);
            }));
        list.add(new CostFormula("reduce_scatter", "ring", "(p − 1)α + n(p − 1)/p·(β + γ)", EXCHANGE_CHUNK_BYTES, t ->
        {
            final int p = t.ranks();
            t.messages(p - 1, (double)t.bytes() / p);
            t.reduce((double)t.bytes() * (p - 1) / p);
        }));
        list.add(new CostFormula("reduce_scatter", "recursive_halving",
            "Σ_{k=1..lg q} M(1, n/2^k) + n(q − 1)/q·γ ≈ lg p·α + n(p − 1)/p·(β + γ), " +
            "+ fold M(1, n) + nγ + M(1, n/p) when p ≠ q", EXCHANGE_CHUNK_BYTES, t ->
            {
                final int p = t.ranks();
                final int q = floorPow2(p);
                for (int k = 1; k <= lg(q); k++)
                {
                    t.messages(1, t.bytes() / Math.pow(2, k));
                }
                t.reduce((double)t.bytes() * (q - 1) / q);
                if (p != q)
                {
                    t.messages(1, t.bytes(), p - q);
                    t.reduce(t.bytes());
                    t.messages(1, (double)t.bytes() / p, p - q);
                }
            }));
        list.add(new CostFormula("reduce_scatter", "shm_single_copy",
            "2α_f + (p − 1)·(⌈n/(pR)⌉·α_k + (n/p)β_k) + n(p − 1)/p·γ, R = 256 KiB", 0, t ->
            {
                // rank r reads block r of every peer's send buffer through the kernel in reads of R, all ranks at once
                final int p = t.ranks();
                t.flags(2);
                chunkedKernelReads(t, p - 1, (double)t.bytes() / p);
                t.reduce((double)t.bytes() * (p - 1) / p);
            }));
        list.add(new CostFormula("reduce_scatter", "shm_direct",
            "2K·α_f + n(p − 1)/p·(β_c + β_r + γ), K = ⌈n/(S/2)⌉", 0, t ->
            {
                final double others = (double)t.bytes() * (t.ranks() - 1) / t.ranks();
                stagedExchange(t, 1, chunks(t, t.bytes()));
                t.copy(others);
                t.read(others);
                t.reduce(others);
            }));
    }

    private static void addAlltoall(final List<CostFormula> list)
    {
        list.add(new CostFormula("alltoall", "pairwise", "(p − 1)·(α + (n/p)β)", 0,
            t -> t.messages(t.ranks() - 1, (double)t.bytes() / t.ranks())));
        list.add(new CostFormula("alltoall", "bruck", "lg p·(α + (n/2)β) + (lg p + 2)·nβ_c", 0, t ->
        {
            final int steps = lg(t.ranks());
            // each step sends the blocks whose index has bit k set: about half of them
            t.messages(steps, t.bytes() / 2.0);
            // packing and unpacking at every step, and the two rotations
            t.copy((steps + 2.0) * t.bytes());
        }));
        list.add(new CostFormula("alltoall", "shm_direct", "2K·α_f + nβ_c + n(p − 1)/p·β_r, K = ⌈n/(S/2)⌉", 0, t ->
        {
            final int p = t.ranks();
            stagedExchange(t, 1, chunks(t, t.bytes()));
            t.copy(t.bytes());
            t.read((double)t.bytes() * (p - 1) / p);
        }));
        list.add(new CostFormula("alltoall", "shm_single_copy", "2α_f + (p − 1)·(α_k + (n/p)β_k) + (n/p)β_c", 0,
            t ->
            {
                // every rank reads the block each peer addressed to it through the kernel, all ranks at once
                final int p = t.ranks();
                t.flags(2);
                t.kernelReads(p - 1, (double)t.bytes() / p);
                t.copy((double)t.bytes() / p);
            }));
    }

    /**
     * The low-latency protocol (shm_ll): one handoff, the flag inside the data; payload travels in 64-byte lines of
     * 56 payload bytes (λ = 8/7), written once by its owner and read by each rank that needs it as the lines land,
     * one cross-core transfer per line, which is what a small point-to-point message's β prices (reading staged data
     * at β_r, as the staged algorithms do, made a 1 KiB LL allgather look 40 % cheaper than it measures, and the
     * model kept LL where the staged algorithms are faster at 2 ranks). Each serves at most
     * {@link #LL_MAX_BYTES} per rank: the model never chooses one beyond.
     */
    /**
     * The message-passing scans: the last rank's time, which ends last. The exclusive forms reduce less there: the
     * chain's last rank only receives, and recursive doubling's copies the first partial it receives.
     */
    private static void addScan(final List<CostFormula> list)
    {
        list.add(new CostFormula("scan", "chain", "(p − 2 + C)·(α + (n/C)(β + γ)), C = ⌈n/s⌉ chunks of s bytes",
            CHAIN_SCAN_CHUNK_BYTES, t -> chainScan(t, true)));
        list.add(new CostFormula("exscan", "chain",
            "(p − 2 + C)·(α + (n/C)β) + (p − 3 + C)·(n/C)γ, C = ⌈n/s⌉ chunks of s bytes; no γ at 2 ranks",
            CHAIN_SCAN_CHUNK_BYTES, t -> chainScan(t, false)));
        list.add(new CostFormula("scan", "recursive_doubling", "lg p·(α + nβ) + (2 lg p − 1)·nγ",
            EXCHANGE_CHUNK_BYTES, t -> recursiveDoublingScan(t, 1)));
        list.add(new CostFormula("exscan", "recursive_doubling", "lg p·(α + nβ) + (2 lg p − 2)·nγ",
            EXCHANGE_CHUNK_BYTES, t -> recursiveDoublingScan(t, 2)));
    }

    /** The chain's chunks pass p − 1 links, pipelined as the chain broadcast's; each link reduces before it sends. */
    private static void chainScan(final CostTerms t, final boolean inclusive)
    {
        final double chunks = Math.max(1.0, Math.ceil((double)t.bytes() / t.chunkBytes()));
        final double steps = t.ranks() - 2 + chunks;
        t.messages(steps, t.bytes() / chunks, t.ranks() - 1);
        // an exclusive chain's last rank passes nothing on: one stage less reduces, and none at 2 ranks
        final double reducingSteps = inclusive ? steps : t.ranks() > 2 ? steps - 1 : 0;
        t.reduce(reducingSteps * t.bytes() / chunks);
    }

    /**
     * A swap of partials each step but the last, where the lower half of the ranks send one way; the upper rank folds
     * the partner's partial into its own and into its result, but for the folds it skips: {@code skipped} is 1 (the
     * last step's partial), 2 for the exclusive form, whose first result is a copy.
     */
    private static void recursiveDoublingScan(final CostTerms t, final int skipped)
    {
        final int steps = lg(t.ranks());
        if (steps == 0)
        {
            return;
        }
        t.messages(steps - 1, t.bytes());
        t.messages(1, t.bytes(), t.ranks() / 2.0);
        t.reduce((2.0 * steps - skipped) * t.bytes());
    }

    private static void addLowLatency(final List<CostFormula> list)
    {
        final CostFormula.Capacity perRank = ranks -> LL_MAX_BYTES;
        list.add(new CostFormula("broadcast", "shm_ll", "α_f + λnβ_c + λnβ, λ = 8/7, n ≤ 1 KiB", 0, perRank, t ->
        {
            t.flags(1);
            t.copy(LL_LINE_FACTOR * t.bytes());
            t.carried(LL_LINE_FACTOR * t.bytes());
        }));
        final String oneShotText = "α_f + (1 + λ)nβ_c + λ(p − 1)nβ + (p − 1)nγ, λ = 8/7, n ≤ 1 KiB";
        list.add(new CostFormula("allreduce", "shm_ll", oneShotText, 0, perRank, t -> lowLatencyOneShot(t, 1)));
        // a scan's last rank, which ends last, does what every rank of the allreduce does; an exscan's reduces once less
        list.add(new CostFormula("scan", "shm_ll", oneShotText, 0, perRank, t -> lowLatencyOneShot(t, 1)));
        list.add(new CostFormula("exscan", "shm_ll", "α_f + (1 + λ)nβ_c + λ(p − 1)nβ + (p − 2)nγ, λ = 8/7, n ≤ 1 KiB",
            0, perRank, t -> lowLatencyOneShot(t, 2)));
        list.add(new CostFormula("allgather", "shm_ll", "α_f + (1 + λ)(n/p)β_c + λn(p − 1)/p·β, λ = 8/7, n/p ≤ 1 KiB",
            0, ranks -> LL_MAX_BYTES * ranks, t ->
            {
                final int p = t.ranks();
                t.flags(1);
                t.copy((1 + LL_LINE_FACTOR) * t.bytes() / p);
                t.carried(LL_LINE_FACTOR * t.bytes() * (p - 1) / p);
            }));
        list.add(new CostFormula("reduce_scatter", "shm_ll",
            "α_f + (λn + n/p)β_c + λn(p − 1)/p·β + n(p − 1)/p·γ, λ = 8/7, n ≤ 1 KiB", 0, perRank, t ->
            {
                final int p = t.ranks();
                t.flags(1);
                t.copy(LL_LINE_FACTOR * t.bytes() + (double)t.bytes() / p);
                t.carried(LL_LINE_FACTOR * t.bytes() * (p - 1) / p);
                t.reduce((double)t.bytes() * (p - 1) / p);
            }));
        list.add(new CostFormula("alltoall", "shm_ll", "α_f + (λn + n/p)β_c + λn(p − 1)/p·β, λ = 8/7, n ≤ 1 KiB", 0,
            perRank, t ->
            {
                final int p = t.ranks();
                t.flags(1);
                t.copy(LL_LINE_FACTOR * t.bytes() + (double)t.bytes() / p);
                t.carried(LL_LINE_FACTOR * t.bytes() * (p - 1) / p);
            }));
    }

    /**
     * Publish, copy the own input aside (recv may be send), read the p − 1 peers' LL lines and reduce p − {@code fewer}
     * of the inputs in rank order.
     */
    private static void lowLatencyOneShot(final CostTerms t, final int fewer)
    {
        t.flags(1);
        t.copy((1 + LL_LINE_FACTOR) * t.bytes());
        t.carried(LL_LINE_FACTOR * (t.ranks() - 1) * t.bytes());
        t.reduce((double)t.bytes() * (t.ranks() - fewer));
    }

    /**
     * The zero-copy paths, as the algorithms' classes document them: nothing staged, so no chunks; each rank publishes
     * its buffer (α_f), reads a peer's first line once published (α_f) and waits until the peers are done with its
     * buffer (α_f) before it returns; the broadcast's root also says when it has written the tails (α_f). The v forms
     * as their block forms, at equal counts.
     */
    private static Map<String, CostFormula> zeroCopyCatalog()
    {
        final List<CostFormula> list = new ArrayList<>();
        list.add(new CostFormula("broadcast", "shm_direct", "4α_f + n(p − 1)/p·β_r (shared buffers: the others copy " +
            "the head from the root's buffer while the root writes the tail into theirs)", 0, t ->
            {
                zeroCopyHandoffs(t, 3);
                t.read((double)t.bytes() * (t.ranks() - 1) / t.ranks());
            }));
        list.add(new CostFormula("reduce", "shm_direct", "3α_f + (p − 1)n·(β_r + γ) (shared buffers: the root " +
            "reduces every rank's send buffer in place)", 0,
            t -> zeroCopyReduction(t, (double)t.bytes() * (t.ranks() - 1))));
        list.add(new CostFormula("allreduce", "shm_oneshot", "3α_f + (p − 1)n·(β_r + γ) (shared buffers: every rank " +
            "reduces the send buffers in place)", 0,
            t -> zeroCopyReduction(t, (double)t.bytes() * (t.ranks() - 1))));
        list.add(new CostFormula("allreduce", "shm_twoshot", "3α_f + n(p − 1)/p·(2β_r + γ) + (n/p)β_c (shared " +
            "buffers: each rank reduces its block from the send buffers and writes it into every recv)", 0, t ->
            {
                final int p = t.ranks();
                final double others = (double)t.bytes() * (p - 1) / p;
                zeroCopyHandoffs(t, 2);
                // the peers' blocks read, and the reduced block written into the peers' recv, both across cores
                t.read(2 * others);
                t.reduce(others);
                t.copy((double)t.bytes() / p);
            }));
        for (final String collective : new String[] {"reduce_scatter", "reduce_scatterv"})
        {
            list.add(new CostFormula(collective, "shm_direct", "3α_f + n(p − 1)/p·(β_r + γ) (shared buffers: " +
                "each rank reduces its block from the send buffers in place)", 0,
                t -> zeroCopyReduction(t, (double)t.bytes() * (t.ranks() - 1) / t.ranks())));
        }
        for (final String collective : new String[] {"allgather", "alltoall", "allgatherv"})
        {
            list.add(new CostFormula(collective, "shm_direct", "3α_f + (n/p)β_c + n(p − 1)/p·β_r (shared buffers: " +
                "every rank copies the peers' blocks from their send buffers in place)", 0, t ->
                {
                    final int p = t.ranks();
                    zeroCopyHandoffs(t, 2);
                    t.copy((double)t.bytes() / p);
                    t.read((double)t.bytes() * (p - 1) / p);
                }));
        }
        return byKey(list);
    }

    /** A zero-copy reduction: publish, done, and {@code peerBytes} of the peers' buffers read and reduced in place. */
    private static void zeroCopyReduction(final CostTerms t, final double peerBytes)
    {
        zeroCopyHandoffs(t, 2);
        t.read(peerBytes);
        t.reduce(peerBytes);
    }

    /**
     * The handoffs of a zero-copy path of {@code steps} flags (publish, done, and the broadcast's tails written): and
     * the first line of a peer's buffer, read right after the flag that published it, as a staged step's data.
     */
    private static void zeroCopyHandoffs(final CostTerms t, final int steps)
    {
        t.flags(steps);
        t.handoffs(STAGED_HANDOFFS - 1);
    }

    /**
     * {@code peers} ranges of {@code bytes} read through the kernel in pieces of at most KERNEL_READ_CHUNK_BYTES: a
     * step per peer, a system call per piece.
     */
    private static void chunkedKernelReads(final CostTerms t, final int peers, final double bytes)
    {
        final double pieces = Math.max(1.0, Math.ceil(bytes / KERNEL_READ_CHUNK_BYTES));
        t.kernelReads(peers, bytes);
        t.kernelReadPieces(peers * (pieces - 1));
    }

    /**
     * The handoffs of an exchange through the staging areas (every rank waits for every peer's chunks) of
     * {@code steps} staged steps per chunk: {@link #STAGED_HANDOFFS} α_f per step. Of one chunk, each step is one
     * synchronisation step: the call uses the staging half of its parity and waits for no release of the call
     * before (io.jccl.spi.StagingLedger). Of more, both handoffs count as steps, the second standing for the wait,
     * at the call's start, until every peer has released the call before.
     */
    private static void stagedExchange(final CostTerms t, final int steps, final double chunks)
    {
        if (chunks <= 1.0)
        {
            t.flags(steps);
            t.handoffs((STAGED_HANDOFFS - 1) * steps);
        }
        else
        {
            t.flags(STAGED_HANDOFFS * steps * chunks);
        }
    }

    /**
     * One-shot allreduce and direct reduce: stage the own input, read and reduce all p − 1 others; the allreduce is
     * an exchange ({@link #stagedExchange}), the reduce waits for its root.
     */
    private static void oneShot(final CostTerms t, final boolean exchange)
    {
        final double others = (double)t.bytes() * (t.ranks() - 1);
        if (exchange)
        {
            stagedExchange(t, 1, chunks(t, t.bytes()));
        }
        else
        {
            t.flags(STAGED_HANDOFFS * chunks(t, t.bytes()));
        }
        t.copy(t.bytes());
        t.read(others);
        t.reduce(others);
    }

    /** The fold of recursive allreduce algorithms when p is not a power of two: 2(α + nβ) + nγ. */
    private static void fold(final CostTerms t, final int q)
    {
        if (t.ranks() != q)
        {
            // the p − q folded ranks send their vector in and get the result back
            t.messages(2, t.bytes(), t.ranks() - q);
            t.reduce(t.bytes());
        }
    }

    /**
     * Linear gather and scatter: every peer's channel to or from the root is its own ring, so the p − 1 messages
     * travel at once. While a block fits a ring, a gather's root pays one message's latency and then only copies the
     * other blocks out of their rings (β_r); a scatter's root copies the blocks into their rings one after another
     * (β_c) and the last peer's message completes one latency after its copy. A block larger than a ring streams
     * through it only as fast as the root drains or fills it: p − 1 messages one after another.
     */
    private static void linear(final CostTerms t, final boolean gather)
    {
        final int p = t.ranks();
        final double block = (double)t.bytes() / p;
        if (block > Configuration.RING_BYTES_DEFAULT)
        {
            t.messages(p - 1, block, 1);
            return;
        }
        t.messages(1, block, 1);
        if (gather)
        {
            t.read((p - 2) * block);
        }
        else
        {
            t.copy((p - 2) * block);
        }
    }

    /** Binomial scatter and gather: the root's messages halve from n/2 down to n/p, the tree widening. */
    private static void halvingMessages(final CostTerms t)
    {
        for (int k = 1; k <= lg(t.ranks()); k++)
        {
            t.messages(1, t.bytes() / Math.pow(2, k), treeWidth(t.ranks(), k));
        }
    }

    /** A binomial tree's lg p steps of one {@code bytes} message per edge, the tree widening. */
    private static void treeMessages(final CostTerms t, final double bytes)
    {
        for (int k = 1; k <= lg(t.ranks()); k++)
        {
            t.messages(1, bytes, treeWidth(t.ranks(), k));
        }
    }

    /** Messages in flight at step k (from 1) of a binomial tree over p ranks: 2^(k−1), fewer in a partial level. */
    private static int treeWidth(final int p, final int k)
    {
        final int width = 1 << (k - 1);
        return Math.min(width, p - width);
    }
}
