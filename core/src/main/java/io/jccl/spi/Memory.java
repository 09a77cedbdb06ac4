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

    public static void fill(final Object base, final long offset, final long bytes, final byte value)
    {
        if (bytes > 0)
        {
            UnsafeApi.setMemory(base, offset, bytes, value);
        }
    }
}
