package io.jccl.algorithms.shm;

import io.jccl.spi.CollectiveArgs;
import io.jccl.spi.CollectiveContext;
import io.jccl.spi.Memory;
import io.jccl.spi.Reductions;
import org.agrona.UnsafeApi;

/**
 * The low-latency (LL) protocol of the shared-memory algorithms, after NCCL's LL128: the flag travels inside the
 * data. Every 64-byte cache line of a slot carries 56 payload bytes and, in its last word, the operation's sequence
 * number, stored after the payload with a release store. A reader that acquire-loads the sequence from a line holds
 * that line's payload and every earlier line's (the writer stores the lines in order): no flag line, no fence beyond
 * that release/acquire pair, one wait per read however many lines it spans. (NCCL's
 * LL puts a flag beside every 4 payload bytes because a GPU's 16-byte stores may be torn; on x86 the stores of one
 * thread become visible in order, so one flag per line suffices, as in LL128.) The payload costs 8/7 of its size,
 * and the protocol serves small messages only (up to {@link #MAX_BYTES} per rank).
 * <p>
 * Layout: the last {@link #REGION_BYTES} of each rank's staging area when it has at least {@link #MIN_STAGING_BYTES}
 * ({@link ShmProtocol#halfStagingBytes} leaves them out of the chunk halves, so the staging protocol never touches
 * them):
 * <pre>
 *   stagingAddress(r) + stagingBytes - REGION_BYTES
 *   +------------------------------------------------------------+
 *   | one-line slots: SLOTS of 1 line, operation s in slot        |
 *   |   s % SLOTS, for publishes of up to LINE_PAYLOAD bytes      |
 *   +------------------------------------------------------------+  + SHORT_SLOTS_OFFSET
 *   | short slots: SLOTS of SHORT_SLOT_LINES lines, for publishes |
 *   |   of up to SHORT_SLOT_LINES * LINE_PAYLOAD bytes            |
 *   +------------------------------------------------------------+  + MEDIUM_SLOTS_OFFSET
 *   | medium slots: SLOTS of MEDIUM_SLOT_LINES lines, for         |
 *   |   publishes of up to MEDIUM_SLOT_LINES * LINE_PAYLOAD bytes |
 *   +------------------------------------------------------------+  + FULL_SLOTS_OFFSET
 *   | full slot 0: SLOT_LINES lines (operations s % SLOTS == 0)   |
 *   | full slot 1                                                 |
 *   | ...                        for publishes of more bytes      |
 *   | full slot SLOTS - 1                                         |
 *   +------------------------------------------------------------+  end of rank r's staging area
 *
 *   line i of a slot (64 bytes):
 *   0                                                      56        64
 *   +------------------------------------------------------+---------+
 *   | payload bytes 56i .. 56i + 55                         | seq (8) |
 *   +------------------------------------------------------+---------+
 * </pre>
 * Why four sizes of slot: a broadcast's root runs ahead of its readers, and with the publishes of consecutive
 * operations in consecutive lines a reader's hardware prefetcher fetches the lines the root has already written while
 * the reader copies the current ones; 1,216 bytes apart, each call waited for its own lines. Against the full slots
 * alone, 8-32 B broadcasts back to back took 0.68-0.88x the time in one-line slots, 64-128 B 0.73-0.78x in short ones
 * (session 38), 256-512 B 0.57-0.71x in medium ones (session 39; at 4 ranks 0.77-0.96x, inside the noise there); one
 * call at a time and in exchanges the change sat within the noise of the sizes it did not touch (2 ranks, alternating
 * runs, PERFORMANCE.md). Medium slots have ten lines, not eight, so that 512-byte publishes fit. Longer publishes stay
 * in full slots: with every slot's line i in one row (line-major), broadcasts gained up to 256 B, but a 1 KiB allreduce
 * took 0.91-1.00 µs in each of four runs against 0.75-0.80 in three of the four contiguous ones, probably as a reader's
 * prefetches there fetch lines the writer is about to write.
 * <p>
 * Slot reuse: operation {@code s} writes slot {@code s % SLOTS} of its own rank, of the size it fits. The slot's first
 * line still names the operation {@code u} that wrote it last; before overwriting, the writer waits until every peer's
 * {@link #SLOT_LL_DONE} flag (release-stored by each rank once it has read everything of an LL operation) is at least
 * {@code u} (acquire). The owner's own flag {@link #SLOT_LL_SEEN}, which only the owner reads and writes, holds an
 * operation every peer is known to have finished: the smallest flag seen at the last look, or, after an exchange (every
 * rank reads every peer's slot), the operation before it, since a peer publishes only once it has finished the
 * operation before. As {@code u <= s - SLOTS}, a writer whose {@code SLOT_LL_SEEN} is at least {@code s - SLOTS}
 * touches neither the peers' flags nor the slot before its stores: in a stream of exchanges that is every time, in a
 * stream of broadcasts all but about one in {@code SLOTS - 1}. (Loading the slot's first line before storing into it,
 * as every call once did, cost 30 ns of a 190 ns 8-byte allreduce here.) A reader only accepts lines stamped with its
 * own operation's sequence, so ranks that disagree about a call cannot take each other's data.
 */
final class LowLatencyProtocol
{
    /** Payload bytes per rank and operation: above this, the staged algorithms' full-bandwidth copies win. */
    static final long MAX_BYTES = 1024;

    static final int LINE_BYTES = 64;

    /** Payload bytes of a line: all but the sequence word at its end. */
    static final int LINE_PAYLOAD = LINE_BYTES - 8;

    /** Lines of a full slot. */
    static final long SLOT_LINES = (MAX_BYTES + LINE_PAYLOAD - 1) / LINE_PAYLOAD;

    static final long SLOT_BYTES = SLOT_LINES * LINE_BYTES;

    /**
     * Slots per rank, used round-robin by operation sequence: how far a broadcast root may run ahead of its slowest
     * reader. With 4 ranks on 2 cores a reader often waits for its core; 8 slots held a stream of 8-byte broadcasts
     * at 1.8-2.6 µs each (the root stalled every 8 calls until the readers were scheduled), 64 at 0.32 µs, and 256
     * at 0.57-0.90x the time of 64 from 8 B to 1 KiB (five alternating runs, medians; 8 ranks 0.72-0.82x): each
     * switch to a reader serves four times as many calls. Exchanges, which cannot run ahead, took the same time
     * (0.98-1.02x, six runs), and the 2-rank collectives too.
     */
    static final int SLOTS = 256;

    /** Lines of a short slot, for publishes of 2 to this many lines. */
    static final int SHORT_SLOT_LINES = 4;

    /** Where the short slots start in the region, after the one-line slots. */
    static final long SHORT_SLOTS_OFFSET = SLOTS * LINE_BYTES;

    /** Lines of a medium slot, for publishes of {@code SHORT_SLOT_LINES + 1} to this many lines. */
    static final int MEDIUM_SLOT_LINES = 10;

    /** Where the medium slots start in the region, after the short slots. */
    static final long MEDIUM_SLOTS_OFFSET = SHORT_SLOTS_OFFSET + SLOTS * SHORT_SLOT_LINES * LINE_BYTES;

    /** Where the full slots start in the region. */
    static final long FULL_SLOTS_OFFSET = MEDIUM_SLOTS_OFFSET + SLOTS * MEDIUM_SLOT_LINES * LINE_BYTES;

    /** The LL region at the end of every staging area. */
    static final long REGION_BYTES = FULL_SLOTS_OFFSET + SLOTS * SLOT_BYTES;

    /**
     * Smaller staging areas (tests of chunking use a few KiB) have no LL region: all of it goes to the halves. At
     * this size the region takes a little over half of the area, the halves the rest.
     */
    static final long MIN_STAGING_BYTES = 1024 * 1024;

    /** The owner has read everything of the LL operation whose sequence this holds. */
    static final int SLOT_LL_DONE = 5;

    /** Owner-private: the smallest {@link #SLOT_LL_DONE} of the peers at the last look. */
    static final int SLOT_LL_SEEN = 6;

    private LowLatencyProtocol()
    {
    }

    /** Whether a call moving {@code bytes} per rank can use LL: {@link #reason} null, without building a message. */
    static boolean carries(final CollectiveContext context, final long bytes)
    {
        return bytes <= MAX_BYTES && regionBytes(context) > 0;
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

    /** Bytes at the end of each staging area that belong to LL: {@link #REGION_BYTES}, or none when too small. */
    static long regionBytes(final CollectiveContext context)
    {
        return context.stagingBytes() >= MIN_STAGING_BYTES ? REGION_BYTES : 0;
    }

    /**
     * Writes {@code bytes} from {@code (base, offset)} into this rank's slot of the current operation, line by line,
     * each line's payload before its sequence word, after making sure every peer has read what the slot held. The
     * rank then has only reads left of the operation ({@link CollectiveContext#onlyReadsLeft}).
     */
    static void publish(final CollectiveContext context, final Object base, final long offset, final long bytes)
    {
        final long sequence = context.sequence();
        final long slot = slotAddress(context, context.rank(), sequence, bytes);
        // the first line's sequence names the slot's last writer
        awaitSlotFree(context, slot + LINE_PAYLOAD, SLOTS);

        final int lines = (int) ((bytes + LINE_PAYLOAD - 1) / LINE_PAYLOAD);
        for (int i = 0; i < lines; i++)
        {
            final long payload = (long) i * LINE_PAYLOAD;
            final long line = slot + (long) i * LINE_BYTES;
            if (bytes - payload >= LINE_PAYLOAD)
            {
                Memory.copyLinePayload(base, offset + payload, null, line);
            }
            else
            {
                Memory.copySmall(base, offset + payload, null, line, (int) (bytes - payload));
            }
            // Release: the line's payload is visible before the sequence that vouches for it.
            UnsafeApi.putLongRelease(null, line + LINE_PAYLOAD, sequence);
        }
        // every LL collective publishes its part in one call and then only reads the peers'
        context.onlyReadsLeft();
    }

    /**
     * Copies {@code bytes} of {@code peer}'s payload for the current operation, which published {@code published}
     * bytes, starting at payload byte {@code from}, to {@code (base, offset)}, once the last line they span carries
     * the operation's sequence.
     */
    static void read(final CollectiveContext context, final int peer, final long published, final long from,
        final long bytes, final Object base, final long offset)
    {
        if (bytes == 0)
        {
            return;
        }
        final long sequence = context.sequence();
        final long slot = slotAddress(context, peer, sequence, published);
        final int firstLine = (int) (from / LINE_PAYLOAD);
        final int lastLine = (int) ((from + bytes - 1) / LINE_PAYLOAD);
        // one wait, on the last line needed: the writer stored every earlier line before that line's release store,
        // and copying the lines without a check each lets their cache misses overlap
        arrived(context, peer, slot + (long) lastLine * LINE_BYTES + LINE_PAYLOAD, sequence);
        for (int i = firstLine; i <= lastLine; i++)
        {
            final long line = slot + (long) i * LINE_BYTES;
            final long lineStart = (long) i * LINE_PAYLOAD;
            final long start = Math.max(from, lineStart);
            final long end = Math.min(from + bytes, lineStart + LINE_PAYLOAD);
            if (end - start == LINE_PAYLOAD)
            {
                Memory.copyLinePayload(null, line, base, offset + (start - from));
            }
            else
            {
                Memory.copySmall(null, line + (start - lineStart), base, offset + (start - from), (int) (end - start));
            }
        }
    }

    /**
     * {@code recv = x_0 op x_1 op ... op x_(p-1)} over p blocks of {@code args.count} elements laid end to end in
     * scratch at {@code blocks}, in rank order, so every rank computes the same bits.
     */
    static void reduceInRankOrder(final CollectiveContext context, final CollectiveArgs args, final long blocks,
        final long blockBytes)
    {
        Reductions.reduce(args.type, args.op, null, blocks, null, blocks + blockBytes,
            args.recvBase, args.recvOffset, args.count);
        for (int r = 2; r < context.size(); r++)
        {
            Reductions.reduce(args.type, args.op, args.recvBase, args.recvOffset, null, blocks + r * blockBytes,
                args.recvBase, args.recvOffset, args.count);
        }
    }

    /**
     * Address of {@code peer}'s payload for the current operation when it fits one line ({@link #LINE_PAYLOAD}
     * bytes), once that line carries the operation's sequence: the payload lies there in one piece, to be read in
     * place until this rank {@link #finishExchange finishes}.
     */
    static long awaitLine(final CollectiveContext context, final int peer)
    {
        final long sequence = context.sequence();
        final long line = slotAddress(context, peer, sequence, LINE_PAYLOAD);
        arrived(context, peer, line + LINE_PAYLOAD, sequence);
        return line;
    }

    /** This rank has read everything of the current operation: peers may reuse the slots it read. */
    static void finish(final CollectiveContext context)
    {
        context.setFlag(SLOT_LL_DONE, context.sequence());
    }

    /**
     * {@link #finish} for an exchange, an operation in which this rank read a non-empty part of every peer's slot:
     * every peer has published this operation, so every peer has finished the one before, and the next publishes
     * need not look at the peers' flags (the value only grows: a look during this operation saw at most it).
     */
    static void finishExchange(final CollectiveContext context)
    {
        final long sequence = context.sequence();
        context.setFlag(SLOT_LL_DONE, sequence);
        context.setFlag(SLOT_LL_SEEN, sequence - 1);
    }

    /**
     * {@link #finishExchange} when this rank read a non-empty part of every peer's slot, else {@link #finish}: for the
     * v collectives, where an empty block leaves a peer's slot unread (or unwritten) this operation.
     */
    static void finish(final CollectiveContext context, final boolean readEveryPeer)
    {
        if (readEveryPeer)
        {
            finishExchange(context);
        }
        else
        {
            finish(context);
        }
    }

    /** Address of {@code rank}'s slot for operation {@code sequence}, which publishes {@code published} bytes. */
    private static long slotAddress(final CollectiveContext context, final int rank, final long sequence,
        final long published)
    {
        return context.stagingAddress(rank) + context.stagingBytes() - REGION_BYTES + slotOffset(sequence, published);
    }

    /** Where in the region the slot of operation {@code sequence} lies, for a publish of {@code published} bytes. */
    static long slotOffset(final long sequence, final long published)
    {
        final long slot = sequence % SLOTS;
        if (published <= LINE_PAYLOAD)
        {
            return slot * LINE_BYTES;
        }
        if (published <= SHORT_SLOT_LINES * LINE_PAYLOAD)
        {
            return SHORT_SLOTS_OFFSET + slot * (SHORT_SLOT_LINES * LINE_BYTES);
        }
        if (published <= MEDIUM_SLOT_LINES * LINE_PAYLOAD)
        {
            return MEDIUM_SLOTS_OFFSET + slot * (MEDIUM_SLOT_LINES * LINE_BYTES);
        }
        return FULL_SLOTS_OFFSET + slot * SLOT_BYTES;
    }

    /**
     * Returns once the word at {@code address} holds {@code sequence} (acquire): one load when it already does, the
     * common case, else the context's wait with its deadline and liveness checks.
     */
    static void arrived(final CollectiveContext context, final int peer, final long address,
        final long sequence)
    {
        if (UnsafeApi.getLongAcquire(null, address) != sequence)
        {
            context.waitWord(peer, address, sequence);
        }
    }

    /**
     * Waits until every peer has finished the operation that last wrote one of this rank's slots, whose sequence is
     * the word at {@code lastWriter} (0 if none), in a protocol of {@code slots} slots used round-robin (so that the
     * last writer was operation sequence − slots or earlier), or 0 when the last writer could be any earlier one.
     */
    static void awaitSlotFree(final CollectiveContext context, final long lastWriter, final int slots)
    {
        // the slot's last writer was operation sequence - slots or earlier
        final long known = context.getFlag(context.rank(), SLOT_LL_SEEN);
        if (known >= context.sequence() - slots)
        {
            return;
        }
        // plain load: only this rank writes it
        final long last = UnsafeApi.getLong(null, lastWriter);
        if (last == 0 || known >= last)
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
