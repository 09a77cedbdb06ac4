package io.jccl.spi;

import io.jccl.ReduceOp;
import org.agrona.UnsafeApi;

import static io.jccl.spi.ReductionScratch.STAGE_BASE;

/**
 * int32 reduction loops, one tight loop per operator, each shaped so that C2 vectorises it (see
 * {@link ReductionScratch}). Arithmetic wraps like Java's.
 */
final class Int32Kernels
{
    static final long ARRAY_BASE = UnsafeApi.arrayBaseOffset(int[].class);

    private Int32Kernels()
    {
    }

    /** {@code d[from + i] = a[from + i] op b[from + i]}: all three arrays read and written at one index. */
    static void arrays(final ReduceOp op, final int[] a, final int[] b, final int[] d, final int from, final int n)
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
            case BAND ->
            {
                for (int i = from; i < to; i++)
                {
                    d[i] = a[i] & b[i];
                }
            }
            case BOR ->
            {
                for (int i = from; i < to; i++)
                {
                    d[i] = a[i] | b[i];
                }
            }
            case BXOR ->
            {
                for (int i = from; i < to; i++)
                {
                    d[i] = a[i] ^ b[i];
                }
            }
        }
    }

    /** {@code d[at + i] = t[at + i] op stage[i]}: {@code t} and {@code d} at one index, the other operand staged. */
    static void withStage(final ReduceOp op, final int[] t, final int at, final long[] stage, final int[] d,
        final int n)
    {
        switch (op)
        {
            case SUM, AVG ->
            {
                for (int i = 0; i < n; i++)
                {
                    d[at + i] = t[at + i] + UnsafeApi.getInt(stage, STAGE_BASE + 4L * i);
                }
            }
            case PROD ->
            {
                for (int i = 0; i < n; i++)
                {
                    d[at + i] = t[at + i] * UnsafeApi.getInt(stage, STAGE_BASE + 4L * i);
                }
            }
            case MIN ->
            {
                for (int i = 0; i < n; i++)
                {
                    d[at + i] = Math.min(t[at + i], UnsafeApi.getInt(stage, STAGE_BASE + 4L * i));
                }
            }
            case MAX ->
            {
                for (int i = 0; i < n; i++)
                {
                    d[at + i] = Math.max(t[at + i], UnsafeApi.getInt(stage, STAGE_BASE + 4L * i));
                }
            }
            case BAND ->
            {
                for (int i = 0; i < n; i++)
                {
                    d[at + i] = t[at + i] & UnsafeApi.getInt(stage, STAGE_BASE + 4L * i);
                }
            }
            case BOR ->
            {
                for (int i = 0; i < n; i++)
                {
                    d[at + i] = t[at + i] | UnsafeApi.getInt(stage, STAGE_BASE + 4L * i);
                }
            }
            case BXOR ->
            {
                for (int i = 0; i < n; i++)
                {
                    d[at + i] = t[at + i] ^ UnsafeApi.getInt(stage, STAGE_BASE + 4L * i);
                }
            }
        }
    }

    /** {@code stage[i] = t[at + i] op stage[i]}: the result stays staged, for the caller to copy out. */
    static void intoStage(final ReduceOp op, final int[] t, final int at, final long[] stage, final int n)
    {
        switch (op)
        {
            case SUM, AVG ->
            {
                for (int i = 0; i < n; i++)
                {
                    final long s = STAGE_BASE + 4L * i;
                    UnsafeApi.putInt(stage, s, t[at + i] + UnsafeApi.getInt(stage, s));
                }
            }
            case PROD ->
            {
                for (int i = 0; i < n; i++)
                {
                    final long s = STAGE_BASE + 4L * i;
                    UnsafeApi.putInt(stage, s, t[at + i] * UnsafeApi.getInt(stage, s));
                }
            }
            case MIN ->
            {
                for (int i = 0; i < n; i++)
                {
                    final long s = STAGE_BASE + 4L * i;
                    UnsafeApi.putInt(stage, s, Math.min(t[at + i], UnsafeApi.getInt(stage, s)));
                }
            }
            case MAX ->
            {
                for (int i = 0; i < n; i++)
                {
                    final long s = STAGE_BASE + 4L * i;
                    UnsafeApi.putInt(stage, s, Math.max(t[at + i], UnsafeApi.getInt(stage, s)));
                }
            }
            case BAND ->
            {
                for (int i = 0; i < n; i++)
                {
                    final long s = STAGE_BASE + 4L * i;
                    UnsafeApi.putInt(stage, s, t[at + i] & UnsafeApi.getInt(stage, s));
                }
            }
            case BOR ->
            {
                for (int i = 0; i < n; i++)
                {
                    final long s = STAGE_BASE + 4L * i;
                    UnsafeApi.putInt(stage, s, t[at + i] | UnsafeApi.getInt(stage, s));
                }
            }
            case BXOR ->
            {
                for (int i = 0; i < n; i++)
                {
                    final long s = STAGE_BASE + 4L * i;
                    UnsafeApi.putInt(stage, s, t[at + i] ^ UnsafeApi.getInt(stage, s));
                }
            }
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
                    final long at = 4L * i;
                    final int a = UnsafeApi.getInt(aBase, aOffset + at);
                    final int b = UnsafeApi.getInt(bBase, bOffset + at);
                    UnsafeApi.putInt(dBase, dOffset + at, a + b);
                }
            }
            case PROD ->
            {
                for (int i = 0; i < n; i++)
                {
                    final long at = 4L * i;
                    final int a = UnsafeApi.getInt(aBase, aOffset + at);
                    final int b = UnsafeApi.getInt(bBase, bOffset + at);
                    UnsafeApi.putInt(dBase, dOffset + at, a * b);
                }
            }
            case MIN ->
            {
                for (int i = 0; i < n; i++)
                {
                    final long at = 4L * i;
                    final int a = UnsafeApi.getInt(aBase, aOffset + at);
                    final int b = UnsafeApi.getInt(bBase, bOffset + at);
                    UnsafeApi.putInt(dBase, dOffset + at, Math.min(a, b));
                }
            }
            case MAX ->
            {
                for (int i = 0; i < n; i++)
                {
                    final long at = 4L * i;
                    final int a = UnsafeApi.getInt(aBase, aOffset + at);
                    final int b = UnsafeApi.getInt(bBase, bOffset + at);
                    UnsafeApi.putInt(dBase, dOffset + at, Math.max(a, b));
                }
            }
            case BAND ->
            {
                for (int i = 0; i < n; i++)
                {
                    final long at = 4L * i;
                    final int a = UnsafeApi.getInt(aBase, aOffset + at);
                    final int b = UnsafeApi.getInt(bBase, bOffset + at);
                    UnsafeApi.putInt(dBase, dOffset + at, a & b);
                }
            }
            case BOR ->
            {
                for (int i = 0; i < n; i++)
                {
                    final long at = 4L * i;
                    final int a = UnsafeApi.getInt(aBase, aOffset + at);
                    final int b = UnsafeApi.getInt(bBase, bOffset + at);
                    UnsafeApi.putInt(dBase, dOffset + at, a | b);
                }
            }
            case BXOR ->
            {
                for (int i = 0; i < n; i++)
                {
                    final long at = 4L * i;
                    final int a = UnsafeApi.getInt(aBase, aOffset + at);
                    final int b = UnsafeApi.getInt(bBase, bOffset + at);
                    UnsafeApi.putInt(dBase, dOffset + at, a ^ b);
                }
            }
        }
    }

    /**
     * {@code x[at + i] /= divisor}, truncating toward zero. Done in double, which vectorises where an int division
     * does not, and is exact: for {@code |x| < 2^31} and {@code divisor >= 1} the rounding error of the quotient
     * is below {@code 2^-22 / divisor}, while a non-integer quotient is at least {@code 1 / divisor} away from
     * the next integer, so truncation gives the integer quotient.
     */
    static void divide(final int[] x, final int at, final int n, final int divisor)
    {
        final double d = divisor;
        final int to = at + n;
        for (int i = at; i < to; i++)
        {
            x[i] = (int)(x[i] / d);
        }
    }

    /** {@code x[i] /= divisor} on any memory. */
    static void scalarDivide(final Object base, final long offset, final int n, final int divisor)
    {
        for (int i = 0; i < n; i++)
        {
            final long at = offset + 4L * i;
            UnsafeApi.putInt(base, at, UnsafeApi.getInt(base, at) / divisor);
        }
    }

    /** {@code x[i] /= divisor}, {@code x[i]} unsigned: below 2^32, exact in a double, as {@link #divide} argues. */
    static void divideUnsigned(final int[] x, final int at, final int n, final int divisor)
    {
        final double d = divisor;
        final int to = at + n;
        for (int i = at; i < to; i++)
        {
            x[i] = (int)(long)((x[i] & 0xFFFF_FFFFL) / d);
        }
    }

    /** {@code x[i] /= divisor}, unsigned, on any memory. */
    static void scalarDivideUnsigned(final Object base, final long offset, final int n, final int divisor)
    {
        for (int i = 0; i < n; i++)
        {
            final long at = offset + 4L * i;
            UnsafeApi.putInt(base, at, Integer.divideUnsigned(UnsafeApi.getInt(base, at), divisor));
        }
    }
}
