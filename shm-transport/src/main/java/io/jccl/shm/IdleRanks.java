package io.jccl.shm;

import org.agrona.UnsafeApi;

/**
 * How many ranks of the job are idle in a long wait, in the segment header's idle-ranks word
 * ({@link SegmentDescriptor#IDLE_RANKS_OFFSET}). While ranks outnumber cores a waiting rank yields at once, and one
 * that has yielded {@link #AFTER_YIELDS} times, or parks, gives its core away at every turn: when enough ranks are
 * idle so, the ranks left have a core each and can wait as ranks that do: spinning, and sending large messages single
 * copy. A 4-rank job whose ranks 2 and 3 wait in a barrier while ranks 0 and 1 exchange messages is then a 2-rank job.
 * <p>
 * A rank adds one when its wait turns idle and takes it away when the wait ends, so the word changes twice per long
 * wait and otherwise stays in every core's cache; waiting ranks read it once per wait, and senders once per large
 * message. The count is a hint for choosing how to wait, never for correctness: a rank that dies idle leaves it one
 * too high, which only makes the others spin where they would have yielded.
 */
final class IdleRanks
{
    /**
     * Yields after which a wait counts as idle: while ranks outnumber cores a yield takes a microsecond or more, so
     * this is a wait of a few hundred microseconds, longer than a small collective's. Parks alone (after 5000 yields)
     * came too late: the 4-rank bench's pingpong leaves ranks 2 and 3 waiting some 20 ms at a time, most of it
     * yielding. Its medians of 4 alternating runs, against counting nothing: 200 yields 0.47-0.87x the time at
     * 8 B-32 KiB and 0.36-0.49x at 64-128 KiB; 1000 yields 0.52-1.02x and 0.56-1.22x.
     */
    static final long AFTER_YIELDS = 200;

    private final long address;
    private final int size;
    private final int cores;

    IdleRanks(final long segmentBase, final int size, final int cores)
    {
        this.address = segmentBase + SegmentDescriptor.IDLE_RANKS_OFFSET;
        this.size = size;
        this.cores = cores;
    }

    /** Whether the ranks not idle fit on the cores. Opaque load: a hint, ordered with nothing else. */
    boolean coreEach()
    {
        return size - UnsafeApi.getLongOpaque(null, address) <= cores;
    }

    /** This rank's wait turns idle (atomic add: several ranks may turn at once). */
    void add()
    {
        UnsafeApi.getAndAddLong(null, address, 1);
    }

    /** This rank's idle wait has ended. */
    void remove()
    {
        UnsafeApi.getAndAddLong(null, address, -1);
    }
}
