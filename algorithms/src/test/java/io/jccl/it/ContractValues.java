package io.jccl.it;

import io.jccl.DataType;
import io.jccl.ReduceOp;
import io.jccl.spi.Reductions;

/**
 * Seeded inputs of the contract suite and the reference arithmetic that checks them. Element {@code i} of rank
 * {@code r}'s input depends only on (case seed, r, i), so every rank can compute every other rank's input and the
 * expected result of a collective locally.
 * <p>
 * Elements travel as "bits": the value sign-extended to a long for integer types, the raw bit pattern (zero-extended)
 * for floating point types. Exact modes choose values whose reduction is exact in any order, so results are compared
 * bit for bit; inexact modes use random floats and a tolerance derived from the op, the type and the rank count.
 * Work is done in chunks of up to {@link #CHUNK} elements, with every branch on type, mode or op outside the inner
 * loops: the 16 MiB cases check tens of millions of elements per rank.
 */
final class ContractValues
{
    /** Elements per chunk of generated or checked values. */
    static final int CHUNK = 1024;

    /** How inputs are drawn. */
    enum Mode
    {
        /** Any bit pattern (floats: any finite value): data movement, MIN, MAX and the bitwise operators. */
        RAW,
        /** Integers: any value (sums wrap as Java does). Floats: integers small enough that every sum is exact. */
        EXACT_SUM,
        /** Integers: odd values (products wrap, never collapse to 0). Floats: ±0.5, ±1, ±2. */
        EXACT_PROD,
        /** Floats uniform in [-1, 1), rounded to the type. */
        INEXACT_SUM,
        /** Floats uniform in [0.75, 1.25), rounded to the type. */
        INEXACT_PROD;

        static Mode of(final ReduceOp op, final boolean inexact)
        {
            if (op == null || op == ReduceOp.MIN || op == ReduceOp.MAX || op.isBitwise())
            {
                return RAW;
            }
            if (op == ReduceOp.PROD)
            {
                return inexact ? INEXACT_PROD : EXACT_PROD;
            }
            return inexact ? INEXACT_SUM : EXACT_SUM;
        }
    }

    private static final double[] PROD_FACTORS = {-2, -1, -0.5, 0.5, 1, 2};
    private static final double TWO_POW_MINUS_53 = 0x1.0p-53;
    private static final long RANK_STRIDE = 0xD1B54A32D192ED03L;
    private static final long INDEX_STRIDE = 0x9E3779B97F4A7C15L;

    private ContractValues()
    {
    }

    /** {@code out[i]} := bits of element {@code index + i} of rank {@code rank}'s input, for {@code i < length}. */
    static void inputs(final DataType type, final Mode mode, final long seed, final int rank, final long index,
        final long[] out, final int length, final Scratch scratch)
    {
        // step 1: one independent random word per element (two loops, so that the second one vectorises)
        final long start = seed + rank * RANK_STRIDE + index * INDEX_STRIDE;
        for (int i = 0; i < length; i++)
        {
            out[i] = start + i * INDEX_STRIDE;
        }
        for (int i = 0; i < length; i++)
        {
            out[i] = mix(out[i]);
        }
        // step 2: shape the words into values of the type
        final boolean integer = !type.isFloatingPoint();
        switch (mode)
        {
            case RAW ->
            {
                if (integer)
                {
                    signExtend(type, out, length);
                }
                else
                {
                    finite(type, out, length);
                }
            }
            case EXACT_SUM ->
            {
                if (integer)
                {
                    signExtend(type, out, length);
                }
                else
                {
                    final int shift = sumRangeShift(type);
                    final double[] values = scratch.shape;
                    for (int i = 0; i < length; i++)
                    {
                        values[i] = out[i] >> shift;
                    }
                    encode(type, values, out, length);
                }
            }
            case EXACT_PROD ->
            {
                if (integer)
                {
                    for (int i = 0; i < length; i++)
                    {
                        out[i] |= 1;
                    }
                    signExtend(type, out, length);
                }
                else
                {
                    final double[] values = scratch.shape;
                    for (int i = 0; i < length; i++)
                    {
                        values[i] = PROD_FACTORS[(int)Math.unsignedMultiplyHigh(out[i], PROD_FACTORS.length)];
                    }
                    encode(type, values, out, length);
                }
            }
            case INEXACT_SUM, INEXACT_PROD ->
            {
                final double scale = mode == Mode.INEXACT_SUM ? 2 : 0.5;
                final double offset = mode == Mode.INEXACT_SUM ? -1 : 0.75;
                final double[] values = scratch.shape;
                for (int i = 0; i < length; i++)
                {
                    values[i] = offset + (out[i] >>> 11) * TWO_POW_MINUS_53 * scale;
                }
                encode(type, values, out, length);
            }
        }
    }

    /**
     * {@code out[i]} := bits of the exact reduction of every rank's element {@code index + i}, as {@code op} over
     * {@code type} defines it: integer arithmetic wraps, AVG divides the (wrapped) sum by the rank count and
     * truncates toward zero; unsigned types compare and divide unsigned; float16 and bfloat16 divide in float32 and
     * round once. Exact modes only.
     */
    static void reduced(final DataType type, final ReduceOp op, final Mode mode, final long seed, final int ranks,
        final long index, final long[] out, final int length, final Scratch scratch)
    {
        final long[] bits = scratch.bits;
        if (type.isUnsigned())
        {
            reducedUnsigned(type, op, mode, seed, ranks, index, out, length, scratch);
            return;
        }
        if (!type.isFloatingPoint())
        {
            inputs(type, mode, seed, 0, index, out, length, scratch);
            for (int r = 1; r < ranks; r++)
            {
                inputs(type, mode, seed, r, index, bits, length, scratch);
                combine(op, out, bits, length);
            }
            signExtend(type, out, length);
            if (op == ReduceOp.AVG)
            {
                for (int i = 0; i < length; i++)
                {
                    out[i] /= ranks;
                }
            }
            return;
        }
        final double[] acc = scratch.acc;
        final double[] values = scratch.values;
        inputs(type, mode, seed, 0, index, bits, length, scratch);
        decode(type, bits, acc, length);
        for (int r = 1; r < ranks; r++)
        {
            inputs(type, mode, seed, r, index, bits, length, scratch);
            decode(type, bits, values, length);
            combine(op, acc, values, length);
        }
        if (op == ReduceOp.AVG)
        {
            for (int i = 0; i < length; i++)
            {
                acc[i] = type == DataType.FLOAT64 ? acc[i] / ranks : (double)((float)acc[i] / ranks);
            }
        }
        encode(type, acc, out, length);
    }

    /** {@link #reduced} of an unsigned type: on the elements' unsigned values, then as bits sign-extended. */
    private static void reducedUnsigned(final DataType type, final ReduceOp op, final Mode mode, final long seed,
        final int ranks, final long index, final long[] out, final int length, final Scratch scratch)
    {
        final long[] bits = scratch.bits;
        final long mask = widthMask(type);
        inputs(type, mode, seed, 0, index, out, length, scratch);
        for (int i = 0; i < length; i++)
        {
            out[i] &= mask;
        }
        for (int r = 1; r < ranks; r++)
        {
            inputs(type, mode, seed, r, index, bits, length, scratch);
            for (int i = 0; i < length; i++)
            {
                final long value = bits[i] & mask;
                out[i] = switch (op)
                {
                    case MIN -> Long.compareUnsigned(out[i], value) <= 0 ? out[i] : value;
                    case MAX -> Long.compareUnsigned(out[i], value) >= 0 ? out[i] : value;
                    case SUM, AVG -> (out[i] + value) & mask;
                    case PROD -> out[i] * value & mask;
                    case BAND -> out[i] & value;
                    case BOR -> out[i] | value;
                    case BXOR -> out[i] ^ value;
                };
            }
        }
        if (op == ReduceOp.AVG)
        {
            for (int i = 0; i < length; i++)
            {
                out[i] = Long.divideUnsigned(out[i], ranks);
            }
        }
        signExtend(type, out, length);
    }

    /**
     * Inexact modes: {@code expected[i]} := the reduction of every rank's element {@code index + i} in double, and
     * {@code tolerance[i]} := the largest error a correct reduction in the type may make (see {@link #tolerance}).
     */
    static void reducedApproximately(final DataType type, final ReduceOp op, final Mode mode, final long seed,
        final int ranks, final long index, final double[] expected, final double[] tolerance, final int length,
        final Scratch scratch)
    {
        final boolean product = op == ReduceOp.PROD;
        final double[] values = scratch.values;
        final double[] magnitude = scratch.acc;
        java.util.Arrays.fill(expected, 0, length, product ? 1 : 0);
        java.util.Arrays.fill(magnitude, 0, length, product ? 1 : 0);
        for (int r = 0; r < ranks; r++)
        {
            inputs(type, mode, seed, r, index, scratch.bits, length, scratch);
            decode(type, scratch.bits, values, length);
            for (int i = 0; i < length; i++)
            {
                expected[i] = product ? expected[i] * values[i] : expected[i] + values[i];
                magnitude[i] = product ? magnitude[i] * Math.abs(values[i]) : magnitude[i] + Math.abs(values[i]);
            }
        }
        for (int i = 0; i < length; i++)
        {
            expected[i] = op == ReduceOp.AVG ? expected[i] / ranks : expected[i];
            tolerance[i] = tolerance(type, op, ranks, magnitude[i], expected[i]);
        }
    }

    /**
     * Largest error a correct reduction of p inputs may make: each of the p - 1 combining steps rounds once to the
     * type (partial results are stored in the type, even for float16 and bfloat16), so a sum errs by at most
     * (p - 1)·u·Σ|x| and a product by (p - 1)·u·|Πx| (u: unit roundoff); AVG adds the rounding of the division.
     * Doubled, because the double reference of float64 inputs rounds as often as the result does.
     */
    static double tolerance(final DataType type, final ReduceOp op, final int ranks, final double magnitude,
        final double expected)
    {
        final double u = unitRoundoff(type);
        final double steps = 2.0 * (ranks - 1) * u * magnitude;
        return switch (op)
        {
            case SUM -> steps;
            case PROD -> steps * 1.01;
            case AVG -> steps / ranks + 2 * u * Math.abs(expected);
            case MIN, MAX, BAND, BOR, BXOR -> 0;
        };
    }

    static double unitRoundoff(final DataType type)
    {
        return switch (type)
        {
            case FLOAT16 -> 0x1.0p-11;
            case BFLOAT16 -> 0x1.0p-8;
            case FLOAT32 -> 0x1.0p-24;
            case FLOAT64 -> 0x1.0p-53;
            default -> 0;
        };
    }

    /** {@code out[i]} := the value of {@code bits[i]}. */
    static void decode(final DataType type, final long[] bits, final double[] out, final int length)
    {
        switch (type)
        {
            case INT8, INT32, INT64 ->
            {
                for (int i = 0; i < length; i++)
                {
                    out[i] = bits[i];
                }
            }
            case UINT8, UINT32, UINT64 ->
            {
                final long mask = widthMask(type);
                for (int i = 0; i < length; i++)
                {
                    final long value = bits[i] & mask;
                    out[i] = value >= 0 ? value : 0x1p64 + value;
                }
            }
            case FLOAT16 ->
            {
                for (int i = 0; i < length; i++)
                {
                    out[i] = Float.float16ToFloat((short)bits[i]);
                }
            }
            case BFLOAT16 ->
            {
                for (int i = 0; i < length; i++)
                {
                    out[i] = Float.intBitsToFloat((int)bits[i] << 16);
                }
            }
            case FLOAT32 ->
            {
                for (int i = 0; i < length; i++)
                {
                    out[i] = Float.intBitsToFloat((int)bits[i]);
                }
            }
            case FLOAT64 ->
            {
                for (int i = 0; i < length; i++)
                {
                    out[i] = Double.longBitsToDouble(bits[i]);
                }
            }
        }
    }

    /** {@code out[i]} := {@code values[i]} rounded to the type (to nearest even; via float32 for 16-bit types). */
    static void encode(final DataType type, final double[] values, final long[] out, final int length)
    {
        switch (type)
        {
            case INT8, INT32, INT64, UINT8, UINT32, UINT64 ->
            {
                for (int i = 0; i < length; i++)
                {
                    out[i] = (long)values[i];
                }
                signExtend(type, out, length);
            }
            case FLOAT16 ->
            {
                for (int i = 0; i < length; i++)
                {
                    out[i] = Float.floatToFloat16((float)values[i]) & 0xFFFFL;
                }
            }
            case BFLOAT16 ->
            {
                for (int i = 0; i < length; i++)
                {
                    out[i] = Reductions.floatToBfloat16((float)values[i]) & 0xFFFFL;
                }
            }
            case FLOAT32 ->
            {
                for (int i = 0; i < length; i++)
                {
                    out[i] = Float.floatToRawIntBits((float)values[i]) & 0xFFFF_FFFFL;
                }
            }
            case FLOAT64 ->
            {
                for (int i = 0; i < length; i++)
                {
                    out[i] = Double.doubleToRawLongBits(values[i]);
                }
            }
        }
    }

    static double toDouble(final DataType type, final long bits)
    {
        final double[] value = new double[1];
        decode(type, new long[] {bits}, value, 1);
        return value[0];
    }

    /** Human-readable element, for failure messages. */
    static String show(final DataType type, final long bits)
    {
        return type.isFloatingPoint() ? toDouble(type, bits) + " (0x" + Long.toHexString(bits) + ")" :
            type.isUnsigned() ? Long.toUnsignedString(bits & widthMask(type)) :
            Long.toString(bits);
    }

    /**
     * Adds elements to a running Fletcher-style checksum of a result ({@code sums[0]}: sum of the elements,
     * {@code sums[1]}: sum of the running sums, which depends on their order); cheap enough for 16 MiB results.
     */
    static void checksum(final long[] sums, final long[] bits, final int length)
    {
        long sum = sums[0];
        long sumOfSums = sums[1];
        for (int i = 0; i < length; i++)
        {
            sum += bits[i];
            sumOfSums += sum;
        }
        sums[0] = sum;
        sums[1] = sumOfSums;
    }

    static long mix(final long seed)
    {
        long z = seed;
        z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
        z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
        return z ^ (z >>> 31);
    }

    /** Per-rank scratch of the reference computations, {@link #CHUNK} elements each. */
    static final class Scratch
    {
        final long[] bits = new long[CHUNK];
        final double[] acc = new double[CHUNK];
        final double[] values = new double[CHUNK];
        /** Used by {@link #inputs} alone. */
        final double[] shape = new double[CHUNK];
    }

    /** Integer types: keep the low bits and sign-extend them, as the reduction kernels' casts do. */
    private static void signExtend(final DataType type, final long[] bits, final int length)
    {
        final int shift = 64 - 8 * type.size();
        for (int i = 0; i < length; i++)
        {
            bits[i] = bits[i] << shift >> shift;
        }
    }

    /** The bits of one element of the type, all ones for 8-byte types. */
    private static long widthMask(final DataType type)
    {
        return type.size() == 8 ? -1L : (1L << 8 * type.size()) - 1;
    }

    /** Float types: keep the low bits, and clear the lowest exponent bit of NaN and infinity patterns. */
    private static void finite(final DataType type, final long[] bits, final int length)
    {
        final long width = widthMask(type);
        final long exponent = switch (type)
        {
            case FLOAT16 -> 0x7C00L;
            case BFLOAT16 -> 0x7F80L;
            case FLOAT32 -> 0x7F80_0000L;
            default -> 0x7FF0_0000_0000_0000L;
        };
        final long lowest = Long.lowestOneBit(exponent);
        for (int i = 0; i < length; i++)
        {
            final long b = bits[i] & width;
            bits[i] = (b & exponent) == exponent ? b & ~lowest : b;
        }
    }

    /**
     * The shift that turns a random word into an integer in [-R, R) (an arithmetic shift right) with R such that a
     * sum of 8 of them is exact in the type: 2^7 for float16, 2^4 for bfloat16, 2^20 for float32, 2^40 for float64.
     */
    private static int sumRangeShift(final DataType type)
    {
        return switch (type)
        {
            case FLOAT16 -> 64 - 8;
            case BFLOAT16 -> 64 - 5;
            case FLOAT32 -> 64 - 21;
            default -> 64 - 41;
        };
    }

    private static void combine(final ReduceOp op, final long[] acc, final long[] values, final int length)
    {
        switch (op)
        {
            case SUM, AVG ->
            {
                for (int i = 0; i < length; i++)
                {
                    acc[i] += values[i];
                }
            }
            case PROD ->
            {
                for (int i = 0; i < length; i++)
                {
                    acc[i] *= values[i];
                }
            }
            case MIN ->
            {
                for (int i = 0; i < length; i++)
                {
                    acc[i] = Math.min(acc[i], values[i]);
                }
            }
            case MAX ->
            {
                for (int i = 0; i < length; i++)
                {
                    acc[i] = Math.max(acc[i], values[i]);
                }
            }
            case BAND ->
            {
                for (int i = 0; i < length; i++)
                {
                    acc[i] &= values[i];
                }
            }
            case BOR ->
            {
                for (int i = 0; i < length; i++)
                {
                    acc[i] |= values[i];
                }
            }
            case BXOR ->
            {
                for (int i = 0; i < length; i++)
                {
                    acc[i] ^= values[i];
                }
            }
        }
    }

    private static void combine(final ReduceOp op, final double[] acc, final double[] values, final int length)
    {
        switch (op)
        {
            case SUM, AVG ->
            {
                for (int i = 0; i < length; i++)
                {
                    acc[i] += values[i];
                }
            }
            case PROD ->
            {
                for (int i = 0; i < length; i++)
                {
                    acc[i] *= values[i];
                }
            }
            case MIN ->
            {
                for (int i = 0; i < length; i++)
                {
                    acc[i] = Math.min(acc[i], values[i]);
                }
            }
            case MAX ->
            {
                for (int i = 0; i < length; i++)
                {
                    acc[i] = Math.max(acc[i], values[i]);
                }
            }
        }
    }
}
