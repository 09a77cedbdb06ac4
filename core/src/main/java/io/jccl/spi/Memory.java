package io.jccl.spi;

import org.agrona.UnsafeApi;

/** Copies between memories addressed as (base, offset): arrays, direct and mapped memory alike. */
public final class Memory
{
    private Memory()
    {
    }

    /** Copies {@code bytes}; a copy onto itself is skipped; overlapping ranges behave like memmove. */
    public static void copy(final Object srcBase, final long srcOffset, final Object dstBase, final long dstOffset,
        final long bytes)
    {
        if (bytes > 0 && (srcBase != dstBase || srcOffset != dstOffset))
        {
            UnsafeApi.copyMemory(srcBase, srcOffset, dstBase, dstOffset, bytes);
        }
    }

    /**
     * Copies a few bytes of non-overlapping memory as 8-byte words, then bytes: for a record or a cache line this is
     * cheaper than a call into the copy intrinsic.
     */
    public static void copySmall(final Object srcBase, final long srcOffset, final Object dstBase,
        final long dstOffset, final int bytes)
    {
        int i = 0;
        for (; i + 8 <= bytes; i += 8)
        {
            UnsafeApi.putLong(dstBase, dstOffset + i, UnsafeApi.getLong(srcBase, srcOffset + i));
        }
        for (; i < bytes; i++)
        {
            UnsafeApi.putByte(dstBase, dstOffset + i, UnsafeApi.getByte(srcBase, srcOffset + i));
        }
    }

    public static void fill(final Object base, final long offset, final long bytes, final byte value)
    {
        if (bytes > 0)
        {
            UnsafeApi.setMemory(base, offset, bytes, value);
        }
    }
}
