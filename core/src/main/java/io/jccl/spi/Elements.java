package io.jccl.spi;

import io.jccl.DataType;
import org.agrona.UnsafeApi;

/**
 * Reads and writes single elements of any {@link DataType} in memory addressed as (base, offset), for tests,
 * result checks and demos rather than hot paths. {@code index} counts elements from {@code offset}.
 * float16 and bfloat16 are converted to and from their 16-bit patterns; {@link #getBits} and {@link #putBits} give
 * the exact stored bits, for comparisons that must not go through a double.
 * <p>
 * Each access branches on {@code base == null} and passes a literal null to the off-heap one. C2 (JDK 25, G1)
 * compiles an Unsafe access whose base is sometimes null and sometimes an array as a raw access through the
 * array's address; in a loop that also switches on something loop-invariant (the element size), it kept that
 * address across the loop's safepoint, so after a GC moved the array the loop went on writing where the array had
 * been. The test driver's fill loop did this (a standalone copy of it: 14 bad fills in 20,000 with a thread making
 * garbage, none with the branch or with {@code -XX:-UseCountedLoopSafepoints}). With the branch each access sees
 * either a constant null or a base known to be an object, which C2 addresses as a pointer derived from the object,
 * one the GC updates.
 */
public final class Elements
{
    private Elements()
    {
    }

    /** The element's value as a double: exact for every type except int64 and uint64 beyond 2^53. */
    public static double get(final DataType type, final Object base, final long offset, final long index)
    {
        final long bits = getBits(type, base, offset, index);
        return switch (type)
        {
            case INT8 -> (byte)bits;
            case INT32 -> (int)bits;
            case INT64 -> bits;
            case UINT8, UINT32 -> bits; // zero-extended by getBits
            case UINT64 -> bits >= 0 ? bits : 0x1p64 + bits;
            case FLOAT16 -> Float.float16ToFloat((short)bits);
            case BFLOAT16 -> Reductions.bfloat16ToFloat((short)bits);
            case FLOAT32 -> Float.intBitsToFloat((int)bits);
            case FLOAT64 -> Double.longBitsToDouble(bits);
        };
    }

    /**
     * Stores {@code value} converted to the type: integers as by the Java casts {@code (long)} then {@code (int)} or
     * {@code (byte)} (truncate toward zero, then wrap; uint64 values from 2^63 as their unsigned bits); float16 and
     * bfloat16 by rounding to float32 first, then to nearest even (two roundings; use {@link #putBits} for exact
     * patterns).
     */
    public static void put(final DataType type, final Object base, final long offset, final long index,
        final double value)
    {
        final long bits = switch (type)
        {
            case INT8 -> (byte)(long)value;
            case INT32 -> (int)(long)value;
            case INT64 -> (long)value;
            case UINT8 -> (byte)(long)value;
            case UINT32 -> (int)(long)value;
            case UINT64 -> value >= 0x1p63 ? (long)(value - 0x1p64) : (long)value;
            case FLOAT16 -> Float.floatToFloat16((float)value);
            case BFLOAT16 -> Reductions.floatToBfloat16((float)value);
            case FLOAT32 -> Float.floatToRawIntBits((float)value);
            case FLOAT64 -> Double.doubleToRawLongBits(value);
        };
        putBits(type, base, offset, index, bits);
    }

    /** The element's stored bits, zero-extended: a byte gives 0 to 255, a float16 0 to 0xFFFF. */
    public static long getBits(final DataType type, final Object base, final long offset, final long index)
    {
        final long at = offset + index * type.size();
        if (base == null)
        {
            // a literal null: see the class comment
            return switch (type.size())
            {
                case 1 -> UnsafeApi.getByte(null, at) & 0xFFL;
                case 2 -> UnsafeApi.getShort(null, at) & 0xFFFFL;
                case 4 -> UnsafeApi.getInt(null, at) & 0xFFFF_FFFFL;
                default -> UnsafeApi.getLong(null, at);
            };
        }
        return switch (type.size())
        {
            case 1 -> UnsafeApi.getByte(base, at) & 0xFFL;
            case 2 -> UnsafeApi.getShort(base, at) & 0xFFFFL;
            case 4 -> UnsafeApi.getInt(base, at) & 0xFFFF_FFFFL;
            default -> UnsafeApi.getLong(base, at);
        };
    }

    /** Stores the low {@code 8 * type.size()} bits of {@code bits} as the element. */
    public static void putBits(final DataType type, final Object base, final long offset, final long index,
        final long bits)
    {
        final long at = offset + index * type.size();
        if (base == null)
        {
            // a literal null: see the class comment
            switch (type.size())
            {
                case 1 -> UnsafeApi.putByte(null, at, (byte)bits);
                case 2 -> UnsafeApi.putShort(null, at, (short)bits);
                case 4 -> UnsafeApi.putInt(null, at, (int)bits);
                default -> UnsafeApi.putLong(null, at, bits);
            }
            return;
        }
        switch (type.size())
        {
            case 1 -> UnsafeApi.putByte(base, at, (byte)bits);
            case 2 -> UnsafeApi.putShort(base, at, (short)bits);
            case 4 -> UnsafeApi.putInt(base, at, (int)bits);
            default -> UnsafeApi.putLong(base, at, bits);
        }
    }
}
