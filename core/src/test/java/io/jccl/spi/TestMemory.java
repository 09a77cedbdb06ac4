package io.jccl.spi;

import io.jccl.DataType;
import org.agrona.BufferUtil;

import java.nio.ByteBuffer;
import java.util.Random;

/**
 * A test operand: {@code count} elements of a type in a given kind of memory, with guard elements on both sides
 * so that a test sees a kernel writing outside its range. The operand starts {@code skew} elements in, so that
 * operands start at different alignments.
 */
final class TestMemory
{
    static final int GUARD = 3;

    enum Kind
    {
        /** A Java array of the element type (short[] for float16 and bfloat16). */
        TYPED_ARRAY,
        /** A direct buffer: base {@code null}, absolute address. */
        OFF_HEAP,
        /** A byte[], as a heap ByteBuffer gives for any element type. */
        BYTE_ARRAY
    }

    final DataType type;
    final Object base;
    final long offset;
    final int count;
    private final long start;
    private final int total;
    /** Holds the direct buffer, so that its memory lives as long as this operand. */
    private final ByteBuffer keepAlive;

    TestMemory(final DataType type, final Kind kind, final int count, final int skew)
    {
        this.type = type;
        this.count = count;
        this.total = count + 2 * GUARD;
        final int size = type.size();
        switch (kind)
        {
            case TYPED_ARRAY ->
            {
                base = switch (type)
                {
                    case INT8, UINT8 -> new byte[total];
                    case INT32, UINT32 -> new int[total];
                    case INT64, UINT64 -> new long[total];
                    case FLOAT16, BFLOAT16 -> new short[total];
                    case FLOAT32 -> new float[total];
                    case FLOAT64 -> new double[total];
                };
                start = Reductions.arrayBase(type);
                keepAlive = null;
            }
            case OFF_HEAP ->
            {
                keepAlive = BufferUtil.allocateDirectAligned(total * size, 64);
                base = null;
                start = BufferUtil.address(keepAlive);
            }
            default ->
            {
                base = new byte[total * size];
                start = Reductions.arrayBase(DataType.INT8);
                keepAlive = null;
            }
        }
        this.offset = start + (long)skew * size;
    }

    /** Fills every element, guards included, with test values ({@link TestValues#next}). */
    void fill(final Random random, final boolean ordinaryOnly)
    {
        for (int i = 0; i < total; i++)
        {
            Elements.putBits(type, base, start, i, TestValues.next(type, random, ordinaryOnly));
        }
    }

    /** The bits of every element, guards included. */
    long[] snapshot()
    {
        final long[] bits = new long[total];
        for (int i = 0; i < total; i++)
        {
            bits[i] = Elements.getBits(type, base, start, i);
        }
        return bits;
    }

    /** Index in {@link #snapshot()} of the operand's element {@code i}. */
    int snapshotIndex(final int i)
    {
        return (int)((offset - start) / type.size()) + i;
    }
}
