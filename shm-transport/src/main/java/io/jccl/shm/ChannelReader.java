package io.jccl.shm;

import io.jccl.spi.Memory;
import org.agrona.UnsafeApi;

import static io.jccl.shm.ChannelDescriptor.*;

/**
 * Consumer end of a channel ({@link ChannelDescriptor}), owned by the receiving rank. {@link #poll()} looks at the
 * one header word where the next record must appear; a record is valid when that word carries the expected
 * sequence number. {@link #consume()} publishes the new head so the producer may reuse the space.
 */
final class ChannelReader
{
    private final long ring;
    private final long capacity;
    private final long mask;
    private final long headAddress;

    private long head;
    private long expected = 1;
    private long record;
    private int chunk;

    ChannelReader(final long channelAddress, final long capacity)
    {
        this.ring = channelAddress;
        this.capacity = capacity;
        this.mask = capacity - 1;
        this.headAddress = channelAddress + ChannelDescriptor.headOffset(capacity);
    }

    /** True when a record is ready; its fields are then available until {@link #consume()}. */
    boolean poll()
    {
        while (true)
        {
            final long at = ring + (head & mask);
            // Acquire: the record's fields and payload are read only after its header word.
            final long word = UnsafeApi.getLongAcquire(null, at + HEADER_WORD_OFFSET);
            if (word != headerWord(expected))
            {
                return false;
            }
            final int flagsAndLength = UnsafeApi.getInt(null, at + FLAGS_OFFSET);
            final int length = chunkLength(flagsAndLength);
            if ((ChannelDescriptor.flags(flagsAndLength) & FLAG_PADDING) != 0)
            {
                head += length;
                expected++;
                continue;
            }
            if (lineFlagged(length) && !linesArrived(at, flaggedLines(length), word))
            {
                return false;
            }
            record = at;
            chunk = length;
            return true;
        }
    }

    /** True when every line after the first of a line-flagged record carries the record's header word. */
    private static boolean linesArrived(final long at, final int lines, final long word)
    {
        for (int k = lines - 1; k >= 1; k--)
        {
            // Acquire: a line's payload is read only after its flag.
            if (UnsafeApi.getLongAcquire(null, at + (long) k * RECORD_ALIGNMENT + LINE_FLAG_OFFSET) != word)
            {
                return false;
            }
        }
        return true;
    }

    int tag()
    {
        return UnsafeApi.getInt(null, record + TAG_OFFSET);
    }

    int flags()
    {
        return ChannelDescriptor.flags(UnsafeApi.getInt(null, record + FLAGS_OFFSET));
    }

    /** Length of the whole message; valid on its first record. */
    long messageLength()
    {
        return (flags() & (FLAG_FIRST | FLAG_LAST | FLAG_RENDEZVOUS)) == (FLAG_FIRST | FLAG_LAST) ?
            chunk : UnsafeApi.getLong(null, record + MESSAGE_LENGTH_OFFSET);
    }

    boolean isRendezvous()
    {
        return (flags() & FLAG_RENDEZVOUS) != 0;
    }

    /** The sender's buffer address in its process; valid on a rendezvous record. */
    long rendezvousAddress()
    {
        return UnsafeApi.getLong(null, record + RENDEZVOUS_ADDRESS_OFFSET);
    }

    long rendezvousId()
    {
        return UnsafeApi.getLong(null, record + RENDEZVOUS_ID_OFFSET);
    }

    /** Bytes of the message ready in the sender's buffer when it announced it ({@link #RENDEZVOUS_READY_OFFSET}). */
    long rendezvousReady()
    {
        return UnsafeApi.getLong(null, record + RENDEZVOUS_READY_OFFSET);
    }

    int chunk()
    {
        return chunk;
    }

    /** Copies the current record's payload out. */
    void copyPayload(final Object base, final long offset)
    {
        final int bytes = chunk;
        final long from = record + PAYLOAD_OFFSET;
        if (bytes <= 32)
        {
            Memory.copySmall(null, from, base, offset, bytes);
        }
        else if (lineFlagged(bytes))
        {
            Memory.copySmall(null, from, base, offset, INLINE_PAYLOAD);
            long line = record + RECORD_ALIGNMENT;
            for (int done = INLINE_PAYLOAD; done < bytes; done += LINE_PAYLOAD, line += RECORD_ALIGNMENT)
            {
                Memory.copySmall(null, line, base, offset + done, Math.min(LINE_PAYLOAD, bytes - done));
            }
        }
        else
        {
            UnsafeApi.copyMemory(null, from, base, offset, bytes);
        }
    }

    /** Releases the current record to the producer. */
    void consume()
    {
        head += recordLength(chunk);
        expected++;
        // Release: our reads of the record happen before the producer may overwrite it.
        UnsafeApi.putLongRelease(null, headAddress, head);
    }
}
