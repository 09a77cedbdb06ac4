package io.jccl.spi;

import io.jccl.ReduceOp;
import org.agrona.UnsafeApi;

import static io.jccl.spi.ReductionScratch.STAGE_BASE;

/**
 * float16 reduction loops, one tight loop per operator, each shaped so that C2 vectorises it (see
 * {@link ReductionScratch}). Elements are widened with {@link Float#float16ToFloat}, combined in float32 and
 * rounded once to nearest even with {@link Float#floatToFloat16}; C2 turns both into vector conversions. NaN results
 * are made canonical ({@code 0x7E00}): the intrinsics and the Java fallbacks keep different NaN payloads.
 */
final class Float16Kernels
{
    static final long ARRAY_BASE = UnsafeApi.arrayBaseOffset(short[].class);

    private static final short CANONICAL_NAN = 0x7E00;

    private Float16Kernels()
    {
    }

    /** {@code d[from + i] = a[from + i] op b[from + i]}: all three arrays read and written at one index. */
    static void arrays(final ReduceOp op, final short[] a, final short[] b, final short[] d, final int from,
        final int n)
    {
        final int to = from + n;
        switch (op)
        {
            case SUM, AVG ->
            {
                for (int i = from; i < to; i++)
                {
                    d[i] = Float.floatToFloat16(Float.float16ToFloat(a[i]) + Float.float16ToFloat(b[i]));
                }
            }
            case PROD ->
            {
                for (int i = from; i < to; i++)
                {
                    d[i] = Float.floatToFloat16(Float.float16ToFloat(a[i]) * Float.float16ToFloat(b[i]));
                }
            }
            case MIN ->
            {
                for (int i = from; i < to; i++)
                {
                    d[i] = Float.floatToFloat16(Math.min(Float.float16ToFloat(a[i]), Float.float16ToFloat(b[i])));
                }
            }
            case MAX ->
            {
                for (int i = from; i < to; i++)
                {
                    d[i] = Float.floatToFloat16(Math.max(Float.float16ToFloat(a[i]), Float.float16ToFloat(b[i])));
                }
            }
        }
        canonicaliseNaNs(d, from, n);
    }

    /** {@code d[at + i] = t[at + i] op stage[i]}: {@code t} and {@code d} at one index, the other operand staged. */
    static void withStage(final ReduceOp op, final short[] t, final int at, final long[] stage, final short[] d,
        final int n)
    {
        switch (op)
        {
            case SUM, AVG ->
            {
                for (int i = 0; i < n; i++)
                {
                    d[at + i] = Float.floatToFloat16(
                        Float.float16ToFloat(t[at + i]) + staged(stage, i));
                }
            }
            case PROD ->
            {
                for (int i = 0; i < n; i++)
                {
                    d[at + i] = Float.floatToFloat16(
                        Float.float16ToFloat(t[at + i]) * staged(stage, i));
                }
            }
            case MIN ->
            {
                for (int i = 0; i < n; i++)
                {
                    d[at + i] = Float.floatToFloat16(
                        Math.min(Float.float16ToFloat(t[at + i]), staged(stage, i)));
                }
            }
            case MAX ->
            {
                for (int i = 0; i < n; i++)
                {
                    d[at + i] = Float.floatToFloat16(
                        Math.max(Float.float16ToFloat(t[at + i]), staged(stage, i)));
                }
            }
        }
        canonicaliseNaNs(d, at, n);
    }

    /** {@code stage[i] = t[at + i] op stage[i]}: the result stays staged, for the caller to copy out. */
    static void intoStage(final ReduceOp op, final short[] t, final int at, final long[] stage, final int n)
    {
        switch (op)
        {
            case SUM, AVG ->
            {
                for (int i = 0; i < n; i++)
                {
                    UnsafeApi.putShort(stage, STAGE_BASE + 2L * i, Float.floatToFloat16(
                        Float.float16ToFloat(t[at + i]) + staged(stage, i)));
                }
            }
            case PROD ->
            {
                for (int i = 0; i < n; i++)
                {
                    UnsafeApi.putShort(stage, STAGE_BASE + 2L * i, Float.floatToFloat16(
                        Float.float16ToFloat(t[at + i]) * staged(stage, i)));
                }
            }
            case MIN ->
            {
                for (int i = 0; i < n; i++)
                {
                    UnsafeApi.putShort(stage, STAGE_BASE + 2L * i, Float.floatToFloat16(
                        Math.min(Float.float16ToFloat(t[at + i]), staged(stage, i))));
                }
            }
            case MAX ->
            {
                for (int i = 0; i < n; i++)
                {
                    UnsafeApi.putShort(stage, STAGE_BASE + 2L * i, Float.floatToFloat16(
                        Math.max(Float.float16ToFloat(t[at + i]), staged(stage, i))));
                }
            }
        }
        canonicaliseNaNs(stage, n);
    }

    /** Element by element on any memory: for short vectors, where setting up blocks costs more than it saves. */
    static void scalar(final ReduceOp op, final Object aBase, final long aOffset, final Object bBase,
        final long bOffset, final Object dBase, final long dOffset, final int n)
    {
        for (int i = 0; i < n; i++)
        {
            final long at = 2L * i;
            final float a = Float.float16ToFloat(UnsafeApi.getShort(aBase, aOffset + at));
            final float b = Float.float16ToFloat(UnsafeApi.getShort(bBase, bOffset + at));
            UnsafeApi.putShort(dBase, dOffset + at,
                Float.floatToFloat16(Float32Kernels.canonical(Float32Kernels.combine(op, a, b))));
        }
    }

    /** {@code x[at + i] /= divisor}, rounded once to nearest even. */
    static void divide(final short[] x, final int at, final int n, final int divisor)
    {
        final float d = divisor;
        final int to = at + n;
        for (int i = at; i < to; i++)
        {
            x[i] = Float.floatToFloat16(Float.float16ToFloat(x[i]) / d);
        }
        canonicaliseNaNs(x, at, n);
    }

    /** {@code x[i] /= divisor} on any memory. */
    static void scalarDivide(final Object base, final long offset, final int n, final int divisor)
    {
        final float d = divisor;
        for (int i = 0; i < n; i++)
        {
            final long at = offset + 2L * i;
            final float quotient = Float.float16ToFloat(UnsafeApi.getShort(base, at)) / d;
            UnsafeApi.putShort(base, at, Float.floatToFloat16(Float32Kernels.canonical(quotient)));
        }
    }

    private static float staged(final long[] stage, final int i)
    {
        return Float.float16ToFloat(UnsafeApi.getShort(stage, STAGE_BASE + 2L * i));
    }

    /**
     * Replaces every NaN among {@code x[at .. at + n)} by the canonical NaN. One vector pass reads two halves per
     * int: a half is NaN when {@code (h & 0x7FFF) + 0x03FF} reaches bit 15, which cannot carry into the other half.
     * Only a block holding a NaN is then rewritten, element by element.
     */
    private static void canonicaliseNaNs(final short[] x, final int at, final int n)
    {
        final long base = ARRAY_BASE + 2L * at;
        final int words = n >>> 1;
        int any = (n & 1) != 0 ? (x[at + n - 1] & 0x7FFF) + 0x03FF : 0;
        for (int i = 0; i < words; i++)
        {
            any |= (UnsafeApi.getInt(x, base + 4L * i) & 0x7FFF_7FFF) + 0x03FF_03FF;
        }
        if ((any & 0x8000_8000) != 0)
        {
            for (int i = at, to = at + n; i < to; i++)
            {
                if ((x[i] & 0x7FFF) > 0x7C00)
                {
                    x[i] = CANONICAL_NAN;
                }
            }
        }
    }

    /** As {@link #canonicaliseNaNs(short[], int, int)}, for a result left in the staging array. */
    private static void canonicaliseNaNs(final long[] stage, final int n)
    {
        final int words = n >>> 1;
        int any = (n & 1) != 0 ? (UnsafeApi.getShort(stage, STAGE_BASE + 2L * (n - 1)) & 0x7FFF) + 0x03FF : 0;
        for (int i = 0; i < words; i++)
        {
            any |= (UnsafeApi.getInt(stage, STAGE_BASE + 4L * i) & 0x7FFF_7FFF) + 0x03FF_03FF;
        }
        if ((any & 0x8000_8000) != 0)
        {
            for (int i = 0; i < n; i++)
            {
                final long s = STAGE_BASE + 2L * i;
                if ((UnsafeApi.getShort(stage, s) & 0x7FFF) > 0x7C00)
                {
                    UnsafeApi.putShort(stage, s, CANONICAL_NAN);
                }
            }
        }
    }
}
