package io.jccl.algorithms;

import io.jccl.Collective;
import io.jccl.Configuration;
import io.jccl.model.Pace;
import io.jccl.spi.CollectiveAlgorithm;
import io.jccl.spi.CollectiveArgs;
import io.jccl.spi.CollectiveContext;
import io.jccl.spi.StreamingCopy;

import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Chooses the algorithm for each call, in this order:
 * <ol>
 *   <li>a forced one (configuration {@code jccl.algo} / {@code JCCL_ALGO}, or a per-call view of the communicator);
 *       one that cannot serve the call is an error that says why;</li>
 *   <li>{@code shm_direct} for broadcasts, allgathers, alltoalls, reduce-scatters and reduces that it serves
 *       zero-copy, reading the buffers in place in the shared segment ({@link #readsSymmetricInPlace}), from
 *       {@link #ZERO_COPY_MIN_BYTES} (from {@link #OVERSUBSCRIBED_ZERO_COPY_MIN_BYTES} while ranks outnumber cores,
 *       when such calls below {@link #ZERO_COPY_MIN_BYTES} treat their buffers as private memory, as allreduces
 *       do: {@link #readsAllreduceInPlace}), tuning file or not: neither the model nor a tuning file, measured with
 *       private buffers, prices reading in place;</li>
 *   <li>without a tuning file, when messages travel single-copy ({@link CollectiveContext#singleCopyBytes()}), for
 *       broadcast messages of at least {@link #SINGLE_COPY_MIN_MESSAGE_BYTES}, allgather, alltoall and reduce-scatter
 *       blocks of {@link #SINGLE_COPY_MIN_BLOCK_BYTES}, 2-rank allreduces of twice
 *       {@link #SINGLE_COPY_MIN_ALLREDUCE_HALF_BYTES} and 2-rank reduces from {@link #SINGLE_COPY_MIN_REDUCE_BYTES} to
 *       {@link #SINGLE_COPY_REDUCE_MAX_BYTES} and from {@link #PAIR_SINGLE_COPY_REDUCE_AGAIN_BYTES} (binomial below
 *       {@link #PAIR_SLOW_PACE_TREE_REDUCE_END_BYTES} where heap arrays' copies stream:
 *       {@link CollectiveContext#copiesStream()}) while no two ranks share a core, and while they do, at the slow pace
 *       alone and up to {@link #OVERSUBSCRIBED_SLOW_PACE_MAX_RANKS_PER_CORE} ranks a core, broadcasts from
 *       {@link #OVERSUBSCRIBED_BROADCAST_MIN_BYTES} ({@link #OVERSUBSCRIBED_BROADCAST}), reduces from
 *       {@link #OVERSUBSCRIBED_SLOW_PACE_REDUCE_MIN_BYTES} (binomial from
 *       {@link #OVERSUBSCRIBED_SLOW_PACE_TREE_REDUCE_MIN_BYTES} where heap arrays' copies stream), and allreduces,
 *       allgathers, reduce-scatters and alltoalls from blocks of {@link #OVERSUBSCRIBED_ALLREDUCE_MIN_BLOCK_BYTES},
 *       {@link #OVERSUBSCRIBED_ALLGATHER_MIN_BLOCK_BYTES}, {@link #OVERSUBSCRIBED_REDUCE_SCATTER_MIN_BLOCK_BYTES} and
 *       {@link #OVERSUBSCRIBED_SLOW_PACE_ALLTOALL_MIN_BLOCK_BYTES}, and beyond two ranks a core alltoalls from blocks
 *       of {@link #OVERSUBSCRIBED_ALLTOALL_MIN_BLOCK_BYTES} at either pace, the algorithm of
 *       {@link #SINGLE_COPY_PREFERENCES} (for allreduces beyond {@link #SINGLE_COPY_WHOLE_VECTOR_MAX_BYTES}, or
 *       {@link #BETWEEN_PACES_WHOLE_VECTOR_MAX_BYTES} between the machine's paces, and for all of them while ranks
 *       share cores, {@link #SINGLE_COPY_LARGE_ALLREDUCE}): the shipped model's parameters describe the two-copy paths,
 *       and on a machine whose cross-core transfers of freshly written lines are slow (this project's 2-vCPU VMs, half
 *       of the time) the staged algorithms lose up to 6x where one copy out of the sender's own buffer does not. While
 *       every rank has a core the rule gives way at the fast pace, when the communicator's probe finds staging about as
 *       fast as single copy ({@link #followsPace}; the engine's {@code PaceProbe}, which keeps single copy at the fast
 *       pace for calls of 64-256 KiB where it is faster there, and for larger calls where it is well ahead at 512 KiB;
 *       between the paces, heap arrays' copies declined: {@link #declineEveryCopy}): there the staged algorithms took
 *       mostly 0.3-0.9x single copy's time (2 ranks, 2026-12-04: allreduce 8 KiB-8 MiB, allgather, reduce-scatter and
 *       alltoall 32 KiB-8 MiB, reduce 32-512 KiB; PERFORMANCE.md, session 45), where at the slow pace they took 1.2-4x.
 *       While ranks share cores, up to two a core, the rule holds at the slow pace alone (not before the first probe;
 *       at two a core, for allgathers and alltoalls from 512 KiB, at a fast verdict between the paces too, heap arrays'
 *       copies declined: {@code PaceProbe.SHARED_CORES_BETWEEN_PACES_RATIO}), and beyond, alltoall's at either pace. A
 *       rank whose buffers the single-copy algorithm would copy for its peers (a heap array, a call in place) may
 *       decline the call ({@link CollectiveArgs#declinedCopyMaxBytes}; not a 2-rank reduce), and every rank then runs
 *       the choice the rule replaces ({@link #selectAfterDecline});</li>
 *   <li>without a tuning file, binomial for broadcasts from {@link #OVERSUBSCRIBED_BROADCAST_TREE_MIN_BYTES} up to
 *       {@link #OVERSUBSCRIBED_BROADCAST_MAX_BYTES} and reduces
 *       up to {@link #OVERSUBSCRIBED_REDUCE_MAX_BYTES} when ranks outnumber cores, whose eager messages keep a stream
 *       of calls flowing while ranks wait for their cores, and {@code shm_direct} for larger reduces there; and at 2
 *       ranks with a core each binomial for broadcasts from {@link #PAIR_BROADCAST_TREE_MIN_BYTES} and for reduces
 *       up to {@link #PAIR_REDUCE_MAX_BYTES}, where it is one message ({@link #PAIR_TREE_MAX_BYTES}), but at the
 *       fast pace for broadcasts whose message goes single copy, up to
 *       {@link #PAIR_FAST_PACE_STAGED_BROADCAST_MAX_BYTES}, and reduces from
 *       {@link #PAIR_REDUCE_FAST_PACE_STAGED_BYTES} ({@link #pairTreeGivesWay}), and not at the fast pace (nor between
 *       the paces), where a probe reads the pace, for broadcasts below
 *       {@link #PAIR_SLOW_PACE_EAGER_BROADCAST_END_BYTES}, which take {@code shm_eager}
 *       ({@link #pairSlowPaceBroadcast});</li>
 *   <li>without a tuning file, while ranks outnumber cores, the chain for scans and exscans beyond what the
 *       low-latency scan serves ({@link #OVERSUBSCRIBED_SCAN});</li>
 *   <li>without a tuning file, at 2 ranks with a core each, recursive doubling for allreduces of private send buffers
 *       from {@link #PAIR_EXCHANGE_MIN_BYTES} to below {@link #PAIR_EXCHANGE_END_BYTES}: one message each way; and
 *       {@code shm_direct} for allgathers, alltoalls and reduce-scatters from {@link #PAIR_SMALL_STAGED_MIN_BYTES} to
 *       below {@link #PAIR_SMALL_STAGED_END_BYTES} ({@link #pairSmallStaged}), and ring and pairwise for allgathers and
 *       alltoalls from {@link #PAIR_MESSAGES_MIN_BYTES} to below {@link #PAIR_MESSAGES_END_BYTES} that single copy
 *       does not take ({@link #pairMessages});</li>
 *   <li>the tuned choice for the call's size ({@link TunedSelection}: the tuning file's rule, at the machine's pace
 *       of the moment where the file parts the paces, else the cost model's fastest algorithm), when it can serve the
 *       call;</li>
 *   <li>the first algorithm of the collective's preference list that can serve the call (collectives without cost
 *       formulas, gaps in a tuning file, and calls the tuned choice cannot serve: a count that does not split, a
 *       message too large for a staging area, ...).</li>
 * </ol>
 * Allgatherv and reduce-scatterv follow their block forms' rules throughout ({@link #ruledAs}), at the pace the probe
 * gives their block forms. Every rank computes the same choice from the same arguments, so all ranks run the same
 * algorithm.
 */
public final class AlgorithmSelector
{
    /**
     * Fallbacks, best first, by collective, for calls the tuned choice does not serve: shared-memory paths, then the
     * message-passing classics.
     */
    private static final Map<Collective, List<String>> PREFERENCES = new EnumMap<>(Map.ofEntries(
        Map.entry(Collective.BARRIER, List.of("shm_flags", "dissemination")),
        Map.entry(Collective.BROADCAST, List.of("shm_ll", "shm_eager", "shm_direct", "binomial", "chain")),
        Map.entry(Collective.REDUCE, List.of("shm_direct", "binomial")),
        Map.entry(Collective.ALLREDUCE,
            List.of("shm_ll", "shm_oneshot", "shm_twoshot", "ring", "recursive_doubling")),
        Map.entry(Collective.GATHER, List.of("linear", "binomial")),
        Map.entry(Collective.GATHERV, List.of("linear")),
        Map.entry(Collective.SCATTER, List.of("linear", "binomial")),
        Map.entry(Collective.SCATTERV, List.of("linear")),
        Map.entry(Collective.ALLGATHER, List.of("shm_ll", "shm_direct", "ring", "bruck")),
        Map.entry(Collective.ALLGATHERV, List.of("shm_ll", "shm_direct", "ring")),
        Map.entry(Collective.REDUCE_SCATTER, List.of("shm_ll", "shm_direct", "ring", "recursive_halving")),
        Map.entry(Collective.REDUCE_SCATTERV, List.of("shm_ll", "shm_direct", "ring")),
        Map.entry(Collective.ALLTOALL, List.of("shm_ll", "shm_direct", "pairwise", "bruck")),
        Map.entry(Collective.ALLTOALLV, List.of("pairwise")),
        Map.entry(Collective.SCAN, List.of("shm_ll", "recursive_doubling", "chain")),
        Map.entry(Collective.EXSCAN, List.of("shm_ll", "recursive_doubling", "chain"))));

    /**
     * Large messages when every rank takes single-copy messages: algorithms that copy straight out of the peers' own
     * buffers, through the kernel (allgather, reduce-scatter, alltoall, allreduce) or as point-to-point messages, which
     * are single-copy when those buffers are off-heap (broadcast). Only while every rank has a core, but for alltoall
     * ({@link #OVERSUBSCRIBED_ALLTOALL_MIN_BLOCK_BYTES}), and at the slow pace broadcast, allreduce, allgather,
     * reduce-scatter and alltoall ({@link #OVERSUBSCRIBED_ALLREDUCE_MIN_BLOCK_BYTES}): a rendezvous waits for its
     * receiver to run, and with 4 ranks on 2 cores binomial broadcast and pairwise alltoall measured 1.1-2.3x Open MPI
     * from 128 KiB where the staged algorithms measured 0.4-0.8x. Single-copy allreduce (every rank reads every peer's
     * whole vector) only at 2 ranks, where it reads n bytes per rank: at 128 KiB-32 MiB it took 0.9-1.9x two-shot's
     * time while cross-core handoffs were fast and 0.25-0.7x while they were slow; and not with symmetric send buffers,
     * which two-shot already reads in place. Beyond {@link #SINGLE_COPY_WHOLE_VECTOR_MAX_BYTES}, the single-copy
     * two-shot ({@link #SINGLE_COPY_LARGE_ALLREDUCE}), which reads half as much. Allgather and alltoall read every
     * peer's block at once, one kernel call each; a ring or pairwise exchange of single-copy messages took 1.1-1.6x
     * Open MPI at 128 KiB-8 MiB. Reduce-scatter reads its block of every peer's input and reduces it: 0.35-0.85x the
     * staged shm_direct's time at 128 KiB-32 MiB on 2 ranks while handoffs were slow. Reduce, at 2 ranks, where the
     * root reads the peer's vector and reduces it ({@link #SINGLE_COPY_REDUCE_MAX_BYTES}). The gains need send buffers
     * whose lines nobody has just written: with heap arrays (copied for the peers every call) the staged algorithms
     * were as fast or faster, but the choice cannot depend on the buffers, whose kind may differ from rank to rank:
     * where the copy costs most, the rank declines the call instead ({@link #declinedCopyMaxBytes}).
     */
    private static final Map<Collective, String> SINGLE_COPY_PREFERENCES = new EnumMap<>(Map.of(
        Collective.BROADCAST, "binomial",
        Collective.REDUCE, "shm_single_copy",
        Collective.ALLREDUCE, "shm_single_copy",
        Collective.ALLGATHER, "shm_single_copy",
        Collective.REDUCE_SCATTER, "shm_single_copy",
        Collective.ALLTOALL, "shm_single_copy",
        Collective.ALLGATHERV, "shm_single_copy",
        Collective.REDUCE_SCATTERV, "shm_single_copy"));

    /** The single-copy rule's allreduce beyond {@link #SINGLE_COPY_WHOLE_VECTOR_MAX_BYTES}. */
    private static final String SINGLE_COPY_LARGE_ALLREDUCE = "shm_single_copy_twoshot";

    /**
     * Largest allreduce for which the single-copy rule takes {@code shm_single_copy}, every rank reading and reducing
     * the peer's whole vector; beyond, it takes {@code shm_single_copy_twoshot}, each rank reading half of it and then
     * the peer's reduced half, lines the peer has just written. On the Intel VM of 2026-11-24 to 2026-11-27 single copy
     * stayed ahead of two-shot up to 16 MiB: 2 ranks, 2026-11-27, medians of 8 alternating runs, 8 MiB 1.91 ms against
     * 2.05 (0.93x), 16 MiB 4.18 against 4.62 (0.90x); one call at a time (bench --sync), 3 runs, 0.95x and 0.91x; at
     * 32 MiB two-shot is ahead (13.2 against 11.2 ms, 1.18x), its two copies, half a vector each, against the whole
     * vector read and reduced by every rank. On the AMD VM of 2026-12-04 at its slow pace (rows of 2-rank sweeps whose
     * handoff probe read it, 2-3 per size from nine sweeps; PERFORMANCE.md, session 48) the single-copy two-shot took
     * 6.6-9.0 ms at 32 MiB and 12.1-15.8 at 64 MiB, where shm_single_copy took 8.8-11.1 and 17.1-21.5, and the staged
     * two-shot 15.1-19.0 and 33.3-36.6; at 8 and 16 MiB the two single-copy designs were within each other's spread
     * (1.6-2.7 ms and 3.4-5.7), and at 2 MiB the two-shot took 397 µs against 294. Between the paces the line lies
     * lower ({@link #BETWEEN_PACES_WHOLE_VECTOR_MAX_BYTES}).
     */
    private static final long SINGLE_COPY_WHOLE_VECTOR_MAX_BYTES = 16L << 20;

    /**
     * {@link #SINGLE_COPY_WHOLE_VECTOR_MAX_BYTES} for a call between the machine's paces
     * ({@link CollectiveArgs#betweenPaces}), where the lines a peer has just written, which the two-shot's second
     * read takes, cross at a moderate cost, and reducing half the vector pays. 2 ranks, handoffs at 4-7 GB/s: the
     * single-copy two-shot took 0.77-0.89x {@code shm_single_copy}'s time at 2 and 8 MiB (2026-12-06, PERFORMANCE.md
     * session 60) and, on an Intel Xeon with 2 MiB of L2 a core (session 61, {@code perf/Designs.java}, two runs of
     * 50-90 s, medians of the samples' ratios, direct buffers), 0.82 and 0.92x at 1 MiB, 0.80x at 2, 0.75x at 4, 0.66x
     * at 8 and 0.71x at 16; 0.81x at 512 KiB, but 0.97x at 256 KiB and 1.59x at 128 KiB.
     */
    private static final long BETWEEN_PACES_WHOLE_VECTOR_MAX_BYTES = 512 * 1024;

    /**
     * Smallest and largest 2-rank reduce the single-copy rule takes. The VM's two regimes pull opposite ways, and
     * single copy takes the same time in both, as Open MPI's reduce does: 2 ranks, 2026-11-27 (AMD VM), 3-4 sweeps of
     * each regime, µs at 32 KiB / 128 KiB / 512 KiB: single copy 5.3-5.8 / 14.5-17.6 / 60-66 in both; binomial, whose
     * message goes through the ring below 512 KiB and by rendezvous from there, 2.4-3.1 / 6.8-7.6 / 53-56 while
     * handoffs were fast and 12.8-14.4 / 54-56 / 141-188 while they were slow; Open MPI 5.5-5.8 / 15.9-16.9 / 61.5.
     * At 1 MiB each loses by 1.4x in one regime (fast: binomial 99, single copy 138; slow: 124 against 168-174), and
     * from 2 MiB binomial's rendezvous ties with single copy while slow and wins while fast: binomial takes those.
     */
    private static final long SINGLE_COPY_MIN_REDUCE_BYTES = 32 * 1024;

    /** See {@link #SINGLE_COPY_MIN_REDUCE_BYTES}. */
    private static final long SINGLE_COPY_REDUCE_MAX_BYTES = 512 * 1024;

    /**
     * Smallest 2-rank reduce the single-copy rule takes again beyond {@link #SINGLE_COPY_REDUCE_MAX_BYTES}, where it
     * holds (not at the fast pace), instead of binomial ({@link #PAIR_REDUCE_MAX_BYTES}) and {@code shm_direct}. 2
     * ranks, 2026-12-05 (PERFORMANCE.md, session 53), {@code perf/ReduceDesigns.java}, 467 samples at the slow pace by
     * the handoff probe, each design's summed time over the fastest's at each sample, direct buffers / {@code float[]}:
     * {@code shm_single_copy} 1.04 / 1.00x at 4 MiB, 1.05 / 1.01x at 8 MiB, 1.08 / 1.02x at 32 MiB; binomial 1.09 /
     * 1.75x, 1.03 / 1.90x, 1.01 / 1.93x; {@code shm_direct} 2.97 / 1.76x, 2.12 / 1.57x, 1.70 / 1.12x. At 2 MiB single
     * copy took 1.05 / 1.79x (a heap array's copy for the root comes first) and binomial 1.30 / 1.01x: binomial stays.
     * At the fast pace (733 samples) {@code shm_direct} took 1.00-1.02x from 4 MiB, where the rule gives way.
     */
    private static final long PAIR_SINGLE_COPY_REDUCE_AGAIN_BYTES = 4L << 20;

    /**
     * Where heap arrays' large messages go out of a copy that streams past the caches
     * ({@link CollectiveContext#copiesStream()}), the single-copy rule's 2-rank reduces from
     * {@link #PAIR_SINGLE_COPY_REDUCE_AGAIN_BYTES} and below this many bytes take binomial, whose message to the root a
     * heap array sends out of a copy made in streaming pieces, overlapped with the root's reads (PERFORMANCE.md,
     * session 56), where {@code shm_single_copy}'s root waits for the whole copy. 2 ranks, 2026-12-05 (session 57),
     * {@code perf/Designs.java reduce}, three runs of 150-180 s, 261, 1001 and 1049 samples at the slow pace by the
     * probe's verdict, medians of binomial's time over single copy's at each sample, direct buffers / {@code float[]}:
     * 4 MiB 0.84-0.96 / 0.72-0.82x, 5 MiB 1.07 / 0.80x, 6 MiB 0.94-0.97 / 0.77-0.84x, 7 MiB 0.91 / 0.80x, 8 MiB
     * 0.99-1.10 / 0.86-0.96x, 12 MiB 1.06 / 0.99x, 16-64 MiB 1.03-1.09 / 0.96-0.98x: from 8 MiB direct buffers tie or
     * lose, and the heap arrays' gain shrinks.
     * Where copies do not stream a {@code float[]}'s binomial message goes through the ring and took 1.75-1.93x single
     * copy's time at 4-32 MiB (session 53).
     */
    private static final long PAIR_SLOW_PACE_TREE_REDUCE_END_BYTES = 8L << 20;

    /**
     * Largest reduce the 2-rank binomial rule takes ({@link #PAIR_TREE_MAX_BYTES}): beyond it shm_direct stays
     * ahead, at 8 MiB 1.2-1.4 ms against binomial's 1.6-1.9 (8 sweeps of 2026-11-26).
     */
    private static final long PAIR_REDUCE_MAX_BYTES = 4L << 20;

    /**
     * Smallest 2-rank reduce that leaves binomial for shm_direct at the fast pace ({@link #pairTreeGivesWay}). 2 ranks,
     * 2026-12-05, shm_direct's time over binomial's at the fast pace: {@code bench --algo all}, direct buffers,
     * 0.66-0.67 at 2 MiB (3 rows), 0.46-0.53 at 4 MiB (3), 0.31-0.75 at 16-64 MiB (24); {@code perf/HeapArrays.java
     * reduce 12 binomial} (4-5 of 12 rounds at that pace), direct buffers 0.53-0.71 at 2 MiB and 0.38-0.61 at 4-8 MiB,
     * {@code float[]} 0.79-1.04 and 0.49-0.62; at 512 KiB 0.56-1.19 and 0.92-1.65, binomial mostly ahead. At the slow
     * pace binomial stays: at 2-4 MiB it took 0.23-0.60x shm_direct's time on direct buffers and 0.87-1.19x on {@code
     * float[]} (one row 1.96x). Beyond 4 MiB direct buffers would gain as much there (8-64 MiB 0.35-0.67x), but heap
     * arrays, whose message goes through the ring, lose (8 MiB 1.43-1.75x), and the choice cannot see the buffers:
     * shm_direct stays. Between the paces the engine's probe gives these reduces the fast pace at a slow verdict too
     * ({@code PaceProbe.BETWEEN_PACES_STAGED_REDUCE_MIN_BYTES}).
     */
    private static final long PAIR_REDUCE_FAST_PACE_STAGED_BYTES = 2L << 20;

    /**
     * Largest 2-rank broadcast that leaves binomial for the shipped model's staged choice at the fast pace
     * ({@link #pairTreeGivesWay}): {@code shm_eager} up to its eager slots' 2 MiB, and beyond that {@code shm_direct},
     * which lost. 2 ranks, 2026-12-05 (PERFORMANCE.md, session 54), {@code perf/Designs.java broadcast}, 858 samples at
     * the fast pace by the probe's verdict, each design's summed time over the fastest's at each sample, direct
     * buffers / {@code float[]}: binomial 1.07 / 1.03x at 4 MiB, 1.01 / 1.04x at 8 MiB, 1.01 / 1.02x at 16 MiB, 1.00 /
     * 1.03x at 32 MiB, the fastest in 89-99 % of the samples; {@code shm_direct} 1.48 / 2.13x, 1.86 / 2.15x, 1.32 /
     * 1.73x and 1.40 / 1.68x ({@code shm_single_copy} 1.19-4.19x). At 2 MiB {@code shm_eager} took 67.8-71.3 µs in the
     * session's sweeps at the fast pace against binomial's 87.3-88.0.
     */
    private static final long PAIR_FAST_PACE_STAGED_BROADCAST_MAX_BYTES = 2L << 20;

    /**
     * Smallest broadcast message for which the single-copy rule applies, even where point-to-point messages go single
     * copy from fewer bytes: at 32 KiB the staged and eager algorithms measured as fast or faster (2 ranks, median of
     * 3 runs: broadcast 32 KiB shm_eager 2.1 µs against binomial's 3.5, reduce 32 KiB shm_direct 4.4 against 5.6).
     * (At 2 ranks binomial takes every broadcast from {@link #PAIR_BROADCAST_TREE_MIN_BYTES} anyway.)
     */
    private static final long SINGLE_COPY_MIN_MESSAGE_BYTES = 64 * 1024;

    /**
     * Smallest block (a rank's share of the vector) for which allgather, alltoall and reduce-scatter take single
     * copy. Each rank reads its peers' blocks through the kernel, and with no rendezvous per message the reads pay
     * from smaller blocks than point-to-point's 32 KiB: 2 ranks, 32 KiB in blocks of 16 KiB, medians of 3 runs on
     * 2026-11-26 (in parentheses, of 6 sweeps some hours earlier): allgather 3.2 µs against the staged shm_direct's
     * 5.0 (2.6 against 4.8), alltoall 3.2 against 4.7 (2.8 against 4.8), reduce-scatter 3.7 against 5.0 (3.5 against
     * 5.1); blocks of 8 KiB 0.80-0.94x, of 4 KiB 0.98-1.07x, of 2 KiB 1.4-1.6x the staged time. An earlier day had
     * found blocks of 16 KiB mixed (alltoall 1.8 against 2.1, allgather 2.3 against 2.0) and a 64 KiB reduce-scatter
     * slower (6.1 against shm_direct's 4.5): the crossover moves with the machine's state; a tuning file measures it.
     */
    private static final long SINGLE_COPY_MIN_BLOCK_BYTES = 16 * 1024;

    /**
     * Smallest half of a 2-rank allreduce vector for which the single-copy rule applies: each rank reads the peer's
     * half through the kernel into a bounce buffer and reduces it into its recv. Medians of 3 runs on 2026-11-26 (in
     * parentheses, of 6 sweeps some hours earlier), against two-shot, the model's choice: 8 KiB 2.5 µs against 3.0
     * (2.7 against 3.1), 32 KiB 5.2 against 7.5 (6.1 against 8.5), 64 KiB 9.2 against 9.9, 4 KiB 2.0 against 2.1;
     * one call at a time (bench --sync) 8 KiB 2.75 against 3.4 or more, 32 KiB 6.4 against 9.1.
     */
    private static final long SINGLE_COPY_MIN_ALLREDUCE_HALF_BYTES = 4 * 1024;

    /**
     * Beyond {@link #OVERSUBSCRIBED_SLOW_PACE_MAX_RANKS_PER_CORE} ranks a core the single-copy rule serves alltoall
     * alone, from blocks of this size, at either pace, whatever the point-to-point threshold (which the rendezvous's
     * wait for its receiver sets at 256 KiB there). Every rank reads its block of every peer's send buffer in one call,
     * and the staged shm_direct's two copies lost: 8 ranks on 2 cores, blocks of 64 KiB-2 MiB, 0.73-0.89x shm_direct's
     * time (3-4 runs), blocks of 32 KiB 1.15x; allgather, which reads whole blocks too, lost (1.07-1.30x, 256 KiB-16
     * MiB) and reduce-scatter was mixed (0.88-1.35x). Those runs did not tell the paces apart. Up to two ranks a core
     * alltoall follows the pace ({@link #OVERSUBSCRIBED_SLOW_PACE_ALLTOALL_MIN_BLOCK_BYTES}).
     */
    private static final long OVERSUBSCRIBED_ALLTOALL_MIN_BLOCK_BYTES = 64 * 1024;

    /**
     * {@link #OVERSUBSCRIBED_ALLREDUCE_MIN_BLOCK_BYTES} for alltoall, at the slow pace alone: 128 KiB at 4 ranks.
     * {@code perf/PaceVerdicts.java} (shared-cores), one run of 600 s at 4 ranks on 2 cores, 1587 samples
     * (PERFORMANCE.md, session 50): at the slow pace the staged {@code shm_direct} took 2.03x, 2.82x, 3.40x and 2.75x
     * {@code shm_single_copy}'s time at 128 KiB, 512 KiB, 2 and 8 MiB (72 against 36 µs at 128 KiB); at the fast pace
     * 0.67x, 0.55x, 0.74x and 0.89x, where the rule had taken single copy at both paces until then (0.66-0.84x
     * shm_direct's time from 256 KiB in 2026-11 runs that mixed the paces). The probe's verdict matched the larger
     * calls' in 98.2 % of the samples; choosing by it took 1.02-1.08x the time of the right choice at every sample,
     * single copy alone 1.06-1.28x, staged alone 1.62-2.40x. 3 ranks on 2 cores, 300 s, 753 samples: 0.61-0.76x at
     * the fast pace, 1.90-2.73x at the slow one, the probe's verdict matching in 98.4 %. At 4 ranks, a fast verdict
     * between the paces gives alltoalls from 512 KiB the slow pace's choice ({@code PaceProbe}'s
     * {@code SHARED_CORES_BETWEEN_PACES_RATIO}).
     */
    private static final long OVERSUBSCRIBED_SLOW_PACE_ALLTOALL_MIN_BLOCK_BYTES = 32 * 1024;

    /**
     * While ranks outnumber cores (up to {@link #OVERSUBSCRIBED_SLOW_PACE_MAX_RANKS_PER_CORE} a core) the single-copy
     * rule serves allreduces too, at the slow pace alone, from blocks (a rank's share of the vector) of this size: 512
     * KiB at 4 ranks. It takes {@link #SINGLE_COPY_LARGE_ALLREDUCE}: each rank reads its block of every peer's vector,
     * reduces it, and reads the peers' reduced blocks, one kernel call per block, where the staged two-shot copies
     * every block twice through the staging areas. At the fast pace it loses. 4 ranks on 2 cores, 2026-12-04, {@code
     * perf/PaceVerdicts.java} (shared-cores), three runs of 600 s (2904, 2124 and 1871 samples), each sample timing
     * both back to back, split by the verdict of the engine's probe (PERFORMANCE.md, session 49): at the slow pace the
     * staged two-shot took 1.24-1.25x, 1.30-1.36x and 1.43-1.53x the single-copy two-shot's time at 512 KiB, 2 and 8
     * MiB (406-420 against 327-338 µs at 512 KiB), 1.01-1.03x at 128 KiB; at the fast pace 0.44-0.45x, 0.57-0.59x and
     * 0.64-0.69x (87-88 against 196-199 µs at 512 KiB). (MODEL.md session 48's 4-rank rows: the single-copy two-shot
     * 0.59-0.87x the staged two-shot's time at 512 KiB-4 MiB at the slow pace, 1.6-2.3x at the fast one.)
     */
    private static final long OVERSUBSCRIBED_ALLREDUCE_MIN_BLOCK_BYTES = 128 * 1024;

    /**
     * {@link #OVERSUBSCRIBED_ALLREDUCE_MIN_BLOCK_BYTES} for allgather: 128 KiB at 4 ranks. The second and third runs
     * above, at the slow pace: the staged {@code shm_direct} took 1.20-1.22x, 1.61-1.64x, 1.68-1.77x and 1.37-1.38x
     * {@code shm_single_copy}'s time at 128 KiB, 512 KiB, 2 and 8 MiB, 0.57-0.58x at 32 KiB; at the fast pace 0.50x,
     * 0.59x, 0.50-0.51x and 0.73-0.75x.
     */
    private static final long OVERSUBSCRIBED_ALLGATHER_MIN_BLOCK_BYTES = 32 * 1024;

    /**
     * {@link #OVERSUBSCRIBED_ALLREDUCE_MIN_BLOCK_BYTES} for reduce-scatter: 128 KiB at 4 ranks, as allgather's. The
     * second and third runs above, at the slow pace: the staged {@code shm_direct} took 2.16-2.19x and 2.32-2.54x
     * {@code shm_single_copy}'s time at 512 KiB and 2 MiB (266-269 against 123-127 µs at 512 KiB); at the fast pace
     * 0.44-0.45x and 0.54-0.55x. Below 512 KiB, 4 ranks on 2 cores, 2026-12-05 ({@code perf/Designs.java
     * reduce_scatter}, 300 s, 11,859 samples at the slow pace by the probe's verdict; PERFORMANCE.md, session 54),
     * each design's summed time over the faster's at each sample, direct buffers / {@code float[]}: {@code
     * shm_single_copy} 1.02 / 1.16x at 128 KiB and 1.01 / 1.13x at 256 KiB, {@code shm_direct} 1.61 / 1.06x and 1.79
     * / 1.06x (a heap array is copied for the peers first, and copies below 512 KiB do not decline the call);
     * at 64 KiB 1.04 / 1.27x against 1.22 / 1.09x, where staging stays. Choosing by the probe's verdict took 1.016x
     * the faster's time at 128 KiB on direct buffers, where staged alone took 1.42x, and 1.10x on {@code float[]},
     * where staged alone took 1.02x.
     */
    private static final long OVERSUBSCRIBED_REDUCE_SCATTER_MIN_BLOCK_BYTES = 32 * 1024;

    /**
     * The smallest reduce the single-copy rule takes while ranks share cores up to two a core, at the slow pace alone,
     * at every size from there. 4 ranks on 2 cores, six sweeps of every algorithm on direct buffers (MODEL.md, session
     * 52), 4-5 rows per size at the slow pace (the single-copy row's handoff probe at 120 µs or more):
     * {@code shm_direct} took 2.52-3.20x {@code shm_single_copy}'s time at 128 KiB, 2.42-2.73x at 512 KiB and
     * 1.74-2.47x at 2 MiB; binomial 1.22-2.62x, 1.52-1.83x and 1.17-1.58x, and 0.80-1.37x at 32 KiB. At the fast pace
     * {@code shm_direct} took 0.30-0.62x single copy's time. Beyond 2 MiB (PERFORMANCE.md, session 53; 4 ranks, 639
     * samples at the slow pace by the probe's verdict, medians of each sample's ratio), {@code shm_direct} took
     * 1.41-1.57x single copy's time at 4-32 MiB on direct buffers and 1.25-1.41x on {@code float[]}. Binomial, the
     * fastest on direct buffers from 8 MiB (0.74-0.83x single copy's time), took 1.39-1.78x on {@code float[]}, whose
     * point-to-point messages went through the ring; the choice must not depend on a rank's memory, which its peers
     * cannot see, so single copy took them all, until the transport's copy of heap arrays' large messages made
     * binomial the faster on both ({@link #OVERSUBSCRIBED_SLOW_PACE_TREE_REDUCE_MIN_BYTES}). A heap array's copy for
     * peers in the window of declines declines the call, as the other collectives' do: their heap copies of 512
     * KiB-2 MiB lost to staging at 4 ranks.
     */
    private static final long OVERSUBSCRIBED_SLOW_PACE_REDUCE_MIN_BYTES = 128 * 1024;

    /**
     * The smallest reduce for which the single-copy rule, while ranks share cores up to two a core (at the slow pace
     * alone), takes binomial instead of {@code shm_single_copy} where heap arrays' copies stream ({@link
     * CollectiveContext#copiesStream()}): its messages go single copy too, a heap array's out of an off-heap copy,
     * which the transport makes at the slow pace where copies stream, in streaming pieces that its receiver reads as
     * they land (PERFORMANCE.md, sessions 55-56). 4 ranks on 2 cores, 2026-12-05 (session 57), {@code perf/Designs.java
     * reduce}, two runs of 200 s, 856 and 979 samples at the slow pace by the probe's verdict, medians of binomial's
     * time over single copy's at each sample, direct buffers / {@code float[]}: 4 MiB 1.05-1.11 / 0.64-0.65x, 5 MiB
     * 0.75 / 0.68x, 6 MiB 0.75-0.78 / 0.69-0.72x, 8 MiB 0.79 / 0.77x. At 4 MiB the heap arrays' gain outweighs the
     * direct buffers' loss; session 55, before the pieces, had the two tied there on direct buffers (binomial 1.05 and
     * 1.14x the fastest design's summed time, single copy 1.18 and 1.08x), and binomial ahead at 8 and 32 MiB on both
     * (1.00-1.03x against 1.16-1.35x). Three sweeps of every algorithm (MODEL.md, session 55) had binomial at
     * 1.62-1.77x single copy's time at 2 MiB. Without the transport's copy a {@code float[]}'s binomial took 1.46-1.67x
     * single copy's time at 4-32 MiB, which keeps single copy where copies do not stream.
     */
    private static final long OVERSUBSCRIBED_SLOW_PACE_TREE_REDUCE_MIN_BYTES = 4L << 20;

    /**
     * Smallest copy for peers that a rank declines to make in a single-copy rule's call
     * ({@link CollectiveArgs#declinedCopyMinBytes}; the window's top is {@link #declinedCopyMaxBytes}): the peers
     * would read, all at once, lines this rank has just written, which the staged algorithms hand over too, but chunk
     * by chunk as they land. {@code float[]} at the slow pace ({@code perf/HeapArrays.java}; PERFORMANCE.md, session
     * 50), single copy against the staged algorithm, by the bytes a rank copies: 4 ranks on 2 cores (16 rounds),
     * 32-128 KiB 1.01-1.11x the time, 512 KiB 1.02-1.25x (allreduce 524 against 421 µs), 2 MiB 1.33-1.72x
     * (broadcast 1771 against 1029 µs), 4 MiB allreduce 0.9-1.0x, 8 MiB 0.75-0.87x; 2 ranks (4-8 rounds), 32 KiB-512
     * KiB 1.03-1.14x, 2 MiB 1.37-1.44x, 4 and 8 MiB 0.49-0.75x; 8 ranks, alltoall, 512 KiB 1.07x, 2 MiB 1.33x, 4 MiB
     * 1.00x, 8 MiB 0.81x. With direct buffers, which need no copy, single copy took 0.21-0.81x the staged time at the
     * slow pace. A declined call costs a flag's handoff: declined 512 KiB and 2 MiB allreduces and 2 MiB alltoalls
     * took 0.99-1.01x the staged time at 4 ranks.
     */
    private static final long DECLINED_COPY_MIN_BYTES = 512 * 1024;

    /**
     * {@link #DECLINED_COPY_MIN_BYTES} for reduces while ranks share cores: every copy of a reduce the single-copy rule
     * takes there ({@link #OVERSUBSCRIBED_SLOW_PACE_REDUCE_MIN_BYTES}) may decline it, for binomial up to
     * {@link #OVERSUBSCRIBED_REDUCE_MAX_BYTES} and {@code shm_direct} beyond. 4 ranks on 2 cores at the slow pace, the
     * engine's own calls on {@code float[]} ({@code perf/ChosenCalls.java}, each batch timed to the last rank,
     * alternating 45 s runs; PERFORMANCE.md, session 58): declined into binomial, 128 KiB took 42-61 µs against single
     * copy's 120-141, and binomial 0.52-0.94x single copy's time in three comparisons before; declined into
     * {@code shm_direct}, 256 and 384 KiB took 0.83-1.05x. Direct buffers, which need no copy, keep single copy.
     */
    private static final long SHARED_CORES_REDUCE_DECLINED_COPY_MIN_BYTES = 128 * 1024;

    /**
     * Where ranks share cores, a single-copy rule's call goes ahead with copies for peers of this many bytes and more
     * ({@link #declinedCopyMaxBytes}). {@code float[]} allreduces at 4 ranks on 2 cores at the slow pace, the
     * single-copy two-shot against the staged two-shot: 2 MiB 1.44x the time, 3 MiB 1.08x, 3.5 MiB 1.06-1.08x, 4 MiB
     * 1.01-1.05x (PERFORMANCE.md, session 56); 4 MiB 0.9-1.0x and 8 MiB 0.75-0.87x in session 50.
     */
    private static final long SHARED_CORES_DECLINED_COPY_MAX_BYTES = 4L << 20;

    /**
     * The single-copy rule's broadcast while ranks outnumber cores (at the slow pace, up to
     * {@link #OVERSUBSCRIBED_SLOW_PACE_MAX_RANKS_PER_CORE} a core, from
     * {@link #OVERSUBSCRIBED_BROADCAST_MIN_BYTES}): every rank reads the root's buffer through the kernel at once,
     * where binomial, the rule's broadcast while every rank has a core, waits at each level of its tree for a
     * rendezvous with a rank that may not be running.
     */
    private static final String OVERSUBSCRIBED_BROADCAST = "shm_single_copy";

    /**
     * Smallest broadcast of {@link #OVERSUBSCRIBED_BROADCAST}. A third run of the program above, at the slow pace:
     * the shipped model's {@code shm_eager} took 1.21x, 1.64x, 1.53x and 1.57x {@code shm_single_copy}'s time at
     * 32 KiB, 128 KiB, 512 KiB and 2 MiB (62.6 against 38.1 µs at 128 KiB), at the fast pace 0.34-0.45x; the probe's
     * verdict matched theirs in 97.8 % of the samples (1.016x the time of the right choice at every sample; staged
     * alone 1.50x). Beyond, three alternating bench rounds of each at 8 and 32 MiB: {@code shm_single_copy} 2.27-2.28
     * and 10.1-10.9 ms, whatever the pace; {@code shm_direct}, the shipped model's choice there, 1.36-2.07 and 6.4 ms
     * in the rounds at the fast pace and 4.43 and 18.5 in the one at the slow pace.
     */
    private static final long OVERSUBSCRIBED_BROADCAST_MIN_BYTES = 32 * 1024;

    /**
     * The most ranks a core for which the slow pace's rules of {@link #OVERSUBSCRIBED_ALLREDUCE_MIN_BLOCK_BYTES} and
     * the ones after it hold. 8 ranks on 2 cores, the same program, 724 samples over 300 s: at the slow pace the staged
     * two-shot allreduce took 1.07-1.19x the single-copy two-shot's time at 512 KiB-8 MiB, at the fast pace 0.43-0.77x,
     * and the probe's verdict matched those sizes' in 81 % of the samples; the right choice at every sample would have
     * taken 0.89x the staged two-shot's time, against 0.73-0.76x at 4 ranks. 3 ranks on 2 cores, 1046 samples over
     * 300 s of the third run's set: at the slow pace the staged designs took 1.08-1.47x single copy's time for
     * allreduce at 512 KiB-8 MiB, 1.49-2.46x for allgather from 128 KiB, 1.93-1.99x for reduce-scatter and 1.71-2.47x
     * for broadcast from 32 KiB, at the fast pace 0.41-0.89x, and the probe's verdict matched theirs in 98.1-98.6 % of
     * the samples.
     */
    private static final int OVERSUBSCRIBED_SLOW_PACE_MAX_RANKS_PER_CORE = 2;

    /**
     * Reduces up to this size take binomial when ranks outnumber cores (and no measured tuning file says otherwise).
     * Its messages are eager: the root and each inner rank (of a broadcast; the leaves and inner ranks of a reduce)
     * hand a call over and go on, so a stream of calls flows while ranks wait for their cores. shm_direct makes every
     * call wait until every rank has released the staging areas of the call before, which with 4 ranks on 2 cores took
     * 17-27 µs per broadcast from 8 B to 32 KiB, where binomial took 1.3 µs at 2 KiB, 2.9-3.5 at 8 KiB and 14 at 32 KiB
     * (Open MPI 14, 24 and 31). Up to 1 KiB, where the low-latency protocol lets the root run 63 calls ahead, binomial
     * took 0.33-0.55 µs against its 0.31-0.91 at 4 ranks, and 0.39-1.0 against 1.2-2.6 at 8 ranks. A reduce at 4 ranks,
     * 128 B to 16 KiB: binomial 0.56-4.8 µs, shm_direct 3.8-10 (median of 3 runs, 2026-11-24), where the shipped model
     * had chosen shm_direct below 256 B and from 4 to 6.9 KiB. From 32 KiB both took the same; the shipped model prices
     * neither stream. Larger reduces take shm_direct ({@link #OVERSUBSCRIBED_STAGED_REDUCE}).
     */
    private static final long OVERSUBSCRIBED_REDUCE_MAX_BYTES = 128 * 1024;

    /**
     * Reduces above {@link #OVERSUBSCRIBED_REDUCE_MAX_BYTES} take this while ranks outnumber cores (without a tuning
     * file), where the shipped model, which prices neither algorithm's waits for a core, chose binomial. 4 ranks on 2
     * cores, 512 KiB, 2 and 8 MiB, medians of the sweeps of four sessions (3, 6, 6 and 3 sweeps; 2026-11-26 and 27):
     * shm_direct within 1.00-1.08x of the faster of the two at every size in every session, binomial 1.00-1.57x; at 128
     * KiB binomial 1.00x, shm_direct 1.00-1.25x. 8 ranks, one session, 3 runs: shm_direct 0.78-0.92x binomial's time
     * from 128 KiB but at 2 MiB (1.05x); 16-32 MiB, 0.75-0.79x at 4 ranks and 0.60-0.64x at 8.
     */
    private static final String OVERSUBSCRIBED_STAGED_REDUCE = "shm_direct";

    /**
     * Gathers and scatters take this at every size while ranks outnumber cores (without a tuning file), where the
     * shipped model chose binomial at some sizes (4 ranks: 4.8-8 MiB and from 16 MiB; 8 ranks: gathers of 609 KiB-9.5
     * MiB, scatters of 4-8 MiB). A binomial tree's inner ranks forward their subtrees' blocks, one more copy of each,
     * each waiting for its core; linear has every rank hand its block to the root, or take it, once. 2026-12-05,
     * binomial's time over linear's, {@code bench --algo all}: 4 ranks on 2 cores, 64 KiB-256 MiB (1-2 runs), gather
     * 1.12-2.86x, scatter 1.04-2.04x; 8 ranks, 64 KiB-64 MiB (2 runs), gather 1.18-3.62x, scatter 0.98-2.44x, but for
     * one 1 MiB scatter row of 0.41x (2.44x in the other run). The binomial choices also held a subtree's blocks in
     * scratch.
     */
    private static final String OVERSUBSCRIBED_ROOTED_BLOCKS = "linear";

    /**
     * Scans and exscans that the low-latency scan does not serve (beyond 1 KiB a rank) take this while ranks outnumber
     * cores (without a tuning file), where the shipped model, which prices one call's latency, chose recursive doubling
     * up to 128 KiB. A chain's rank waits only for the rank below it, so a stream of calls flows through the ranks
     * while each waits for its core, where recursive doubling's partners wait for each other at every step.
     * 2026-12-07 (PERFORMANCE.md, session 73), {@code bench --algo all}, the chain's time over recursive doubling's,
     * 1.5 KiB-8 MiB: 3 ranks on 2 cores (one run) 0.12-1.05x, 4 ranks (medians of three) 0.11-0.69x, 8 ranks (one
     * run) 0.04-0.62x. One call at a time ({@code bench --sync}, the latency OSU reports), 4 ranks, 2 KiB-2 MiB:
     * 0.37-0.95x, so the rule does not rest on the stream alone.
     */
    private static final String OVERSUBSCRIBED_SCAN = "chain";

    /**
     * Broadcasts up to this size take binomial when ranks outnumber cores (see
     * {@link #OVERSUBSCRIBED_REDUCE_MAX_BYTES}). Beyond, the eager slots (shm_eager, which the model chooses up to its
     * 2 MiB) also let the root run ahead, with one copy in and one out instead of a message per tree edge: 4 ranks on
     * 2 cores, 16 KiB 2.1 µs against binomial's 2.9-3.2, 64 KiB 8 against 12-13.5; 8 ranks, 8 KiB 3.0-3.4 against
     * 4.3-4.6. Up to 4 KiB binomial was as fast or faster (8 ranks, 1 KiB: 1.0-1.3 against 1.5-1.9).
     */
    private static final long OVERSUBSCRIBED_BROADCAST_MAX_BYTES = 8 * 1024;

    /**
     * Smallest broadcast that takes binomial when ranks outnumber cores (up to
     * {@link #OVERSUBSCRIBED_BROADCAST_MAX_BYTES}): below it, where the low-latency protocol's messages of up to 1 KiB
     * serve, {@code shm_ll}. One call at a time (bench --sync), binomial waits for each level of its tree to be
     * scheduled, and took 1.2-4.7 µs at 8-512 B with 4 ranks on 2 cores against shm_ll's 1.0-1.5, and 3.7-8.2 µs
     * with 8 ranks against 1.1-2.8 (two runs each, 2026-11-28). Back to back the two took 0.6-1.6x each other's
     * time, either ahead by turns: 4 ranks, nine sweeps of both paces (MODEL.md, session 24), medians at 8-512 B
     * 0.127-0.649 µs for binomial against 0.133-0.525 for shm_ll; 8 ranks, five runs, 0.20-0.96 against 0.24-0.69
     * (medians per size 0.36-0.47 against 0.30-0.42). Sessions before 2026-11-28 had measured the low-latency
     * protocol at 8 ranks at twice binomial's time back to back (see {@link #OVERSUBSCRIBED_REDUCE_MAX_BYTES}); it no
     * longer is.
     */
    private static final long OVERSUBSCRIBED_BROADCAST_TREE_MIN_BYTES = 1024;

    /**
     * Largest broadcast that takes binomial at 2 ranks with a core each (without a tuning file; reduces up to
     * {@link #PAIR_REDUCE_MAX_BYTES}): there it is one point-to-point message,
     * which the root of a broadcast (the contributor of a reduce) hands over and goes on, eager below the single-copy
     * threshold and single copy above, where shm_ll, shm_eager and shm_direct, the shipped model's choices up to
     * 32 KiB, wait on flags in staging areas. Against those, 2026-11-26, medians of 4 alternating runs: calls back
     * to back, broadcast 128 B-32 KiB 0.47-0.85x the time, reduce 128 B-32 KiB 0.37-0.86x; one call at a time (bench
     * --sync), broadcast up to 2 KiB 0.99-1.10x (within 0.03 µs), 8-32 KiB 0.60-0.90x, reduce 0.85-0.96x. At the
     * fast pace, broadcasts whose message goes single copy leave it ({@link #pairTreeGivesWay}).
     */
    private static final long PAIR_TREE_MAX_BYTES = Long.MAX_VALUE;

    /**
     * Smallest broadcast that takes binomial at 2 ranks with a core each (without a tuning file); up to it the shipped
     * model's choice, {@code shm_ll}, whose flag travels in the line of data (the model takes it to 860 B and
     * {@code shm_eager} beyond). On the AMD EPYC VM of 2026-12-03 (session 37, one pace between its two, `./jccl bench
     * -n 2 --op broadcast --algo all`, medians of 3 alternating runs), binomial took at 1-4 KiB 0.39-0.53x the time of
     * shm_eager back to back (at 2 KiB 0.56x over ten sweeps) and 0.91-1.03x one call at a time (bench --sync); against
     * shm_ll it took 0.60x and 1.04x at 768 B, 0.68x and 1.15x at 512 B, 1.15x and 1.60x at 256 B, so the rule starts
     * above 512 B. (Session 20, on the code and VM of 2026-11-27, had measured shm_ll and shm_eager ahead at
     * 512 B-4 KiB at both of that VM's paces; the eager slots and the channels have changed since.)
     */
    private static final long PAIR_BROADCAST_TREE_MIN_BYTES = 513;

    /**
     * Not at the fast pace (at the slow pace, and before the first probe, in a job whose probe reads the pace), 2-rank
     * broadcasts from {@link #PAIR_BROADCAST_TREE_MIN_BYTES} to below this size take {@code shm_eager} instead of
     * binomial. 2 ranks, 2026-12-05 (PERFORMANCE.md, session 53), broadcasts back to back, 18,873 and 3,959 samples at
     * the slow pace by the probe's verdict, each design's summed time over the fastest design's at each sample, direct
     * buffers / {@code float[]}:
     * binomial 1.59 / 1.63x at 1 KiB, 1.43 / 1.62x at 2 KiB, 1.43 / 1.37x at 4 KiB, 1.42 / 1.39x at 8 KiB, the
     * fastest in at most 5 % of the samples; {@code shm_eager} 1.01 / 1.03x, 1.01 / 1.02x, 1.18 / 1.13x, 1.29 /
     * 1.32x; {@code shm_direct} 1.43 / 1.56x, 1.31 / 1.48x, 1.06 / 1.14x, 1.11 / 1.09x. At 16 KiB binomial took 2.00x
     * on direct buffers ({@code shm_single_copy} 1.00x) but 1.03x on {@code float[]} ({@code shm_single_copy} 1.29x).
     * At the fast pace binomial took 1.14-1.19x at 1 KiB ({@code shm_eager} 1.47-1.54x), 1.30-1.41x at 2-4 KiB
     * ({@code shm_eager} 1.17-1.30x, {@code shm_direct} 1.06-1.55x) and 1.01-1.09x at 8-16 KiB: it keeps them.
     * In the engine's own calls (PERFORMANCE.md, session 58, {@code perf/ChosenCalls.java}, calls back to back, two
     * alternating pairs of 45 s runs per comparison, medians of rank 0's time at the slow pace) {@code shm_eager} took
     * 0.67-0.69x binomial's time at 1 KiB and 0.71-0.75x at 2 KiB, and 0.75-0.79x {@code shm_direct}'s at 4 KiB,
     * 0.88-0.90x at 6 KiB and 0.72-1.07x at 8 KiB; {@code shm_direct} and binomial were within 0.90-1.08x of each
     * other at 4-12 KiB, where session 53's rule had taken {@code shm_direct} (from 4 KiB). This rule against that
     * one, each batch of calls timed until every rank had finished it: 0.78-0.85x the time at 4 KiB, 0.90-1.07x at
     * 8 KiB and 0.63-0.93x at 12 KiB (binomial), the same at 2 KiB. Between the machine's paces these broadcasts
     * take the fast pace's choice ({@code PaceProbe.BETWEEN_PACES_TREE_BROADCAST_END_BYTES}).
     */
    public static final long PAIR_SLOW_PACE_EAGER_BROADCAST_END_BYTES = 12 * 1024;

    /**
     * Smallest call (bytes of the whole vector) that takes {@code shm_direct} when it reads the call's buffers in place
     * in the shared segment ({@link #readsSymmetricInPlace}) and every rank has a core. 2 ranks, buffers from
     * allocateShared (two runs each, 2026-11-25): broadcast 4-128 KiB 0.32-3.6 µs against shm_eager's 0.50-7.9 and
     * binomial's 0.36-5.9, even at 2 KiB; from 128 KiB to 32 MiB allgather 0.5-0.77x and alltoall 0.5-0.87x the
     * single-copy time, broadcast 0.44-0.72x binomial's at 128-512 KiB (1.38x at 2 MiB, 0.93-1.02x at 8-32 MiB).
     */
    private static final long ZERO_COPY_MIN_BYTES = 4 * 1024;

    /**
     * {@link #ZERO_COPY_MIN_BYTES} while ranks outnumber cores, where a zero-copy root waits for every reader to be
     * scheduled: 4 ranks on 2 cores, broadcast 2-32 KiB 3.5-6.2 µs against shm_eager's 0.9-4.6, 128 KiB 9.8-11.3
     * against 14.8-15.5, 8 MiB 0.94-0.96 ms against binomial's 2.6-4.2; allgather and alltoall 0.4-0.8x the
     * single-copy time from 128 KiB. Calls below {@link #ZERO_COPY_MIN_BYTES} then treat their symmetric buffers as
     * private memory, since zero-copy makes every rank wait until all have read: allgather and alltoall at 512 B took
     * 2.1-2.5 µs staged against 4.5-4.6 in place (medians of 3 alternating runs; from 2 to 32 KiB the two were within
     * the noise, 0.64-1.27x).
     */
    private static final long OVERSUBSCRIBED_ZERO_COPY_MIN_BYTES = 128 * 1024;

    /**
     * 2-rank allreduces from this size up to {@link #PAIR_EXCHANGE_END_BYTES} (where the single-copy rule starts, at
     * its default) take recursive doubling while both ranks have a core (without a tuning file, on private send
     * buffers): one message each way through the channel's ring, which the receiver copies out and reduces record by
     * record as the sender writes them, where one-shot waits for the peer's whole vector in its staging area before
     * reading any of it. One call at a time (bench --sync), 2026-11-27, medians of 9 alternating runs: 2 KiB 1.42 µs
     * against one-shot's 1.68 (0.85x), 4 KiB 1.94 against 2.56 (0.76x); back to back, where one-shot's calls overlap,
     * 0.99x and 0.97x. At 1 KiB one-shot is as fast one call at a time (1.08 against 1.12) and faster back to back
     * (0.89 against 1.00); at 8 KiB single copy is ahead (2.79 against 2.97).
     */
    private static final long PAIR_EXCHANGE_MIN_BYTES = 2 * 1024;
    private static final long PAIR_EXCHANGE_END_BYTES = 8 * 1024;

    /**
     * 2-rank allgathers, alltoalls and reduce-scatters from this size up to {@link #PAIR_SMALL_STAGED_END_BYTES} take
     * {@code shm_direct} while both ranks have a core (without a tuning file), where the shipped model keeps
     * {@code shm_ll} to 724 B (alltoall, reduce-scatter) and 861 B (allgather): the low-latency lines carry 8 bytes of
     * flag in every 64 and are written and read a line at a time, where {@code shm_direct} copies the block with one
     * flag. 2 ranks, 2026-12-05 (PERFORMANCE.md, session 54), seven runs of {@code bench --algo all} or {@code --algo
     * shm_ll,shm_direct} back to back, {@code shm_direct}'s time over {@code shm_ll}'s in each run at 512 B, at the
     * fast pace / the slow one: allgather 0.88-0.94 (2 runs) / 0.79-0.94 (5), alltoall 0.97 (1) / 0.75-0.82 (6),
     * reduce-scatter 0.82 (2) / 0.89-1.05 (5); at 256 B, four runs at the slow pace, 0.93-0.99, 0.89-1.06 and
     * 0.99-1.11: the model's choice stays below 512 B.
     */
    private static final long PAIR_SMALL_STAGED_MIN_BYTES = 512;
    private static final long PAIR_SMALL_STAGED_END_BYTES = 1024;

    /**
     * 2-rank allgathers and alltoalls from this size to below {@link #PAIR_MESSAGES_END_BYTES}, where the single-copy
     * rule does not take them (at the fast pace, below its blocks of {@link #SINGLE_COPY_MIN_BLOCK_BYTES}, or without
     * single copy), take ring and pairwise while both ranks have a core (without a tuning file): one point-to-point
     * message each way, handed over eagerly, where {@code shm_direct}, the shipped model's choice, waits for both
     * ranks to have released the staging areas of the call before. 2 ranks, 2026-12-05 (PERFORMANCE.md, session 54):
     * {@code perf/Designs.java}, bursts of four calls, 112,927 (allgather) and 43,229 (alltoall) samples at the fast
     * pace, each design's summed time over the fastest's at 16, 32 and 48 KiB, direct buffers and {@code float[]}:
     * ring and pairwise 1.02-1.05x, the fastest in 97-99 % of the samples, {@code shm_direct} 1.56-1.95x; at the slow
     * pace at 16 KiB ring 1.31x and 1.04x, {@code shm_direct} 1.49x and 1.18x. Calls back to back ({@code bench}, 2-4
     * runs per collective and size at the fast pace): ring and pairwise took 0.70-0.91x {@code shm_direct}'s time at
     * 16 and 32 KiB, and 0.91-1.53x at 8 KiB, where the model's choice stays. From 64 KiB the probe's band comparison
     * decides.
     */
    private static final long PAIR_MESSAGES_MIN_BYTES = 16 * 1024;
    private static final long PAIR_MESSAGES_END_BYTES = 64 * 1024;

    /** Above this size, two-shot allreduce beats one-shot: one-shot reads p times the vector on every rank. */
    private static final long ONESHOT_MAX_BYTES = 64 * 1024;

    private final AlgorithmRegistry registry;
    private final TunedSelection tuned;
    private final Map<Collective, CollectiveAlgorithm> forced = new EnumMap<>(Collective.class);
    /** Per collective (by ordinal): the preferred algorithms first, then the rest of the registry's. */
    private final CollectiveAlgorithm[][] candidates;
    /** Skipped by the defaults above {@link #ONESHOT_MAX_BYTES}; null when not registered. */
    private final CollectiveAlgorithm oneShot;
    /** Per collective (by ordinal): binomial broadcast and reduce, up to {@link #treeMaxBytes}. */
    private final CollectiveAlgorithm[] binomialTree;
    /** Reduce above {@link #OVERSUBSCRIBED_REDUCE_MAX_BYTES} while ranks outnumber cores; null when not registered. */
    private final CollectiveAlgorithm stagedReduce;
    /** Per collective (by ordinal): gather and scatter while ranks outnumber cores; see OVERSUBSCRIBED_ROOTED_BLOCKS. */
    private final CollectiveAlgorithm[] oversubscribedLinear;
    /** {@link #OVERSUBSCRIBED_SCAN} of scan and exscan, by collective. */
    private final CollectiveAlgorithm[] oversubscribedScan;
    /** The low-latency scan, which the oversubscribed rule leaves the calls it serves. */
    private final CollectiveAlgorithm[] lowLatencyScan;
    /** Recursive doubling allreduce, for 2 ranks from {@link #PAIR_EXCHANGE_MIN_BYTES}; null when not registered. */
    private final CollectiveAlgorithm pairExchange;
    /** Per collective (by ordinal): shm_direct where {@link #readsSymmetricInPlace} can hold, else null. */
    private final CollectiveAlgorithm[] zeroCopy;
    /** Per collective (by ordinal): the algorithm for single-copy messages, or null. */
    private final CollectiveAlgorithm[] singleCopy;
    /** {@link #SINGLE_COPY_LARGE_ALLREDUCE}; null when not registered. */
    private final CollectiveAlgorithm singleCopyLargeAllreduce;
    /** {@link #OVERSUBSCRIBED_BROADCAST}; null when not registered. */
    private final CollectiveAlgorithm oversubscribedBroadcast;
    /** shm_eager broadcast ({@link #pairSlowPaceBroadcast}); null when not registered. */
    private final CollectiveAlgorithm eagerBroadcast;
    /** Per collective (by ordinal): ring allgather, pairwise alltoall ({@link #PAIR_MESSAGES_MIN_BYTES}), or null. */
    private final CollectiveAlgorithm[] blockMessages;
    /** Ranks beyond this share cores: those all the job's ranks may use together, the same on each. */
    private final int cores;

    /**
     * @param registry   the algorithms.
     * @param forcedSpec forced algorithms ({@code "allreduce:ring,broadcast:binomial"}), or null.
     * @param tuned      the tuned choices at this communicator's rank count.
     */
    public AlgorithmSelector(final AlgorithmRegistry registry, final String forcedSpec, final TunedSelection tuned)
    {
        this(registry, forcedSpec, tuned, Runtime.getRuntime().availableProcessors());
    }

    /**
     * @param cores the cores the job's ranks share (the transport's count, {@code ShmTransport.cores()}): ranks
     *              beyond them wait for a core, which several rules below depend on.
     */
    public AlgorithmSelector(
        final AlgorithmRegistry registry, final String forcedSpec, final TunedSelection tuned, final int cores)
    {
        this.registry = registry;
        this.tuned = tuned;
        this.candidates = candidates(registry);
        this.oneShot = registry.of(Collective.ALLREDUCE).get("shm_oneshot");
        this.pairExchange = registry.of(Collective.ALLREDUCE).get("recursive_doubling");
        this.stagedReduce = registry.of(Collective.REDUCE).get(OVERSUBSCRIBED_STAGED_REDUCE);
        this.binomialTree = new CollectiveAlgorithm[Collective.values().length];
        for (final Collective collective : new Collective[] {Collective.BROADCAST, Collective.REDUCE})
        {
            binomialTree[collective.ordinal()] = registry.of(collective).get("binomial");
        }
        this.oversubscribedLinear = new CollectiveAlgorithm[Collective.values().length];
        for (final Collective collective : new Collective[] {Collective.GATHER, Collective.SCATTER})
        {
            oversubscribedLinear[collective.ordinal()] = registry.of(collective).get(OVERSUBSCRIBED_ROOTED_BLOCKS);
        }
        this.oversubscribedScan = new CollectiveAlgorithm[Collective.values().length];
        this.lowLatencyScan = new CollectiveAlgorithm[Collective.values().length];
        for (final Collective collective : new Collective[] {Collective.SCAN, Collective.EXSCAN})
        {
            oversubscribedScan[collective.ordinal()] = registry.of(collective).get(OVERSUBSCRIBED_SCAN);
            lowLatencyScan[collective.ordinal()] = registry.of(collective).get("shm_ll");
        }
        this.cores = cores;
        this.zeroCopy = new CollectiveAlgorithm[Collective.values().length];
        for (final Collective collective : new Collective[] {Collective.BROADCAST, Collective.ALLGATHER,
            Collective.ALLTOALL, Collective.REDUCE_SCATTER, Collective.REDUCE, Collective.ALLGATHERV,
            Collective.REDUCE_SCATTERV})
        {
            zeroCopy[collective.ordinal()] = registry.of(collective).get("shm_direct");
        }
        this.singleCopy = new CollectiveAlgorithm[Collective.values().length];
        SINGLE_COPY_PREFERENCES.forEach((c, name) -> singleCopy[c.ordinal()] = registry.of(c).get(name));
        this.singleCopyLargeAllreduce = registry.of(Collective.ALLREDUCE).get(SINGLE_COPY_LARGE_ALLREDUCE);
        this.oversubscribedBroadcast = registry.of(Collective.BROADCAST).get(OVERSUBSCRIBED_BROADCAST);
        this.eagerBroadcast = registry.of(Collective.BROADCAST).get("shm_eager");
        this.blockMessages = new CollectiveAlgorithm[Collective.values().length];
        blockMessages[Collective.ALLGATHER.ordinal()] = registry.of(Collective.ALLGATHER).get("ring");
        blockMessages[Collective.ALLTOALL.ordinal()] = registry.of(Collective.ALLTOALL).get("pairwise");
        blockMessages[Collective.ALLGATHERV.ordinal()] = registry.of(Collective.ALLGATHERV).get("ring");
        if (forcedSpec != null && !forcedSpec.isBlank())
        {
            parse(forcedSpec);
        }
    }

    private static CollectiveAlgorithm[][] candidates(final AlgorithmRegistry registry)
    {
        final Collective[] collectives = Collective.values();
        final CollectiveAlgorithm[][] result = new CollectiveAlgorithm[collectives.length][];
        for (final Collective c : collectives)
        {
            final Map<String, CollectiveAlgorithm> byName = registry.of(c);
            final java.util.LinkedHashSet<CollectiveAlgorithm> ordered = new java.util.LinkedHashSet<>();
            for (final String name : PREFERENCES.get(c))
            {
                if (byName.containsKey(name))
                {
                    ordered.add(byName.get(name));
                }
            }
            ordered.addAll(byName.values());
            result[c.ordinal()] = ordered.toArray(new CollectiveAlgorithm[0]);
        }
        return result;
    }

    /**
     * Parses {@code "allreduce:ring,broadcast:binomial"}; a bare name ({@code "ring"}) applies to every collective
     * that has an algorithm of that name.
     */
    private void parse(final String spec)
    {
        for (final String part : spec.split(","))
        {
            final String item = part.trim().toLowerCase(Locale.ROOT);
            if (item.isEmpty())
            {
                continue;
            }
            final int colon = item.indexOf(':');
            if (colon >= 0)
            {
                final Collective collective = Collective.parse(item.substring(0, colon));
                forced.put(collective, registry.find(collective, item.substring(colon + 1).trim()));
            }
            else
            {
                boolean any = false;
                for (final Collective c : Collective.values())
                {
                    final CollectiveAlgorithm algorithm = registry.of(c).get(item);
                    if (algorithm != null)
                    {
                        forced.put(c, algorithm);
                        any = true;
                    }
                }
                if (!any)
                {
                    throw new IllegalArgumentException("no collective has an algorithm named '" + item + "'");
                }
            }
        }
    }

    /** This selector with more forced choices on top. */
    public AlgorithmSelector with(final String forcedSpec)
    {
        final AlgorithmSelector copy = new AlgorithmSelector(registry, null, tuned, cores);
        copy.forced.putAll(forced);
        copy.parse(forcedSpec);
        return copy;
    }

    public CollectiveAlgorithm forced(final Collective collective)
    {
        return forced.get(collective);
    }

    /**
     * The forced choices as "collective:algorithm" in the collectives' order, comma-separated; null when none. The same
     * for every spelling of one set of choices (order, case, a bare algorithm name for every collective that has it).
     */
    public String describeForced()
    {
        if (forced.isEmpty())
        {
            return null;
        }
        final StringBuilder text = new StringBuilder();
        forced.forEach((collective, algorithm) -> text.append(text.isEmpty() ? "" : ",").append(collective.label())
            .append(':').append(algorithm.name()));
        return text.toString();
    }

    /** The tuned choices this selector consults. */
    public TunedSelection tuned()
    {
        return tuned;
    }

    public CollectiveAlgorithm select(final CollectiveArgs args, final CollectiveContext context, final long bytes)
    {
        return select(args, context, bytes, null);
    }

    /**
     * The algorithm for a call, with the tuned choices of {@code pace} (null: those for both paces) where the tuning
     * file parts them; every rank must pass the same pace for the same call.
     */
    public CollectiveAlgorithm select(
        final CollectiveArgs args, final CollectiveContext context, final long bytes, final Pace pace)
    {
        return select(args, context, bytes, pace, true);
    }

    /**
     * The top of the window of copies for peers for which a single-copy rule's call is declined
     * ({@link CollectiveArgs#declinedCopyMaxBytes}; the window starts at {@link #DECLINED_COPY_MIN_BYTES}): a copy of
     * 2.5 MB or more streams past the caches where the JVM's copies do ({@link StreamingCopy}), and the peers read it
     * from memory at memory speed. {@code float[]} allreduces at 2 ranks at the slow pace ({@code perf/Designs.java},
     * PERFORMANCE.md, session 56), single copy against the staged two-shot: 2 MiB 1.36-1.63x the time, 3 MiB
     * 0.70-0.72x, 3.5 MiB 0.71-0.74x, 4 MiB 0.71-0.75x, 8 MiB 0.76-0.78x. Where ranks share cores the copy needs more
     * ({@link #SHARED_CORES_DECLINED_COPY_MAX_BYTES}). Where no copy streams ({@code -XX:MaxVectorSize=32}) single copy
     * lost at every size: 2 ranks 1.33-1.80x at 2-8 MiB, 4 ranks 1.14-1.38x at 3-8 MiB, so every copy from 512 KiB
     * declines (up to {@link CollectiveArgs#maxCopyBytes}).
     */
    static long declinedCopyMaxBytes(final boolean sharedCores)
    {
        if (!StreamingCopy.available())
        {
            return Long.MAX_VALUE;
        }
        return sharedCores ? SHARED_CORES_DECLINED_COPY_MAX_BYTES : StreamingCopy.MIN_BYTES;
    }

    /**
     * Widens the window of copies for peers that decline a call the single-copy rule took (one whose
     * {@link CollectiveArgs#declinedCopyMaxBytes} is set) to every copy. For the calls between the machine's paces
     * ({@link CollectiveArgs#betweenPaces}): there the staged designs lose less than a heap array's copy costs. 2
     * ranks, handoffs at 4-7 GB/s, {@code float[]}, single copy's time over the staged design's
     * ({@code perf/Designs.java}): 2026-12-06 (PERFORMANCE.md, session 60) 512 KiB 0.98-1.20x (allgather, alltoall,
     * allreduce, reduce-scatter), 2 MiB 0.88x (allgather) and 1.29-1.46x (the others), 8 MiB 1.23-1.50x, where on
     * direct buffers single copy took 0.51-0.77x from 2 MiB; an Intel Xeon (session 61), the staged designs over single
     * copy's, allgather 4 and 8 MiB 0.75 and 0.65x, allreduce 1-16 MiB 0.47-0.75x (0.55-0.70x against the single-copy
     * two-shot).
     */
    private static void declineEveryCopy(final CollectiveArgs args)
    {
        if (args.declinedCopyMaxBytes != 0)
        {
            args.declinedCopyMinBytes = 0;
            args.declinedCopyMaxBytes = Long.MAX_VALUE;
        }
    }

    /**
     * The algorithm for a call whose single-copy algorithm declined it ({@link CollectiveArgs#declined}): the choice
     * of {@link #select} with the single-copy rule aside.
     */
    public CollectiveAlgorithm selectAfterDecline(
        final CollectiveArgs args, final CollectiveContext context, final long bytes, final Pace pace)
    {
        args.declined = false;
        args.declinedCopyMaxBytes = 0;
        return select(args, context, bytes, pace, false);
    }

    private CollectiveAlgorithm select(final CollectiveArgs args, final CollectiveContext context, final long bytes,
        final Pace pace, final boolean singleCopyRule)
    {
        final CollectiveAlgorithm chosen = forced.get(args.collective);
        if (chosen != null)
        {
            final String reason = chosen.unsupportedReason(args, context.size(), context);
            if (reason != null)
            {
                throw new IllegalArgumentException(args.collective.label() + ":" + chosen.name() +
                    " cannot serve this call: " + reason);
            }
            return chosen;
        }
        final int size = context.size();
        final CollectiveAlgorithm zeroCopyChoice = zeroCopy[args.collective.ordinal()];
        final boolean directInPlace = zeroCopyChoice != null && readsSymmetricInPlace(args);
        if (directInPlace && bytes >= (size > cores ? OVERSUBSCRIBED_ZERO_COPY_MIN_BYTES : ZERO_COPY_MIN_BYTES) &&
            zeroCopyChoice.unsupportedReason(args, size, context) == null)
        {
            return zeroCopyChoice;
        }
        if (size > cores && bytes < ZERO_COPY_MIN_BYTES && (directInPlace || readsAllreduceInPlace(args)))
        {
            // small calls while ranks share cores: the buffers as private memory, so that shm_direct and the one-
            // and two-shot allreduces stage them rather than make every rank wait until all have been scheduled and
            // have read in place
            args.sendSegmentOffset = -1;
            args.recvSegmentOffset = -1;
        }
        final CollectiveAlgorithm singleCopyChoice = singleCopyChoice(args.collective, size, bytes,
            context.copiesStream(), args.betweenPaces);
        final long singleCopyBytes = context.singleCopyBytes();
        if (singleCopyRule && singleCopyChoice != null && singleCopyBytes > 0 && !tuned.measured() &&
            singleCopyApplies(args.collective, size) && singleCopyHoldsAt(pace, size) &&
            (args.collective != Collective.ALLREDUCE || args.sendSegmentOffset < 0) &&
            singleCopyTakesSize(args.collective, size, bytes) &&
            messageBytes(args.collective, bytes, size) >= minMessageBytes(args.collective, size, singleCopyBytes) &&
            singleCopyChoice.unsupportedReason(args, size, context) == null)
        {
            // a rank whose buffers must be copied for its peers may decline the call (measured for every collective
            // of the rule but the 2-rank reduce; ranks that share cores decline a reduce's copies from the rule's
            // smallest)
            args.declinedCopyMaxBytes = args.collective != Collective.REDUCE || size > cores ?
                declinedCopyMaxBytes(size > cores) : 0;
            args.declinedCopyMinBytes = args.collective == Collective.REDUCE && size > cores ?
                SHARED_CORES_REDUCE_DECLINED_COPY_MIN_BYTES : DECLINED_COPY_MIN_BYTES;
            if (args.betweenPaces)
            {
                declineEveryCopy(args);
            }
            return singleCopyChoice;
        }
        final CollectiveAlgorithm pairBroadcast = pairSlowPaceBroadcast(args.collective, size, bytes, singleCopyBytes,
            pace);
        if (pairBroadcast != null && pairBroadcast.unsupportedReason(args, size, context) == null)
        {
            return pairBroadcast;
        }
        final CollectiveAlgorithm tree = binomialTree[args.collective.ordinal()];
        if (tree != null && !tuned.measured() && bytes >= treeMinBytes(args.collective, size) &&
            bytes <= treeMaxBytes(args.collective, size) &&
            !pairTreeGivesWay(args.collective, size, bytes, singleCopyBytes, pace) &&
            tree.unsupportedReason(args, size, context) == null)
        {
            return tree;
        }
        if (args.collective == Collective.REDUCE && stagedReduceApplies(size) &&
            bytes > OVERSUBSCRIBED_REDUCE_MAX_BYTES && stagedReduce.unsupportedReason(args, size, context) == null)
        {
            return stagedReduce;
        }
        final CollectiveAlgorithm linear = oversubscribedLinear[args.collective.ordinal()];
        if (linear != null && size > cores && !tuned.measured() &&
            linear.unsupportedReason(args, size, context) == null)
        {
            return linear;
        }
        final CollectiveAlgorithm chain = oversubscribedScan[args.collective.ordinal()];
        if (chain != null && size > cores && !tuned.measured() &&
            !lowLatencyScan[args.collective.ordinal()].supports(args, size, context) &&
            chain.unsupportedReason(args, size, context) == null)
        {
            return chain;
        }
        if (args.collective == Collective.ALLREDUCE && pairExchangeApplies(size) && args.sendSegmentOffset < 0 &&
            bytes >= PAIR_EXCHANGE_MIN_BYTES && bytes < PAIR_EXCHANGE_END_BYTES &&
            pairExchange.unsupportedReason(args, size, context) == null)
        {
            return pairExchange;
        }
        final CollectiveAlgorithm smallStaged = pairSmallStaged(args.collective, size, bytes);
        if (smallStaged != null && !directInPlace && smallStaged.unsupportedReason(args, size, context) == null)
        {
            return smallStaged;
        }
        final CollectiveAlgorithm messages = pairMessages(args.collective, size, bytes);
        if (messages != null && !directInPlace && messages.unsupportedReason(args, size, context) == null)
        {
            return messages;
        }
        if (tuned.ranks() == size)
        {
            final TunedSelection atPace = tuned.atPace(pace);
            final int range = atPace.range(args.collective, bytes);
            final CollectiveAlgorithm tunedChoice = atPace.algorithm(args.collective, range);
            // the range's chunk size, unless jccl.chunk.bytes set one for every call
            final long configuredChunk = args.chunkBytes;
            if (configuredChunk == 0)
            {
                args.chunkBytes = atPace.callChunkBytes(args.collective, range);
            }
            if (tunedChoice != null && tunedChoice.unsupportedReason(args, size, context) == null)
            {
                return tunedChoice;
            }
            args.chunkBytes = configuredChunk;
        }
        final boolean large = args.collective == Collective.ALLREDUCE && bytes > ONESHOT_MAX_BYTES;
        final CollectiveAlgorithm[] ordered = candidates[args.collective.ordinal()];
        for (int i = 0; i < ordered.length; i++)
        {
            final CollectiveAlgorithm algorithm = ordered[i];
            if (!(large && algorithm == oneShot) &&
                algorithm.unsupportedReason(args, size, context) == null)
            {
                return algorithm;
            }
        }
        throw new IllegalStateException("no " + args.collective.label() + " algorithm can serve " + args);
    }

    /**
     * The single-copy choices that apply to a job of {@code size} ranks whose messages travel single-copy from
     * {@code singleCopyBytes} up ({@link CollectiveContext#singleCopyBytes()}), for the log at connect; null when
     * none does.
     */
    public String describeSingleCopy(final int size, final long singleCopyBytes)
    {
        if (singleCopyBytes <= 0 || tuned.measured())
        {
            return null;
        }
        final StringBuilder text = new StringBuilder();
        for (final Collective collective : Collective.values())
        {
            final CollectiveAlgorithm first = singleCopyFirstChoice(collective, size, singleCopyBytes);
            if (first == null)
            {
                continue;
            }
            final long from = singleCopyFromBytes(collective, size, singleCopyBytes);
            text.append(text.isEmpty() ? "" : "; ").append(collective.label()).append(' ').append(first.name())
                .append(" from ").append(from).append(" B");
            final long max = singleCopyMaxBytes(collective, size);
            if (max != Long.MAX_VALUE)
            {
                text.append(" to ").append(max).append(" B");
                final long again = singleCopyAgainBytes(collective, size);
                if (again != Long.MAX_VALUE)
                {
                    text.append(" and from ").append(again).append(" B");
                }
            }
            else if (collective == Collective.ALLREDUCE && first != singleCopyLargeAllreduce)
            {
                text.append(" to ").append(SINGLE_COPY_WHOLE_VECTOR_MAX_BYTES).append(" B");
                if (singleCopyLargeAllreduce != null)
                {
                    text.append(", ").append(singleCopyLargeAllreduce.name()).append(" beyond (beyond ")
                        .append(BETWEEN_PACES_WHOLE_VECTOR_MAX_BYTES).append(" B between the paces)");
                }
            }
            if (collective == Collective.REDUCE && binomialTree[collective.ordinal()] != null)
            {
                text.append(", binomial ").append(size > cores ?
                    "from " + OVERSUBSCRIBED_SLOW_PACE_TREE_REDUCE_MIN_BYTES + " B" :
                    "from " + PAIR_SINGLE_COPY_REDUCE_AGAIN_BYTES + " B below " + PAIR_SLOW_PACE_TREE_REDUCE_END_BYTES +
                    " B").append(" where heap arrays' copies stream");
            }
            if (size > cores && dependsOnPace(size))
            {
                text.append(" at the slow pace");
            }
        }
        return text.isEmpty() ? null : text.toString();
    }

    /**
     * The collective whose measured rules a call of {@code collective} follows: allgatherv and reduce-scatterv their
     * block forms', whose designs ({@code shm_direct}, {@code shm_single_copy}, the ring) they run with a count per
     * rank, and whose bytes (the whole vector) every rank knows alike; any other collective its own. (Not alltoallv:
     * its ranks' bytes differ.)
     */
    public static Collective ruledAs(final Collective collective)
    {
        return switch (collective)
        {
            case ALLGATHERV -> Collective.ALLGATHER;
            case REDUCE_SCATTERV -> Collective.REDUCE_SCATTER;
            default -> collective;
        };
    }

    /**
     * Whether the single-copy rule applies to a job of {@code size} ranks whose messages travel single-copy from
     * {@code singleCopyBytes} and depends on the pace, without a measured tuning file: while every rank has a core,
     * where it gives way at the fast pace, and while ranks share cores for broadcasts, reduces, allreduces, allgathers
     * and reduce-scatters, which take it at the slow pace alone. The communicator then probes the pace (a comparison
     * probe of the engine's {@code PaceProbe}).
     */
    public boolean followsPace(final int size, final long singleCopyBytes)
    {
        if (singleCopyBytes <= 0 || tuned.measured() || !dependsOnPace(size))
        {
            return false;
        }
        for (final Collective collective : Collective.values())
        {
            if (singleCopyFirstChoice(collective, size, singleCopyBytes) != null)
            {
                return true;
            }
        }
        return false;
    }

    /**
     * The single-copy rule's algorithm for the smallest call of {@code collective} it takes in a job of {@code size}
     * ranks whose messages travel single-copy from {@code singleCopyBytes}; null where the rule does not serve that
     * collective there (forced, not applicable, or not registered).
     */
    private CollectiveAlgorithm singleCopyFirstChoice(final Collective collective, final int size,
        final long singleCopyBytes)
    {
        if (forced.get(collective) != null || !singleCopyApplies(collective, size))
        {
            return null;
        }
        return singleCopyChoice(collective, size, singleCopyFromBytes(collective, size, singleCopyBytes), false, false);
    }

    /** Bytes of the smallest call of {@code collective} the single-copy rule takes ({@link #minMessageBytes}). */
    private long singleCopyFromBytes(final Collective collective, final int size, final long singleCopyBytes)
    {
        final long message = minMessageBytes(collective, size, singleCopyBytes);
        return messageIsVector(collective) ? message : message * size;
    }

    /**
     * The choices that depend on how many ranks share how many cores, for a job of {@code size} ranks: binomial
     * broadcast and reduce ({@link #treeMaxBytes}), shm_direct for larger reduces while ranks outnumber cores, the
     * 2-rank recursive doubling allreduce ({@link #PAIR_EXCHANGE_MIN_BYTES}), the 2-rank small shm_direct calls
     * ({@link #pairSmallStaged}) and the 2-rank ring and pairwise calls ({@link #pairMessages}); for the log at
     * connect, null when none applies.
     */
    public String describeRankRules(final int size)
    {
        return describeRankRules(size, 0);
    }

    /**
     * {@link #describeRankRules(int)} in a job whose messages travel single copy from {@code singleCopyBytes} (0:
     * never: no probe reads the pace), which adds where the 2-rank binomial rule gives way at each pace
     * ({@link #pairSlowPaceBroadcast}, {@link #pairTreeGivesWay}).
     */
    public String describeRankRules(final int size, final long singleCopyBytes)
    {
        if (tuned.measured())
        {
            return null;
        }
        final StringBuilder text = new StringBuilder();
        for (final Collective collective : Collective.values())
        {
            final long min = treeMinBytes(collective, size);
            final long max = treeMaxBytes(collective, size);
            if (binomialTree[collective.ordinal()] != null && forced.get(collective) == null && max >= 0)
            {
                text.append(text.isEmpty() ? "" : "; ").append(collective.label()).append(" binomial")
                    .append(min > 0 ? " from " + min + " B" : "")
                    .append(max == Long.MAX_VALUE ? min > 0 ? "" : " at every size" : " up to " + max + " B");
                if (collective == Collective.REDUCE && stagedReduceApplies(size))
                {
                    text.append(", ").append(stagedReduce.name()).append(" beyond");
                }
                if (pairSlowPaceBroadcast(collective, size, min, singleCopyBytes, null) != null)
                {
                    text.append(" (below ").append(PAIR_SLOW_PACE_EAGER_BROADCAST_END_BYTES).append(" B ")
                        .append(eagerBroadcast.name()).append(", but at the fast pace and between the paces)");
                }
                if (singleCopyBytes > 0 && pairTreeGivesWay(collective, size, collective == Collective.BROADCAST ?
                    Math.max(singleCopyBytes, PAIR_FAST_PACE_STAGED_BROADCAST_MAX_BYTES) : Long.MAX_VALUE,
                    singleCopyBytes, Pace.FAST))
                {
                    text.append(" (from ").append(collective == Collective.BROADCAST ? singleCopyBytes + " B, " +
                        "where its message goes single copy, up to " + PAIR_FAST_PACE_STAGED_BROADCAST_MAX_BYTES +
                        " B," : PAIR_REDUCE_FAST_PACE_STAGED_BYTES + " B").append(" not at the fast pace)");
                }
            }
        }
        for (final Collective collective : Collective.values())
        {
            final CollectiveAlgorithm linear = oversubscribedLinear[collective.ordinal()];
            if (linear != null && size > cores && forced.get(collective) == null)
            {
                text.append(text.isEmpty() ? "" : "; ").append(collective.label()).append(' ').append(linear.name())
                    .append(" at every size");
            }
            final CollectiveAlgorithm chain = oversubscribedScan[collective.ordinal()];
            if (chain != null && size > cores && forced.get(collective) == null)
            {
                text.append(text.isEmpty() ? "" : "; ").append(collective.label()).append(' ').append(chain.name())
                    .append(" beyond what ").append(lowLatencyScan[collective.ordinal()].name()).append(" serves");
            }
        }
        if (pairExchangeApplies(size) && forced.get(Collective.ALLREDUCE) == null)
        {
            text.append(text.isEmpty() ? "" : "; ").append("allreduce recursive_doubling from ")
                .append(PAIR_EXCHANGE_MIN_BYTES).append(" B below ").append(PAIR_EXCHANGE_END_BYTES).append(" B");
        }
        final List<String> smallStaged = new ArrayList<>();
        for (final Collective collective : Collective.values())
        {
            if (forced.get(collective) == null &&
                pairSmallStaged(collective, size, PAIR_SMALL_STAGED_MIN_BYTES) != null)
            {
                smallStaged.add(collective.label());
            }
        }
        if (!smallStaged.isEmpty())
        {
            text.append(text.isEmpty() ? "" : "; ").append(String.join(", ", smallStaged)).append(" shm_direct from ")
                .append(PAIR_SMALL_STAGED_MIN_BYTES).append(" B below ").append(PAIR_SMALL_STAGED_END_BYTES)
                .append(" B");
        }
        for (final Collective collective : Collective.values())
        {
            final CollectiveAlgorithm messages = pairMessages(collective, size, PAIR_MESSAGES_MIN_BYTES);
            if (messages != null && forced.get(collective) == null)
            {
                text.append(text.isEmpty() ? "" : "; ").append(collective.label()).append(' ')
                    .append(messages.name()).append(" from ").append(PAIR_MESSAGES_MIN_BYTES).append(" B below ")
                    .append(PAIR_MESSAGES_END_BYTES).append(" B where single copy does not take it");
            }
        }
        return text.isEmpty() ? null : text.toString();
    }

    /**
     * Whether the 2-rank binomial rule ({@link #PAIR_TREE_MAX_BYTES}, {@link #PAIR_REDUCE_MAX_BYTES}) gives way to
     * the shipped model's staged algorithms for a call of {@code bytes}: at the fast pace, broadcasts ({@code
     * shm_eager}) from the size where binomial's one message travels single copy ({@code singleCopyBytes}) up to
     * {@link #PAIR_FAST_PACE_STAGED_BROADCAST_MAX_BYTES}, and reduces ({@code shm_direct}) from
     * {@link #PAIR_REDUCE_FAST_PACE_STAGED_BYTES}. 2 ranks, 2026-12-04, handoffs at the fast pace, the staged
     * broadcast's time over binomial's, medians of 4-14 rows: 32 KiB 0.57, 128 KiB 0.52, 512 KiB 0.55, 2 MiB 0.67; at
     * 8 KiB, where the message goes through the channel's ring, binomial was ahead (`shm_eager` 0.85-2.35x its time).
     * (That day's 8 MiB rows had {@code shm_direct} at 0.84x; session 54's samples had it at 1.86-2.15x.) At the slow
     * pace the single-copy message, out of lines nobody has just written, stays.
     */
    private boolean pairTreeGivesWay(final Collective collective, final int size, final long bytes,
        final long singleCopyBytes, final Pace pace)
    {
        if (pace != Pace.FAST || size != 2 || size > cores)
        {
            return false;
        }
        return collective == Collective.BROADCAST ? singleCopyBytes > 0 && bytes >= singleCopyBytes &&
            bytes <= PAIR_FAST_PACE_STAGED_BROADCAST_MAX_BYTES :
            collective == Collective.REDUCE && bytes >= PAIR_REDUCE_FAST_PACE_STAGED_BYTES;
    }

    /**
     * The staged broadcast a 2-rank call of {@code bytes} takes instead of binomial not at the fast pace
     * ({@link #PAIR_SLOW_PACE_EAGER_BROADCAST_END_BYTES}), in a job whose probe reads the pace (single copy on:
     * {@code singleCopyBytes} above 0), if registered; null where binomial's rule holds.
     */
    private CollectiveAlgorithm pairSlowPaceBroadcast(final Collective collective, final int size, final long bytes,
        final long singleCopyBytes, final Pace pace)
    {
        if (collective != Collective.BROADCAST || !pairRulesApply(size) || singleCopyBytes <= 0 || pace == Pace.FAST ||
            bytes < PAIR_BROADCAST_TREE_MIN_BYTES || bytes >= PAIR_SLOW_PACE_EAGER_BROADCAST_END_BYTES)
        {
            return null;
        }
        return eagerBroadcast;
    }

    /** Whether reduces above {@link #OVERSUBSCRIBED_REDUCE_MAX_BYTES} take {@link #stagedReduce} in this job. */
    private boolean stagedReduceApplies(final int size)
    {
        return stagedReduce != null && size > cores && !tuned.measured();
    }

    /**
     * {@code shm_direct} for a 2-rank allgather(v), alltoall or reduce-scatter(v) of {@code bytes} from
     * {@link #PAIR_SMALL_STAGED_MIN_BYTES} to below {@link #PAIR_SMALL_STAGED_END_BYTES} while both ranks have a core,
     * without a tuning file; else null. (Not for buffers it would read in place, which were not measured.)
     */
    private CollectiveAlgorithm pairSmallStaged(final Collective collective, final int size, final long bytes)
    {
        final Collective ruled = ruledAs(collective);
        return (ruled == Collective.ALLGATHER || ruled == Collective.ALLTOALL ||
            ruled == Collective.REDUCE_SCATTER) && pairRulesApply(size) &&
            bytes >= PAIR_SMALL_STAGED_MIN_BYTES && bytes < PAIR_SMALL_STAGED_END_BYTES ?
            zeroCopy[collective.ordinal()] : null;
    }

    /**
     * Ring allgather(v) or pairwise alltoall for a 2-rank call of {@code bytes} from {@link #PAIR_MESSAGES_MIN_BYTES}
     * to below {@link #PAIR_MESSAGES_END_BYTES} while both ranks have a core, without a tuning file; else null. The
     * single-copy rule comes first. (Not for buffers read in place, which were not measured.)
     */
    private CollectiveAlgorithm pairMessages(final Collective collective, final int size, final long bytes)
    {
        return pairRulesApply(size) && bytes >= PAIR_MESSAGES_MIN_BYTES && bytes < PAIR_MESSAGES_END_BYTES ?
            blockMessages[collective.ordinal()] : null;
    }

    /** Whether the 2-rank recursive doubling rule serves a job of {@code size} ranks without a tuning file. */
    private boolean pairExchangeApplies(final int size)
    {
        return pairExchange != null && pairRulesApply(size);
    }

    /** Whether the rules for 2 ranks with a core each, without a tuning file, apply to a job of {@code size} ranks. */
    private boolean pairRulesApply(final int size)
    {
        return size == 2 && size <= cores && !tuned.measured();
    }

    /**
     * Largest broadcast or reduce that takes binomial in a job of {@code size} ranks, without a tuning file; -1 where
     * the rule does not apply (3 or more ranks with a core each: the tuned choice).
     */
    private long treeMaxBytes(final Collective collective, final int size)
    {
        final boolean broadcast = collective == Collective.BROADCAST;
        if (size > cores)
        {
            return broadcast ? OVERSUBSCRIBED_BROADCAST_MAX_BYTES : OVERSUBSCRIBED_REDUCE_MAX_BYTES;
        }
        if (size == 2)
        {
            return broadcast ? PAIR_TREE_MAX_BYTES : PAIR_REDUCE_MAX_BYTES;
        }
        return -1;
    }

    /** Smallest broadcast or reduce that takes binomial in a job of {@code size} ranks under {@link #treeMaxBytes}. */
    private long treeMinBytes(final Collective collective, final int size)
    {
        if (collective != Collective.BROADCAST)
        {
            return 0;
        }
        return size > cores ? OVERSUBSCRIBED_BROADCAST_TREE_MIN_BYTES : size == 2 ? PAIR_BROADCAST_TREE_MIN_BYTES : 0;
    }

    /**
     * Whether the single-copy rule serves {@code collective} in a job of {@code size} ranks: single-copy allreduce
     * and reduce only at 2 ranks; while ranks outnumber cores, alltoall
     * ({@link #OVERSUBSCRIBED_ALLTOALL_MIN_BLOCK_BYTES}) and, up to
     * {@link #OVERSUBSCRIBED_SLOW_PACE_MAX_RANKS_PER_CORE} ranks a core, broadcast, reduce, allreduce, allgather and
     * reduce-scatter ({@link #OVERSUBSCRIBED_ALLREDUCE_MIN_BLOCK_BYTES}) alone (all six at the slow pace alone:
     * {@link #dependsOnPace}).
     */
    private boolean singleCopyApplies(final Collective collective, final int size)
    {
        if (size > cores)
        {
            return switch (ruledAs(collective))
            {
                case ALLTOALL -> true;
                case BROADCAST, REDUCE, ALLREDUCE, ALLGATHER, REDUCE_SCATTER -> dependsOnPace(size);
                default -> false;
            };
        }
        return collective != Collective.ALLREDUCE && collective != Collective.REDUCE || size == 2;
    }

    /**
     * Whether the single-copy rule's choices at {@code size} ranks depend on the pace: up to
     * {@link #OVERSUBSCRIBED_SLOW_PACE_MAX_RANKS_PER_CORE} ranks a core, for every collective it serves (beyond, it
     * serves alltoall alone, at either pace).
     */
    private boolean dependsOnPace(final int size)
    {
        return size <= OVERSUBSCRIBED_SLOW_PACE_MAX_RANKS_PER_CORE * cores;
    }

    /**
     * Whether the single-copy rule holds in a job of {@code size} ranks at {@code pace} (null: before the first probe,
     * or without one): while every rank has a core, but at the fast pace; while ranks share cores, at the slow pace
     * alone, but beyond {@link #OVERSUBSCRIBED_SLOW_PACE_MAX_RANKS_PER_CORE} ranks a core, where alltoall's holds at
     * either pace.
     */
    private boolean singleCopyHoldsAt(final Pace pace, final int size)
    {
        if (!dependsOnPace(size))
        {
            return true;
        }
        return size > cores ? pace == Pace.SLOW : pace != Pace.FAST;
    }

    /**
     * The single-copy rule's algorithm for a call of {@code bytes} of {@code collective} at {@code size} ranks, where
     * heap arrays' large messages go out of a copy that streams past the caches or not
     * ({@link CollectiveContext#copiesStream()}), and the call lies between the machine's paces or not
     * ({@link CollectiveArgs#betweenPaces}).
     */
    private CollectiveAlgorithm singleCopyChoice(final Collective collective, final int size, final long bytes,
        final boolean copiesStream, final boolean betweenPaces)
    {
        if (collective == Collective.ALLREDUCE && (size > cores ||
            bytes > (betweenPaces ? BETWEEN_PACES_WHOLE_VECTOR_MAX_BYTES : SINGLE_COPY_WHOLE_VECTOR_MAX_BYTES)))
        {
            return singleCopyLargeAllreduce;
        }
        if (collective == Collective.REDUCE && copiesStream && binomialTree[collective.ordinal()] != null &&
            (size > cores ? bytes >= OVERSUBSCRIBED_SLOW_PACE_TREE_REDUCE_MIN_BYTES :
                bytes >= PAIR_SINGLE_COPY_REDUCE_AGAIN_BYTES && bytes < PAIR_SLOW_PACE_TREE_REDUCE_END_BYTES))
        {
            return binomialTree[collective.ordinal()];
        }
        return collective == Collective.BROADCAST && size > cores ? oversubscribedBroadcast :
            singleCopy[collective.ordinal()];
    }

    /**
     * Whether the single-copy rule's sizes for {@code collective} in a job of {@code size} ranks hold a call of
     * {@code bytes}: up to {@link #singleCopyMaxBytes}, and from {@link #singleCopyAgainBytes}.
     */
    private boolean singleCopyTakesSize(final Collective collective, final int size, final long bytes)
    {
        return bytes <= singleCopyMaxBytes(collective, size) || bytes >= singleCopyAgainBytes(collective, size);
    }

    /**
     * Where the single-copy rule takes {@code collective} again beyond {@link #singleCopyMaxBytes} in a job of
     * {@code size} ranks: 2-rank reduces from {@link #PAIR_SINGLE_COPY_REDUCE_AGAIN_BYTES}; Long.MAX_VALUE: never.
     */
    private long singleCopyAgainBytes(final Collective collective, final int size)
    {
        return collective == Collective.REDUCE && size <= cores ? PAIR_SINGLE_COPY_REDUCE_AGAIN_BYTES : Long.MAX_VALUE;
    }

    /** The largest call the single-copy rule takes for {@code collective} in a job of {@code size} ranks. */
    private long singleCopyMaxBytes(final Collective collective, final int size)
    {
        return switch (collective)
        {
            case REDUCE -> size > cores ? Long.MAX_VALUE : SINGLE_COPY_REDUCE_MAX_BYTES;
            default -> Long.MAX_VALUE;
        };
    }

    /**
     * Whether an allreduce would be served in place by one- or two-shot (a symmetric send or recv buffer), which
     * while ranks outnumber cores costs small calls more than staging them: 4 ranks on 2 cores, 2026-11-27, one-shot
     * at 8-512 B, three alternating runs, 4.8-7.4 µs in place against 2.5-4.6 staged (at 2 KiB 5.1-6.3 against
     * 3.8-6.6).
     */
    private static boolean readsAllreduceInPlace(final CollectiveArgs args)
    {
        return args.collective == Collective.ALLREDUCE && (args.sendSegmentOffset >= 0 || args.recvSegmentOffset >= 0);
    }

    /**
     * Whether {@code shm_direct} serves this call zero-copy, copying straight out of the peers' buffers in the shared
     * segment: a broadcast into symmetric memory, an allgather(v) from or into it, an alltoall, a reduce-scatter(v) or
     * a reduce from it (2 ranks, reduce-scatter 8 KiB-32 MiB: 0.35-0.6x the staged time, 0.4-0.76x single copy's;
     * reduce 8-512 KiB 0.2-0.35x the staged time, 0.2-0.8x binomial's; 4 ranks on 2 cores, reduce from 128 KiB
     * 0.35-0.6x either; the v forms as their block forms). (Every rank must then pass symmetric buffers, or the call
     * fails on every rank; so the choice is the same on every rank.)
     */
    private static boolean readsSymmetricInPlace(final CollectiveArgs args)
    {
        return switch (args.collective)
        {
            case BROADCAST -> args.recvSegmentOffset >= 0;
            case ALLGATHER, ALLGATHERV -> args.sendSegmentOffset >= 0 || args.recvSegmentOffset >= 0;
            case ALLTOALL, REDUCE_SCATTER, REDUCE_SCATTERV, REDUCE -> args.sendSegmentOffset >= 0;
            default -> false;
        };
    }

    /**
     * Bytes of one point-to-point message of the single-copy choice: the vector for broadcast and reduce, a block
     * for allgather, reduce-scatter and alltoall, and for allreduce the block of the vector a two-shot rank would
     * hand over (its half at 2 ranks).
     */
    private static long messageBytes(final Collective collective, final long bytes, final int size)
    {
        return messageIsVector(collective) ? bytes : bytes / size;
    }

    private static boolean messageIsVector(final Collective collective)
    {
        return collective == Collective.BROADCAST || collective == Collective.REDUCE;
    }

    /**
     * The single-copy rule's smallest message ({@link #messageBytes}) for {@code collective} in a job of {@code size}
     * ranks whose point-to-point messages go single copy from {@code singleCopyBytes}, where
     * {@link #singleCopyApplies} (while ranks outnumber cores, their own). A point-to-point
     * threshold set above its default raises the rule's to it while every rank has a core.
     */
    private long minMessageBytes(final Collective collective, final int size, final long singleCopyBytes)
    {
        if (size > cores)
        {
            return switch (ruledAs(collective))
            {
                case BROADCAST -> OVERSUBSCRIBED_BROADCAST_MIN_BYTES;
                case ALLREDUCE -> OVERSUBSCRIBED_ALLREDUCE_MIN_BLOCK_BYTES;
                case ALLGATHER -> OVERSUBSCRIBED_ALLGATHER_MIN_BLOCK_BYTES;
                case REDUCE_SCATTER -> OVERSUBSCRIBED_REDUCE_SCATTER_MIN_BLOCK_BYTES;
                case REDUCE -> OVERSUBSCRIBED_SLOW_PACE_REDUCE_MIN_BYTES;
                default -> dependsOnPace(size) ? OVERSUBSCRIBED_SLOW_PACE_ALLTOALL_MIN_BLOCK_BYTES :
                    OVERSUBSCRIBED_ALLTOALL_MIN_BLOCK_BYTES;
            };
        }
        final long own = switch (ruledAs(collective))
        {
            case ALLGATHER, ALLTOALL, REDUCE_SCATTER -> SINGLE_COPY_MIN_BLOCK_BYTES;
            case ALLREDUCE -> SINGLE_COPY_MIN_ALLREDUCE_HALF_BYTES;
            case REDUCE -> SINGLE_COPY_MIN_REDUCE_BYTES;
            default -> SINGLE_COPY_MIN_MESSAGE_BYTES;
        };
        return singleCopyBytes > Configuration.SINGLE_COPY_BYTES_DEFAULT ? Math.max(own, singleCopyBytes) : own;
    }
}
