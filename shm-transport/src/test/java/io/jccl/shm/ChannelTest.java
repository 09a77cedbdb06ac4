package io.jccl.shm;

import org.agrona.BufferUtil;
import org.agrona.UnsafeApi;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.nio.ByteBuffer;
import java.util.HashSet;
import java.util.Random;
import java.util.Set;

import static io.jccl.shm.ChannelDescriptor.*;
import static org.junit.jupiter.api.Assertions.*;

/** The ring's record logic in one JVM: sequencing, wrap-around padding, back-pressure, payload integrity. */
@Timeout(30)
class ChannelTest
{
    private static final long BYTE_BASE = UnsafeApi.arrayBaseOffset(byte[].class);
    private static final long CAPACITY = 4096;

    private final ByteBuffer memory = BufferUtil.allocateDirectAligned((int) length(CAPACITY), 128);
    private final long address = BufferUtil.address(memory);
    private final ChannelWriter writer = new ChannelWriter(address, CAPACITY);
    private final ChannelReader reader = new ChannelReader(address, CAPACITY);

    @Test
    void emptyRingHasNothingToRead()
    {
        assertFalse(reader.poll());
    }

    @Test
    void smallMessageTravelsInOneLine()
    {
        final byte[] payload = {1, 2, 3, 4, 5, 6, 7, 8};
        assertTrue(writer.tryWrite(42, FLAG_FIRST | FLAG_LAST, 8, payload, BYTE_BASE, 8));
        assertEquals(RECORD_ALIGNMENT, recordLength(8));
        assertTrue(INLINE_PAYLOAD >= 8);
        assertTrue(reader.poll());
        assertEquals(42, reader.tag());
        assertEquals(FLAG_FIRST | FLAG_LAST, reader.flags());
        assertEquals(8, reader.messageLength());
        assertEquals(8, reader.chunk());
        final byte[] out = new byte[8];
        reader.copyPayload(out, BYTE_BASE);
        assertArrayEquals(payload, out);
        reader.consume();
        assertFalse(reader.poll());
    }

    @Test
    void recordsOfTwoToEightLinesAreLineFlagged()
    {
        assertFalse(lineFlagged(INLINE_PAYLOAD));
        assertTrue(lineFlagged(INLINE_PAYLOAD + 1));
        assertEquals(2 * RECORD_ALIGNMENT, recordLength(INLINE_PAYLOAD + 1));
        assertEquals(2 * RECORD_ALIGNMENT, recordLength(INLINE_PAYLOAD + LINE_PAYLOAD));
        assertEquals(3 * RECORD_ALIGNMENT, recordLength(INLINE_PAYLOAD + LINE_PAYLOAD + 1));
        assertTrue(lineFlagged(FLAGGED_PAYLOAD_MAX));
        assertEquals(FLAGGED_LINES_MAX * RECORD_ALIGNMENT, recordLength(FLAGGED_PAYLOAD_MAX));
        assertFalse(lineFlagged(FLAGGED_PAYLOAD_MAX + 1));
        assertEquals((PAYLOAD_OFFSET + FLAGGED_PAYLOAD_MAX + 1 + RECORD_ALIGNMENT - 1) & -RECORD_ALIGNMENT,
            recordLength(FLAGGED_PAYLOAD_MAX + 1), "beyond, the payload is contiguous after the header");
    }

    @Test
    void lineFlaggedRecordIsReadOnlyOnceEveryLineArrived()
    {
        final int size = INLINE_PAYLOAD + 2 * LINE_PAYLOAD + 5;
        final byte[] in = new byte[size];
        fill(in, size, 3);
        assertTrue(writer.tryWrite(9, FLAG_FIRST | FLAG_LAST, size, in, BYTE_BASE, size));
        final long header = UnsafeApi.getLong(null, address);
        for (int line = 1; line < flaggedLines(size); line++)
        {
            final long flag = address + (long) line * RECORD_ALIGNMENT + LINE_FLAG_OFFSET;
            assertEquals(header, UnsafeApi.getLong(null, flag), "line " + line + " carries the header word");
            // As the consumer may find it: the header published, this line still being written.
            UnsafeApi.putLong(null, flag, 0);
            assertFalse(reader.poll(), "line " + line + " has not arrived");
            UnsafeApi.putLong(null, flag, header);
        }
        assertTrue(reader.poll());
        assertEquals(size, reader.chunk());
        final byte[] out = new byte[size];
        reader.copyPayload(out, BYTE_BASE);
        assertArrayEquals(in, out);
        reader.consume();
        assertFalse(reader.poll());
    }

    @Test
    void zeroLengthRecord()
    {
        assertTrue(writer.tryWrite(1, FLAG_FIRST | FLAG_LAST, 0, null, 0, 0));
        assertTrue(reader.poll());
        assertEquals(0, reader.chunk());
        reader.consume();
        assertFalse(reader.poll());
    }

    @Test
    void backPressureWhenFullAndRelievedByConsumer()
    {
        final byte[] chunk = new byte[1000];
        int written = 0;
        while (writer.tryWrite(0, FLAG_FIRST | FLAG_LAST, chunk.length, chunk, BYTE_BASE, chunk.length))
        {
            written++;
        }
        assertEquals(CAPACITY / recordLength(1000), written, "records that fit the ring");
        assertTrue(reader.poll());
        reader.consume();
        assertTrue(writer.tryWrite(0, FLAG_FIRST | FLAG_LAST, chunk.length, chunk, BYTE_BASE, chunk.length),
            "space freed by the consumer is reused");
    }

    @Test
    void wrapsWithPaddingAndKeepsOrderOverManyLaps()
    {
        final Random random = new Random(7);
        final byte[] in = new byte[900];
        final byte[] out = new byte[900];
        long nextToWrite = 0;
        long nextToRead = 0;
        while (nextToRead < 5000)
        {
            // write a few records of varying size (forces padding at the ring's end), then drain a few
            for (int k = random.nextInt(4); k >= 0; k--)
            {
                final int size = sizeOf(nextToWrite);
                fill(in, size, nextToWrite);
                if (!writer.tryWrite((int) nextToWrite, FLAG_FIRST | FLAG_LAST, size, in, BYTE_BASE, size))
                {
                    break;
                }
                nextToWrite++;
            }
            for (int k = random.nextInt(4); k >= 0 && reader.poll(); k--)
            {
                final int size = sizeOf(nextToRead);
                assertEquals((int) nextToRead, reader.tag(), "records arrive in order");
                assertEquals(size, reader.chunk());
                reader.copyPayload(out, BYTE_BASE);
                fill(in, size, nextToRead);
                for (int i = 0; i < size; i++)
                {
                    assertEquals(in[i], out[i], "record " + nextToRead + " byte " + i);
                }
                reader.consume();
                nextToRead++;
            }
        }
    }

    @Test
    void staleRecordsOfEarlierLapsAreNotReadAgain()
    {
        final byte[] b = new byte[8];
        for (int i = 0; i < 3 * CAPACITY / RECORD_ALIGNMENT; i++)
        {
            assertTrue(writer.tryWrite(i, FLAG_FIRST | FLAG_LAST, 8, b, BYTE_BASE, 8));
            assertTrue(reader.poll());
            assertEquals(i, reader.tag());
            reader.consume();
            assertFalse(reader.poll(), "after record " + i + " the old content of the next slot is not a record");
        }
    }

    @Test
    void headerWordsDifferAndTheFlagsWordCarriesTheLength()
    {
        final Set<Long> words = new HashSet<>();
        for (long sequence = 1; sequence <= 100_000; sequence++)
        {
            assertNotEquals(0L, headerWord(sequence));
            assertTrue(words.add(headerWord(sequence)));
        }
        final int largest = (1 << 28) - 1;
        final long word = tagAndFlags(-7, FLAG_FIRST | FLAG_RENDEZVOUS, largest);
        assertEquals(-7, (int) word);
        assertEquals(FLAG_FIRST | FLAG_RENDEZVOUS, flags((int) (word >>> 32)));
        assertEquals(largest, chunkLength((int) (word >>> 32)));
        assertTrue(new ChannelWriter(address, ChannelDescriptor.MAX_CAPACITY).maxChunk() <= largest);
        assertThrows(IllegalArgumentException.class, () -> checkCapacity(3000));
        assertThrows(IllegalArgumentException.class, () -> checkCapacity(2048));
    }

    /**
     * Stale payload of an earlier lap lies where the next record's header will be, holding the next sequence in one
     * of its 32-bit halves: the header of up to session 29 (the sequence's low 32 bits beside the chunk length) took
     * such a word for a record, which a 2-rank soak of small messages hit after 2.2 million calls.
     */
    @Test
    void stalePayloadHoldingTheNextSequenceIsNotARecord()
    {
        final byte[] payload = new byte[8];
        for (int i = 0; i < 3; i++)
        {
            assertTrue(writer.tryWrite(i, FLAG_FIRST | FLAG_LAST, 8, payload, BYTE_BASE, 8));
            assertTrue(reader.poll());
            reader.consume();
        }
        // record 4 goes at the fourth line: plant there what the old format read as record 4 of 8 bytes
        final long next = address + 3 * RECORD_ALIGNMENT;
        UnsafeApi.putLong(null, next + TAG_OFFSET, tagAndFlags(-1, FLAG_FIRST | FLAG_LAST, 8));
        for (final long stale : new long[]{(4L << 32) | 0x40CC_3FA2L, (4L << 32) | 8, 4L, 4L << 32, Long.reverseBytes(4)})
        {
            UnsafeApi.putLong(null, next, stale);
            assertFalse(reader.poll(), "stale word 0x" + Long.toHexString(stale) + " taken for a record");
        }
        assertTrue(writer.tryWrite(99, FLAG_FIRST | FLAG_LAST, 8, payload, BYTE_BASE, 8));
        assertTrue(reader.poll());
        assertEquals(99, reader.tag());
        assertEquals(8, reader.chunk());
    }


    @Test
    void rendezvousRecordSaysHowMuchOfTheMessageIsReady()
    {
        assertTrue(writer.tryWriteRendezvous(7, 8L << 20, 0x7f00_1234_5000L, 3, 0));
        assertTrue(writer.tryWriteRendezvous(8, 4L << 20, 0x7f00_1234_6000L, 4, 4L << 20));
        for (final long[] expected : new long[][] {{7, 8L << 20, 0x7f00_1234_5000L, 3, 0},
            {8, 4L << 20, 0x7f00_1234_6000L, 4, 4L << 20}})
        {
            assertTrue(reader.poll());
            assertTrue(reader.isRendezvous());
            assertEquals(expected[0], reader.tag());
            assertEquals(expected[1], reader.messageLength());
            assertEquals(expected[2], reader.rendezvousAddress());
            assertEquals(expected[3], reader.rendezvousId());
            assertEquals(expected[4], reader.rendezvousReady());
            reader.consume();
        }
        assertEquals(RECORD_ALIGNMENT, recordLength(RENDEZVOUS_PAYLOAD), "one line");
    }

    @Test
    void rendezvousChunksLetBothEndsCopy()
    {
        assertEquals(16 * 1024, rendezvousChunk(32 * 1024));
        assertEquals(32 * 1024, rendezvousChunk(64 * 1024));
        assertEquals(64 * 1024, rendezvousChunk(128 * 1024));
        assertEquals(RENDEZVOUS_CHUNK_MIN, rendezvousChunk(512 * 1024));
        assertEquals(RENDEZVOUS_CHUNK_MIN, rendezvousChunk(1024 * 1024));
        assertEquals(512 * 1024, rendezvousChunk(4L << 20));
        assertEquals(RENDEZVOUS_CHUNK_MAX, rendezvousChunk(64L << 20));
        for (long length = 8 * 1024; length <= 256L << 20; length = length * 3 / 2)
        {
            final long chunk = rendezvousChunk(length);
            assertTrue((length + chunk - 1) / chunk >= 2, length + " B in chunks of " + chunk + " B");
            assertEquals(0, chunk % 4096, "whole pages: " + chunk);
        }
    }
    private static int sizeOf(final long index)
    {
        return (int) ((index * 37) % 900);
    }

    private static void fill(final byte[] b, final int size, final long seed)
    {
        for (int i = 0; i < size; i++)
        {
            b[i] = (byte) (seed * 31 + i);
        }
    }
}
