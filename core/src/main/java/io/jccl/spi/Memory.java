package io.jccl.spi;

import org.agrona.BufferUtil;
import org.agrona.UnsafeApi;

import java.lang.ref.Reference;
import java.nio.ByteBuffer;

/** Copies between memories addressed as (base, offset): arrays, direct and mapped memory alike; and their overlaps. */
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

    /** True when two byte ranges share at least one byte. */
    public static boolean overlaps(
        final Object aBase, final long aOffset, final long aBytes, final Object bBase, final long bOffset,
        final long bBytes)
    {
        return aBase == bBase && aBytes > 0 && bBytes > 0 && aOffset < bOffset + bBytes && bOffset < aOffset + aBytes;
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

    /** Copies the 56 payload bytes of a 64-byte line as seven 8-byte words, in straight-line code. */
    public static void copyLinePayload(final Object srcBase, final long srcOffset, final Object dstBase,
        final long dstOffset)
    {
        UnsafeApi.putLong(dstBase, dstOffset, UnsafeApi.getLong(srcBase, srcOffset));
        UnsafeApi.putLong(dstBase, dstOffset + 8, UnsafeApi.getLong(srcBase, srcOffset + 8));
        UnsafeApi.putLong(dstBase, dstOffset + 16, UnsafeApi.getLong(srcBase, srcOffset + 16));
        UnsafeApi.putLong(dstBase, dstOffset + 24, UnsafeApi.getLong(srcBase, srcOffset + 24));
        UnsafeApi.putLong(dstBase, dstOffset + 32, UnsafeApi.getLong(srcBase, srcOffset + 32));
        UnsafeApi.putLong(dstBase, dstOffset + 40, UnsafeApi.getLong(srcBase, srcOffset + 40));
        UnsafeApi.putLong(dstBase, dstOffset + 48, UnsafeApi.getLong(srcBase, srcOffset + 48));
    }

    /**
     * Runs {@link #copySmall} and {@link #copyLinePayload} over every size up to two lines, from an array into
     * off-heap memory and back (as a collective copies into and out of shared memory), about ten thousand copies, so
     * that the JIT's profile of them has reached every loop before C2 compiles the collectives that inline them.
     * C2 does not inline Agrona's {@code UnsafeApi} accessors at a call site the profile says was never reached, and
     * calls them instead, for good: a 2-rank job whose first calls were 8-byte allgathers (4-byte blocks, which never
     * enter the word loop) then took 0.37-0.41 µs for a 512-byte one, 0.17 after 16-byte ones (the low-latency
     * protocol's copies through out-of-line accessor calls).
     */
    public static void profileCopies()
    {
        final int lines = 2;
        final byte[] array = new byte[lines * 64];
        final ByteBuffer direct = ByteBuffer.allocateDirect(array.length);
        final long address = BufferUtil.address(direct);
        for (int round = 0; round < 40; round++)
        {
            for (int bytes = 0; bytes <= array.length; bytes++)
            {
                copySmall(array, BufferUtil.ARRAY_BASE_OFFSET, null, address, bytes);
                copySmall(null, address, array, BufferUtil.ARRAY_BASE_OFFSET, bytes);
            }
            for (int line = 0; line < lines; line++)
            {
                copyLinePayload(array, BufferUtil.ARRAY_BASE_OFFSET + line * 64, null, address + line * 64);
                copyLinePayload(null, address + line * 64, array, BufferUtil.ARRAY_BASE_OFFSET + line * 64);
            }
        }
        Reference.reachabilityFence(direct);
    }

    public static void fill(final Object base, final long offset, final long bytes, final byte value)
    {
        if (bytes > 0)
        {
            UnsafeApi.setMemory(base, offset, bytes, value);
        }
    }
}
