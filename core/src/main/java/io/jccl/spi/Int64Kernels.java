package io.jccl.spi;

import io.jccl.ReduceOp;
import org.agrona.UnsafeApi;

import static io.jccl.spi.ReductionScratch.STAGE64_BASE;

/**
 * int64 reduction loops, one tight loop per operator, each shaped so that C2 vectorises it (see
 * {@link ReductionScratch}). Arithmetic wraps like Java's.
 */
final class Int64Kernels
{
    static final long ARRAY_BASE = UnsafeApi.arrayBaseOffset(long[].class);

    private Int64Kernels()
    {
    }

    /** {@code d[from + i] = a[from + i] op b[from + i]}: all three arrays read and written at one index. */
    static void arrays(final ReduceOp op, final long[] a, final long[] b, final long[] d, final int from, final int n)
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
    static void withStage(final ReduceOp op, final long[] t, final int at, final double[] stage, final long[] d,
        final int n)
    {
        switch (op)
        {
            case SUM, AVG ->
            {
                for (int i = 0; i < n; i++)
                {
                    d[at + i] = t[at + i] + UnsafeApi.getLong(stage, STAGE64_BASE + 8L * i);
                }
            }
            case PROD ->
            {
                for (int i = 0; i < n; i++)
                {
                    d[at + i] = t[at + i] * UnsafeApi.getLong(stage, STAGE64_BASE + 8L * i);
                }
            }
            case MIN ->
            {
                for (int i = 0; i < n; i++)
                {
                    d[at + i] = Math.min(t[at + i], UnsafeApi.getLong(stage, STAGE64_BASE + 8L * i));
                }
            }
            case MAX ->
            {
                for (int i = 0; i < n; i++)
                {
                    d[at + i] = Math.max(t[at + i], UnsafeApi.getLong(stage, STAGE64_BASE + 8L * i));
                }
            }
            case BAND ->
            {
                for (int i = 0; i < n; i++)
                {
                    d[at + i] = t[at + i] & UnsafeApi.getLong(stage, STAGE64_BASE + 8L * i);
                }
            }
            case BOR ->
            {
                for (int i = 0; i < n; i++)
                {
                    d[at + i] = t[at + i] | UnsafeApi.getLong(stage, STAGE64_BASE + 8L * i);
                }
            }
            case BXOR ->
            {
                for (int i = 0; i < n; i++)
                {
                    d[at + i] = t[at + i] ^ UnsafeApi.getLong(stage, STAGE64_BASE + 8L * i);
                }
            }
        }
    }

    /** {@code stage[i] = t[at + i] op stage[i]}: the result stays staged, for the caller to copy out. */
    static void intoStage(final ReduceOp op, final long[] t, final int at, final double[] stage, final int n)
    {
        switch (op)
        {
            case SUM, AVG ->
            {
                for (int i = 0; i < n; i++)
                {
                    final long s = STAGE64_BASE + 8L * i;
                    UnsafeApi.putLong(stage, s, t[at + i] + UnsafeApi.getLong(stage, s));
                }
            }
            case PROD ->
            {
                for (int i = 0; i < n; i++)
                {
                    final long s = STAGE64_BASE + 8L * i;
                    UnsafeApi.putLong(stage, s, t[at + i] * UnsafeApi.getLong(stage, s));
                }
            }
            case MIN ->
            {
                for (int i = 0; i < n; i++)
                {
                    final long s = STAGE64_BASE + 8L * i;
                    UnsafeApi.putLong(stage, s, Math.min(t[at + i], UnsafeApi.getLong(stage, s)));
                }
            }
            case MAX ->
            {
                for (int i = 0; i < n; i++)
                {
                    final long s = STAGE64_BASE + 8L * i;
                    UnsafeApi.putLong(stage, s, Math.max(t[at + i], UnsafeApi.getLong(stage, s)));
                }
            }
            case BAND ->
            {
                for (int i = 0; i < n; i++)
                {
                    final long s = STAGE64_BASE + 8L * i;
                    UnsafeApi.putLong(stage, s, t[at + i] & UnsafeApi.getLong(stage, s));
                }
            }
            case BOR ->
            {
                for (int i = 0; i < n; i++)
                {
                    final long s = STAGE64_BASE + 8L * i;
                    UnsafeApi.putLong(stage, s, t[at + i] | UnsafeApi.getLong(stage, s));
                }
            }
            case BXOR ->
            {
                for (int i = 0; i < n; i++)
                {
                    final long s = STAGE64_BASE + 8L * i;
                    UnsafeApi.putLong(stage, s, t[at + i] ^ UnsafeApi.getLong(stage, s));
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
                    final long at = 8L * i;
                    final long a = UnsafeApi.getLong(aBase, aOffset + at);
                    final long b = UnsafeApi.getLong(bBase, bOffset + at);
                    UnsafeApi.putLong(dBase, dOffset + at, a + b);
                }
            }
            case PROD ->
            {
                for (int i = 0; i < n; i++)
                {
                    final long at = 8L * i;
                    final long a = UnsafeApi.getLong(aBase, aOffset + at);
                    final long b = UnsafeApi.getLong(bBase, bOffset + at);
                    UnsafeApi.putLong(dBase, dOffset + at, a * b);
                }
            }
            case MIN ->
            {
                for (int i = 0; i < n; i++)
                {
                    final long at = 8L * i;
                    final long a = UnsafeApi.getLong(aBase, aOffset + at);
                    final long b = UnsafeApi.getLong(bBase, bOffset + at);
                    UnsafeApi.putLong(dBase, dOffset + at, Math.min(a, b));
                }
            }
            case MAX ->
            {
                for (int i = 0; i < n; i++)
                {
                    final long at = 8L * i;
                    final long a = UnsafeApi.getLong(aBase, aOffset + at);
                    final long b = UnsafeApi.getLong(bBase, bOffset + at);
                    UnsafeApi.putLong(dBase, dOffset + at, Math.max(a, b));
                }
            }
            case BAND ->
            {
                for (int i = 0; i < n; i++)
                {
                    final long at = 8L * i;
                    final long a = UnsafeApi.getLong(aBase, aOffset + at);
                    final long b = UnsafeApi.getLong(bBase, bOffset + at);
                    UnsafeApi.putLong(dBase, dOffset + at, a & b);
                }
            }
            case BOR ->
            {
                for (int i = 0; i < n; i++)
                {
                    final long at = 8L * i;
                    final long a = UnsafeApi.getLong(aBase, aOffset + at);
                    final long b = UnsafeApi.getLong(bBase, bOffset + at);
                    UnsafeApi.putLong(dBase, dOffset + at, a | b);
                }
            }
            case BXOR ->
            {
                for (int i = 0; i < n; i++)
                {
                    final long at = 8L * i;
                    final long a = UnsafeApi.getLong(aBase, aOffset + at);
                    final long b = UnsafeApi.getLong(bBase, bOffset + at);
                    UnsafeApi.putLong(dBase, dOffset + at, a ^ b);
                }
            }
        }
    }

    /** {@code x[at + i] /= divisor}, truncating toward zero: no vector unit divides longs, so this is scalar. */
    static void divide(final long[] x, final int at, final int n, final int divisor)
    {
        final int to = at + n;
        for (int i = at; i < to; i++)
        {
            x[i] = x[i] / divisor;
        }
    }

    /** {@code x[i] /= divisor} on any memory. */
    static void scalarDivide(final Object base, final long offset, final int n, final int divisor)
    {
        for (int i = 0; i < n; i++)
        {
            final long at = offset + 8L * i;
            UnsafeApi.putLong(base, at, UnsafeApi.getLong(base, at) / divisor);
        }
    }

    /** {@code x[i] /= divisor}, {@code x[i]} unsigned. */
    static void divideUnsigned(final long[] x, final int at, final int n, final int divisor)
    {
        final int to = at + n;
        for (int i = at; i < to; i++)
        {
            x[i] = Long.divideUnsigned(x[i], divisor);
        }
    }

    /** {@code x[i] /= divisor}, unsigned, on any memory. */
    static void scalarDivideUnsigned(final Object base, final long offset, final int n, final int divisor)
    {
        for (int i = 0; i < n; i++)
        {
            final long at = offset + 8L * i;
            UnsafeApi.putLong(base, at, Long.divideUnsigned(UnsafeApi.getLong(base, at), divisor));
        }
    }
}
