package io.jccl.tools.bench;

/**
 * How many calls a size gets: like ../shared/peers/run-peers (20000 up to 8 KiB, 1000 up to 1 MiB, 50 above),
 * fewer when the timed loop would take longer than {@link #TIMED_SECONDS} at the warm-up's pace, but never fewer
 * than a hundredth of that count nor {@link #MIN_ITERS} (so that one slow warm-up on a busy machine does not leave
 * a small size with a handful of calls); warm-up a tenth of the count plus one, within {@link #WARMUP_SECONDS}.
 * --iters and --warmup replace both.
 */
public final class Iterations
{
    public static final int SMALL_ITERS = 20_000;
    public static final int MEDIUM_ITERS = 1_000;
    public static final int LARGE_ITERS = 50;
    public static final long SMALL_MAX_BYTES = 8 << 10;
    public static final long MEDIUM_MAX_BYTES = 1 << 20;
    /** Longest the timed loop of one size should take. */
    public static final double TIMED_SECONDS = 0.3;
    /** Longest the warm-up of one size may take. */
    public static final double WARMUP_SECONDS = 1.0;
    /**
     * Shortest warm-up of one size. A pace that settles for a few rounds is not yet the JIT's last word: blocks of
     * 20,000 pingpongs of 8 B in a fresh JVM ran 5.6, 0.9, 0.7, 0.7, 0.12, 0.5, 0.35 µs and only from the eighth
     * block (about 50 ms in) 0.10-0.12 µs for good.
     */
    public static final double WARMUP_MIN_SECONDS = 0.15;
    /** One warm-up round: long enough to average out noise, short enough to stop soon after the JIT is done. */
    public static final double WARMUP_ROUND_SECONDS = 0.02;
    public static final int MIN_ITERS = 5;

    private Iterations()
    {
    }

    /** run-peers' count for {@code bytes}. */
    public static int defaultIters(final long bytes)
    {
        return bytes <= SMALL_MAX_BYTES ? SMALL_ITERS : bytes <= MEDIUM_MAX_BYTES ? MEDIUM_ITERS : LARGE_ITERS;
    }

    /** run-peers' warm-up for {@code iters} timed calls. */
    public static int defaultWarmup(final int iters)
    {
        return iters / 10 + 1;
    }

    /** {@code iters}, reduced so that calls of {@code secondsPerCall} fit {@link #TIMED_SECONDS}. */
    public static int timed(final int iters, final double secondsPerCall)
    {
        final int least = Math.min(iters, Math.max(MIN_ITERS, iters / 100));
        return (int)Math.max(least, Math.min(iters, fit(TIMED_SECONDS, secondsPerCall)));
    }

    /** Calls in one warm-up round: about {@link #WARMUP_ROUND_SECONDS} at the pace seen so far, at most {@code max}. */
    public static int warmupRound(final int max, final double secondsPerCall)
    {
        return (int)Math.max(1, Math.min(max, fit(WARMUP_ROUND_SECONDS, secondsPerCall)));
    }

    /** One sentence for output preambles. */
    public static String describe()
    {
        return "timed calls per size: " + SMALL_ITERS + " up to 8 KiB, " + MEDIUM_ITERS + " up to 1 MiB, " +
            LARGE_ITERS + " above, fewer (down to a hundredth, at least " + MIN_ITERS + ") when that would take " +
            "over " + TIMED_SECONDS + " s; warm-up in rounds until the pace settles, at least " + WARMUP_MIN_SECONDS +
            " s and the timed count, at most " + WARMUP_SECONDS + " s";
    }

    private static double fit(final double seconds, final double secondsPerCall)
    {
        return secondsPerCall > 0 ? Math.floor(seconds / secondsPerCall) : Double.MAX_VALUE;
    }
}
