package io.jccl.tools.bench;

import java.util.Arrays;

/**
 * A timed loop cut into {@link #BLOCKS} consecutive blocks of calls, each timed on its own, to tell a steady timing
 * from one that something stalled: on this project's 2-vCPU VMs a timing now and then takes a pause of tens of
 * milliseconds (the host, another process), and a 20000-call loop of 0.5 µs calls that lasts 20 ms then reports a
 * call several times as slow as the calls around it. Such a timing has one block far slower than the rest, where a
 * steady one has blocks alike ({@link #disturbance}). The whole loop's mean is still what a row reports. Reusable,
 * allocation-free; not thread-safe.
 */
final class TimingBlocks
{
    /** Blocks a loop is cut into (fewer when it has fewer calls). */
    static final int BLOCKS = 5;

    private final long[] nanos = new long[BLOCKS];
    private final double[] perCall = new double[BLOCKS];
    private int iters;
    private int count;

    /** Starts a loop of {@code iters} calls. */
    void reset(final int iters)
    {
        this.iters = iters;
        this.count = Math.min(BLOCKS, Math.max(0, iters));
    }

    /** Blocks of the current loop. */
    int count()
    {
        return count;
    }

    /** Calls before the end of block {@code block}: blocks split the calls as evenly as whole calls allow. */
    int end(final int block)
    {
        return (int)((long)iters * (block + 1) / count);
    }

    /** Block {@code block} took {@code blockNanos}. */
    void record(final int block, final long blockNanos)
    {
        nanos[block] = blockNanos;
    }

    /**
     * The slowest block's time per call over the median block's: about 1 for a steady loop; 1 when the loop has
     * fewer than 3 blocks, which cannot say which of them is the odd one.
     */
    double disturbance()
    {
        if (count < 3)
        {
            return 1.0;
        }
        for (int b = 0; b < count; b++)
        {
            perCall[b] = (double)nanos[b] / (end(b) - (b == 0 ? 0 : end(b - 1)));
        }
        // in place: a primitive range of at most BLOCKS values is sorted without allocating
        Arrays.sort(perCall, 0, count);
        final double median = perCall[count / 2];
        return median > 0 ? perCall[count - 1] / median : 1.0;
    }
}
