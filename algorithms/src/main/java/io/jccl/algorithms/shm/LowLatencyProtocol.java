package io.jccl.algorithms.shm;

import io.jccl.spi.CollectiveContext;
import org.agrona.UnsafeApi;

/**
 * The low-latency (LL) protocol of the shared-memory algorithms, after NCCL's LL: the flag travels inside the data.
 * Every 8-byte word carries 4 bytes of payload and, beside them, the operation's epoch (the low 32 bits of the
 * collective sequence), written with one atomic store. A reader that sees the epoch in a word holds that word's
 * payload: no flag line, no fence beyond the word's own store and load, one cache-line handoff per line of data.
 * It halves the bandwidth, so it serves small messages only (up to {@link #MAX_BYTES} per rank).
 * <p>
 * Layout: the last {@link #REGION_BYTES} of each rank's staging area when it has at least {@link #MIN_STAGING_BYTES}
 * ({@link ShmProtocol#halfStagingBytes} leaves them out of the chunk halves, so the staging protocol never touches
 * them):
 * <pre>
 *   stagingAddress(r) + stagingBytes - REGION_BYTES
 *   +--------------------------------------------------------------+
 *   | slot 0: SLOT_BYTES of LL words (operations s with s % SLOTS == 0) |
 *   | slot 1                                                        |
 *   | ...                                                           |
 *   | slot SLOTS - 1                                                |
 *   +--------------------------------------------------------------+  end of rank r's staging area
 *
 *   LL word i of a slot:
 *    63                            32 31                             0
 *   +--------------------------------+--------------------------------+
 *   |  epoch = (int) sequence        |  payload bytes 4i .. 4i+3 (LE)  |
 *   +--------------------------------+--------------------------------+
 * </pre>
 * Slot reuse: operation {@code s} writes slot {@code s % SLOTS} of its own rank. The words there still name the
 * operation {@code u} that wrote them last; before overwriting, the writer waits until every peer's
 * {@link #SLOT_LL_DONE} flag (release-stored by each rank once it has read everything of an LL operation) is at
 * least {@code u} (acquire). The smallest value seen is remembered in the owner's own flag {@link #SLOT_LL_SEEN},
 * which only the owner reads and writes, so in a steady stream of operations the peers' flags are read about once
 * every {@code SLOTS - 1} operations rather than every time. Ranks that disagree about using LL for a call cannot
 * corrupt each other's data: a reader only accepts words with its own epoch.
 */
final class LowLatencyProtocol
{
    /** Payload bytes per rank and operation: above this, the staged algorithms' full-bandwidth copies win. */
    static final long MAX_BYTES = 1024;

    /** Slots per rank, used round-robin by operation sequence. */
    static final int SLOTS = 8;

    /** One slot: an LL word per 4 payload bytes. */
    static final long SLOT_BYTES = 2 * MAX_BYTES;

    /** The LL region at the end of every staging area. */
    static final long REGION_BYTES = SLOTS * SLOT_BYTES;

    /** Smaller staging areas (tests of chunking use a few KiB) have no LL region: all of it goes to the halves. */
    static final long MIN_STAGING_BYTES = 4 * REGION_BYTES;

    /** The owner has read everything of the LL operation whose sequence this holds. */
    static final int SLOT_LL_DONE = 5;

    /** Owner-private: the smallest {@link #SLOT_LL_DONE} of the peers at the last look. */
    static final int SLOT_LL_SEEN = 6;

    private static final long PAYLOAD_MASK = 0xFFFF_FFFFL;

    private LowLatencyProtocol()
    {
    }

    /** Null when a call moving {@code bytes} per rank can use LL, else why not. */
    static String reason(final String name, final CollectiveContext context, final long bytes)
    {
        if (bytes > MAX_BYTES)
        {
            return name + " carries at most " + MAX_BYTES + " bytes per rank (low-latency protocol), not " + bytes;
        }
        if (regionBytes(context) == 0)
        {
            return name + " needs a staging area of at least " + MIN_STAGING_BYTES + " bytes per rank, this job " +
                "has " + context.stagingBytes();
        }
        return null;
    }

    /**
     * Writes {@code bytes} from {@code (base, offset)} into this rank's slot of the current operation, each word
     * stamped with the epoch, after making sure every peer has read what the slot held before.
     */
    static void publish(final CollectiveContext context, final Object base, final long offset, final long bytes)
    {
        final long sequence = context.sequence();
        final int epoch = (int) sequence;
        final long slot = slotAddress(context, context.rank(), sequence);
        awaitSlotFree(context, slot, sequence);

        final long stamp = (long) epoch << 32;
        final int fullWords = (int) (bytes >> 2);
        for (int i = 0; i < fullWords; i++)
        {
            final long payload = UnsafeApi.getInt(base, offset + ((long) i << 2)) & PAYLOAD_MASK;
            UnsafeApi.putLongOpaque(null, slot + ((long) i << 3), stamp | payload);
        }
        final int tail = (int) (bytes & 3);
        if (tail != 0)
        {
            int payload = 0;
            final long from = offset + ((long) fullWords << 2);
            for (int b = 0; b < tail; b++)
            {
                payload |= (UnsafeApi.getByte(base, from + b) & 0xFF) << (b << 3);
            }
            UnsafeApi.putLongOpaque(null, slot + ((long) fullWords << 3), stamp | (payload & PAYLOAD_MASK));
        }
    }

    /**
     * Copies {@code bytes} of {@code peer}'s payload for the current operation, starting at payload byte
     * {@code from}, to {@code (base, offset)}, waiting for each word to carry the epoch.
     */
    static void read(final CollectiveContext context, final int peer, final long from, final long bytes,
        final Object base, final long offset)
    {
        if (bytes == 0)
        {
            return;
        }
        final long sequence = context.sequence();
        final int epoch = (int) sequence;
        final long slot = slotAddress(context, peer, sequence);
        if ((from & 3) == 0)
        {
            final int fullWords = (int) (bytes >> 2);
            final long first = slot + (from << 1);
            for (int i = 0; i < fullWords; i++)
            {
                final long word = context.waitWord(peer, first + ((long) i << 3), epoch);
                UnsafeApi.putInt(base, offset + ((long) i << 2), (int) word);
            }
            final int tail = (int) (bytes & 3);
            if (tail != 0)
            {
                final long word = context.waitWord(peer, first + ((long) fullWords << 3), epoch);
                final long to = offset + ((long) fullWords << 2);
                for (int b = 0; b < tail; b++)
                {
                    UnsafeApi.putByte(base, to + b, (byte) (word >>> (b << 3)));
                }
            }
        }
        else
        {
            // unaligned start (a block of 1- or 2-byte elements): byte by byte, one wait per word
            long wordIndex = -1;
            long word = 0;
            for (int b = 0; b < (int) bytes; b++)
            {
                final long at = from + b;
                if ((at >> 2) != wordIndex)
                {
                    wordIndex = at >> 2;
                    word = context.waitWord(peer, slot + (wordIndex << 3), epoch);
                }
                UnsafeApi.putByte(base, offset + b, (byte) (word >>> ((at & 3) << 3)));
            }
        }
    }

    /** This rank has read everything of the current operation: peers may reuse the slots it read. */
    static void finish(final CollectiveContext context)
    {
        context.setFlag(SLOT_LL_DONE, context.sequence());
    }

    /** Bytes at the end of each staging area that belong to LL: {@link #REGION_BYTES}, or none when too small. */
    static long regionBytes(final CollectiveContext context)
    {
        return context.stagingBytes() >= MIN_STAGING_BYTES ? REGION_BYTES : 0;
    }

    /** Address of {@code rank}'s slot for operation {@code sequence}. */
    private static long slotAddress(final CollectiveContext context, final int rank, final long sequence)
    {
        return context.stagingAddress(rank) + context.stagingBytes() - REGION_BYTES +
            (sequence % SLOTS) * SLOT_BYTES;
    }

    /** Waits until every peer has finished the operation that last wrote the own slot at {@code slot}. */
    private static void awaitSlotFree(final CollectiveContext context, final long slot, final long sequence)
    {
        // the slot's first word names its last writer (plain load: only this rank writes it); 0 when never used
        final int lastEpoch = (int) (UnsafeApi.getLong(null, slot) >>> 32);
        final long last = sequence - (((int) sequence - lastEpoch) & PAYLOAD_MASK);
        if (last <= 0 || context.getFlag(context.rank(), SLOT_LL_SEEN) >= last)
        {
            return;
        }
        final int rank = context.rank();
        final int size = context.size();
        long seen = Long.MAX_VALUE;
        for (int i = 1; i < size; i++)
        {
            seen = Math.min(seen, context.waitFlag((rank + i) % size, SLOT_LL_DONE, last));
        }
        context.setFlag(SLOT_LL_SEEN, seen);
    }
}
