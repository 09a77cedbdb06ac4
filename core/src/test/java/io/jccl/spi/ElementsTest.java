package io.jccl.spi;

import io.jccl.DataType;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertEquals;

@Timeout(10)
class ElementsTest
{
    @ParameterizedTest
    @EnumSource(DataType.class)
    void bitsRoundTripInEveryKindOfMemory(final DataType type)
    {
        final long mask = type.size() == 8 ? -1L : (1L << (8 * type.size())) - 1;
        for (final TestMemory.Kind kind : TestMemory.Kind.values())
        {
            final TestMemory memory = new TestMemory(type, kind, 64, 1);
            final Random random = new Random(type.ordinal());
            final long[] written = new long[64];
            for (int i = 0; i < 64; i++)
            {
                written[i] = random.nextLong() & mask;
                Elements.putBits(type, memory.base, memory.offset, i, written[i]);
            }
            for (int i = 0; i < 64; i++)
            {
                assertEquals(written[i], Elements.getBits(type, memory.base, memory.offset, i), type + " " + kind);
            }
        }
    }

    @ParameterizedTest
    @EnumSource(DataType.class)
    void smallIntegersRoundTripAsValues(final DataType type)
    {
        final TestMemory memory = new TestMemory(type, TestMemory.Kind.OFF_HEAP, 200, 0);
        final int shift = type.isUnsigned() ? 0 : 100;
        for (int i = 0; i < 200; i++)
        {
            Elements.put(type, memory.base, memory.offset, i, i - shift);
        }
        for (int i = 0; i < 200; i++)
        {
            assertEquals(i - shift, Elements.get(type, memory.base, memory.offset, i), type.label());
        }
    }

    @Test
    void sixteenBitFloatsConvertFromAndToTheirPatterns()
    {
        final short[] x = new short[2];
        final long base = Reductions.arrayBase(DataType.FLOAT16);
        Elements.put(DataType.FLOAT16, x, base, 0, 1.5);
        Elements.put(DataType.BFLOAT16, x, base, 1, -2.5);
        assertEquals(0x3E00, Elements.getBits(DataType.FLOAT16, x, base, 0));
        assertEquals(0xC020, Elements.getBits(DataType.BFLOAT16, x, base, 1));
        assertEquals(1.5, Elements.get(DataType.FLOAT16, x, base, 0));
        assertEquals(-2.5, Elements.get(DataType.BFLOAT16, x, base, 1));
    }

    @Test
    void integersTruncateThenWrap()
    {
        final byte[] bytes = new byte[2];
        final long base = Reductions.arrayBase(DataType.INT8);
        Elements.put(DataType.INT8, bytes, base, 0, 200.9);
        Elements.put(DataType.INT8, bytes, base, 1, -1.9);
        assertEquals(-56.0, Elements.get(DataType.INT8, bytes, base, 0));
        assertEquals(-1.0, Elements.get(DataType.INT8, bytes, base, 1));
        assertEquals(0xC8, Elements.getBits(DataType.INT8, bytes, base, 0));
    }

    @Test
    void unsignedIntegersReadAsTheirUnsignedValues()
    {
        final byte[] bytes = {(byte)200};
        assertEquals(200.0, Elements.get(DataType.UINT8, bytes, Reductions.arrayBase(DataType.UINT8), 0));
        final int[] ints = new int[1];
        final long intBase = Reductions.arrayBase(DataType.UINT32);
        Elements.put(DataType.UINT32, ints, intBase, 0, 3e9);
        assertEquals((int)3_000_000_000L, ints[0]);
        assertEquals(3e9, Elements.get(DataType.UINT32, ints, intBase, 0));
        final long[] longs = new long[1];
        final long longBase = Reductions.arrayBase(DataType.UINT64);
        Elements.put(DataType.UINT64, longs, longBase, 0, 0x1.8p63);
        assertEquals(0xC000_0000_0000_0000L, longs[0]);
        assertEquals(0x1.8p63, Elements.get(DataType.UINT64, longs, longBase, 0));
    }
}
