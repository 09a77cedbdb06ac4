package io.jccl.shm;

import io.jccl.Configuration;

import java.util.Locale;

/**
 * The machine's pace as a sender reads it from its own large messages through the ring, for the application's
 * blocking sends of heap arrays. Those go out of an off-heap copy at the slow pace ({@link SingleCopy#offerStaged}),
 * but the engine's pace probe runs among collective calls, and a job of point-to-point messages alone never makes one.
 * <p>
 * At the slow pace it is the sender's copy into the ring that crawls: once the ring is full, each chunk goes into
 * lines the receiver's core has just read, and taking them back costs a slow handoff each, while the receiver's copy
 * out stays fast (2 ranks on the AMD VM, 2026-12-06, 256 KiB chunks: the fastest of a message's chunks into the ring
 * below 5 GB/s in two thirds of the messages at the slow pace and at 8-47 in all but 2 of 12 256 at the fast pace,
 * out of it at 15-27 at either; PERFORMANCE.md, session 59). So the sender times its copy of
 * each chunk of a message of {@link #minBytes} or more (a message that could have gone out of a copy) that goes into
 * the ring after its first ring's worth, and at the message's end reads the slow pace for that receiver when most
 * of those chunks went in at fewer than {@link Configuration#RING_SLOW_GBPS_PROP_NAME} GB/s: the median chunk, since
 * a chunk the sender was descheduled in reads slow whatever the pace, and now and then one reads fast at the slow
 * pace (the fastest of a message's chunks read 7-12 GB/s in about a third of the messages there).
 * <p>
 * While the pace is slow, messages to that receiver go out of a copy, but for one through the ring after every
 * {@link Configuration#PACE_PROBE_BYTES_PROP_NAME} bytes sent out of copies, which reads the pace again. That one finds
 * the ring cold (its lines long out of the receiver's cache), so a fast reading there sends the next message through
 * the ring too, whose reading decides. At the fast pace, or before any reading, the
 * ring, which reads the pace with every message.
 * <p>
 * Costs two clock reads per chunk of such a message (256 KiB with the default ring); allocates nothing. One instance
 * per transport, used by its one thread.
 */
final class RingPace
{
    /** The smallest chunk timed: below it a clock read's cost is a few percent of the copy's time at the fast pace. */
    static final int MIN_TIMED_CHUNK_BYTES = 64 * 1024;
    /**
     * Chunks a message must have timed for a reading: the median of one or two is too often a disturbed one. A chunk
     * is a quarter of the ring ({@link ChannelWriter}), so a message of twice the ring or more reads the pace.
     */
    static final int MIN_TIMED_CHUNKS = 4;

    private final Log log;
    /** Messages that read the pace, and whose sends follow it: 0 where none does. */
    private final long minBytes;
    /** A message's first chunks fill the ring without waiting for the receiver: not timed. */
    private final long ringBytes;
    private final double slowGbps;
    private final long rereadBytes;
    /** Per destination: chunks timed in the message going through the ring, and how many went in slowly. */
    private final int[] timedChunks;
    private final int[] slowChunks;
    /** Per destination: whether the pace read is slow. */
    private final boolean[] slow;
    /** Per destination, at the slow pace: the message through the ring reads it again on a cold ring. */
    private final boolean[] rereading;
    /** Per destination, at the slow pace: a cold ring read fast, so the next message goes through it too. */
    private final boolean[] confirming;
    /** Per destination: bytes sent out of copies since the last message through the ring. */
    private final long[] stagedBytes;

    /**
     * @param minBytes the smallest heap array's send that could go out of an off-heap copy; 0 where none could, and
     *                 then nothing is read or followed.
     */
    RingPace(final Configuration configuration, final Log log, final int size, final long ringBytes,
        final long minBytes)
    {
        this.log = log;
        this.ringBytes = ringBytes;
        this.slowGbps = configuration.getDouble(Configuration.RING_SLOW_GBPS_PROP_NAME,
            Configuration.RING_SLOW_GBPS_DEFAULT);
        this.rereadBytes = configuration.getLong(Configuration.PACE_PROBE_BYTES_PROP_NAME,
            Configuration.PACE_PROBE_BYTES_DEFAULT);
        this.minBytes = rereadBytes > 0 ? minBytes : 0;
        this.timedChunks = new int[size];
        this.slowChunks = new int[size];
        this.slow = new boolean[size];
        this.rereading = new boolean[size];
        this.confirming = new boolean[size];
        this.stagedBytes = new long[size];
    }

    /** Whether a message of {@code length} bytes through the ring reads the pace: its chunks timed, then its end. */
    boolean reads(final long length)
    {
        return minBytes > 0 && length >= minBytes;
    }

    /** A message that {@link #reads} starts through the ring to {@code dest}. */
    void begin(final int dest)
    {
        timedChunks[dest] = 0;
        slowChunks[dest] = 0;
    }

    /**
     * The sender copied a chunk of {@code bytes} into {@code dest}'s ring in {@code nanos}, {@code sent} bytes of the
     * message before it.
     */
    void copied(final int dest, final int bytes, final long nanos, final long sent)
    {
        if (bytes >= MIN_TIMED_CHUNK_BYTES && sent >= ringBytes)
        {
            timedChunks[dest]++;
            // bytes per nanosecond are GB/s
            if (bytes < slowGbps * nanos)
            {
                slowChunks[dest]++;
            }
        }
    }

    /** The message to {@code dest} is in the ring: takes the pace its chunks read, if enough were timed. */
    void end(final int dest)
    {
        if (timedChunks[dest] < MIN_TIMED_CHUNKS)
        {
            return;
        }
        final boolean slowNow = 2 * slowChunks[dest] > timedChunks[dest];
        if (log.enabled(Log.TRACE, Log.P2P))
        {
            log.trace(Log.P2P, String.format(Locale.ROOT, "a message to rank %d through the ring: %d of %d " +
                "chunks timed below %.1f GB/s%s", dest, slowChunks[dest], timedChunks[dest], slowGbps,
                rereading[dest] ? " (a cold ring)" : ""));
        }
        final boolean cold = rereading[dest];
        rereading[dest] = false;
        confirming[dest] = slow[dest] && !slowNow && cold;
        if (confirming[dest] || slowNow == slow[dest])
        {
            return;
        }
        slow[dest] = slowNow;
        if (log.enabled(Log.INFO, Log.P2P))
        {
            log.info(Log.P2P, String.format(Locale.ROOT, "the %s pace from a message to rank %d through the ring " +
                "(%d of its %d chunks timed below %.1f GB/s): heap arrays' large sends to it go %s",
                slowNow ? "slow" : "fast", dest, slowChunks[dest], timedChunks[dest], slowGbps,
                slowNow ? "out of an off-heap copy" : "through the ring"));
        }
    }

    /**
     * Whether the application's blocking send of {@code bytes} from a heap array to {@code dest}, which could go out
     * of an off-heap copy, does: while the pace read for {@code dest} is slow, but for one message through the ring
     * after every {@link #rereadBytes} sent out of copies to it (two when the first reads fast).
     */
    boolean outOfCopy(final int dest, final long bytes)
    {
        if (minBytes == 0 || !slow[dest] || confirming[dest])
        {
            return false;
        }
        if (stagedBytes[dest] >= rereadBytes)
        {
            stagedBytes[dest] = 0;
            rereading[dest] = true;
            return false;
        }
        stagedBytes[dest] += bytes;
        return true;
    }
}
