package io.jccl.spi;

import io.jccl.DataType;
import io.jccl.ReduceOp;

/**
 * What every reduction must produce, computed the plain way, one element at a time from raw bits. float16 and
 * bfloat16 are widened and rounded here with tables of all their finite values, independently of the JDK's
 * conversions and of {@link Reductions}' own rounding. NaN results are the canonical NaN of their type.
 */
final class ReferenceArithmetic
{
    static final long FLOAT16_NAN = 0x7E00;
    static final long BFLOAT16_NAN = 0x7FC0;
    static final long FLOAT32_NAN = 0x7FC0_0000L;
    static final long FLOAT64_NAN = 0x7FF8_0000_0000_0000L;

    /** Values of the non-negative float16 patterns 0 to 0x7C00; 0x7C00 (infinity) stands for 2^16 when rounding. */
    private static final double[] HALF = magnitudes(10, 5, 0x7C00);

    /** Values of the non-negative bfloat16 patterns 0 to 0x7F80; 0x7F80 (infinity) stands for 2^128. */
    private static final double[] BRAIN = magnitudes(7, 8, 0x7F80);

    private ReferenceArithmetic()
    {
    }

    /** Expected bits of {@code a op b}, for inputs given as bits (zero-extended, as {@link Elements#getBits}). */
    static long combine(final DataType type, final ReduceOp op, final long a, final long b)
    {
        return switch (type)
        {
            case INT8 -> (byte)combineLong(op, (byte)a, (byte)b) & 0xFFL;
            case INT32 -> (int)combineLong(op, (int)a, (int)b) & 0xFFFF_FFFFL;
            case INT64 -> combineLong(op, a, b);
            case UINT8 -> combineUnsigned(op, a & 0xFFL, b & 0xFFL) & 0xFFL;
            case UINT32 -> combineUnsigned(op, a & 0xFFFF_FFFFL, b & 0xFFFF_FFFFL) & 0xFFFF_FFFFL;
            case UINT64 -> combineUnsigned(op, a, b);
            case FLOAT16 -> roundHalf(combineFloat(op, halfValue(a), halfValue(b)));
            case BFLOAT16 -> roundBrain(combineFloat(op, brainValue(a), brainValue(b)));
            case FLOAT32 -> float32Bits(combineFloat(op, Float.intBitsToFloat((int)a), Float.intBitsToFloat((int)b)));
            case FLOAT64 -> float64Bits(combineDouble(op, Double.longBitsToDouble(a), Double.longBitsToDouble(b)));
        };
    }

    /** Expected bits of {@code x / divisor}: integers truncate, floating point divides in float32 or float64. */
    static long divide(final DataType type, final long x, final int divisor)
    {
        return switch (type)
        {
            case INT8 -> (byte)((byte)x / divisor) & 0xFFL;
            case INT32 -> ((int)x / divisor) & 0xFFFF_FFFFL;
            case INT64 -> x / divisor;
            case UINT8 -> (x & 0xFFL) / divisor;
            case UINT32 -> (x & 0xFFFF_FFFFL) / divisor;
            case UINT64 -> Long.divideUnsigned(x, divisor);
            case FLOAT16 -> roundHalf(halfValue(x) / (float)divisor);
            case BFLOAT16 -> roundBrain(brainValue(x) / (float)divisor);
            case FLOAT32 -> float32Bits(Float.intBitsToFloat((int)x) / (float)divisor);
            case FLOAT64 -> float64Bits(Double.longBitsToDouble(x) / divisor);
        };
    }

    static float halfValue(final long bits)
    {
        return (float)value(bits, HALF);
    }

    static float brainValue(final long bits)
    {
        return (float)value(bits, BRAIN);
    }

    /** float32 to float16, nearest even, by search in the table of float16 values. */
    static long roundHalf(final float value)
    {
        return round(value, HALF, 0x8000, FLOAT16_NAN);
    }

    /** float32 to bfloat16, nearest even, by search in the table of bfloat16 values. */
    static long roundBrain(final float value)
    {
        return round(value, BRAIN, 0x8000, BFLOAT16_NAN);
    }

    private static long combineLong(final ReduceOp op, final long a, final long b)
    {
        return switch (op)
        {
            case SUM, AVG -> a + b;
            case PROD -> a * b;
            case MIN -> Math.min(a, b);
            case MAX -> Math.max(a, b);
            case BAND -> a & b;
            case BOR -> a | b;
            case BXOR -> a ^ b;
        };
    }

    /** Unsigned values as longs: MIN and MAX by unsigned order, the rest as signed arithmetic (the same bits). */
    private static long combineUnsigned(final ReduceOp op, final long a, final long b)
    {
        return switch (op)
        {
            case MIN -> Long.compareUnsigned(a, b) <= 0 ? a : b;
            case MAX -> Long.compareUnsigned(a, b) >= 0 ? a : b;
            default -> combineLong(op, a, b);
        };
    }

    private static float combineFloat(final ReduceOp op, final float a, final float b)
    {
        return switch (op)
        {
            case SUM, AVG -> a + b;
            case PROD -> a * b;
            case MIN -> Math.min(a, b);
            case MAX -> Math.max(a, b);
            case BAND, BOR, BXOR -> throw new IllegalArgumentException(op + " of floating point");
        };
    }

    private static double combineDouble(final ReduceOp op, final double a, final double b)
    {
        return switch (op)
        {
            case SUM, AVG -> a + b;
            case PROD -> a * b;
            case MIN -> Math.min(a, b);
            case MAX -> Math.max(a, b);
            case BAND, BOR, BXOR -> throw new IllegalArgumentException(op + " of floating point");
        };
    }

    private static long float32Bits(final float value)
    {
        return Float.isNaN(value) ? FLOAT32_NAN : Float.floatToRawIntBits(value) & 0xFFFF_FFFFL;
    }

    private static long float64Bits(final double value)
    {
        return Double.isNaN(value) ? FLOAT64_NAN : Double.doubleToRawLongBits(value);
    }

    /** Magnitudes of the patterns 0 to {@code infinity}, with {@code infinity} standing for the next power of two. */
    private static double[] magnitudes(final int mantissaBits, final int exponentBits, final int infinity)
    {
        final double[] values = new double[infinity + 1];
        final int bias = (1 << (exponentBits - 1)) - 1;
        for (int bits = 0; bits <= infinity; bits++)
        {
            final int exponent = bits >>> mantissaBits;
            final int mantissa = bits & ((1 << mantissaBits) - 1);
            values[bits] = exponent == 0 ?
                Math.scalb((double)mantissa, 1 - bias - mantissaBits) :
                Math.scalb((double)((1 << mantissaBits) + mantissa), exponent - bias - mantissaBits);
        }
        return values;
    }

    /** Value of a 16-bit pattern: sign in bit 15, magnitude looked up, patterns past infinity are NaN. */
    private static double value(final long bits, final double[] table)
    {
        final int magnitude = (int)(bits & 0x7FFF);
        final int infinity = table.length - 1;
        final double value;
        if (magnitude > infinity)
        {
            value = Double.NaN;
        }
        else if (magnitude == infinity)
        {
            value = Double.POSITIVE_INFINITY;
        }
        else
        {
            value = table[magnitude];
        }
        return (bits & 0x8000) != 0 ? -value : value;
    }

    private static long round(final float value, final double[] table, final int signMask, final long nan)
    {
        if (Float.isNaN(value))
        {
            return nan;
        }
        final long sign = (Float.floatToRawIntBits(value) < 0) ? signMask : 0;
        final double x = Math.abs((double)value);
        final int infinity = table.length - 1;
        if (x >= table[infinity])
        {
            return sign | infinity;
        }
        // largest p with table[p] <= x
        int low = 0;
        int high = infinity;
        while (high - low > 1)
        {
            final int mid = (low + high) >>> 1;
            if (table[mid] <= x)
            {
                low = mid;
            }
            else
            {
                high = mid;
            }
        }
        final double below = x - table[low];
        final double above = table[low + 1] - x;
        final int nearest;
        if (below < above)
        {
            nearest = low;
        }
        else if (above < below)
        {
            nearest = low + 1;
        }
        else
        {
            nearest = (low & 1) == 0 ? low : low + 1;
        }
        return sign | nearest;
    }
}
