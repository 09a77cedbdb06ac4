package io.jccl.engine;

import io.jccl.Buf;
import io.jccl.Collective;
import io.jccl.Configuration;
import io.jccl.DataType;
import io.jccl.ReduceOp;
import io.jccl.algorithms.AlgorithmRegistry;
import io.jccl.algorithms.AlgorithmSelector;
import io.jccl.model.Pace;
import io.jccl.model.TuningTable;
import io.jccl.shm.Log;
import io.jccl.shm.ShmTransport;
import io.jccl.spi.CollectiveAlgorithm;
import io.jccl.spi.CollectiveArgs;
import io.jccl.spi.StreamingCopy;

import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.Locale;

/**
 * The machine's pace of the moment ({@link Pace}), for a communicator whose choices depend on it: a tuning file that
 * parts its choices by pace ({@link TuningTable#paceSplit}), or, without a measured tuning file, the single-copy rule
 * of {@link io.jccl.algorithms.AlgorithmSelector}, which gives way to the staged algorithms at the fast pace. Every
 * {@link Configuration#PACE_PROBE_BYTES_PROP_NAME} bytes of broadcasts, reduces, allreduces, allgathers, alltoalls
 * and reduce-scatters whose algorithm is not forced, every rank runs the handoff probe before the call that fills the
 * budget, and rank 0 broadcasts its verdict (with a slow one, whether its JVM's large copies stream past the caches:
 * {@link #COPIES_STREAM_BIT}); every rank then chooses by that pace until the next probe. Two kinds of probe:
 * <ul>
 *   <li>against a threshold (the tuning file's, or {@link Configuration#PACE_THRESHOLD_US_PROP_NAME}): a {@link #BYTES}
 *       allgather through the staging areas ({@code shm_direct}), one untimed call and {@link #CALLS} timed; rank 0
 *       takes the median call's time, the measurement {@code ./jccl bench} ends every row with ({@code handoff_us}) and
 *       from which {@code ./jccl tune} drew the split, and calls the fast pace when it is at most the threshold;</li>
 *   <li>staged against single copy (no threshold): a {@link #COMPARISON_BYTES} allgather timed the same way through
 *       the staging areas and through the kernel ({@code shm_single_copy}); the fast pace when the staged call's
 *       median is at most {@link #FAST_RATIO} times the single-copy one's. No time to carry from machine to machine:
 *       the probe asks the question the choice depends on. A second comparison, of {@link #BAND_BYTES} allgathers,
 *       answers it for the calls of the band around that size ({@link #inBand}): at the fast pace, where single copy
 *       was ahead there, those calls take the slow pace's choices ({@link #paceFor}). A third, of {@link #LARGE_BYTES}
 *       allgathers, answers it for the calls beyond the band ({@link #inLarge}): where staging took more than
 *       {@link #LARGE_FAST_RATIO} times single copy's time there, they take the slow pace's choices too; and the
 *       large calls that take the slow pace's choices, at either pace, lie between the paces ({@link #betweenPaces})
 *       where staging took at most {@link #BETWEEN_PACES_MAX_RATIO} times single copy's time. The band's comparison
 *       runs only when the first reads the fast pace, the large calls' one at either. While ranks outnumber cores,
 *       where the rule that follows the pace serves large broadcasts, reduces, allreduces, allgathers and
 *       reduce-scatters, the comparison is of two allreduces, the staged two-shot ({@code shm_twoshot}) and the
 *       single-copy two-shot ({@code shm_single_copy_twoshot}), of {@link #SHARED_CORES_COMPARISON_BYTES}, against
 *       {@link #SHARED_CORES_FAST_RATIO} (or {@link #PARTLY_SHARED_CORES_FAST_RATIO}) by the median of the last
 *       three probes' ratios, without a band.</li>
 * </ul>
 * <p>
 * Why every rank agrees: the probes fall at the same call on every rank, since each counts the bytes of the same
 * calls, which every rank makes in the same order with the same sizes; and the pace travels in a collective. Until the
 * first probe, the choices for both paces hold (while ranks outnumber cores, the staged allreduces). Calls of the
 * communicator's non-blocking collectives run on a duplicate of it, which probes its own calls in the same way.
 * <p>
 * Cost: the threshold probe takes 0.16-0.8 ms at 2 ranks on the AMD VM of MODEL.md session 21 (the allgather 24-30 µs
 * at the fast pace, 119-139 at the slow one), by arithmetic 0.4-1 % of the time of the default 256 MiB of traffic at
 * either pace; the comparison probe, by arithmetic, about 0.45 ms at the fast pace and 0.9 at the slow one (six calls
 * of each allgather: at 32 KiB 2.8 and 3.4 µs, or 9.2 and 4.2; at 512 KiB 23 and 27, or 120 and 27; at the fast pace
 * also at 128 KiB 10.5 and 7.6; 2026-12-04 and session 47), 0.5-0.8 ms between the paces (43 and 24 µs at 512 KiB,
 * 2026-12-06; at slow verdicts there 0.45 ms more than the 32 KiB comparison alone, measured with a probe before every
 * call, session 61), about 0.7 % of the time of 256 MiB of traffic at the slow pace (2 GB/s); while ranks outnumber
 * cores, by arithmetic, 0.6 ms at 4 ranks on 2 cores at the fast pace and 1.3 at the slow one (six calls of each
 * 128 KiB allreduce: 30 and 70 µs, or 113 and 110; session 49), 1.3 % and 0.8 % of the time of 256 MiB of 512 KiB
 * allreduces. The first probe of a communicator runs untimed calls of each of its calls first ({@link #WARM_UP_CALLS},
 * as the bench does before its first row, or {@link #COMPARISON_WARM_UP_CALLS}, or
 * {@link #SHARED_CORES_WARM_UP_CALLS}), so that their copies are compiled (after 50, the bench's probe read 82-88 µs at
 * the fast pace). That first probe costs more than its calls: blocks of 32 KiB allreduces around it took 94-116 ms more
 * than later ones at 2 ranks and 205-253 ms at 4 ranks on 2 cores (3-23 and -22 to 12 ms without a probe;
 * PERFORMANCE.md, session 49), mostly compiling the paths it times, on cores the ranks share;
 * {@link ShmCommunicator#probePace} runs it where the application chooses (the bench, before its first row). Allocates
 * nothing per call or probe: its buffers (up to 1 MiB and a word, off-heap) come with the communicator.
 */
public final class PaceProbe
{
    /** Bytes of the threshold probe's allgather, all ranks' blocks together. */
    public static final int BYTES = 512 * 1024;
    /**
     * Bytes of each of the comparison probe's two allgathers, all ranks' blocks together: a size where the staged
     * and single-copy designs part at both paces the way they do over the sizes the choice covers. 2 ranks on the AMD
     * VM of 2026-12-04, {@code perf/PaceVerdicts.java}, 11 000 samples of 13 collectives and sizes (PERFORMANCE.md,
     * session 47): the staged allgather's median over single copy's 0.81 at the fast pace (2.8 against 3.4 µs) and
     * 2.2 at the slow one; its verdict matched the one of the 13 collectives' mean times together (the geometric
     * mean of their staged-over-single-copy ratios) in 98.5 and 99.9 % of the samples. Not 128 KiB, the size before:
     * there, at the fast pace, the staged designs took 1.2-1.4x single copy's time, while they took 0.45-0.95x at 8
     * and 32 KiB and from 512 KiB, so its verdict was wrong for the 13 in 99 % of those samples; it now decides for
     * the band around it alone ({@link #BAND_BYTES}).
     */
    public static final int COMPARISON_BYTES = 32 * 1024;
    /**
     * The comparison's fast pace: the staged allgather's median at most this many times the single-copy one's. The
     * geometric mean of the two paces' medians of that ratio (0.81 and 2.21, session 47), so that a probe's noise
     * rarely crosses it: in 11 000 samples 0.1 % of each pace's did, against 1.2 % of the fast pace's at 1.
     */
    public static final double FAST_RATIO = 1.3;
    /**
     * Bytes of each of the comparison probe's two allreduces while ranks outnumber cores, where the pace decides
     * whether large broadcasts, reduces, allreduces, allgathers and reduce-scatters take single copy
     * ({@link io.jccl.algorithms.AlgorithmSelector}). 4 ranks on 2 cores, 2026-12-04, {@code perf/PaceVerdicts.java}
     * (shared-cores), three runs of 600 s, 2904, 2124 and 1871 samples, 38-43 % of them where the staged two-shot was
     * the faster: the 128 KiB allreduces' verdict matched the one of the 512 KiB, 2 and 8 MiB allreduces' mean times
     * together in 99.2, 98.4 and 98.4 % of the samples, and choosing by it took 1.003-1.010x the time of the right
     * choice at every sample (always staged 1.32-1.36x, always single copy 1.13-1.14x). In the later runs it matched
     * the verdict of the allgathers of 128 KiB-8 MiB in 98.5-98.6 % of the samples (1.006-1.007x; staged 1.28x), of
     * the reduce-scatters of 512 KiB and 2 MiB in 98.0-98.1 % (1.026-1.031x; staged 1.97-2.11x) and, in the third, of
     * the broadcasts of 32 KiB-2 MiB in 97.8 % (1.016x; staged 1.50x). Allgathers, which tell the pace between ranks
     * with a core each, did not here: in the first run, at 32, 128 and 512 KiB they matched the allreduces' verdict
     * in 88, 79 and 85 % of the samples at best, whatever the ratio (PERFORMANCE.md, session 49).
     */
    public static final int SHARED_CORES_COMPARISON_BYTES = 128 * 1024;
    /**
     * {@link #FAST_RATIO} while ranks are two a core, for the allreduces' comparison, whose verdict while ranks
     * outnumber cores takes the median of the last three probes' ratios ({@link #sharedCoresRatio}). 4 ranks on 2
     * cores: on the AMD VM the staged allreduce's median over the single-copy one's was 0.44-0.47 in the samples whose
     * larger allreduces were faster staged and 0.99-1.03 in the others (95 % of the first at most 0.54-0.63, 95 % of
     * the second at least 0.76-0.91; medians of each run's samples above; session 49). On session 62's Intel Xeon,
     * whose handoffs ran between that VM's paces, it read 0.67 (10 % of the probes above 0.80, 7 % above 0.85; 4 % of
     * the medians of three above 0.85), while at every ratio the staged broadcasts took 0.45-0.63x single copy's time,
     * the staged allgathers of 32 and 128 KiB 0.48-0.66x, the staged allreduces of 128 and 512 KiB 0.60-0.86x and the
     * larger calls within 0.95-1.06x, but for alltoalls from 512 KiB (1.34-1.40x; in the engine's own calls, among
     * others, 0.70-1.22x; PERFORMANCE.md, session 62): the line lies above that machine's spread (0.7, the line before,
     * split it in two) and below most of the AMD slow pace's, whose stray probes below it the median of three mostly
     * outvotes.
     */
    public static final double SHARED_CORES_FAST_RATIO = 0.85;
    /**
     * While ranks are two a core (not more), a fast verdict whose median ratio lies above this finds the machine
     * between its paces: allgathers and alltoalls from {@link #SHARED_CORES_BETWEEN_PACES_MIN_BYTES} then take the slow
     * pace's single copy, whose copies of heap arrays the ranks decline ({@link #betweenPaces}). Near the geometric
     * mean of the AMD VM's fast pace, whose probes' medians read 0.44-0.47 (session 49) and where the staged
     * {@code shm_direct} took 0.55-0.89x single copy's time for alltoalls of 512 KiB-8 MiB (session 50), and the Intel
     * Xeon's, whose read 0.67 (session 62; in session 64 the medians of three left 0-5 % of the fast verdicts' calls at
     * or below 0.55) and where single copy was ahead there on direct buffers. 4 ranks, the engine's own calls
     * ({@code perf/ChosenCalls.java}, 128 KiB-8 MiB in turn, alternating 10-15 s runs, medians of the pairs' ratios;
     * PERFORMANCE.md, session 64), this rule's time over staging's for alltoalls: direct buffers alone 0.56x at
     * 512 KiB, 0.53x at 2 MiB, 0.63x at 8 MiB (five pairs), the loop of four sizes 1.40x as many a second; among
     * {@code float[]} calls, which stay staged, 0.79x, 0.97x and 0.84x (six pairs), the loop 1.02x. For allgathers
     * (session 65): direct buffers alone 0.64x, 0.66x and 0.86x (five pairs; the staged 128 KiB calls between them
     * 0.62x), the loop 1.17x; among {@code float[]} calls 0.96x, 1.10x and 1.09x, the {@code float[]} calls 0.90-0.92x,
     * the loop 0.94x (nine pairs, 0.78-1.35x).
     */
    public static final double SHARED_CORES_BETWEEN_PACES_RATIO = 0.55;
    /**
     * The smallest allgather or alltoall that takes single copy between the paces while ranks are two a core
     * ({@link #SHARED_CORES_BETWEEN_PACES_RATIO}): at 128 KiB the staged design was ahead on the Intel Xeon too, for
     * alltoalls by 1.27-1.42x in the engine's own calls (session 62), for allgathers level or ahead in the sweeps
     * (session 65: single copy 30.2 µs against 30.5, median of three, and 43.9 against 28.5 in a fourth).
     */
    public static final long SHARED_CORES_BETWEEN_PACES_MIN_BYTES = 512 * 1024;
    /**
     * {@link #SHARED_CORES_FAST_RATIO} while ranks outnumber cores by less than two a core (3 ranks on 2 cores), where
     * the AMD VM's two paces read closer, 0.54 and 0.82 (session 49), and 0.7 lies between. Session 62's Intel Xeon
     * read 0.75 there (deciles 0.65-0.88) and at every ratio the staged designs took 0.57-0.90x single copy's time for
     * broadcasts of 32 KiB-2 MiB, allgathers and allreduces of 32-128 KiB and reduces, 1.06-1.40x for allgathers and
     * alltoalls from 512 KiB and 2 MiB allreduces and reduce-scatters: no line serves both there, so the AMD VM's
     * holds.
     */
    public static final double PARTLY_SHARED_CORES_FAST_RATIO = 0.7;
    /**
     * Bytes of the band comparison's allgathers. 2 ranks, 2026-12-04, the fast pace: from 64 to 192 KiB the staged
     * allgather, two-shot allreduce and staged alltoall took 1.02-1.49x single copy's time (reduce-scatter 0.95x at
     * 64 KiB, 1.01-1.21x from 96 KiB), at 32 KiB and from 384 KiB 0.55-1.01x (PERFORMANCE.md, session 47); while
     * session 45's sweeps had the staged designs ahead at 128 KiB too (0.51-0.87x). So the band asks for itself.
     */
    public static final int BAND_BYTES = 128 * 1024;
    /** The band's calls: allreduces, allgathers, alltoalls and reduce-scatters of at least this many bytes... */
    public static final long BAND_MIN_BYTES = 64 * 1024;
    /** ...and fewer than this many. */
    public static final long BAND_END_BYTES = 256 * 1024;
    /**
     * Bytes of the large calls' comparison ({@link #inLarge}), allgathers timed as the band's are. 2 ranks on the AMD
     * VM of 2026-12-06, where handoffs ran at 4-7 GB/s, between the fast pace's 14 and the slow one's 2
     * (PERFORMANCE.md, session 60, {@code perf/Designs.java}, 75-90 s a collective, direct buffers): the 32 KiB
     * comparison's ratio had its median at 1.23-1.49, so that about half of its verdicts read the fast pace, while
     * single copy took 0.51-0.77x the staged designs' time at 512 KiB-8 MiB (allgather and alltoall from 512 KiB,
     * allreduce and reduce-scatter from 2 MiB; the reduce-scatter of 512 KiB 1.09x) and binomial, a single-copy
     * message, 0.26-0.65x {@code shm_direct}'s for broadcasts of 128 KiB-8 MiB. The staged 512 KiB allgather took
     * 1.6-1.8x single copy's time there, against 0.84x at the fast pace and 4.5x at the slow one of session 47: the
     * question the large calls' choice depends on, asked at their size.
     */
    public static final int LARGE_BYTES = 512 * 1024;
    /** The large calls: allreduces, allgathers, alltoalls, reduce-scatters and broadcasts from this many bytes. */
    public static final long LARGE_MIN_BYTES = BAND_END_BYTES;
    /**
     * 2-rank broadcasts from this many bytes, below {@link #LARGE_MIN_BYTES}, follow the large calls' comparison too
     * ({@link #largeCallTakesSingleCopy}): at the fast pace they take {@code shm_eager} where binomial's one message
     * goes single copy, 0.52-0.67x binomial's time on the AMD VM (session 54), but on the Intel Xeon, whose fast
     * verdicts found staging 1.5-2.2x single copy's time at 512 KiB, the engine's own calls at those verdicts took
     * 0.69-0.82x {@code shm_eager}'s time with binomial at 32 KiB, 0.39-0.47x at 64 KiB and 0.34-0.40x at 128 KiB on
     * direct buffers, 0.86-1.01x on {@code float[]}, whose messages go through the ring below 2.5 MiB
     * ({@code perf/ChosenCalls.java}, three alternating pairs of 20 s runs; PERFORMANCE.md, session 64).
     */
    public static final long PAIR_LARGE_BROADCAST_MIN_BYTES = 32 * 1024;
    /**
     * The large calls keep the fast pace's choices while the staged {@link #LARGE_BYTES} allgather's median is at most
     * this many times the single-copy one's: near the geometric mean of the fast pace's 0.84 (session 47) and the
     * 1.6-1.8 of handoffs between the paces (2026-12-06), so that a fast pace's noisy probe rarely crosses it.
     */
    public static final double LARGE_FAST_RATIO = 1.2;
    /**
     * The large calls chosen at the slow pace lie between the machine's paces ({@link #betweenPaces}) while the staged
     * {@link #LARGE_BYTES} allgather's median is at most this many times the single-copy one's: lines one core has
     * just written reach the other at a moderate cost, so that a heap array's copy for single copy costs more than
     * staging does, and a 2-rank allreduce gains from reducing half the vector
     * ({@link io.jccl.spi.CollectiveArgs#betweenPaces}). Near the geometric mean of the 1.6-1.8 of handoffs at 4-7 GB/s
     * (2026-12-06, session 60; the probes of session 61's Intel Xeon read 1.5-2.2), where the staged designs took
     * 0.5-0.8x single copy's time on {@code float[]} from 2.5 MB, and the slow pace's 4.5 (session 47), where single
     * copy out of a streaming copy took 0.70-0.78x the staged two-shot's time at 3-8 MiB (session 56).
     */
    public static final double BETWEEN_PACES_MAX_RATIO = 2.8;
    /**
     * Reduces from this many bytes take the fast pace's choices while the large calls' comparison finds the machine
     * between its paces ({@link #paceFor}), at a slow verdict too: there the staged {@code shm_direct} (the fast pace's
     * choice at 2 ranks from 2 MiB) was ahead. 2 ranks on session 61's Intel Xeon, the engine's own calls
     * ({@code perf/ChosenCalls.java}, two runs, medians of the calls chosen at each verdict), {@code shm_direct}'s time
     * over the slow pace's choice's: 2 MiB 0.81-0.86x binomial's on direct buffers and 0.72-0.75x on {@code float[]},
     * 4 and 6 MiB 0.75-0.78x binomial's and 0.61-0.63x, 8 MiB 0.67-0.68x single copy's and 0.58-0.59x.
     */
    public static final long BETWEEN_PACES_STAGED_REDUCE_MIN_BYTES = 2L << 20;
    /**
     * Broadcasts below this many bytes take the fast pace's choices while the large calls' comparison finds the
     * machine between its paces, at a slow verdict too: at 2 ranks binomial, one message, where the slow pace takes
     * {@code shm_eager} up to this size ({@link AlgorithmSelector#PAIR_SLOW_PACE_EAGER_BROADCAST_END_BYTES}). 2 ranks
     * on the Intel Xeon, where the 32 KiB comparison's verdict flips from probe to probe while the 512 KiB one reads
     * between the paces, the engine's own calls at slow verdicts ({@code perf/ChosenCalls.java}, 1-8 KiB in turn,
     * direct buffers and {@code float[]}, three alternating pairs of 20 s runs; PERFORMANCE.md, session 64) took
     * 0.76-0.88x {@code shm_eager}'s time with binomial (medians of the pairs' ratios).
     */
    public static final long BETWEEN_PACES_TREE_BROADCAST_END_BYTES =
        AlgorithmSelector.PAIR_SLOW_PACE_EAGER_BROADCAST_END_BYTES;
    /** Timed calls of a probe, after one untimed: the probe is the median call's time. */
    public static final int CALLS = 5;
    /** Untimed calls before a communicator's first probe. */
    public static final int WARM_UP_CALLS = 1000;
    /**
     * Untimed calls of each allgather, at both sizes, before a communicator's first comparison probe: by arithmetic
     * 5-11 ms at 2 ranks (the first probe's cost, compiling included, is in the class's documentation). Fewer than the
     * threshold probe's: a comparison needs both calls compiled, not a time that matches the bench's. 2 ranks,
     * 2026-12-04, first probes of 128 KiB allgathers after 300 MiB of 1 MiB allreduces: after 200 the staged call took
     * 10.8-25.4 µs and the single-copy one 16.5-20.6, as in later probes; after none 28.9-35.0 and 26.5-44.1.
     */
    static final int COMPARISON_WARM_UP_CALLS = 200;
    /**
     * {@link #COMPARISON_WARM_UP_CALLS} of each allreduce while ranks outnumber cores: by arithmetic 4-11 ms at 4 ranks
     * on 2 cores (30-110 µs a call). A bench's first probe after them read 42.7 and 136.7 µs, a later one at the same
     * pace 36.2 and 102.3.
     */
    static final int SHARED_CORES_WARM_UP_CALLS = 50;
    /**
     * Untimed calls of each {@link #LARGE_BYTES} allgather before the first large comparison: the smaller sizes' calls
     * have compiled the paths they share; by arithmetic 1-3 ms at 2 ranks (25-130 µs a staged call, 25-30 single
     * copy).
     */
    static final int LARGE_WARM_UP_CALLS = 20;

    private static final long FAST_WORD = 1;
    private static final long SLOW_WORD = 2;
    /** Or'd into the second verdict, at the fast pace: single copy was ahead in the band comparison. */
    private static final long BAND_SINGLE_COPY_BIT = 4;
    /** Or'd into the second verdict: staging took more than {@link #LARGE_FAST_RATIO} times single copy's time. */
    private static final long LARGE_SINGLE_COPY_BIT = 16;
    /** What the calls between the paces choose differently, for the log. */
    private static final String BETWEEN_PACES_CHOICES =
        "(heap arrays' copies declined and their sends through the ring, 2-rank allreduces by the single-copy " +
        "two-shot sooner, reduces from " + BETWEEN_PACES_STAGED_REDUCE_MIN_BYTES + " bytes staged, broadcasts below " +
        BETWEEN_PACES_TREE_BROADCAST_END_BYTES + " bytes by the fast pace's choice)";
    /** Or'd into the second verdict: staging took at most {@link #BETWEEN_PACES_MAX_RATIO} times single copy's time. */
    private static final long BETWEEN_PACES_BIT = 32;
    /**
     * Or'd into a slow verdict: rank 0's large copies stream past the caches ({@link StreamingCopy}), so that every
     * rank's choices may follow whether heap arrays' large messages go out of such a copy
     * ({@link ShmTransport#copiesStream()}) alike. Rank 0's JVM answers for all: the ranks of a job run the same JVM
     * with the same options, and where one does not, a choice made for streaming copies stays correct, only slower.
     * Read at the first slow verdict, where each rank reads its own for its sends anyway (10-18 ms).
     */
    private static final long COPIES_STREAM_BIT = 8;
    /** Or'd into a fast verdict while ranks are two a core: the ratio lay above the between-paces line. */
    private static final long SHARED_CORES_BETWEEN_PACES_BIT = 64;

    private final ShmTransport transport;
    /**
     * Whether ranks outnumber cores: a comparison probe then compares allreduces of
     * {@link #SHARED_CORES_COMPARISON_BYTES}, and no band.
     */
    private final boolean sharedCores;
    /** The probe's collective: allgather, or the allreduce of a comparison probe while ranks outnumber cores. */
    private final Collective collective;
    /** The probe's staged algorithm: the allgather's {@code shm_direct}, or the allreduce's {@code shm_twoshot}. */
    private final CollectiveAlgorithm staged;
    /** The comparison probe's single-copy algorithm; null for a threshold probe. */
    private final CollectiveAlgorithm singleCopy;
    private final CollectiveAlgorithm broadcast;
    private final long probeBytes;
    private final double thresholdMicros;
    private final Log log;
    private final CollectiveArgs probeArgs = new CollectiveArgs();
    private final CollectiveArgs verdictArgs = new CollectiveArgs();
    private final long[] nanos = new long[CALLS];
    private final Runnable stagedCall;
    private final Runnable singleCopyCall;
    private final Buf send;
    private final Buf recv;
    /**
     * Elements of each rank's send buffer in the probe's calls, int8 in an allgather and float32 in an allreduce: a
     * threshold probe's from the start, a comparison probe's set before each use ({@link #callsOf}).
     */
    private long count;
    private final ByteBuffer verdictBytes = ByteBuffer.allocateDirect(Long.BYTES);
    private final Buf verdict = Buf.of(verdictBytes, DataType.INT64);
    private boolean warm;
    private long traffic;
    private Pace pace;
    private boolean bandSingleCopy;
    private boolean largeSingleCopy;
    private boolean largeBetweenPaces;
    /** Whether the last verdict, a fast one while ranks are two a core, found the machine between its paces. */
    private boolean sharedCoresBetweenPaces;
    /** Whether the large calls' comparison runs: its calls can run here. */
    private boolean comparesLarge;
    private boolean largeWarm;
    /** Rank 0's ratios of the probe before the last and of the one before it, while ranks outnumber cores. */
    private double ratioBefore = Double.NaN;
    private double ratioBeforeThat = Double.NaN;
    private long probes;
    private double lastMicros = Double.NaN;

    /** A threshold probe, or with {@code thresholdMicros} NaN a comparison probe. */
    private PaceProbe(final ShmTransport transport, final AlgorithmRegistry registry, final long probeBytes,
        final double thresholdMicros, final Log log)
    {
        this.transport = transport;
        final boolean compares = Double.isNaN(thresholdMicros);
        this.sharedCores = transport.size() > transport.cores();
        this.collective = compares && sharedCores ? Collective.ALLREDUCE : Collective.ALLGATHER;
        final boolean allreduce = collective == Collective.ALLREDUCE;
        this.staged = registry.find(collective, allreduce ? "shm_twoshot" : "shm_direct");
        this.singleCopy = !compares ? null :
            registry.find(collective, allreduce ? "shm_single_copy_twoshot" : "shm_single_copy");
        this.stagedCall = () -> call(staged);
        this.singleCopyCall = () -> call(singleCopy);
        this.broadcast = registry.find(Collective.BROADCAST, "shm_ll");
        this.probeBytes = probeBytes;
        this.thresholdMicros = thresholdMicros;
        this.log = log;
        callsOf(compares() ? comparisonBytes() : BYTES);
        final int sendBytes = allreduce ? SHARED_CORES_COMPARISON_BYTES :
            (compares() ? LARGE_BYTES : BYTES) / transport.size();
        this.send = Buf.of(ByteBuffer.allocateDirect(sendBytes), DataType.INT8);
        this.recv = Buf.of(ByteBuffer.allocateDirect(allreduce ? sendBytes : sendBytes * transport.size()),
            DataType.INT8);
    }

    /**
     * The settings: {@value Configuration#PACE_PROBE_BYTES_PROP_NAME}, and
     * {@value Configuration#PACE_THRESHOLD_US_PROP_NAME} (NaN when unset). Read before a rank joins its job, so that a
     * bad value fails this rank alone.
     */
    record Settings(long probeBytes, double thresholdMicros)
    {
    }

    /**
     * {@link Settings} from {@code configuration}.
     *
     * @throws IllegalArgumentException when a setting is not a number, or the threshold is below 0.
     */
    static Settings settings(final Configuration configuration)
    {
        return new Settings(configuration.getLong(Configuration.PACE_PROBE_BYTES_PROP_NAME,
            Configuration.PACE_PROBE_BYTES_DEFAULT),
            configuration.getDouble(Configuration.PACE_THRESHOLD_US_PROP_NAME, Double.NaN));
    }

    /**
     * The probe of a communicator on {@code transport}, or null when it need not probe: one rank, neither a pace split
     * at its rank count in the tuning file nor {@code comparesSingleCopy},
     * {@value Configuration#PACE_PROBE_BYTES_PROP_NAME} 0, or a probe's call that cannot run here.
     *
     * @param split              the tuning file's split at this rank count, or null.
     * @param settings           {@link #settings}: a configured threshold replaces the split's, and without a split
     *                           makes the probe a threshold probe.
     * @param comparesSingleCopy whether, without a split, the choices depend on the pace: the selector's single-copy
     *                           rule applies to the job ({@link io.jccl.algorithms.AlgorithmSelector#followsPace}).
     */
    static PaceProbe of(final ShmTransport transport, final TuningTable.PaceSplit split, final Settings settings,
        final boolean comparesSingleCopy, final Configuration configuration, final AlgorithmRegistry registry)
    {
        final long probeBytes = settings.probeBytes();
        if (split == null && !comparesSingleCopy || transport.size() < 2 || probeBytes <= 0)
        {
            return null;
        }
        final double threshold = !Double.isNaN(settings.thresholdMicros()) ? settings.thresholdMicros() :
            split != null ? split.thresholdMicros() : Double.NaN;
        final Log log = new Log(configuration, transport.rank());
        final PaceProbe probe = new PaceProbe(transport, registry, probeBytes, threshold, log);
        String refusal = probe.refusal();
        if (refusal == null && probe.comparesBand())
        {
            probe.callsOf(BAND_BYTES);
            refusal = probe.refusal();
            // calls of 512 KiB that cannot run here (small staging areas) leave the large calls to the first verdict
            probe.callsOf(LARGE_BYTES);
            probe.comparesLarge = probe.refusal() == null;
        }
        if (refusal != null)
        {
            if (transport.rank() == 0)
            {
                log.warn(Log.INIT, (split != null ? "the tuning file parts the paces" :
                    "the choices depend on the pace") + " at " + transport.size() + " ranks, but the handoff probe " +
                    "cannot run here (" + refusal + "): the choices for both paces hold");
            }
            return null;
        }
        if (transport.rank() == 0 && log.enabled(Log.INFO, Log.INIT))
        {
            log.info(Log.INIT, probe.comparesBand() ?
                String.format(Locale.ROOT, "handoff probe every %d bytes of collective calls: a %d-byte allgather " +
                    "staged and single copy, the fast pace (the staged algorithms) when staging takes at most %.1fx " +
                    "the time; then at the fast pace a %d-byte one for the calls of %d-%d bytes, single copy there " +
                    "when it is faster%s", probeBytes, COMPARISON_BYTES, FAST_RATIO, BAND_BYTES, BAND_MIN_BYTES,
                    BAND_END_BYTES - 1, probe.comparesLarge ? String.format(Locale.ROOT, ", and at either pace a " +
                    "%d-byte one for the calls from %d bytes: single copy there at the fast pace when staging takes " +
                    "more than %.1fx the time, and where single copy runs them, between the paces %s when it takes " +
                    "at most %.1fx", LARGE_BYTES, LARGE_MIN_BYTES, LARGE_FAST_RATIO, BETWEEN_PACES_CHOICES,
                    BETWEEN_PACES_MAX_RATIO) :
                    " (not the larger calls' comparison: a " + LARGE_BYTES + "-byte allgather cannot run here)") :
                probe.compares() ?
                String.format(Locale.ROOT, "handoff probe every %d bytes of collective calls: a %d-byte allreduce " +
                    "%s and %s, the fast pace (the staged algorithms) when the first takes at most %.2fx the time " +
                    "(the median of the last three probes)%s", probeBytes, SHARED_CORES_COMPARISON_BYTES,
                    probe.staged.name(), probe.singleCopy.name(), probe.sharedCoresFastRatio(),
                    !probe.exactlyTwoACore() ? "" : String.format(Locale.ROOT, "; above %.2fx, between the paces, " +
                    "single copy for allgathers and alltoalls from %d bytes", SHARED_CORES_BETWEEN_PACES_RATIO,
                    SHARED_CORES_BETWEEN_PACES_MIN_BYTES)) :
                String.format(Locale.ROOT, "handoff probe every %d bytes of collective calls; the fast pace at most " +
                    "%.1f µs", probeBytes, threshold));
        }
        return probe;
    }

    /** Sizes the probe's calls: {@code totalBytes} of an allreduce's vector, or of an allgather's blocks together. */
    private void callsOf(final int totalBytes)
    {
        count = collective == Collective.ALLREDUCE ? totalBytes / Float.BYTES : totalBytes / transport.size();
    }

    /** Why the probe's calls, at their size of the moment, cannot run here, or null. */
    private String refusal()
    {
        fillArgs();
        final String reason = staged.unsupportedReason(probeArgs, transport.size(), transport);
        return reason != null || !compares() ? reason :
            singleCopy.unsupportedReason(probeArgs, transport.size(), transport);
    }

    /**
     * The pace to choose a call of {@code bytes} of {@code collective} by ({@link #paceFor}); probes first when the
     * call fills the budget (a v collective counts as its block form: {@link AlgorithmSelector#ruledAs}). Null before
     * the first probe. Every rank must pass the same calls.
     */
    Pace before(final Collective collective, final long bytes)
    {
        if (counts(AlgorithmSelector.ruledAs(collective)))
        {
            traffic += bytes;
            if (traffic >= probeBytes)
            {
                probeNow();
            }
        }
        return paceFor(collective, bytes);
    }

    /**
     * Probes now and starts the budget again ({@link ShmCommunicator#probePace}). Every rank must call it at the same
     * point of its calls.
     */
    void probeNow()
    {
        traffic = 0;
        probe();
    }

    /**
     * The pace to choose a call of {@code bytes} of {@code collective} by, from the last probe: its pace, but at the
     * fast pace the slow one for a call of the band ({@link #inBand}) when single copy was ahead in the band
     * comparison, and for a large call ({@link #inLarge}) when it was ahead by more than {@link #LARGE_FAST_RATIO} in
     * the large calls' one, and for a large allgather or alltoall when ranks are two a core between the paces
     * ({@link #SHARED_CORES_BETWEEN_PACES_RATIO}); and the fast one between the paces for a reduce from
     * {@link #BETWEEN_PACES_STAGED_REDUCE_MIN_BYTES} and a broadcast below
     * {@link #BETWEEN_PACES_TREE_BROADCAST_END_BYTES}. A v collective takes its block form's
     * ({@link AlgorithmSelector#ruledAs}). Null before the first probe.
     */
    public Pace paceFor(final Collective call, final long bytes)
    {
        final Collective collective = AlgorithmSelector.ruledAs(call);
        if (pace == Pace.SLOW && largeBetweenPaces &&
            (collective == Collective.REDUCE && bytes >= BETWEEN_PACES_STAGED_REDUCE_MIN_BYTES ||
                collective == Collective.BROADCAST && bytes < BETWEEN_PACES_TREE_BROADCAST_END_BYTES))
        {
            return Pace.FAST;
        }
        return pace == Pace.FAST && bandSingleCopy && inBand(collective, bytes) ||
            largeCallTakesSingleCopy(collective, bytes) || sharedCoresCallBetweenPaces(collective, bytes) ?
            Pace.SLOW : pace;
    }

    /** Whether the band comparison decides for a call of {@code bytes} of {@code collective}. */
    public static boolean inBand(final Collective collective, final long bytes)
    {
        return (collective == Collective.ALLREDUCE || collective == Collective.ALLGATHER ||
            collective == Collective.ALLTOALL || collective == Collective.REDUCE_SCATTER) &&
            bytes >= BAND_MIN_BYTES && bytes < BAND_END_BYTES;
    }

    /**
     * Whether a call of {@code bytes} of {@code collective} takes the slow pace's choices at the fast pace because the
     * large calls' comparison found single copy ahead: a large call, or a 2-rank broadcast from
     * {@link #PAIR_LARGE_BROADCAST_MIN_BYTES}.
     */
    public boolean largeCallTakesSingleCopy(final Collective collective, final long bytes)
    {
        return pace == Pace.FAST && largeSingleCopy && (inLarge(collective, bytes) ||
            collective == Collective.BROADCAST && transport.size() == 2 && bytes >= PAIR_LARGE_BROADCAST_MIN_BYTES);
    }

    /**
     * Whether a call of {@code bytes} of {@code collective}, chosen at {@code pace} (what {@link #paceFor} gave it,
     * which the caller holds already), lies between the machine's paces: a large call chosen at the slow pace whose
     * comparison found staging within {@link #BETWEEN_PACES_MAX_RATIO} times single copy's time, or while ranks are two
     * a core a large allgather or alltoall at a fast verdict above {@link #SHARED_CORES_BETWEEN_PACES_RATIO}
     * ({@link io.jccl.spi.CollectiveArgs#betweenPaces}); a v collective as its block form ({@link #paceFor}).
     */
    public boolean betweenPaces(final Collective call, final long bytes, final Pace pace)
    {
        final Collective collective = AlgorithmSelector.ruledAs(call);
        return pace == Pace.SLOW &&
            (largeBetweenPaces && inLarge(collective, bytes) || sharedCoresCallBetweenPaces(collective, bytes));
    }

    /**
     * Whether a call of {@code bytes} of {@code collective} takes the slow pace's choices at a fast verdict because
     * the verdict, while ranks are two a core, found the machine between its paces: an allgather or alltoall from
     * {@link #SHARED_CORES_BETWEEN_PACES_MIN_BYTES} ({@link #SHARED_CORES_BETWEEN_PACES_RATIO}).
     */
    private boolean sharedCoresCallBetweenPaces(final Collective collective, final long bytes)
    {
        return sharedCoresBetweenPaces && takesSingleCopyBetweenPacesWhileSharingCores(collective, bytes);
    }

    /**
     * Whether a call of {@code bytes} of {@code collective} is one that a fast verdict between the paces sends to
     * single copy while ranks are two a core ({@link #SHARED_CORES_BETWEEN_PACES_RATIO}).
     */
    static boolean takesSingleCopyBetweenPacesWhileSharingCores(final Collective collective, final long bytes)
    {
        return (collective == Collective.ALLGATHER || collective == Collective.ALLTOALL) &&
            bytes >= SHARED_CORES_BETWEEN_PACES_MIN_BYTES;
    }

    /** Whether the large calls' comparison decides for a call of {@code bytes} of {@code collective}. */
    public static boolean inLarge(final Collective collective, final long bytes)
    {
        return (collective == Collective.ALLREDUCE || collective == Collective.ALLGATHER ||
            collective == Collective.ALLTOALL || collective == Collective.REDUCE_SCATTER ||
            collective == Collective.BROADCAST) && bytes >= LARGE_MIN_BYTES;
    }

    /**
     * The collectives whose bytes are the same at every rank and which move them between the cores: the calls that
     * count toward a probe, and that it chooses for.
     */
    public static boolean counts(final Collective collective)
    {
        return collective == Collective.ALLREDUCE || collective == Collective.ALLGATHER ||
            collective == Collective.ALLTOALL || collective == Collective.REDUCE_SCATTER ||
            collective == Collective.REDUCE ||
            collective == Collective.BROADCAST;
    }

    private void probe()
    {
        if (!warm)
        {
            final int calls = !compares() ? WARM_UP_CALLS : sharedCores ? SHARED_CORES_WARM_UP_CALLS :
                COMPARISON_WARM_UP_CALLS;
            for (int i = 0; i < calls; i++)
            {
                if (!compares())
                {
                    stagedCall.run();
                    continue;
                }
                callsOf(comparisonBytes());
                stagedCall.run();
                singleCopyCall.run();
                if (comparesBand())
                {
                    callsOf(BAND_BYTES);
                    stagedCall.run();
                    singleCopyCall.run();
                }
            }
            warm = true;
        }
        if (compares())
        {
            callsOf(comparisonBytes());
        }
        final double micros = medianMicros(stagedCall, nanos);
        final double singleCopyMicros = compares() ? medianMicros(singleCopyCall, nanos) : Double.NaN;
        long word = 0;
        double ratio = Double.NaN;
        if (transport.rank() == 0)
        {
            lastMicros = micros;
            final boolean fast;
            boolean between = false;
            if (!compares())
            {
                fast = micros <= thresholdMicros;
            }
            else if (!sharedCores)
            {
                fast = micros <= FAST_RATIO * singleCopyMicros;
            }
            else
            {
                ratio = sharedCoresRatio(micros / singleCopyMicros);
                fast = ratio <= sharedCoresFastRatio();
                between = fast && exactlyTwoACore() && ratio > SHARED_CORES_BETWEEN_PACES_RATIO;
            }
            word = (fast ? FAST_WORD : SLOW_WORD) | (!fast && StreamingCopy.available() ? COPIES_STREAM_BIT : 0) |
                (between ? SHARED_CORES_BETWEEN_PACES_BIT : 0);
        }
        final Pace before = pace;
        final boolean bandBefore = bandSingleCopy;
        final boolean largeBefore = largeSingleCopy;
        final boolean betweenBefore = largeBetweenPaces;
        final boolean sharedCoresBetweenBefore = sharedCoresBetweenPaces;
        final long received = agreed(word);
        pace = (received & (FAST_WORD | SLOW_WORD)) == FAST_WORD ? Pace.FAST : Pace.SLOW;
        sharedCoresBetweenPaces = (received & SHARED_CORES_BETWEEN_PACES_BIT) != 0;
        // the band's calls ask at their size at the fast pace, where single copy may still be ahead there; the large
        // ones at either pace, whether single copy is ahead and by how much
        double bandMicros = Double.NaN;
        double bandSingleCopyMicros = Double.NaN;
        double largeMicros = Double.NaN;
        double largeSingleCopyMicros = Double.NaN;
        final boolean band = pace == Pace.FAST && comparesBand();
        if (band)
        {
            callsOf(BAND_BYTES);
            bandMicros = medianMicros(stagedCall, nanos);
            bandSingleCopyMicros = medianMicros(singleCopyCall, nanos);
        }
        if (comparesLarge)
        {
            callsOf(LARGE_BYTES);
            if (!largeWarm)
            {
                for (int i = 0; i < LARGE_WARM_UP_CALLS; i++)
                {
                    stagedCall.run();
                    singleCopyCall.run();
                }
                largeWarm = true;
            }
            largeMicros = medianMicros(stagedCall, nanos);
            largeSingleCopyMicros = medianMicros(singleCopyCall, nanos);
        }
        if (band || comparesLarge)
        {
            final long bits = transport.rank() != 0 ? 0 :
                (bandMicros > bandSingleCopyMicros ? BAND_SINGLE_COPY_BIT : 0) |
                (largeMicros > LARGE_FAST_RATIO * largeSingleCopyMicros ? LARGE_SINGLE_COPY_BIT : 0) |
                (largeMicros <= BETWEEN_PACES_MAX_RATIO * largeSingleCopyMicros ? BETWEEN_PACES_BIT : 0);
            final long second = agreed(bits);
            bandSingleCopy = (second & BAND_SINGLE_COPY_BIT) != 0;
            largeSingleCopy = (second & LARGE_SINGLE_COPY_BIT) != 0;
            largeBetweenPaces = (second & BETWEEN_PACES_BIT) != 0;
        }
        // the transport's heap arrays' large sends follow the pace too
        transport.pace(pace, (received & COPIES_STREAM_BIT) != 0, largeBetweenPaces);
        probes++;
        final boolean changed = pace != before || largeBetweenPaces != betweenBefore ||
            sharedCoresBetweenPaces != sharedCoresBetweenBefore ||
            pace == Pace.FAST && (bandSingleCopy != bandBefore || largeSingleCopy != largeBefore);
        if (changed && transport.rank() == 0 && log.enabled(Log.INFO, Log.COLL))
        {
            log.info(Log.COLL, paceChange(micros, singleCopyMicros, ratio, bandMicros, bandSingleCopyMicros,
                largeMicros, largeSingleCopyMicros));
        }
    }

    /**
     * Rank 0's ratio for a verdict while ranks outnumber cores: the median of this probe's {@code ratio} and the two
     * before it (until those ran, this one's). There one probe's ratio spreads with the scheduling of the moment: on
     * session 62's Intel Xeon 7 % of the probes read above {@link #SHARED_CORES_FAST_RATIO} and 4 % of the medians of
     * three. A real change of pace, which lasts minutes on the AMD VM, shows in the second probe after it.
     */
    private double sharedCoresRatio(final double ratio)
    {
        final double median = medianOfThree(ratio, ratioBefore, ratioBeforeThat);
        ratioBeforeThat = ratioBefore;
        ratioBefore = ratio;
        return median;
    }

    /** The median of {@code ratio} and the two before it, or {@code ratio} while those are NaN (not yet run). */
    static double medianOfThree(final double ratio, final double before, final double beforeThat)
    {
        if (Double.isNaN(beforeThat))
        {
            return ratio;
        }
        return Math.max(Math.min(ratio, before), Math.min(Math.max(ratio, before), beforeThat));
    }

    /**
     * Rank 0's log line for a change of pace: the probe's medians, µs (the band's and the large calls' NaN where they
     * were not compared), and what the calls take until the next probe.
     */
    private String paceChange(final double micros, final double singleCopyMicros, final double ratio,
        final double bandMicros, final double bandSingleCopyMicros, final double largeMicros,
        final double largeSingleCopyMicros)
    {
        if (!compares())
        {
            return String.format(Locale.ROOT, "the %s pace from probe %d (%.1f µs)", pace.label(), probes, micros);
        }
        final String choice = pace == Pace.SLOW ? "single copy" : "the staged algorithms";
        if (!comparesBand())
        {
            return String.format(Locale.ROOT, "the %s pace from probe %d (%s %.1f µs, %s %.1f µs; the median ratio " +
                "of the last three probes %.2f): %s%s", pace.label(), probes, staged.name(), micros,
                singleCopy.name(), singleCopyMicros, ratio, choice, sharedCoresBetweenPaces ? ", but between the " +
                "paces single copy for allgathers and alltoalls from " + SHARED_CORES_BETWEEN_PACES_MIN_BYTES +
                " bytes (heap arrays' copies declined)" : "");
        }
        if (pace == Pace.SLOW)
        {
            return String.format(Locale.ROOT, "the slow pace from probe %d (staged %.1f µs, single copy %.1f µs%s): " +
                "%s%s", probes, micros, singleCopyMicros, largeComparison(largeMicros, largeSingleCopyMicros), choice,
                largeBetweenPaces ? ", the calls from " + LARGE_MIN_BYTES + " bytes between the paces " +
                    BETWEEN_PACES_CHOICES : "");
        }
        return String.format(Locale.ROOT, "the fast pace from probe %d (staged %.1f µs, single copy %.1f µs; at %d " +
            "bytes %.1f and %.1f%s): %s%s", probes, micros, singleCopyMicros, BAND_BYTES, bandMicros,
            bandSingleCopyMicros, largeComparison(largeMicros, largeSingleCopyMicros), choice, singleCopyCalls());
    }

    /** The large calls' comparison in a log line: its medians, µs, or nothing where it did not run. */
    private static String largeComparison(final double largeMicros, final double largeSingleCopyMicros)
    {
        return Double.isNaN(largeMicros) ? "" : String.format(Locale.ROOT, "; at %d bytes %.1f and %.1f", LARGE_BYTES,
            largeMicros, largeSingleCopyMicros);
    }

    /** What a fast pace's log line adds: the calls that keep single copy, if any. */
    private String singleCopyCalls()
    {
        if (!largeSingleCopy)
        {
            return bandSingleCopy ? ", but single copy for the calls of " + BAND_MIN_BYTES + "-" +
                (BAND_END_BYTES - 1) + " bytes" : "";
        }
        return ", but single copy for the calls from " + (bandSingleCopy ? BAND_MIN_BYTES : LARGE_MIN_BYTES) +
            " bytes" + (transport.size() == 2 ? " (broadcasts from " + PAIR_LARGE_BROADCAST_MIN_BYTES + ")" : "") +
            (largeBetweenPaces ? ", from " + LARGE_MIN_BYTES + " between the paces " +
            BETWEEN_PACES_CHOICES : "");
    }

    /** Rank 0's {@code word}, broadcast to every rank; every rank's copy of it. */
    private long agreed(final long word)
    {
        verdictBytes.putLong(0, word);
        verdictArgs.clear();
        verdictArgs.collective = Collective.BROADCAST;
        verdictArgs.type = DataType.INT64;
        verdictArgs.count = 1;
        verdictArgs.root = 0;
        verdictArgs.recvBase = verdict.base();
        verdictArgs.recvOffset = verdict.offset();
        transport.beginCollective(Collective.BROADCAST, DataType.INT64, null, 0, 1, 1, broadcast);
        broadcast.run(transport, verdictArgs);
        transport.endCollective();
        return verdictBytes.getLong(0);
    }

    /**
     * The handoff probe's timing, the one the bench's {@code handoff_us} takes too, so that a threshold drawn from the
     * bench's rows holds for the engine's probe: one untimed {@code call}, then {@link #CALLS} timed into
     * {@code nanos} (left sorted); the median call's time, µs. Allocates nothing.
     */
    public static double medianMicros(final Runnable call, final long[] nanos)
    {
        call.run();
        for (int i = 0; i < CALLS; i++)
        {
            final long start = System.nanoTime();
            call.run();
            nanos[i] = System.nanoTime() - start;
        }
        Arrays.sort(nanos);
        return nanos[CALLS / 2] / 1e3;
    }

    private void call(final CollectiveAlgorithm algorithm)
    {
        fillArgs();
        transport.beginCollective(collective, probeArgs.type, probeArgs.op, -1, probeArgs.count, probeArgs.count,
            algorithm);
        algorithm.run(transport, probeArgs);
        transport.endCollective();
    }

    /** The probe's call (again before every call: an algorithm may leave its marks in the arguments). */
    private void fillArgs()
    {
        final CollectiveArgs a = probeArgs.clear();
        a.collective = collective;
        final boolean allreduce = collective == Collective.ALLREDUCE;
        a.type = allreduce ? DataType.FLOAT32 : DataType.INT8;
        a.op = allreduce ? ReduceOp.SUM : null;
        a.count = count;
        a.sendBase = send.base();
        a.sendOffset = send.offset();
        a.recvBase = recv.base();
        a.recvOffset = recv.offset();
    }

    /** The pace of the last probe; null before the first. */
    public Pace pace()
    {
        return pace;
    }

    /** Whether single copy was ahead in the last probe's band comparison (always false for a threshold probe). */
    public boolean bandSingleCopy()
    {
        return bandSingleCopy;
    }

    /** Probes run so far. */
    public long probes()
    {
        return probes;
    }

    /** Rank 0's last probe, µs (NaN elsewhere and before the first); the staged call's of a comparison probe. */
    public double lastMicros()
    {
        return lastMicros;
    }

    /** Whether the probe compares the staged call with single copy, rather than with a threshold. */
    private boolean compares()
    {
        return singleCopy != null;
    }

    /** Whether a comparison probe compares the band's and the large calls' allgathers too: each rank with a core. */
    private boolean comparesBand()
    {
        return compares() && !sharedCores;
    }

    /** The comparison's calls: an allreduce's vector, or an allgather's blocks together. */
    private int comparisonBytes()
    {
        return sharedCores ? SHARED_CORES_COMPARISON_BYTES : COMPARISON_BYTES;
    }

    /**
     * The shared-cores comparison's fast pace ({@link #FAST_RATIO} serves the others): the median of the staged
     * allreduce's ratios to the single-copy one's at most this.
     */
    private double sharedCoresFastRatio()
    {
        return transport.size() >= 2 * transport.cores() ? SHARED_CORES_FAST_RATIO : PARTLY_SHARED_CORES_FAST_RATIO;
    }

    /**
     * Whether ranks are two a core, where a fast verdict may find the machine between its paces
     * ({@link #SHARED_CORES_BETWEEN_PACES_RATIO}); beyond, alltoalls take single copy at either pace, with the copies
     * of heap arrays the selector's own window declines.
     */
    private boolean exactlyTwoACore()
    {
        return transport.size() == 2 * transport.cores();
    }
}
