package io.jccl.spi;

import io.jccl.DataType;
import org.agrona.UnsafeApi;

/**
 * Reads and writes single elements of any {@link DataType} in memory addressed as (base, offset), for tests,
 * result checks and demos rather than hot paths. {@code index} counts elements from {@code offset}.
 * float16 and bfloat16 are converted to and from their 16-bit patterns; {@link #getBits} and {@link #putBits} give
 * the exact stored bits, for comparisons that must not go through a double.
 */
public final class Elements
{
    private Elements()
    {
    }

    /** The element's value as a double: exact for every type except int64 beyond 2^53. */
    public static double get(final DataType type, final Object base, final long offset, final long index)
    {
        final long at = offset + index * type.size();
        return switch (type)
        {
            case INT8 -> UnsafeApi.getByte(base, at);
            case INT32 -> UnsafeApi.getInt(base, at);
            case INT64 -> UnsafeApi.getLong(base, at);
            case FLOAT16 -> Float.float16ToFloat(UnsafeApi.getShort(base, at));
            case BFLOAT16 -> Reductions.bfloat16ToFloat(UnsafeApi.getShort(base, at));
            case FLOAT32 -> UnsafeApi.getFloat(base, at);
            case FLOAT64 -> UnsafeApi.getDouble(base, at);
        };
    }

    /**
     * Stores {@code value} converted to the type: integers as by the Java casts {@code (long)} then {@code (int)} or
     * {@code (byte)} (truncate toward zero, then wrap); float16 and bfloat16 by rounding to float32 first, then to
     * nearest even (two roundings; use {@link #putBits} for exact patterns).
     */
    public static void put(final DataType type, final Object base, final long offset, final long index,
        final double value)
    {
        final long at = offset + index * type.size();
        switch (type)
        {
            case INT8 -> UnsafeApi.putByte(base, at, (byte)(long)value);
            case INT32 -> UnsafeApi.putInt(base, at, (int)(long)value);
            case INT64 -> UnsafeApi.putLong(base, at, (long)value);
            case FLOAT16 -> UnsafeApi.putShort(base, at, Float.floatToFloat16((float)value));
            case BFLOAT16 -> UnsafeApi.putShort(base, at, Reductions.floatToBfloat16((float)value));
            case FLOAT32 -> UnsafeApi.putFloat(base, at, (float)value);
            case FLOAT64 -> UnsafeApi.putDouble(base, at, value);
        }
    }

    /** The element's stored bits, zero-extended: a byte gives 0 to 255, a float16 0 to 0xFFFF. */
    public static long getBits(final DataType type, final Object base, final long offset, final long index)
    {
        final long at = offset + index * type.size();
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
        switch (type.size())
        {
            case 1 -> UnsafeApi.putByte(base, at, (byte)bits);
            case 2 -> UnsafeApi.putShort(base, at, (short)bits);
            case 4 -> UnsafeApi.putInt(base, at, (int)bits);
            default -> UnsafeApi.putLong(base, at, bits);
        }
    }
}
