package io.jccl.spi;

import io.jccl.DataType;
import io.jccl.ReduceOp;
import org.agrona.UnsafeApi;

import static io.jccl.spi.ReductionScratch.BLOCK_BYTES;

/**
 * MIN and MAX of unsigned integers (uint8, uint32, uint64) on the heap; the other operators give the signed types'
 * bits and run on their kernels, and off-heap operands take the SIMD kernels' unsigned loops when the JVM has them.
 * Flipping the sign bit maps unsigned order onto signed order (0 to the smallest signed value, the largest unsigned to
 * the largest signed), so {@code maxUnsigned(a, b) = flip(max(flip(a), flip(b)))}: one loop of xor, max and xor,
 * which C2 vectorises for ints and longs. Bytes take four at a time in an int, each lane zero-extended and compared as
 * an int ({@link #max4}), as {@link Int8Kernels} does for the signed ones, because C2 does not vectorise a byte loop
 * of {@code Math.max}. Arrays of the type read at one index are reduced in place; any other mix of memory is copied
 * block by block into typed scratch arrays (intrinsic copies), reduced there and copied to {@code dst}.
 */
final class UnsignedOrder
{
    private UnsignedOrder()
    {
    }

    /**
     * {@code dst[i] = a[i] op b[i]}, op MIN or MAX, of {@code type} (UINT8, UINT32 or UINT64): heap operands, and
     * off-heap ones in a JVM without the SIMD kernels.
     */
    static void reduce(final DataType type, final ReduceOp op, final Object aBase, final long aOffset,
        final Object bBase, final long bOffset, final Object dstBase, final long dstOffset, final long count)
    {
        final DataType lanes = type.signed();
        final int size = lanes.size();
        final int block = BLOCK_BYTES / size;
        final boolean max = op == ReduceOp.MAX;
        final int di = Reductions.typedIndex(lanes, dstBase, dstOffset);
        if (di >= 0 && Reductions.typedIndex(lanes, aBase, aOffset) == di &&
            Reductions.typedIndex(lanes, bBase, bOffset) == di)
        {
            for (long done = 0; done < count; done += block)
            {
                arrays(lanes, max, aBase, bBase, dstBase, di + (int)done, (int)Math.min(block, count - done));
            }
            return;
        }
        final ReductionScratch scratch = ReductionScratch.get();
        final long base = Reductions.arrayBase(lanes);
        final Object a = switch (lanes)
        {
            case INT8 -> scratch.unsignedA8;
            case INT32 -> scratch.unsignedA32;
            default -> scratch.unsignedA64;
        };
        final Object b = switch (lanes)
        {
            case INT8 -> scratch.unsignedB8;
            case INT32 -> scratch.unsignedB32;
            default -> scratch.unsignedB64;
        };
        for (long done = 0; done < count; done += block)
        {
            final int n = (int)Math.min(block, count - done);
            final long bytes = (long)n * size;
            final long at = done * size;
            // both operands are read before dst is written: dst may be a or b
            UnsafeApi.copyMemory(aBase, aOffset + at, a, base, bytes);
            UnsafeApi.copyMemory(bBase, bOffset + at, b, base, bytes);
            arrays(lanes, max, a, b, a, 0, n);
            UnsafeApi.copyMemory(a, base, dstBase, dstOffset + at, bytes);
        }
    }

    /** {@code d[i] = a[i] op b[i]} for {@code from <= i < from + n}, arrays of the lanes' type, unsigned order. */
    private static void arrays(final DataType lanes, final boolean max, final Object a, final Object b,
        final Object d, final int from, final int n)
    {
        switch (lanes)
        {
            case INT8 -> bytes(max, (byte[])a, (byte[])b, (byte[])d, from, n);
            case INT32 -> ints(max, (int[])a, (int[])b, (int[])d, from, n);
            default -> longs(max, (long[])a, (long[])b, (long[])d, from, n);
        }
    }

    private static void bytes(final boolean max, final byte[] a, final byte[] b, final byte[] d, final int from,
        final int n)
    {
        final int to = from + n;
        final long base = Int8Kernels.ARRAY_BASE + from;
        final int words = n >>> 2;
        if (max)
        {
            for (int i = 0; i < words; i++)
            {
                final long w = base + 4L * i;
                UnsafeApi.putInt(d, w, max4(UnsafeApi.getInt(a, w), UnsafeApi.getInt(b, w)));
            }
        }
        else
        {
            for (int i = 0; i < words; i++)
            {
                final long w = base + 4L * i;
                UnsafeApi.putInt(d, w, min4(UnsafeApi.getInt(a, w), UnsafeApi.getInt(b, w)));
            }
        }
        for (int i = from + (words << 2); i < to; i++)
        {
            d[i] = (byte)(max ? Math.max(a[i] & 0xFF, b[i] & 0xFF) : Math.min(a[i] & 0xFF, b[i] & 0xFF));
        }
    }

    private static void ints(final boolean max, final int[] a, final int[] b, final int[] d, final int from,
        final int n)
    {
        final int to = from + n;
        if (max)
        {
            for (int i = from; i < to; i++)
            {
                d[i] = Math.max(a[i] ^ Integer.MIN_VALUE, b[i] ^ Integer.MIN_VALUE) ^ Integer.MIN_VALUE;
            }
        }
        else
        {
            for (int i = from; i < to; i++)
            {
                d[i] = Math.min(a[i] ^ Integer.MIN_VALUE, b[i] ^ Integer.MIN_VALUE) ^ Integer.MIN_VALUE;
            }
        }
    }

    private static void longs(final boolean max, final long[] a, final long[] b, final long[] d, final int from,
        final int n)
    {
        final int to = from + n;
        if (max)
        {
            for (int i = from; i < to; i++)
            {
                d[i] = Math.max(a[i] ^ Long.MIN_VALUE, b[i] ^ Long.MIN_VALUE) ^ Long.MIN_VALUE;
            }
        }
        else
        {
            for (int i = from; i < to; i++)
            {
                d[i] = Math.min(a[i] ^ Long.MIN_VALUE, b[i] ^ Long.MIN_VALUE) ^ Long.MIN_VALUE;
            }
        }
    }

    /**
     * {@code dst[i] = a[i] op b[i]} on any memory, one element at a time: short vectors and the SIMD loops' tails.
     * One loop per width, each reading its operands once, flipped, as the array loops do.
     */
    static void scalar(final DataType type, final ReduceOp op, final Object aBase, final long aOffset,
        final Object bBase, final long bOffset, final Object dBase, final long dOffset, final int n)
    {
        final boolean max = op == ReduceOp.MAX;
        switch (type.size())
        {
            case 1 ->
            {
                for (int i = 0; i < n; i++)
                {
                    final int a = UnsafeApi.getByte(aBase, aOffset + i) & 0xFF;
                    final int b = UnsafeApi.getByte(bBase, bOffset + i) & 0xFF;
                    UnsafeApi.putByte(dBase, dOffset + i, (byte)(max ? Math.max(a, b) : Math.min(a, b)));
                }
            }
            case 4 ->
            {
                for (int i = 0; i < n; i++)
                {
                    final long at = 4L * i;
                    final int a = UnsafeApi.getInt(aBase, aOffset + at) ^ Integer.MIN_VALUE;
                    final int b = UnsafeApi.getInt(bBase, bOffset + at) ^ Integer.MIN_VALUE;
                    UnsafeApi.putInt(dBase, dOffset + at, (max ? Math.max(a, b) : Math.min(a, b)) ^ Integer.MIN_VALUE);
                }
            }
            default ->
            {
                for (int i = 0; i < n; i++)
                {
                    final long at = 8L * i;
                    final long a = UnsafeApi.getLong(aBase, aOffset + at) ^ Long.MIN_VALUE;
                    final long b = UnsafeApi.getLong(bBase, bOffset + at) ^ Long.MIN_VALUE;
                    UnsafeApi.putLong(dBase, dOffset + at, (max ? Math.max(a, b) : Math.min(a, b)) ^ Long.MIN_VALUE);
                }
            }
        }
    }

    /** Unsigned maximum of each of the four bytes packed in {@code a} and {@code b}. */
    static int max4(final int a, final int b)
    {
        return Math.max(a & 0xFF, b & 0xFF) |
            Math.max(a >>> 8 & 0xFF, b >>> 8 & 0xFF) << 8 |
            Math.max(a >>> 16 & 0xFF, b >>> 16 & 0xFF) << 16 |
            Math.max(a >>> 24, b >>> 24) << 24;
    }

    /** Unsigned minimum of each of the four bytes packed in {@code a} and {@code b}. */
    static int min4(final int a, final int b)
    {
        return Math.min(a & 0xFF, b & 0xFF) |
            Math.min(a >>> 8 & 0xFF, b >>> 8 & 0xFF) << 8 |
            Math.min(a >>> 16 & 0xFF, b >>> 16 & 0xFF) << 16 |
            Math.min(a >>> 24, b >>> 24) << 24;
    }
}
