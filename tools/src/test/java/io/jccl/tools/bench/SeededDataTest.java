package io.jccl.tools.bench;

import io.jccl.DataType;
import io.jccl.ReduceOp;
import io.jccl.spi.Reductions;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.nio.ByteBuffer;
import java.util.HashSet;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The --check references: a result computed the way an algorithm computes it (jccl's own kernels, in an order
 * other than the reference's) counts 0 wrong for every type and op; a corrupted element counts 1.
 */
@Timeout(30)
class SeededDataTest
{
    private static final int RANKS = 5;
    private static final int COUNT = 4096;

    @ParameterizedTest
    @EnumSource(DataType.class)
    void reductionsByJcclsKernelsMatchTheReference(final DataType type)
    {
        for (final ReduceOp op : ReduceOp.values())
        {
            if (!op.reduces(type))
            {
                continue;
            }
            final SeededData data = new SeededData(type, op, op == ReduceOp.PROD, RANKS, 42);
            final UnsafeBuffer result = reduceBackwards(data, op);
            assertEquals(0, data.wrongReductions(result, 0, COUNT, 0), type + " " + op);

            data.write(result, 17, data.read(result, 17) + (type.isFloatingPoint() ? 64.0 : 3));
            assertEquals(1, data.wrongReductions(result, 0, COUNT, 0), type + " " + op + " corrupted");
        }
    }

    @ParameterizedTest
    @EnumSource(DataType.class)
    void copiesMustBeExact(final DataType type)
    {
        final SeededData data = new SeededData(type, ReduceOp.SUM, false, RANKS, 7);
        final UnsafeBuffer buffer = buffer(type);
        data.fill(buffer, 3, COUNT);
        assertEquals(0, data.wrongCopies(buffer, 0, COUNT, 3, 0));
        assertTrue(data.wrongCopies(buffer, 1, COUNT - 1, 3, 0) > COUNT * 9 / 10, "shifted by one element");
        assertTrue(data.wrongCopies(buffer, 0, COUNT, 2, 0) > COUNT / 2, "another rank's data");

        data.poison(buffer, 0, COUNT);
        assertEquals(COUNT, data.wrongCopies(buffer, 0, COUNT, 3, 0), "poisoned");
    }

    @Test
    void valuesDifferAcrossRanksAndIndices()
    {
        final SeededData data = new SeededData(DataType.FLOAT32, ReduceOp.SUM, false, RANKS, 1);
        final Set<Double> seen = new HashSet<>();
        for (int i = 0; i < 1000; i++)
        {
            final double v = data.value(0, i);
            assertTrue(v >= -8 && v < 8, "range: " + v);
            seen.add(v);
        }
        assertTrue(seen.size() > 500, "distinct values: " + seen.size());
    }

    @Test
    void integerReductionsWrapAsTheTypeDoes()
    {
        final SeededData data = new SeededData(DataType.INT8, ReduceOp.PROD, true, 12, 3);
        for (int i = 0; i < 100; i++)
        {
            long product = 1;
            for (int r = 0; r < 12; r++)
            {
                product = (byte)(product * (long)data.value(r, i));
            }
            assertEquals(product, data.reducedInteger(i));
        }
    }

    /** Every rank's input reduced from the last rank down with Reductions.reduce, as a tree or ring might. */
    private static UnsafeBuffer reduceBackwards(final SeededData data, final ReduceOp op)
    {
        final DataType type = data.type();
        final UnsafeBuffer acc = buffer(type);
        final UnsafeBuffer input = buffer(type);
        data.fill(acc, RANKS - 1, COUNT);
        for (int r = RANKS - 2; r >= 0; r--)
        {
            data.fill(input, r, COUNT);
            Reductions.reduce(type, op == ReduceOp.AVG ? ReduceOp.SUM : op, null, address(input), null,
                address(acc), null, address(acc), COUNT);
        }
        if (op == ReduceOp.AVG)
        {
            Reductions.divide(type, null, address(acc), COUNT, RANKS);
        }
        return acc;
    }

    private static UnsafeBuffer buffer(final DataType type)
    {
        return new UnsafeBuffer(ByteBuffer.allocateDirect(COUNT * type.size()));
    }

    private static long address(final UnsafeBuffer buffer)
    {
        return buffer.addressOffset();
    }
}
