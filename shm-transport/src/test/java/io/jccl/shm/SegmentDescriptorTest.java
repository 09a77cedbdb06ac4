package io.jccl.shm;

import io.jccl.spi.CollectiveContext;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.ArrayList;
import java.util.List;

import static io.jccl.shm.SegmentDescriptor.RankRecordDescriptor.*;
import static org.junit.jupiter.api.Assertions.*;

/** Layout arithmetic: regions in order, aligned, disjoint, and fields of different writers lines apart. */
@Timeout(10)
class SegmentDescriptorTest
{
    @Test
    void regionsAreAlignedDisjointAndInsideTheSegment()
    {
        for (final int n : new int[] {1, 2, 3, 4, 5, 8})
        {
            final SegmentDescriptor d = new SegmentDescriptor(n, 1 << 16, 8192, 4096);
            final List<long[]> regions = new ArrayList<>();
            regions.add(new long[] {0, SegmentDescriptor.HEADER_LENGTH});
            for (int r = 0; r < n; r++)
            {
                regions.add(new long[] {d.rankRecordOffset(r), LENGTH});
                regions.add(new long[] {d.stagingOffset(r), 8192});
                regions.add(new long[] {d.symmetricOffset(r), 4096});
                assertEquals(0, d.stagingOffset(r) % SegmentDescriptor.PAGE);
                for (int s = 0; s < n; s++)
                {
                    if (s != r)
                    {
                        regions.add(new long[] {d.channelOffset(r, s), ChannelDescriptor.length(1 << 16)});
                        assertEquals(0, d.channelOffset(r, s) % SegmentDescriptor.ALIGNMENT);
                    }
                }
            }
            for (final long[] a : regions)
            {
                assertTrue(a[0] >= 0 && a[0] + a[1] <= d.totalLength(), "region inside the segment");
                for (final long[] b : regions)
                {
                    if (a != b)
                    {
                        assertTrue(a[0] + a[1] <= b[0] || b[0] + b[1] <= a[0],
                            "regions [" + a[0] + "+" + a[1] + ") and [" + b[0] + "+" + b[1] + ") overlap for n=" + n);
                    }
                }
            }
        }
    }

    @Test
    void fieldsWrittenByDifferentProcessesAreTwoLinesApart()
    {
        // the producer writes ring records, the consumer its head: at least 128 bytes from the ring's end
        assertTrue(ChannelDescriptor.HEAD_OFFSET >= 128);
        assertTrue(ChannelDescriptor.TRAILER_LENGTH - ChannelDescriptor.HEAD_OFFSET >= 128,
            "head is two lines before the next channel's ring");
        // rank records are written only by their rank and are at least two lines long
        assertTrue(LENGTH >= 128 && LENGTH % 128 == 0);
        // the heartbeat daemon and the flags each have their own lines
        assertTrue(HEARTBEAT_OFFSET - STATE_OFFSET >= 64);
        assertEquals(LENGTH, flagOffset(CollectiveContext.FLAG_SLOTS));
        assertTrue(FLAG_STRIDE >= 64);
    }

    @Test
    void agreedWordsLieBetweenTheSingleCopyWordAndTheHeartbeat()
    {
        assertTrue(AGREED_SETTINGS_OFFSET >= SINGLE_COPY_OFFSET + Long.BYTES);
        assertTrue(AGREED_SETTINGS_OFFSET + AGREED_SETTINGS_WORDS * Long.BYTES <= HEARTBEAT_OFFSET);
    }

    @Test
    void rejectsBadSettings()
    {
        assertThrows(IllegalArgumentException.class, () -> new SegmentDescriptor(0, 4096, 4096, 4096));
        assertThrows(IllegalArgumentException.class, () -> new SegmentDescriptor(2, 5000, 4096, 4096));
        assertThrows(IllegalArgumentException.class, () -> new SegmentDescriptor(2, 4096, 100, 4096));
    }

    @Test
    void magicSpellsTheFormat()
    {
        final byte[] b = java.nio.ByteBuffer.allocate(8).order(java.nio.ByteOrder.LITTLE_ENDIAN)
            .putLong(SegmentDescriptor.MAGIC).array();
        assertEquals("JCCLSEG1", new String(b, java.nio.charset.StandardCharsets.US_ASCII));
    }
}
