package io.jccl.spi;

import io.jccl.ReduceOp;
import org.agrona.UnsafeApi;

import static io.jccl.spi.ReductionScratch.STAGE_BASE;

/**
 * float32 reduction loops, one tight loop per operator, each shaped so that C2 vectorises it (see
 * {@link ReductionScratch}). NaN results are made canonical ({@code 0x7FC00000}) because the interpreter, C1 and
 * C2 propagate different NaN payloads, and ranks must agree bit for bit.
 */
final class Float32Kernels
{
    static final long ARRAY_BASE = UnsafeApi.arrayBaseOffset(float[].class);

    private Float32Kernels()
    {
    }

    /** {@code d[from + i] = a[from + i] op b[from + i]}: all three arrays read and written at one index. */
    static void arrays(final ReduceOp op, final float[] a, final float[] b, final float[] d, final int from,
        final int n)
    {
        final int to = from + n;
        switch (op)
        {
            case SUM, AVG ->
            {
                for (int i = from; i < to; i++)
                {
                    d[i] = a[i] + b[i];
                }
            }
            case PROD ->
            {
                for (int i = from; i < to; i++)
                {
                    d[i] = a[i] * b[i];
                }
            }
            case MIN ->
            {
                for (int i = from; i < to; i++)
                {
                    d[i] = Math.min(a[i], b[i]);
                }
            }
            case MAX ->
            {
                for (int i = from; i < to; i++)
                {
                    d[i] = Math.max(a[i], b[i]);
                }
            }
        }
        canonicaliseNaNs(d, from, n);
    }

    /** {@code d[at + i] = t[at + i] op stage[i]}: {@code t} and {@code d} at one index, the other operand staged. */
    static void withStage(final ReduceOp op, final float[] t, final int at, final long[] stage, final float[] d,
        final int n)
    {
        switch (op)
        {
            case SUM, AVG ->
            {
                for (int i = 0; i < n; i++)
                {
                    d[at + i] = t[at + i] + UnsafeApi.getFloat(stage, STAGE_BASE + 4L * i);
                }
            }
            case PROD ->
            {
                for (int i = 0; i < n; i++)
                {
                    d[at + i] = t[at + i] * UnsafeApi.getFloat(stage, STAGE_BASE + 4L * i);
                }
            }
            case MIN ->
            {
                for (int i = 0; i < n; i++)
                {
                    d[at + i] = Math.min(t[at + i], UnsafeApi.getFloat(stage, STAGE_BASE + 4L * i));
                }
            }
            case MAX ->
            {
                for (int i = 0; i < n; i++)
                {
                    d[at + i] = Math.max(t[at + i], UnsafeApi.getFloat(stage, STAGE_BASE + 4L * i));
                }
            }
        }
        canonicaliseNaNs(d, at, n);
    }

    /** {@code stage[i] = t[at + i] op stage[i]}: the result stays staged, for the caller to copy out. */
    static void intoStage(final ReduceOp op, final float[] t, final int at, final long[] stage, final int n)
    {
        switch (op)
        {
            case SUM, AVG ->
            {
                for (int i = 0; i < n; i++)
                {
                    final long s = STAGE_BASE + 4L * i;
                    UnsafeApi.putFloat(stage, s, t[at + i] + UnsafeApi.getFloat(stage, s));
                }
            }
            case PROD ->
            {
                for (int i = 0; i < n; i++)
                {
                    final long s = STAGE_BASE + 4L * i;
                    UnsafeApi.putFloat(stage, s, t[at + i] * UnsafeApi.getFloat(stage, s));
                }
            }
            case MIN ->
            {
                for (int i = 0; i < n; i++)
                {
                    final long s = STAGE_BASE + 4L * i;
                    UnsafeApi.putFloat(stage, s, Math.min(t[at + i], UnsafeApi.getFloat(stage, s)));
                }
            }
            case MAX ->
            {
                for (int i = 0; i < n; i++)
                {
                    final long s = STAGE_BASE + 4L * i;
                    UnsafeApi.putFloat(stage, s, Math.max(t[at + i], UnsafeApi.getFloat(stage, s)));
                }
            }
        }
        canonicaliseNaNs(stage, n);
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
                    final long at = 4L * i;
                    final float a = UnsafeApi.getFloat(aBase, aOffset + at);
                    final float b = UnsafeApi.getFloat(bBase, bOffset + at);
                    UnsafeApi.putFloat(dBase, dOffset + at, canonical(a + b));
                }
            }
            case PROD ->
            {
                for (int i = 0; i < n; i++)
                {
                    final long at = 4L * i;
                    final float a = UnsafeApi.getFloat(aBase, aOffset + at);
                    final float b = UnsafeApi.getFloat(bBase, bOffset + at);
                    UnsafeApi.putFloat(dBase, dOffset + at, canonical(a * b));
                }
            }
            case MIN ->
            {
                for (int i = 0; i < n; i++)
                {
                    final long at = 4L * i;
                    final float a = UnsafeApi.getFloat(aBase, aOffset + at);
                    final float b = UnsafeApi.getFloat(bBase, bOffset + at);
                    UnsafeApi.putFloat(dBase, dOffset + at, canonical(Math.min(a, b)));
                }
            }
            case MAX ->
            {
                for (int i = 0; i < n; i++)
                {
                    final long at = 4L * i;
                    final float a = UnsafeApi.getFloat(aBase, aOffset + at);
                    final float b = UnsafeApi.getFloat(bBase, bOffset + at);
                    UnsafeApi.putFloat(dBase, dOffset + at, canonical(Math.max(a, b)));
                }
            }
        }
    }

    /** The operator on one pair of elements, for the odd elements other kernels finish one by one. */
    static float combine(final ReduceOp op, final float a, final float b)
    {
        return switch (op)
        {
            case SUM, AVG -> a + b;
            case PROD -> a * b;
            case MIN -> Math.min(a, b);
            case MAX -> Math.max(a, b);
            case BAND, BOR, BXOR -> throw new IllegalArgumentException(op.label() + " reduces integer types only");
        };
    }

    /** {@code x[at + i] /= divisor}. */
    static void divide(final float[] x, final int at, final int n, final int divisor)
    {
        final float d = divisor;
        final int to = at + n;
        for (int i = at; i < to; i++)
        {
            x[i] = x[i] / d;
        }
        canonicaliseNaNs(x, at, n);
    }

    /** {@code x[i] /= divisor} on any memory. */
    static void scalarDivide(final Object base, final long offset, final int n, final int divisor)
    {
        final float d = divisor;
        for (int i = 0; i < n; i++)
        {
            final long at = offset + 4L * i;
            UnsafeApi.putFloat(base, at, canonical(UnsafeApi.getFloat(base, at) / d));
        }
    }

    /** {@code value}, or the canonical NaN when it is a NaN. */
    static float canonical(final float value)
    {
        return value != value ? Float.NaN : value;
    }

    private static void canonicaliseNaNs(final float[] x, final int at, final int n)
    {
        // one vectorised pass that only reads; the rare block holding a NaN is then fixed element by element
        final long base = ARRAY_BASE + 4L * at;
        int any = 0;
        for (int i = 0; i < n; i++)
        {
            any |= (UnsafeApi.getInt(x, base + 4L * i) & 0x7FFF_FFFF) + 0x007F_FFFF;
        }
        if (any < 0)
        {
            for (int i = at, to = at + n; i < to; i++)
            {
                x[i] = canonical(x[i]);
            }
        }
    }

    private static void canonicaliseNaNs(final long[] stage, final int n)
    {
        int any = 0;
        for (int i = 0; i < n; i++)
        {
            any |= (UnsafeApi.getInt(stage, STAGE_BASE + 4L * i) & 0x7FFF_FFFF) + 0x007F_FFFF;
        }
        if (any < 0)
        {
            for (int i = 0; i < n; i++)
            {
                final long s = STAGE_BASE + 4L * i;
                UnsafeApi.putFloat(stage, s, canonical(UnsafeApi.getFloat(stage, s)));
            }
        }
    }
}
