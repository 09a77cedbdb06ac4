package io.jccl.spi;

import io.jccl.ReduceOp;
import org.agrona.UnsafeApi;

import static io.jccl.spi.ReductionScratch.STAGE_BASE;

/**
 * float16 reduction loops, one tight loop per operator, each shaped so that C2 vectorises it (see
 * {@link ReductionScratch}). Elements are widened with {@link Float#float16ToFloat}, combined in float32 and
 * rounded once to nearest even with {@link Float#floatToFloat16}; C2 turns both into vector conversions. NaN results
 * are made canonical ({@code 0x7E00}): the intrinsics and the Java fallbacks keep different NaN payloads.
 * <p>
 * These loops run at half speed when they write the array they read (measured on JDK 25), so each writes its
 * result into {@link ReductionScratch#float16Result}, a {@code char[]} no operand can be, and the block is then
 * copied where it belongs.
 */
final class Float16Kernels
{
    static final long ARRAY_BASE = UnsafeApi.arrayBaseOffset(short[].class);

    private static final long RESULT_BASE = UnsafeApi.arrayBaseOffset(char[].class);
    private static final char CANONICAL_NAN = 0x7E00;

    private Float16Kernels()
    {
    }

    /** {@code d[from + i] = a[from + i] op b[from + i]} for {@code n <= BLOCK_BYTES / 2}. */
    static void arrays(final ReduceOp op, final short[] a, final short[] b, final short[] d, final int from,
        final int n, final ReductionScratch scratch)
    {
        final char[] result = scratch.float16Result;
        switch (op)
        {
            case SUM, AVG ->
            {
                for (int i = 0; i < n; i++)
                {
                    result[i] = (char)Float.floatToFloat16(
                        Float.float16ToFloat(a[from + i]) + Float.float16ToFloat(b[from + i]));
                }
            }
            case PROD ->
            {
                for (int i = 0; i < n; i++)
                {
                    result[i] = (char)Float.floatToFloat16(
                        Float.float16ToFloat(a[from + i]) * Float.float16ToFloat(b[from + i]));
                }
            }
            case MIN ->
            {
                for (int i = 0; i < n; i++)
                {
                    result[i] = (char)Float.floatToFloat16(
                        Math.min(Float.float16ToFloat(a[from + i]), Float.float16ToFloat(b[from + i])));
                }
            }
            case MAX ->
            {
                for (int i = 0; i < n; i++)
                {
                    result[i] = (char)Float.floatToFloat16(
                        Math.max(Float.float16ToFloat(a[from + i]), Float.float16ToFloat(b[from + i])));
                }
            }
        }
        finish(result, n, d, ARRAY_BASE + 2L * from);
    }

    /** {@code d[at + i] = t[at + i] op stage[i]} for {@code n <= BLOCK_BYTES / 2}. */
    static void withStage(final ReduceOp op, final short[] t, final int at, final ReductionScratch scratch,
        final short[] d, final int n)
    {
        combineStaged(op, t, at, scratch, n);
        finish(scratch.float16Result, n, d, ARRAY_BASE + 2L * at);
    }

    /** {@code stage[i] = t[at + i] op stage[i]} for {@code n <= BLOCK_BYTES / 2}. */
    static void intoStage(final ReduceOp op, final short[] t, final int at, final ReductionScratch scratch,
        final int n)
    {
        combineStaged(op, t, at, scratch, n);
        finish(scratch.float16Result, n, scratch.stage, STAGE_BASE);
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
                    final float a = Float.float16ToFloat(UnsafeApi.getShort(aBase, aOffset + at));
                    final float b = Float.float16ToFloat(UnsafeApi.getShort(bBase, bOffset + at));
                    UnsafeApi.putShort(dBase, dOffset + at, toFloat16(a + b));
                }
            }
            case PROD ->
            {
                for (int i = 0; i < n; i++)
                {
                    final long at = 2L * i;
                    final float a = Float.float16ToFloat(UnsafeApi.getShort(aBase, aOffset + at));
                    final float b = Float.float16ToFloat(UnsafeApi.getShort(bBase, bOffset + at));
                    UnsafeApi.putShort(dBase, dOffset + at, toFloat16(a * b));
                }
            }
            case MIN ->
            {
                for (int i = 0; i < n; i++)
                {
                    final long at = 2L * i;
                    final float a = Float.float16ToFloat(UnsafeApi.getShort(aBase, aOffset + at));
                    final float b = Float.float16ToFloat(UnsafeApi.getShort(bBase, bOffset + at));
                    UnsafeApi.putShort(dBase, dOffset + at, toFloat16(Math.min(a, b)));
                }
            }
            case MAX ->
            {
                for (int i = 0; i < n; i++)
                {
                    final long at = 2L * i;
                    final float a = Float.float16ToFloat(UnsafeApi.getShort(aBase, aOffset + at));
                    final float b = Float.float16ToFloat(UnsafeApi.getShort(bBase, bOffset + at));
                    UnsafeApi.putShort(dBase, dOffset + at, toFloat16(Math.max(a, b)));
                }
            }
        }
    }

    /** {@code x[at + i] /= divisor}, rounded once to nearest even, for {@code n <= BLOCK_BYTES / 2}. */
    static void divide(final short[] x, final int at, final int n, final int divisor, final ReductionScratch scratch)
    {
        final char[] result = scratch.float16Result;
        final float d = divisor;
        for (int i = 0; i < n; i++)
        {
            result[i] = (char)Float.floatToFloat16(Float.float16ToFloat(x[at + i]) / d);
        }
        finish(result, n, x, ARRAY_BASE + 2L * at);
    }

    /** {@code x[i] /= divisor} on any memory. */
    static void scalarDivide(final Object base, final long offset, final int n, final int divisor)
    {
        final float d = divisor;
        for (int i = 0; i < n; i++)
        {
            final long at = offset + 2L * i;
            final float quotient = Float.float16ToFloat(UnsafeApi.getShort(base, at)) / d;
            UnsafeApi.putShort(base, at, toFloat16(quotient));
        }
    }

    /** {@code result[i] = t[at + i] op stage[i]}. */
    private static void combineStaged(final ReduceOp op, final short[] t, final int at,
        final ReductionScratch scratch, final int n)
    {
        final long[] stage = scratch.stage;
        final char[] result = scratch.float16Result;
        switch (op)
        {
            case SUM, AVG ->
            {
                for (int i = 0; i < n; i++)
                {
                    result[i] = (char)Float.floatToFloat16(
                        Float.float16ToFloat(t[at + i]) + staged(stage, i));
                }
            }
            case PROD ->
            {
                for (int i = 0; i < n; i++)
                {
                    result[i] = (char)Float.floatToFloat16(
                        Float.float16ToFloat(t[at + i]) * staged(stage, i));
                }
            }
            case MIN ->
            {
                for (int i = 0; i < n; i++)
                {
                    result[i] = (char)Float.floatToFloat16(
                        Math.min(Float.float16ToFloat(t[at + i]), staged(stage, i)));
                }
            }
            case MAX ->
            {
                for (int i = 0; i < n; i++)
                {
                    result[i] = (char)Float.floatToFloat16(
                        Math.max(Float.float16ToFloat(t[at + i]), staged(stage, i)));
                }
            }
        }
    }

    /** Rounds to float16, a NaN to the canonical one, for the scalar loops. */
    private static short toFloat16(final float value)
    {
        return Float.floatToFloat16(Float32Kernels.canonical(value));
    }

    private static float staged(final long[] stage, final int i)
    {
        return Float.float16ToFloat(UnsafeApi.getShort(stage, STAGE_BASE + 2L * i));
    }

    /**
     * Makes the NaNs among the block's {@code n} results canonical, then copies the block to its destination. One
     * vector pass reads two results per int: a half is NaN when {@code (h & 0x7FFF) + 0x03FF} reaches bit 15, which
     * cannot carry into the other half. Only a block holding a NaN is then rewritten, element by element.
     */
    private static void finish(final char[] result, final int n, final Object dstBase, final long dstOffset)
    {
        final int words = n >>> 1;
        int any = (n & 1) != 0 ? (result[n - 1] & 0x7FFF) + 0x03FF : 0;
        for (int i = 0; i < words; i++)
        {
            any |= (UnsafeApi.getInt(result, RESULT_BASE + 4L * i) & 0x7FFF_7FFF) + 0x03FF_03FF;
        }
        if ((any & 0x8000_8000) != 0)
        {
            for (int i = 0; i < n; i++)
            {
                if ((result[i] & 0x7FFF) > 0x7C00)
                {
                    result[i] = CANONICAL_NAN;
                }
            }
        }
        UnsafeApi.copyMemory(result, RESULT_BASE, dstBase, dstOffset, 2L * n);
    }
}
