package io.jccl.jmh;

import io.jccl.Buf;
import io.jccl.Communicator;
import io.jccl.DataType;
import io.jccl.spi.Memory;

import java.util.Arrays;

/**
 * Benchmark buffers: Java arrays of the element type (what applications pass), or symmetric memory, filled with ones,
 * so reductions work on ordinary numbers rather than zeros or denormals.
 */
final class Buffers
{
    private static final short FLOAT16_ONE = 0x3C00;
    private static final short BFLOAT16_ONE = 0x3F80;

    private Buffers()
    {
    }

    /** {@code count} elements of symmetric memory from {@code communicator}, filled with ones. */
    static Buf allocateShared(final Communicator communicator, final DataType type, final int count)
    {
        final Buf buf = communicator.allocateShared(count, type);
        final Buf ones = allocate(type, count);
        Memory.copy(ones.base(), ones.offset(), null, buf.offset(), buf.bytes());
        return buf;
    }

    static Buf allocate(final DataType type, final int count)
    {
        return switch (type)
        {
            case INT8, UINT8 ->
            {
                final byte[] a = new byte[count];
                Arrays.fill(a, (byte)1);
                yield Buf.of(a).as(type);
            }
            case INT32, UINT32 ->
            {
                final int[] a = new int[count];
                Arrays.fill(a, 1);
                yield Buf.of(a).as(type);
            }
            case INT64, UINT64 ->
            {
                final long[] a = new long[count];
                Arrays.fill(a, 1L);
                yield Buf.of(a).as(type);
            }
            case FLOAT16, BFLOAT16 ->
            {
                final short[] a = new short[count];
                Arrays.fill(a, type == DataType.FLOAT16 ? FLOAT16_ONE : BFLOAT16_ONE);
                yield Buf.of(a, type);
            }
            case FLOAT32 ->
            {
                final float[] a = new float[count];
                Arrays.fill(a, 1.0f);
                yield Buf.of(a);
            }
            case FLOAT64 ->
            {
                final double[] a = new double[count];
                Arrays.fill(a, 1.0);
                yield Buf.of(a);
            }
        };
    }
}
