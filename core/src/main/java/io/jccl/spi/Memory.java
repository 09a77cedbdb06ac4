package io.jccl.spi;

import org.agrona.UnsafeApi;

/** Copies between memories addressed as (base, offset): arrays, direct and mapped memory alike. */
public final class Memory
{
    /** The C library's memmove for {@link #copyToShared}, or null (Java 21). */
    private static final NativeCopy NATIVE = NativeCopy.load();

    /**
     * Smallest copy into shared memory that {@link #copyToShared} hands to the C library: below, the call costs more
     * than the whole-line writes save.
     */
    static final long NATIVE_COPY_MIN_BYTES = 8192;

    private Memory()
    {
    }

    /** Whether {@link #copyToShared} has the C library's memmove in this JVM (Java 22 or newer). */
    static boolean nativeCopy()
    {
        return NATIVE != null;
    }

    /**
     * {@link #copy} into shared memory (a ring, a staging area) that a peer's core may hold: a large copy from
     * off-heap memory goes through the C library's {@code memmove} ({@link NativeCopy}), whose whole-line writes
     * do not first fetch each line from the core that holds it.
     */
    public static void copyToShared(final Object srcBase, final long srcOffset, final long dstAddress,
        final long bytes)
    {
        if (NATIVE != null && srcBase == null && bytes >= NATIVE_COPY_MIN_BYTES)
        {
            NATIVE.memmove(dstAddress, srcOffset, bytes);
        }
        else
        {
            copy(srcBase, srcOffset, null, dstAddress, bytes);
        }
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
