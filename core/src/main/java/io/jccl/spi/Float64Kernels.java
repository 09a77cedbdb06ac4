package io.jccl.spi;

import io.jccl.ReduceOp;
import org.agrona.UnsafeApi;

import static io.jccl.spi.ReductionScratch.STAGE_BASE;

/**
 * float64 reduction loops, one tight loop per operator, each shaped so that C2 vectorises it (see
 * {@link ReductionScratch}). NaN results are made canonical ({@code 0x7FF8000000000000}) because the interpreter,
 * C1 and C2 propagate different NaN payloads, and ranks must agree bit for bit.
 */
final class Float64Kernels
{
    static final long ARRAY_BASE = UnsafeApi.arrayBaseOffset(double[].class);

    private Float64Kernels()
    {
    }

    /** {@code d[from + i] = a[from + i] op b[from + i]}: all three arrays read and written at one index. */
    static void arrays(final ReduceOp op, final double[] a, final double[] b, final double[] d, final int from,
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
    static void withStage(final ReduceOp op, final double[] t, final int at, final long[] stage, final double[] d,
        final int n)
    {
        switch (op)
        {
            case SUM, AVG ->
            {
                for (int i = 0; i < n; i++)
                {
                    d[at + i] = t[at + i] + UnsafeApi.getDouble(stage, STAGE_BASE + 8L * i);
                }
            }
            case PROD ->
            {
                for (int i = 0; i < n; i++)
                {
                    d[at + i] = t[at + i] * UnsafeApi.getDouble(stage, STAGE_BASE + 8L * i);
                }
            }
            case MIN ->
            {
                for (int i = 0; i < n; i++)
                {
                    d[at + i] = Math.min(t[at + i], UnsafeApi.getDouble(stage, STAGE_BASE + 8L * i));
                }
            }
            case MAX ->
            {
                for (int i = 0; i < n; i++)
                {
                    d[at + i] = Math.max(t[at + i], UnsafeApi.getDouble(stage, STAGE_BASE + 8L * i));
                }
            }
        }
        canonicaliseNaNs(d, at, n);
    }

    /** {@code stage[i] = t[at + i] op stage[i]}: the result stays staged, for the caller to copy out. */
    static void intoStage(final ReduceOp op, final double[] t, final int at, final long[] stage, final int n)
    {
        switch (op)
        {
            case SUM, AVG ->
            {
                for (int i = 0; i < n; i++)
                {
                    final long s = STAGE_BASE + 8L * i;
                    UnsafeApi.putDouble(stage, s, t[at + i] + UnsafeApi.getDouble(stage, s));
                }
            }
            case PROD ->
            {
                for (int i = 0; i < n; i++)
                {
                    final long s = STAGE_BASE + 8L * i;
                    UnsafeApi.putDouble(stage, s, t[at + i] * UnsafeApi.getDouble(stage, s));
                }
            }
            case MIN ->
            {
                for (int i = 0; i < n; i++)
                {
                    final long s = STAGE_BASE + 8L * i;
                    UnsafeApi.putDouble(stage, s, Math.min(t[at + i], UnsafeApi.getDouble(stage, s)));
                }
            }
            case MAX ->
            {
                for (int i = 0; i < n; i++)
                {
                    final long s = STAGE_BASE + 8L * i;
                    UnsafeApi.putDouble(stage, s, Math.max(t[at + i], UnsafeApi.getDouble(stage, s)));
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
                    final long at = 8L * i;
                    final double a = UnsafeApi.getDouble(aBase, aOffset + at);
                    final double b = UnsafeApi.getDouble(bBase, bOffset + at);
                    UnsafeApi.putDouble(dBase, dOffset + at, canonical(a + b));
                }
            }
            case PROD ->
            {
                for (int i = 0; i < n; i++)
                {
                    final long at = 8L * i;
                    final double a = UnsafeApi.getDouble(aBase, aOffset + at);
                    final double b = UnsafeApi.getDouble(bBase, bOffset + at);
                    UnsafeApi.putDouble(dBase, dOffset + at, canonical(a * b));
                }
            }
            case MIN ->
            {
                for (int i = 0; i < n; i++)
                {
                    final long at = 8L * i;
                    final double a = UnsafeApi.getDouble(aBase, aOffset + at);
                    final double b = UnsafeApi.getDouble(bBase, bOffset + at);
                    UnsafeApi.putDouble(dBase, dOffset + at, canonical(Math.min(a, b)));
                }
            }
            case MAX ->
            {
                for (int i = 0; i < n; i++)
                {
                    final long at = 8L * i;
                    final double a = UnsafeApi.getDouble(aBase, aOffset + at);
                    final double b = UnsafeApi.getDouble(bBase, bOffset + at);
                    UnsafeApi.putDouble(dBase, dOffset + at, canonical(Math.max(a, b)));
                }
            }
        }
    }

    /** {@code x[at + i] /= divisor}. */
    static void divide(final double[] x, final int at, final int n, final int divisor)
    {
        final double d = divisor;
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
        final double d = divisor;
        for (int i = 0; i < n; i++)
        {
            final long at = offset + 8L * i;
            UnsafeApi.putDouble(base, at, canonical(UnsafeApi.getDouble(base, at) / d));
        }
    }

    /** {@code value}, or the canonical NaN when it is a NaN. */
    static double canonical(final double value)
    {
        return value != value ? Double.NaN : value;
    }

    private static void canonicaliseNaNs(final double[] x, final int at, final int n)
    {
        // one vectorised pass that only reads; the rare block holding a NaN is then fixed element by element
        final long base = ARRAY_BASE + 8L * at;
        long any = 0;
        for (int i = 0; i < n; i++)
        {
            any |= (UnsafeApi.getLong(x, base + 8L * i) & 0x7FFF_FFFF_FFFF_FFFFL) + 0x000F_FFFF_FFFF_FFFFL;
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
        long any = 0;
        for (int i = 0; i < n; i++)
        {
            any |= (UnsafeApi.getLong(stage, STAGE_BASE + 8L * i) & 0x7FFF_FFFF_FFFF_FFFFL) + 0x000F_FFFF_FFFF_FFFFL;
        }
        if (any < 0)
        {
            for (int i = 0; i < n; i++)
            {
                final long s = STAGE_BASE + 8L * i;
                UnsafeApi.putDouble(stage, s, canonical(UnsafeApi.getDouble(stage, s)));
            }
        }
    }
}
