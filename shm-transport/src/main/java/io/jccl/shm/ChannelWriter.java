package io.jccl.shm;

import io.jccl.spi.Memory;
import org.agrona.UnsafeApi;

import static io.jccl.shm.ChannelDescriptor.*;

/**
 * Producer end of a channel ({@link ChannelDescriptor}), owned by the sending rank. The producer's position and
 * sequence live in this object, not in shared memory: only the consumer head is shared, and it is read only when
 * the cached head says the ring might be full.
 */
final class ChannelWriter
{
    private final long ring;
    private final long capacity;
    private final long mask;
    private final long headAddress;
    /** Largest chunk one record carries: a quarter of the ring, so the consumer drains while the producer fills. */
    private final int maxChunk;

    private long tail;
    private long cachedHead;
    private long sequence = 1;

    ChannelWriter(final long channelAddress, final long capacity)
    {
        this.ring = channelAddress;
        this.capacity = capacity;
        this.mask = capacity - 1;
        this.headAddress = channelAddress + ChannelDescriptor.headOffset(capacity);
        this.maxChunk = (int) Math.min(capacity / 4 - PAYLOAD_OFFSET, Integer.MAX_VALUE);
    }

    int maxChunk()
    {
        return maxChunk;
    }

    /**
     * Writes one record carrying {@code chunk} bytes from {@code (base, offset)}; false when the ring has no room yet
     * (back-pressure: nothing was written).
     */
    boolean tryWrite(final int tag, final int flags, final long messageLength,
        final Object base, final long offset, final int chunk)
    {
        final long at = reserve(recordLength(chunk));
        if (at == 0)
        {
            return false;
        }
        final boolean lineFlagged = lineFlagged(chunk);
        if (lineFlagged)
        {
            clearLineFlags(at, flaggedLines(chunk));
        }
        // Few stores into the line the consumer polls: tag and flags go as one word, and a message of one record
        // needs no separate length (it is the chunk's).
        UnsafeApi.putLong(null, at + TAG_OFFSET, tagAndFlags(tag, flags, chunk));
        if ((flags & (FLAG_FIRST | FLAG_LAST)) != (FLAG_FIRST | FLAG_LAST))
        {
            UnsafeApi.putLong(null, at + MESSAGE_LENGTH_OFFSET, messageLength);
        }
        if (lineFlagged)
        {
            Memory.copySmall(base, offset, null, at + PAYLOAD_OFFSET, INLINE_PAYLOAD);
            final long word = publish(at, chunk);
            writeFlaggedLines(base, offset + INLINE_PAYLOAD, at, chunk - INLINE_PAYLOAD, word);
        }
        else
        {
            copyPayload(base, offset, at + PAYLOAD_OFFSET, chunk);
            publish(at, chunk);
        }
        return true;
    }

    /** Zeroes the flag word of every line after the first, before the header's release: no stale word can match. */
    private static void clearLineFlags(final long at, final int lines)
    {
        for (int k = 1; k < lines; k++)
        {
            UnsafeApi.putLong(null, at + (long) k * RECORD_ALIGNMENT + LINE_FLAG_OFFSET, 0L);
        }
    }

    /** Writes the payload after line 0, line by line, each line's flag word released after its payload. */
    private static void writeFlaggedLines(final Object base, final long offset, final long at, final int bytes,
        final long word)
    {
        long line = at + RECORD_ALIGNMENT;
        for (int done = 0; done < bytes; done += LINE_PAYLOAD, line += RECORD_ALIGNMENT)
        {
            Memory.copySmall(base, offset + done, null, line, Math.min(LINE_PAYLOAD, bytes - done));
            UnsafeApi.putLongRelease(null, line + LINE_FLAG_OFFSET, word);
        }
    }

    /**
     * Writes the record announcing a single-copy message of {@code messageLength} bytes at {@code address} in this
     * process, of which {@code ready} are there (the rest follows, see {@link #RENDEZVOUS_READY_OFFSET}); false when
     * the ring has no room yet.
     */
    boolean tryWriteRendezvous(final int tag, final long messageLength, final long address, final long id,
        final long ready)
    {
        final long at = reserve(recordLength(RENDEZVOUS_PAYLOAD));
        if (at == 0)
        {
            return false;
        }
        UnsafeApi.putLong(null, at + TAG_OFFSET,
            tagAndFlags(tag, FLAG_FIRST | FLAG_LAST | FLAG_RENDEZVOUS, RENDEZVOUS_PAYLOAD));
        UnsafeApi.putLong(null, at + MESSAGE_LENGTH_OFFSET, messageLength);
        UnsafeApi.putLong(null, at + RENDEZVOUS_ADDRESS_OFFSET, address);
        UnsafeApi.putLong(null, at + RENDEZVOUS_ID_OFFSET, id);
        UnsafeApi.putLong(null, at + RENDEZVOUS_READY_OFFSET, ready);
        publish(at, RENDEZVOUS_PAYLOAD);
        return true;
    }

    /** Address of room for a record of {@code recordLength} bytes (after padding to the ring's end), or 0. */
    private long reserve(final int recordLength)
    {
        final long position = tail & mask;
        final long toEnd = capacity - position;
        final long padding = recordLength > toEnd ? toEnd : 0;
        if (tail + padding + recordLength - cachedHead > capacity && !refreshHead(padding + recordLength))
        {
            return 0;
        }
        if (padding > 0)
        {
            final long at = ring + position;
            UnsafeApi.putLong(null, at + TAG_OFFSET, tagAndFlags(0, FLAG_PADDING, (int) padding));
            // Release: the padding flag and length are visible before the header that makes the record valid.
            UnsafeApi.putLongRelease(null, at + HEADER_WORD_OFFSET, headerWord(sequence++));
            tail += padding;
        }
        return ring + (tail & mask);
    }

    /** Release-stores the header word of the record at {@code at} and returns it. */
    private long publish(final long at, final int chunk)
    {
        final long word = headerWord(sequence++);
        // Release: tag, flags, lengths and payload (or a line-flagged record's cleared flags) are visible before the
        // header word that publishes them.
        UnsafeApi.putLongRelease(null, at + HEADER_WORD_OFFSET, word);
        tail += recordLength(chunk);
        return word;
    }

    private boolean refreshHead(final long needed)
    {
        cachedHead = UnsafeApi.getLongAcquire(null, headAddress);
        return tail + needed - cachedHead <= capacity;
    }

    /**
     * Small payloads move as words: cheaper than a call into the copy intrinsic; large ones into the ring the
     * consumer has read go as {@link Memory#copyToShared}.
     */
    static void copyPayload(final Object base, final long offset, final long to, final int bytes)
    {
        if (bytes <= 32)
        {
            Memory.copySmall(base, offset, null, to, bytes);
        }
        else
        {
            Memory.copyToShared(base, offset, to, bytes);
        }
    }
}
