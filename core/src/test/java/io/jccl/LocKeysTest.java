package io.jccl;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * {@link LocKeys}, against Java's own comparisons: {@link Float#compare} and {@link Double#compare} for the
 * floating-point types, signed and unsigned integer comparisons for the others (keys of 64-bit values compare
 * unsigned, the others signed).
 */
@Timeout(30)
class LocKeysTest
{
    @Test
    void valueKeysOrderAsJavaComparesTheValues()
    {
        for (final DataType type : DataType.values())
        {
            final List<Long> values = sample(type);
            for (final long a : values)
            {
                final long keyA = key(type, a);
                if (type.size() <= Integer.BYTES)
                {
                    assertEquals((int)keyA, keyA, () -> type.label() + " 0x" + Long.toHexString(a) +
                        ": a key beyond int range");
                }
                for (final long b : values)
                {
                    final int expected = Integer.signum(compare(type, a, b));
                    final long keyB = key(type, b);
                    final int got = Integer.signum(type.size() == Long.BYTES ? Long.compareUnsigned(keyA, keyB) :
                        Long.compare(keyA, keyB));
                    if (got != expected)
                    {
                        fail(type.label() + " 0x" + Long.toHexString(a) + " vs 0x" + Long.toHexString(b) +
                            ": keys compare " + got + ", values " + expected);
                    }
                }
            }
        }
    }

    @Test
    void keysGiveBackTheValueOrTheCanonicalNaN()
    {
        for (final DataType type : DataType.values())
        {
            final long mask = type.size() == 8 ? -1L : (1L << 8 * type.size()) - 1;
            for (final long bits : sample(type))
            {
                final long back = valueBits(type, key(type, bits)) & mask;
                final long expected = isNaN(type, bits) ? canonicalNaN(type) : bits;
                assertEquals(expected, back, () -> type.label() + " 0x" + Long.toHexString(bits));
            }
        }
    }

    @Test
    void packedKeysTakeTheExtremeValueThenTheSmallestIndex()
    {
        final SplittableRandom random = new SplittableRandom(7);
        final int[] indices = {Integer.MIN_VALUE, Integer.MIN_VALUE + 1, -1, 0, 1, Integer.MAX_VALUE - 1,
            Integer.MAX_VALUE};
        for (final LocOp op : LocOp.values())
        {
            for (int trial = 0; trial < 20_000; trial++)
            {
                final float valueA = random.nextInt(5) - 2;
                final float valueB = random.nextInt(5) - 2;
                final int indexA = random.nextBoolean() ? indices[random.nextInt(indices.length)] : random.nextInt();
                final int indexB = random.nextInt(4) == 0 ? indexA : indices[random.nextInt(indices.length)];
                final long a = packed(op, valueA, indexA);
                final long b = packed(op, valueB, indexB);
                final long winner = op == LocOp.MAXLOC ? Math.max(a, b) : Math.min(a, b);
                final boolean aWins = op == LocOp.MAXLOC ? valueA > valueB : valueA < valueB;
                final int expectedIndex = valueA == valueB ? Math.min(indexA, indexB) : aWins ? indexA : indexB;
                final float expectedValue = op == LocOp.MAXLOC ? Math.max(valueA, valueB) : Math.min(valueA, valueB);
                assertEquals(expectedIndex, LocKeys.index(op, winner), () -> op + " (" + valueA + ", " +
                    indexA + ") and (" + valueB + ", " + indexB + ")");
                assertEquals(Float.floatToRawIntBits(expectedValue), (int)valueBits(DataType.FLOAT32, winner >> 32));
            }
            for (final int index : indices)
            {
                assertEquals(index, LocKeys.index(op, packed(op, 1.0f, index)));
            }
        }
    }

    private static long packed(final LocOp op, final float value, final int index)
    {
        return key(DataType.FLOAT32, Float.floatToRawIntBits(value) & 0xFFFF_FFFFL) << 32 |
            LocKeys.indexKey(op, index);
    }

    /**
     * The order key of one value, given as its stored bits zero-extended, by the scalar code of few pairs and by the
     * loops of its width, which must agree.
     */
    private static long key(final DataType type, final long bits)
    {
        if (type.size() == Long.BYTES)
        {
            final long[] one = {bits};
            LocKeys.orderKeys64(type, one, 1);
            assertEquals(LocKeys.orderKey64(type, bits), one[0], () -> type.label() + " 0x" +
                Long.toHexString(bits) + ": the loop's key and the scalar one differ");
            return one[0];
        }
        final int shift = 32 - 8 * type.size();
        final int signExtended = (int)bits << shift >> shift;
        final int[] one = {signExtended};
        LocKeys.orderKeys32(type, one, 1);
        assertEquals(LocKeys.orderKey32(type, signExtended), one[0], () -> type.label() + " 0x" +
            Long.toHexString(bits) + ": the loop's key and the scalar one differ");
        return one[0];
    }

    private static long valueBits(final DataType type, final long key)
    {
        if (type.size() == Long.BYTES)
        {
            final long[] one = {key};
            LocKeys.valueBits64(type, one, 1);
            assertEquals(LocKeys.valueBits64(type, key), one[0]);
            return one[0];
        }
        final int[] one = {(int)key};
        LocKeys.valueBits32(type, one, 1);
        assertEquals(LocKeys.valueBits32(type, (int)key), one[0]);
        return one[0];
    }

    /** The stored bits, zero-extended, of a type's extremes, zeros, subnormals, infinities, NaNs and random values. */
    private static List<Long> sample(final DataType type)
    {
        final int bits = 8 * type.size();
        final long mask = bits == 64 ? -1L : (1L << bits) - 1;
        final long top = 1L << bits - 1;
        final List<Long> values = new ArrayList<>();
        for (final long v : new long[] {0, 1, 2, mask, mask - 1, top, top - 1, top + 1})
        {
            values.add(v & mask);
        }
        if (type.isFloatingPoint())
        {
            final int mantissa = switch (type)
            {
                case FLOAT16 -> 10;
                case BFLOAT16 -> 7;
                case FLOAT32 -> 23;
                default -> 52;
            };
            final long infinity = (top - 1) & ~((1L << mantissa) - 1);
            for (final long v : new long[] {infinity, infinity | 1, infinity | 1L << mantissa - 1, infinity - 1,
                1L << mantissa, (1L << mantissa) - 1})
            {
                values.add(v);
                values.add(v | top);
            }
        }
        final SplittableRandom random = new SplittableRandom(type.ordinal());
        for (int i = 0; i < 300; i++)
        {
            values.add(random.nextLong() & mask);
        }
        return values;
    }

    private static int compare(final DataType type, final long a, final long b)
    {
        return switch (type)
        {
            case INT8 -> Byte.compare((byte)a, (byte)b);
            case INT32 -> Integer.compare((int)a, (int)b);
            case INT64 -> Long.compare(a, b);
            case UINT8, UINT32, UINT64 -> Long.compareUnsigned(a, b);
            case FLOAT16, BFLOAT16, FLOAT32 -> Float.compare(asFloat(type, a), asFloat(type, b));
            case FLOAT64 -> Double.compare(Double.longBitsToDouble(a), Double.longBitsToDouble(b));
        };
    }

    private static float asFloat(final DataType type, final long bits)
    {
        return switch (type)
        {
            case FLOAT16 -> Float.float16ToFloat((short)bits);
            case BFLOAT16 -> Float.intBitsToFloat((int)bits << 16);
            default -> Float.intBitsToFloat((int)bits);
        };
    }

    private static boolean isNaN(final DataType type, final long bits)
    {
        return type == DataType.FLOAT64 ? Double.isNaN(Double.longBitsToDouble(bits)) :
            type.isFloatingPoint() && Float.isNaN(asFloat(type, bits));
    }

    private static long canonicalNaN(final DataType type)
    {
        return switch (type)
        {
            case FLOAT16 -> 0x7E00;
            case BFLOAT16 -> 0x7FC0;
            case FLOAT32 -> 0x7FC0_0000L;
            default -> 0x7FF8_0000_0000_0000L;
        };
    }
}
