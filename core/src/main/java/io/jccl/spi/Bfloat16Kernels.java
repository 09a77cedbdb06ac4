package io.jccl.spi;

import io.jccl.ReduceOp;
import org.agrona.UnsafeApi;

import java.nio.ByteOrder;

import static io.jccl.spi.ReductionScratch.STAGE_BASE;

/**
 * bfloat16 reduction loops. A bfloat16 is the upper half of a float32, but C2 does not vectorise
 * {@link Float#intBitsToFloat} / {@link Float#floatToRawIntBits}, nor widening shorts to ints. So each block takes
 * three vectorised passes that reinterpret through memory instead:
 * <ol>
 *   <li>widen: read the operands two elements per int and store their float32 bit patterns into int lanes, even
 *       elements and odd ones apart ({@code w << 16} and {@code w & 0xFFFF0000} on a little-endian machine);</li>
 *   <li>combine: read those lanes as floats and combine them in float32;</li>
 *   <li>narrow: read the results as ints, round each to nearest even, pack two per int.</li>
 * </ol>
 * NaN results come out as the canonical NaN {@code 0x7FC0}. Only an infinite or NaN operand can give a NaN, so
 * widen flags blocks holding one, and only those take the slower rounding that checks for NaN ({@link #roundHigh}).
 */
final class Bfloat16Kernels
{
    private static final long ARRAY_BASE = Float16Kernels.ARRAY_BASE;

    /** Whether the element at the lower address is the low half of an int (a constant C2 folds away). */
    private static final boolean EVEN_IS_LOW = ByteOrder.nativeOrder() == ByteOrder.LITTLE_ENDIAN;

    private Bfloat16Kernels()
    {
    }

    /** {@code d[from + i] = a[from + i] op b[from + i]} for {@code n <= BLOCK_BYTES / 2}. */
    static void arrays(final ReduceOp op, final short[] a, final short[] b, final short[] d, final int from,
        final int n, final ReductionScratch scratch)
    {
        final int pairs = n >>> 1;
        final int special = widen(a, from, scratch.evenA, scratch.oddA, pairs) |
            widen(b, from, scratch.evenB, scratch.oddB, pairs);
        combine(op, scratch, pairs);
        narrow(scratch.evenA, scratch.oddA, d, from, pairs, special);
        if ((n & 1) != 0)
        {
            final int last = from + n - 1;
            d[last] = combine(op, a[last], b[last]);
        }
    }

    /** {@code d[at + i] = t[at + i] op stage[i]} for {@code n <= BLOCK_BYTES / 2}. */
    static void withStage(final ReduceOp op, final short[] t, final int at, final ReductionScratch scratch,
        final short[] d, final int n)
    {
        final int pairs = n >>> 1;
        final int special = widen(t, at, scratch.evenA, scratch.oddA, pairs) |
            widen(scratch.stage, scratch.evenB, scratch.oddB, pairs);
        combine(op, scratch, pairs);
        narrow(scratch.evenA, scratch.oddA, d, at, pairs, special);
        if ((n & 1) != 0)
        {
            final int last = n - 1;
            d[at + last] = combine(op, t[at + last], UnsafeApi.getShort(scratch.stage, STAGE_BASE + 2L * last));
        }
    }

    /** {@code stage[i] = t[at + i] op stage[i]} for {@code n <= BLOCK_BYTES / 2}. */
    static void intoStage(final ReduceOp op, final short[] t, final int at, final ReductionScratch scratch,
        final int n)
    {
        final int pairs = n >>> 1;
        final long[] stage = scratch.stage;
        final int special = widen(t, at, scratch.evenA, scratch.oddA, pairs) |
            widen(stage, scratch.evenB, scratch.oddB, pairs);
        combine(op, scratch, pairs);
        narrow(scratch.evenA, scratch.oddA, stage, pairs, special);
        if ((n & 1) != 0)
        {
            final long last = STAGE_BASE + 2L * (n - 1);
            UnsafeApi.putShort(stage, last, combine(op, t[at + n - 1], UnsafeApi.getShort(stage, last)));
        }
    }

    /**
     * Element by element on any memory: for short vectors, where setting up blocks costs more than it saves. The
     * operator is chosen once, outside the loops.
     */
    static void scalar(final ReduceOp op, final Object aBase, final long aOffset, final Object bBase,
        final long bOffset, final Object dBase, final long dOffset, final int n)
    {
        switch (op)
        {
            case SUM, AVG ->
            {
                for (int i = 0; i < n; i++)
                {
                    final long at = 2L * i;
                    final float a = Reductions.bfloat16ToFloat(UnsafeApi.getShort(aBase, aOffset + at));
                    final float b = Reductions.bfloat16ToFloat(UnsafeApi.getShort(bBase, bOffset + at));
                    UnsafeApi.putShort(dBase, dOffset + at, Reductions.floatToBfloat16(a + b));
                }
            }
            case PROD ->
            {
                for (int i = 0; i < n; i++)
                {
                    final long at = 2L * i;
                    final float a = Reductions.bfloat16ToFloat(UnsafeApi.getShort(aBase, aOffset + at));
                    final float b = Reductions.bfloat16ToFloat(UnsafeApi.getShort(bBase, bOffset + at));
                    UnsafeApi.putShort(dBase, dOffset + at, Reductions.floatToBfloat16(a * b));
                }
            }
            case MIN ->
            {
                for (int i = 0; i < n; i++)
                {
                    final long at = 2L * i;
                    final float a = Reductions.bfloat16ToFloat(UnsafeApi.getShort(aBase, aOffset + at));
                    final float b = Reductions.bfloat16ToFloat(UnsafeApi.getShort(bBase, bOffset + at));
                    UnsafeApi.putShort(dBase, dOffset + at, Reductions.floatToBfloat16(Math.min(a, b)));
                }
            }
            case MAX ->
            {
                for (int i = 0; i < n; i++)
                {
                    final long at = 2L * i;
                    final float a = Reductions.bfloat16ToFloat(UnsafeApi.getShort(aBase, aOffset + at));
                    final float b = Reductions.bfloat16ToFloat(UnsafeApi.getShort(bBase, bOffset + at));
                    UnsafeApi.putShort(dBase, dOffset + at, Reductions.floatToBfloat16(Math.max(a, b)));
                }
            }
        }
    }

    /** {@code x[at + i] /= divisor}, rounded once to nearest even, for {@code n <= BLOCK_BYTES / 2}. */
    static void divide(final short[] x, final int at, final int n, final int divisor,
        final ReductionScratch scratch)
    {
        final float d = divisor;
        final long[] even = scratch.evenA;
        final long[] odd = scratch.oddA;
        final int pairs = n >>> 1;
        final int special = widen(x, at, even, odd, pairs);
        for (int i = 0; i < pairs; i++)
        {
            final long s = STAGE_BASE + 4L * i;
            UnsafeApi.putFloat(even, s, UnsafeApi.getFloat(even, s) / d);
            UnsafeApi.putFloat(odd, s, UnsafeApi.getFloat(odd, s) / d);
        }
        narrow(even, odd, x, at, pairs, special);
        if ((n & 1) != 0)
        {
            final int last = at + n - 1;
            x[last] = Reductions.floatToBfloat16(Reductions.bfloat16ToFloat(x[last]) / d);
        }
    }

    /** {@code x[i] /= divisor} on any memory. */
    static void scalarDivide(final Object base, final long offset, final int n, final int divisor)
    {
        final float d = divisor;
        for (int i = 0; i < n; i++)
        {
            final long at = offset + 2L * i;
            UnsafeApi.putShort(base, at, Reductions.floatToBfloat16(
                Reductions.bfloat16ToFloat(UnsafeApi.getShort(base, at)) / d));
        }
    }

    /**
     * Rounds float32 bits to bfloat16, nearest even, without branches so that C2 vectorises it: the result is in
     * the upper 16 bits (the lower ones are garbage). {@code nan} is all ones when the input is a NaN, which then
     * becomes the canonical {@code 0x7FC0}; finite values past the largest bfloat16 round to infinity.
     */
    static int roundHigh(final int bits)
    {
        final int nan = (0x7F80_0000 - (bits & 0x7FFF_FFFF)) >> 31;
        return ((bits + 0x7FFF + ((bits >>> 16) & 1)) & ~nan) | (0x7FC0_0000 & nan);
    }

    /** {@link #roundHigh} for bits known not to be a NaN. */
    private static int roundFinite(final int bits)
    {
        return bits + 0x7FFF + ((bits >>> 16) & 1);
    }

    /** Whether {@code widen}'s flags saw an operand with an all-ones exponent (infinity or NaN). */
    private static boolean hasSpecial(final int special)
    {
        return (special & 0x8000_8000) != 0;
    }

    /** Two rounded elements (each in the upper half of an int) as they lie in memory, packed into one int. */
    private static int pack(final int even, final int odd)
    {
        return EVEN_IS_LOW ? (even >>> 16) | (odd & 0xFFFF_0000) : (even & 0xFFFF_0000) | (odd >>> 16);
    }

    private static short combine(final ReduceOp op, final short a, final short b)
    {
        return Reductions.floatToBfloat16(
            Float32Kernels.combine(op, Reductions.bfloat16ToFloat(a), Reductions.bfloat16ToFloat(b)));
    }

    /**
     * Pass 1 from a typed array: pairs of elements into float32 bit patterns in the even and odd lanes. Returns
     * flags for {@link #hasSpecial}: bit 15 or 31 is set when a half's exponent is all ones (adding 0x80 to the
     * exponent field carries into the half's sign bit, never beyond it).
     */
    private static int widen(final short[] src, final int at, final long[] even, final long[] odd, final int pairs)
    {
        final long base = ARRAY_BASE + 2L * at;
        int special = 0;
        for (int i = 0; i < pairs; i++)
        {
            final int w = UnsafeApi.getInt(src, base + 4L * i);
            UnsafeApi.putInt(even, STAGE_BASE + 4L * i, EVEN_IS_LOW ? w << 16 : w & 0xFFFF_0000);
            UnsafeApi.putInt(odd, STAGE_BASE + 4L * i, EVEN_IS_LOW ? w & 0xFFFF_0000 : w << 16);
            special |= (w & 0x7F80_7F80) + 0x0080_0080;
        }
        return special;
    }

    /** Pass 1 from the staging array. */
    private static int widen(final long[] stage, final long[] even, final long[] odd, final int pairs)
    {
        int special = 0;
        for (int i = 0; i < pairs; i++)
        {
            final long s = STAGE_BASE + 4L * i;
            final int w = UnsafeApi.getInt(stage, s);
            UnsafeApi.putInt(even, s, EVEN_IS_LOW ? w << 16 : w & 0xFFFF_0000);
            UnsafeApi.putInt(odd, s, EVEN_IS_LOW ? w & 0xFFFF_0000 : w << 16);
            special |= (w & 0x7F80_7F80) + 0x0080_0080;
        }
        return special;
    }

    /** Pass 2: lanes A = lanes A op lanes B, in float32. */
    private static void combine(final ReduceOp op, final ReductionScratch scratch, final int pairs)
    {
        combine(op, scratch.evenA, scratch.evenB, pairs);
        combine(op, scratch.oddA, scratch.oddB, pairs);
    }

    private static void combine(final ReduceOp op, final long[] x, final long[] y, final int n)
    {
        switch (op)
        {
            case SUM, AVG ->
            {
                for (int i = 0; i < n; i++)
                {
                    final long s = STAGE_BASE + 4L * i;
                    UnsafeApi.putFloat(x, s, UnsafeApi.getFloat(x, s) + UnsafeApi.getFloat(y, s));
                }
            }
            case PROD ->
            {
                for (int i = 0; i < n; i++)
                {
                    final long s = STAGE_BASE + 4L * i;
                    UnsafeApi.putFloat(x, s, UnsafeApi.getFloat(x, s) * UnsafeApi.getFloat(y, s));
                }
            }
            case MIN ->
            {
                for (int i = 0; i < n; i++)
                {
                    final long s = STAGE_BASE + 4L * i;
                    UnsafeApi.putFloat(x, s, Math.min(UnsafeApi.getFloat(x, s), UnsafeApi.getFloat(y, s)));
                }
            }
            case MAX ->
            {
                for (int i = 0; i < n; i++)
                {
                    final long s = STAGE_BASE + 4L * i;
                    UnsafeApi.putFloat(x, s, Math.max(UnsafeApi.getFloat(x, s), UnsafeApi.getFloat(y, s)));
                }
            }
        }
    }

    /** Pass 3 into a typed array: round both lanes and pack each pair back into one int. */
    private static void narrow(final long[] even, final long[] odd, final short[] dst, final int at, final int pairs,
        final int special)
    {
        final long base = ARRAY_BASE + 2L * at;
        if (hasSpecial(special))
        {
            for (int i = 0; i < pairs; i++)
            {
                final long s = STAGE_BASE + 4L * i;
                final int packed = pack(roundHigh(UnsafeApi.getInt(even, s)), roundHigh(UnsafeApi.getInt(odd, s)));
                UnsafeApi.putInt(dst, base + 4L * i, packed);
            }
        }
        else
        {
            for (int i = 0; i < pairs; i++)
            {
                final long s = STAGE_BASE + 4L * i;
                final int packed = pack(roundFinite(UnsafeApi.getInt(even, s)), roundFinite(UnsafeApi.getInt(odd, s)));
                UnsafeApi.putInt(dst, base + 4L * i, packed);
            }
        }
    }

    /** Pass 3 into the staging array. */
    private static void narrow(final long[] even, final long[] odd, final long[] stage, final int pairs,
        final int special)
    {
        if (hasSpecial(special))
        {
            for (int i = 0; i < pairs; i++)
            {
                final long s = STAGE_BASE + 4L * i;
                UnsafeApi.putInt(stage, s,
                    pack(roundHigh(UnsafeApi.getInt(even, s)), roundHigh(UnsafeApi.getInt(odd, s))));
            }
        }
        else
        {
            for (int i = 0; i < pairs; i++)
            {
                final long s = STAGE_BASE + 4L * i;
                UnsafeApi.putInt(stage, s,
                    pack(roundFinite(UnsafeApi.getInt(even, s)), roundFinite(UnsafeApi.getInt(odd, s))));
            }
        }
    }
}
