package io.jccl.spi;

import org.agrona.BufferUtil;
import org.agrona.UnsafeApi;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.nio.ByteBuffer;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * Copies into shared memory: below and above the size that goes to the C library, from heap and off-heap; the
 * small copies of the low-latency paths.
 */
@Timeout(10)
class MemoryTest
{
    private static final long BYTE_ARRAY_BASE = UnsafeApi.arrayBaseOffset(byte[].class);

    @Test
    void copyToSharedCopiesEveryByteAndNothingElse()
    {
        assertEquals(Runtime.version().feature() >= 22 &&
            !"false".equals(System.getProperty(io.jccl.Configuration.NATIVE_COPY_PROP_NAME)), Memory.nativeCopy(),
            "the C library's memmove is used");
        for (final int bytes : new int[] {1, 33, 4095, (int)Memory.NATIVE_COPY_MIN_BYTES - 1,
            (int)Memory.NATIVE_COPY_MIN_BYTES, 3 * (int)Memory.NATIVE_COPY_MIN_BYTES + 7})
        {
            final byte[] source = pattern(bytes, 1);
            final ByteBuffer offHeap = BufferUtil.allocateDirectAligned(bytes + 64, 64);
            final long from = BufferUtil.address(offHeap) + 3;
            UnsafeApi.copyMemory(source, BYTE_ARRAY_BASE, null, from, bytes);

            for (final boolean heapSource : new boolean[] {false, true})
            {
                final ByteBuffer shared = BufferUtil.allocateDirectAligned(bytes + 128, 64);
                final long to = BufferUtil.address(shared) + 64;
                UnsafeApi.setMemory(null, to - 64, bytes + 128, (byte)0x5A);
                if (heapSource)
                {
                    Memory.copyToShared(source, BYTE_ARRAY_BASE, to, bytes);
                }
                else
                {
                    Memory.copyToShared(null, from, to, bytes);
                }
                final byte[] copied = new byte[bytes];
                UnsafeApi.copyMemory(null, to, copied, BYTE_ARRAY_BASE, bytes);
                assertArrayEquals(source, copied, bytes + " bytes, heap source " + heapSource);
                assertEquals((byte)0x5A, UnsafeApi.getByte(null, to - 1), "byte before");
                assertEquals((byte)0x5A, UnsafeApi.getByte(null, to + bytes), "byte after");
            }
        }
    }

    @Test
    void copyToSharedMovesOverlappingRangesLikeMemmove()
    {
        final int bytes = 2 * (int)Memory.NATIVE_COPY_MIN_BYTES;
        final ByteBuffer buffer = BufferUtil.allocateDirectAligned(bytes + 4096, 64);
        final long at = BufferUtil.address(buffer);
        final byte[] source = pattern(bytes, 7);
        UnsafeApi.copyMemory(source, BYTE_ARRAY_BASE, null, at, bytes);
        Memory.copyToShared(null, at, at + 1000, bytes);
        final byte[] moved = new byte[bytes];
        UnsafeApi.copyMemory(null, at + 1000, moved, BYTE_ARRAY_BASE, bytes);
        assertArrayEquals(source, moved);
    }

    @Test
    void copyLinePayloadCopiesTheFirst56BytesOfALine()
    {
        final byte[] source = pattern(64, 3);
        final byte[] target = new byte[64];
        java.util.Arrays.fill(target, (byte)0x5A);
        Memory.copyLinePayload(source, BYTE_ARRAY_BASE, target, BYTE_ARRAY_BASE);
        for (int i = 0; i < 64; i++)
        {
            assertEquals(i < 56 ? source[i] : (byte)0x5A, target[i], "byte " + i);
        }
    }

    @Test
    void copySmallCopiesWordsThenTheTailAfterProfiling()
    {
        Memory.profileCopies(); // local arrays and a direct buffer of its own: only the JIT's profile changes
        final byte[] source = pattern(40, 5);
        final byte[] target = new byte[40];
        Memory.copySmall(source, BYTE_ARRAY_BASE, target, BYTE_ARRAY_BASE, 37);
        for (int i = 0; i < 40; i++)
        {
            assertEquals(i < 37 ? source[i] : 0, target[i], "byte " + i);
        }
    }

    private static byte[] pattern(final int bytes, final int seed)
    {
        final byte[] data = new byte[bytes];
        for (int i = 0; i < bytes; i++)
        {
            data[i] = (byte)(i * 31 + seed);
        }
        return data;
    }
}
