package io.jccl;

/**
 * The keys {@link LocCollectives} reduces in place of (value, index) pairs: a value's order key, an integer that orders
 * as the values do (signed for values of up to 32 bits, unsigned for 64-bit ones), and its inverse, for one value and
 * for arrays of them (one loop a type, the type's switch outside it and no branches inside, so that C2 vectorises the
 * loops); an index's 32 bits in a packed key.
 */
final class LocKeys
{
    private LocKeys()
    {
    }

    /**
     * The order key of a value of up to 32 bits given sign-extended: an int that orders as the values do. Signed
     * integers are their own keys; uint8 is zero-extended and uint32 has its top bit flipped; floating-point values
     * get a canonical NaN and, when negative, every bit but the sign flipped, so that a larger magnitude gives a
     * smaller key.
     */
    static int orderKey32(final DataType type, final int bits)
    {
        return switch (type)
        {
            case INT8, INT32 -> bits;
            case UINT8 -> bits & 0xFF;
            case UINT32 -> bits ^ Integer.MIN_VALUE;
            case FLOAT16 -> floatKey(bits, 0x7C00, 0x7E00);
            case BFLOAT16 -> floatKey(bits, 0x7F80, 0x7FC0);
            case FLOAT32 -> floatKey(bits, 0x7F80_0000, 0x7FC0_0000);
            default -> throw new IllegalArgumentException(type.label() + " is not a type of up to 32 bits");
        };
    }

    /** {@link #orderKey32} on {@code bits[0, n)}: one loop a type, the type's switch outside it. */
    static void orderKeys32(final DataType type, final int[] bits, final int n)
    {
        switch (type)
        {
            case INT8, INT32 ->
            {
            }
            case UINT8 ->
            {
                for (int i = 0; i < n; i++)
                {
                    bits[i] &= 0xFF;
                }
            }
            case UINT32 ->
            {
                for (int i = 0; i < n; i++)
                {
                    bits[i] ^= Integer.MIN_VALUE;
                }
            }
            case FLOAT16 ->
            {
                for (int i = 0; i < n; i++)
                {
                    bits[i] = floatKey(bits[i], 0x7C00, 0x7E00);
                }
            }
            case BFLOAT16 ->
            {
                for (int i = 0; i < n; i++)
                {
                    bits[i] = floatKey(bits[i], 0x7F80, 0x7FC0);
                }
            }
            case FLOAT32 ->
            {
                for (int i = 0; i < n; i++)
                {
                    bits[i] = floatKey(bits[i], 0x7F80_0000, 0x7FC0_0000);
                }
            }
            default -> throw new IllegalArgumentException(type.label() + " is not a type of up to 32 bits");
        }
    }

    /**
     * The key of a floating-point value whose sign-extended bits are {@code b}, in a format whose +∞ is
     * {@code infinity} and whose canonical NaN is {@code nan}. No branches, so that the loops vectorise: isNaN is -1
     * where the magnitude exceeds +∞'s.
     */
    private static int floatKey(final int b, final int infinity, final int nan)
    {
        final int magnitude = infinity | infinity - 1 | nan;
        final int isNaN = infinity - (b & magnitude) >> 31;
        final int c = b & ~isNaN | nan & isNaN;
        return flipNegative(c, magnitude);
    }

    /** A negative value's magnitude bits flipped: a float key from the value's bits, or back. */
    private static int flipNegative(final int bits, final int magnitude)
    {
        return bits ^ (bits >> 31 & magnitude);
    }

    /** The inverse of {@link #orderKey32}: the value's stored bits (its low bits count). */
    static int valueBits32(final DataType type, final int key)
    {
        return switch (type)
        {
            case INT8, INT32, UINT8 -> key;
            case UINT32 -> key ^ Integer.MIN_VALUE;
            case FLOAT16, BFLOAT16 -> flipNegative(key, Short.MAX_VALUE);
            case FLOAT32 -> flipNegative(key, Integer.MAX_VALUE);
            default -> throw new IllegalArgumentException(type.label() + " is not a type of up to 32 bits");
        };
    }

    /** {@link #valueBits32} on {@code keys[0, n)}. */
    static void valueBits32(final DataType type, final int[] keys, final int n)
    {
        switch (type)
        {
            case INT8, INT32, UINT8 ->
            {
            }
            case UINT32 ->
            {
                for (int i = 0; i < n; i++)
                {
                    keys[i] ^= Integer.MIN_VALUE;
                }
            }
            case FLOAT16, BFLOAT16 ->
            {
                for (int i = 0; i < n; i++)
                {
                    keys[i] = flipNegative(keys[i], Short.MAX_VALUE);
                }
            }
            case FLOAT32 ->
            {
                for (int i = 0; i < n; i++)
                {
                    keys[i] = flipNegative(keys[i], Integer.MAX_VALUE);
                }
            }
            default -> throw new IllegalArgumentException(type.label() + " is not a type of up to 32 bits");
        }
    }

    /**
     * The order key of a 64-bit value, unsigned: a long whose unsigned order is the values' order. uint64 is its own
     * key; int64 has its top bit flipped; float64 gets float32's key with the top bit flipped too. Unsigned, so that a
     * 64-bit call reduces uint64 keys where a call of 32-bit values reduces int64 ones: a rank that passes values of
     * another width than the others then makes another collective, which check mode names at the first call.
     */
    static long orderKey64(final DataType type, final long bits)
    {
        return switch (type)
        {
            case INT64 -> bits ^ Long.MIN_VALUE;
            case UINT64 -> bits;
            case FLOAT64 -> float64Key(bits);
            default -> throw new IllegalArgumentException(type.label() + " is not a 64-bit type");
        };
    }

    /** {@link #orderKey64} on {@code bits[0, n)}. */
    static void orderKeys64(final DataType type, final long[] bits, final int n)
    {
        switch (type)
        {
            case INT64 ->
            {
                for (int i = 0; i < n; i++)
                {
                    bits[i] ^= Long.MIN_VALUE;
                }
            }
            case UINT64 ->
            {
            }
            case FLOAT64 ->
            {
                for (int i = 0; i < n; i++)
                {
                    bits[i] = float64Key(bits[i]);
                }
            }
            default -> throw new IllegalArgumentException(type.label() + " is not a 64-bit type");
        }
    }

    private static long float64Key(final long b)
    {
        final long isNaN = 0x7FF0_0000_0000_0000L - (b & Long.MAX_VALUE) >> 63;
        final long c = b & ~isNaN | 0x7FF8_0000_0000_0000L & isNaN;
        return flipNegative(c) ^ Long.MIN_VALUE;
    }

    /** A float64 value's bits from its signed key, or its signed key from its bits. */
    private static long flipNegative(final long bits)
    {
        return bits ^ (bits >> 63 & Long.MAX_VALUE);
    }

    /** The inverse of {@link #orderKey64}. */
    static long valueBits64(final DataType type, final long key)
    {
        return switch (type)
        {
            case INT64 -> key ^ Long.MIN_VALUE;
            case UINT64 -> key;
            case FLOAT64 -> flipNegative(key ^ Long.MIN_VALUE);
            default -> throw new IllegalArgumentException(type.label() + " is not a 64-bit type");
        };
    }

    /** {@link #valueBits64} on {@code keys[0, n)}. */
    static void valueBits64(final DataType type, final long[] keys, final int n)
    {
        switch (type)
        {
            case INT64 ->
            {
                for (int i = 0; i < n; i++)
                {
                    keys[i] ^= Long.MIN_VALUE;
                }
            }
            case UINT64 ->
            {
            }
            case FLOAT64 ->
            {
                for (int i = 0; i < n; i++)
                {
                    keys[i] = flipNegative(keys[i] ^ Long.MIN_VALUE);
                }
            }
            default -> throw new IllegalArgumentException(type.label() + " is not a 64-bit type");
        }
    }

    /**
     * The index's 32 bits of a packed key, unsigned: for MINLOC growing with the index, for MAXLOC shrinking, so that
     * the key's MIN or MAX takes the smallest index among equal values.
     */
    static long indexKey(final LocOp op, final int index)
    {
        return (index ^ (op == LocOp.MAXLOC ? Integer.MAX_VALUE : Integer.MIN_VALUE)) & 0xFFFF_FFFFL;
    }

    /** The index a packed key carries. */
    static int index(final LocOp op, final long packed)
    {
        return (int)packed ^ (op == LocOp.MAXLOC ? Integer.MAX_VALUE : Integer.MIN_VALUE);
    }
}
