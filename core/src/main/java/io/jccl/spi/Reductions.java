package io.jccl.spi;

import io.jccl.DataType;
import io.jccl.ReduceOp;
import org.agrona.UnsafeApi;

/**
 * Element-wise reduction kernels over memory addressed as (base, offset). {@code dst} may alias {@code a} or
 * {@code b} exactly (same start), never partially. AVG reduces as SUM; {@link #divide} finishes it.
 * float16 and bfloat16 are widened to float32, combined, and rounded to nearest even once.
 */
public final class Reductions
{
    private Reductions()
    {
    }

    /** {@code dst[i] = a[i] op b[i]} for {@code i < count}. */
    public static void reduce(final DataType type, final ReduceOp op,
        final Object aBase, final long aOffset, final Object bBase, final long bOffset,
        final Object dstBase, final long dstOffset, final long count)
    {
        final int size = type.size();
        for (long i = 0; i < count; i++)
        {
            final long d = i * size;
            switch (type)
            {
                case INT8 -> UnsafeApi.putByte(dstBase, dstOffset + d, (byte) combine(op,
                    UnsafeApi.getByte(aBase, aOffset + d), UnsafeApi.getByte(bBase, bOffset + d)));
                case INT32 -> UnsafeApi.putInt(dstBase, dstOffset + d, (int) combine(op,
                    UnsafeApi.getInt(aBase, aOffset + d), UnsafeApi.getInt(bBase, bOffset + d)));
                case INT64 -> UnsafeApi.putLong(dstBase, dstOffset + d, combine(op,
                    UnsafeApi.getLong(aBase, aOffset + d), UnsafeApi.getLong(bBase, bOffset + d)));
                case FLOAT32 -> UnsafeApi.putFloat(dstBase, dstOffset + d, (float) combine(op,
                    UnsafeApi.getFloat(aBase, aOffset + d), UnsafeApi.getFloat(bBase, bOffset + d)));
                case FLOAT64 -> UnsafeApi.putDouble(dstBase, dstOffset + d, combine(op,
                    UnsafeApi.getDouble(aBase, aOffset + d), UnsafeApi.getDouble(bBase, bOffset + d)));
                case FLOAT16 -> UnsafeApi.putShort(dstBase, dstOffset + d, Float.floatToFloat16((float) combine(op,
                    Float.float16ToFloat(UnsafeApi.getShort(aBase, aOffset + d)),
                    Float.float16ToFloat(UnsafeApi.getShort(bBase, bOffset + d)))));
                case BFLOAT16 -> UnsafeApi.putShort(dstBase, dstOffset + d, floatToBfloat16((float) combine(op,
                    bfloat16ToFloat(UnsafeApi.getShort(aBase, aOffset + d)),
                    bfloat16ToFloat(UnsafeApi.getShort(bBase, bOffset + d)))));
            }
        }
    }

    /** {@code x[i] /= divisor}: the second half of AVG. Integers truncate toward zero. */
    public static void divide(final DataType type, final Object base, final long offset, final long count,
        final int divisor)
    {
        final int size = type.size();
        for (long i = 0; i < count; i++)
        {
            final long at = offset + i * size;
            switch (type)
            {
                case INT8 -> UnsafeApi.putByte(base, at, (byte) (UnsafeApi.getByte(base, at) / divisor));
                case INT32 -> UnsafeApi.putInt(base, at, UnsafeApi.getInt(base, at) / divisor);
                case INT64 -> UnsafeApi.putLong(base, at, UnsafeApi.getLong(base, at) / divisor);
                case FLOAT32 -> UnsafeApi.putFloat(base, at, UnsafeApi.getFloat(base, at) / divisor);
                case FLOAT64 -> UnsafeApi.putDouble(base, at, UnsafeApi.getDouble(base, at) / divisor);
                case FLOAT16 -> UnsafeApi.putShort(base, at,
                    Float.floatToFloat16(Float.float16ToFloat(UnsafeApi.getShort(base, at)) / divisor));
                case BFLOAT16 -> UnsafeApi.putShort(base, at,
                    floatToBfloat16(bfloat16ToFloat(UnsafeApi.getShort(base, at)) / divisor));
            }
        }
    }

    public static float bfloat16ToFloat(final short bits)
    {
        return Float.intBitsToFloat((bits & 0xFFFF) << 16);
    }

    /** Round to nearest even; NaN stays NaN. */
    public static short floatToBfloat16(final float value)
    {
        final int bits = Float.floatToRawIntBits(value);
        if (Float.isNaN(value))
        {
            return (short) ((bits >>> 16) | 0x0040);
        }
        final int rounding = 0x7FFF + ((bits >>> 16) & 1);
        return (short) ((bits + rounding) >>> 16);
    }

    private static long combine(final ReduceOp op, final long a, final long b)
    {
        return switch (op)
        {
            case SUM, AVG -> a + b;
            case PROD -> a * b;
            case MIN -> Math.min(a, b);
            case MAX -> Math.max(a, b);
        };
    }

    private static double combine(final ReduceOp op, final double a, final double b)
    {
        return switch (op)
        {
            case SUM, AVG -> a + b;
            case PROD -> a * b;
            case MIN -> Math.min(a, b);
            case MAX -> Math.max(a, b);
        };
    }
}
