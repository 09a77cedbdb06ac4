package io.jccl.spi;

import io.jccl.ReduceOp;
import org.agrona.UnsafeApi;

import static io.jccl.spi.ReductionScratch.STAGE_BASE;

/**
 * int8 reduction loops, one tight loop per operator, each shaped so that C2 vectorises it (see
 * {@link ReductionScratch}). Arithmetic wraps like Java's. C2 does not vectorise {@code Math.min} on bytes, so MIN
 * and MAX work on four bytes per int: each byte is sign-extended in its own lane, compared as an int, and packed
 * back ({@link #min4}).
 */
final class Int8Kernels
{
    static final long ARRAY_BASE = UnsafeApi.arrayBaseOffset(byte[].class);

    private Int8Kernels()
    {
    }

    /** {@code d[from + i] = a[from + i] op b[from + i]}: all three arrays read and written at one index. */
    static void arrays(final ReduceOp op, final byte[] a, final byte[] b, final byte[] d, final int from, final int n)
    {
        final int to = from + n;
        final long base = ARRAY_BASE + from;
        final int words = n >>> 2;
        switch (op)
        {
            case SUM, AVG ->
            {
                for (int i = from; i < to; i++)
                {
                    d[i] = (byte)(a[i] + b[i]);
                }
            }
            case PROD ->
            {
                for (int i = from; i < to; i++)
                {
                    d[i] = (byte)(a[i] * b[i]);
                }
            }
            case MIN ->
            {
                for (int i = 0; i < words; i++)
                {
                    final long w = base + 4L * i;
                    UnsafeApi.putInt(d, w, min4(UnsafeApi.getInt(a, w), UnsafeApi.getInt(b, w)));
                }
                for (int i = from + (words << 2); i < to; i++)
                {
                    d[i] = (byte)Math.min(a[i], b[i]);
                }
            }
            case MAX ->
            {
                for (int i = 0; i < words; i++)
                {
                    final long w = base + 4L * i;
                    UnsafeApi.putInt(d, w, max4(UnsafeApi.getInt(a, w), UnsafeApi.getInt(b, w)));
                }
                for (int i = from + (words << 2); i < to; i++)
                {
                    d[i] = (byte)Math.max(a[i], b[i]);
                }
            }
            case BAND ->
            {
                for (int i = from; i < to; i++)
                {
                    d[i] = (byte)(a[i] & b[i]);
                }
            }
            case BOR ->
            {
                for (int i = from; i < to; i++)
                {
                    d[i] = (byte)(a[i] | b[i]);
                }
            }
            case BXOR ->
            {
                for (int i = from; i < to; i++)
                {
                    d[i] = (byte)(a[i] ^ b[i]);
                }
            }
        }
    }

    /** {@code d[at + i] = t[at + i] op stage[i]}: {@code t} and {@code d} at one index, the other operand staged. */
    static void withStage(final ReduceOp op, final byte[] t, final int at, final long[] stage, final byte[] d,
        final int n)
    {
        final long base = ARRAY_BASE + at;
        final int words = n >>> 2;
        switch (op)
        {
            case SUM, AVG ->
            {
                for (int i = 0; i < n; i++)
                {
                    d[at + i] = (byte)(t[at + i] + UnsafeApi.getByte(stage, STAGE_BASE + i));
                }
            }
            case PROD ->
            {
                for (int i = 0; i < n; i++)
                {
                    d[at + i] = (byte)(t[at + i] * UnsafeApi.getByte(stage, STAGE_BASE + i));
                }
            }
            case MIN ->
            {
                for (int i = 0; i < words; i++)
                {
                    final long w = base + 4L * i;
                    UnsafeApi.putInt(d, w, min4(UnsafeApi.getInt(t, w), UnsafeApi.getInt(stage, STAGE_BASE + 4L * i)));
                }
                for (int i = words << 2; i < n; i++)
                {
                    d[at + i] = (byte)Math.min(t[at + i], UnsafeApi.getByte(stage, STAGE_BASE + i));
                }
            }
            case MAX ->
            {
                for (int i = 0; i < words; i++)
                {
                    final long w = base + 4L * i;
                    UnsafeApi.putInt(d, w, max4(UnsafeApi.getInt(t, w), UnsafeApi.getInt(stage, STAGE_BASE + 4L * i)));
                }
                for (int i = words << 2; i < n; i++)
                {
                    d[at + i] = (byte)Math.max(t[at + i], UnsafeApi.getByte(stage, STAGE_BASE + i));
                }
            }
            case BAND ->
            {
                for (int i = 0; i < n; i++)
                {
                    d[at + i] = (byte)(t[at + i] & UnsafeApi.getByte(stage, STAGE_BASE + i));
                }
            }
            case BOR ->
            {
                for (int i = 0; i < n; i++)
                {
                    d[at + i] = (byte)(t[at + i] | UnsafeApi.getByte(stage, STAGE_BASE + i));
                }
            }
            case BXOR ->
            {
                for (int i = 0; i < n; i++)
                {
                    d[at + i] = (byte)(t[at + i] ^ UnsafeApi.getByte(stage, STAGE_BASE + i));
                }
            }
        }
    }

    /** {@code stage[i] = t[at + i] op stage[i]}: the result stays staged, for the caller to copy out. */
    static void intoStage(final ReduceOp op, final byte[] t, final int at, final long[] stage, final int n)
    {
        final long base = ARRAY_BASE + at;
        final int words = n >>> 2;
        switch (op)
        {
            case SUM, AVG ->
            {
                for (int i = 0; i < n; i++)
                {
                    final long s = STAGE_BASE + i;
                    UnsafeApi.putByte(stage, s, (byte)(t[at + i] + UnsafeApi.getByte(stage, s)));
                }
            }
            case PROD ->
            {
                for (int i = 0; i < n; i++)
                {
                    final long s = STAGE_BASE + i;
                    UnsafeApi.putByte(stage, s, (byte)(t[at + i] * UnsafeApi.getByte(stage, s)));
                }
            }
            case MIN ->
            {
                for (int i = 0; i < words; i++)
                {
                    final long s = STAGE_BASE + 4L * i;
                    UnsafeApi.putInt(stage, s, min4(UnsafeApi.getInt(t, base + 4L * i), UnsafeApi.getInt(stage, s)));
                }
                for (int i = words << 2; i < n; i++)
                {
                    final long s = STAGE_BASE + i;
                    UnsafeApi.putByte(stage, s, (byte)Math.min(t[at + i], UnsafeApi.getByte(stage, s)));
                }
            }
            case MAX ->
            {
                for (int i = 0; i < words; i++)
                {
                    final long s = STAGE_BASE + 4L * i;
                    UnsafeApi.putInt(stage, s, max4(UnsafeApi.getInt(t, base + 4L * i), UnsafeApi.getInt(stage, s)));
                }
                for (int i = words << 2; i < n; i++)
                {
                    final long s = STAGE_BASE + i;
                    UnsafeApi.putByte(stage, s, (byte)Math.max(t[at + i], UnsafeApi.getByte(stage, s)));
                }
            }
            case BAND ->
            {
                for (int i = 0; i < n; i++)
                {
                    final long s = STAGE_BASE + i;
                    UnsafeApi.putByte(stage, s, (byte)(t[at + i] & UnsafeApi.getByte(stage, s)));
                }
            }
            case BOR ->
            {
                for (int i = 0; i < n; i++)
                {
                    final long s = STAGE_BASE + i;
                    UnsafeApi.putByte(stage, s, (byte)(t[at + i] | UnsafeApi.getByte(stage, s)));
                }
            }
            case BXOR ->
            {
                for (int i = 0; i < n; i++)
                {
                    final long s = STAGE_BASE + i;
                    UnsafeApi.putByte(stage, s, (byte)(t[at + i] ^ UnsafeApi.getByte(stage, s)));
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
                    final long at = i;
                    final byte a = UnsafeApi.getByte(aBase, aOffset + at);
                    final byte b = UnsafeApi.getByte(bBase, bOffset + at);
                    UnsafeApi.putByte(dBase, dOffset + at, (byte)(a + b));
                }
            }
            case PROD ->
            {
                for (int i = 0; i < n; i++)
                {
                    final long at = i;
                    final byte a = UnsafeApi.getByte(aBase, aOffset + at);
                    final byte b = UnsafeApi.getByte(bBase, bOffset + at);
                    UnsafeApi.putByte(dBase, dOffset + at, (byte)(a * b));
                }
            }
            case MIN ->
            {
                for (int i = 0; i < n; i++)
                {
                    final long at = i;
                    final byte a = UnsafeApi.getByte(aBase, aOffset + at);
                    final byte b = UnsafeApi.getByte(bBase, bOffset + at);
                    UnsafeApi.putByte(dBase, dOffset + at, (byte)Math.min(a, b));
                }
            }
            case MAX ->
            {
                for (int i = 0; i < n; i++)
                {
                    final long at = i;
                    final byte a = UnsafeApi.getByte(aBase, aOffset + at);
                    final byte b = UnsafeApi.getByte(bBase, bOffset + at);
                    UnsafeApi.putByte(dBase, dOffset + at, (byte)Math.max(a, b));
                }
            }
            case BAND ->
            {
                for (int i = 0; i < n; i++)
                {
                    final long at = i;
                    final byte a = UnsafeApi.getByte(aBase, aOffset + at);
                    final byte b = UnsafeApi.getByte(bBase, bOffset + at);
                    UnsafeApi.putByte(dBase, dOffset + at, (byte)(a & b));
                }
            }
            case BOR ->
            {
                for (int i = 0; i < n; i++)
                {
                    final long at = i;
                    final byte a = UnsafeApi.getByte(aBase, aOffset + at);
                    final byte b = UnsafeApi.getByte(bBase, bOffset + at);
                    UnsafeApi.putByte(dBase, dOffset + at, (byte)(a | b));
                }
            }
            case BXOR ->
            {
                for (int i = 0; i < n; i++)
                {
                    final long at = i;
                    final byte a = UnsafeApi.getByte(aBase, aOffset + at);
                    final byte b = UnsafeApi.getByte(bBase, bOffset + at);
                    UnsafeApi.putByte(dBase, dOffset + at, (byte)(a ^ b));
                }
            }
        }
    }

    /**
     * {@code x[at + i] /= divisor}, truncating toward zero. Done in float, which is exact here: the quotient's
     * rounding error is below {@code 2^-17 / divisor}, less than the {@code 1 / divisor} that separates a
     * non-integer quotient from the next integer.
     */
    static void divide(final byte[] x, final int at, final int n, final int divisor)
    {
        final float d = divisor;
        final int to = at + n;
        for (int i = at; i < to; i++)
        {
            x[i] = (byte)(x[i] / d);
        }
    }

    /** {@code x[i] /= divisor} on any memory. */
    static void scalarDivide(final Object base, final long offset, final int n, final int divisor)
    {
        for (int i = 0; i < n; i++)
        {
            UnsafeApi.putByte(base, offset + i, (byte)(UnsafeApi.getByte(base, offset + i) / divisor));
        }
    }

    /** {@code x[i] /= divisor}, {@code x[i]} unsigned: below 256, exact in a float, as {@link #divide} is. */
    static void divideUnsigned(final byte[] x, final int at, final int n, final int divisor)
    {
        final float d = divisor;
        final int to = at + n;
        for (int i = at; i < to; i++)
        {
            x[i] = (byte)(int)((x[i] & 0xFF) / d);
        }
    }

    /** {@code x[i] /= divisor}, unsigned, on any memory. */
    static void scalarDivideUnsigned(final Object base, final long offset, final int n, final int divisor)
    {
        for (int i = 0; i < n; i++)
        {
            UnsafeApi.putByte(base, offset + i, (byte)((UnsafeApi.getByte(base, offset + i) & 0xFF) / divisor));
        }
    }

    /** Signed minimum of each of the four bytes packed in {@code a} and {@code b}. */
    static int min4(final int a, final int b)
    {
        return (Math.min(a << 24 >> 24, b << 24 >> 24) & 0xFF) |
            (Math.min(a << 16 >> 24, b << 16 >> 24) & 0xFF) << 8 |
            (Math.min(a << 8 >> 24, b << 8 >> 24) & 0xFF) << 16 |
            Math.min(a >> 24, b >> 24) << 24;
    }

    /** Signed maximum of each of the four bytes packed in {@code a} and {@code b}. */
    static int max4(final int a, final int b)
    {
        return (Math.max(a << 24 >> 24, b << 24 >> 24) & 0xFF) |
            (Math.max(a << 16 >> 24, b << 16 >> 24) & 0xFF) << 8 |
            (Math.max(a << 8 >> 24, b << 8 >> 24) & 0xFF) << 16 |
            Math.max(a >> 24, b >> 24) << 24;
    }
}
