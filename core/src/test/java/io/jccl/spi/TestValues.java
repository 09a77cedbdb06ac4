package io.jccl.spi;

import io.jccl.DataType;

import java.util.Random;

/**
 * Test inputs as raw bits: mostly ordinary numbers, so that sums and products mean something, plus random bit
 * patterns (every NaN payload, subnormals, infinities) and a fixed list of special values. Blocks of ordinary
 * numbers only take the kernels' fast paths that skip NaN handling.
 */
final class TestValues
{
    private static final long[] INT8 = {0, 1, 0xFF, 0x7F, 0x80};
    private static final long[] INT32 = {0, 1, 0xFFFF_FFFFL, 0x7FFF_FFFF, 0x8000_0000L};
    private static final long[] INT64 = {0, 1, -1, Long.MAX_VALUE, Long.MIN_VALUE};
    private static final long[] FLOAT16 = {
        0x7E00, 0x7C01, 0xFE23, 0x7D00, 0x0000, 0x8000, 0x7C00, 0xFC00, 0x0001, 0x03FF, 0x8001, 0x0400, 0x7BFF, 0xFBFF};
    private static final long[] BFLOAT16 = {
        0x7FC0, 0x7F81, 0xFFC3, 0x7FA0, 0x0000, 0x8000, 0x7F80, 0xFF80, 0x0001, 0x007F, 0x8001, 0x0080, 0x7F7F, 0xFF7F};
    private static final long[] FLOAT32 = {
        0x7FC0_0000L, 0x7F80_0001L, 0xFFC0_0123L, 0x7FA0_0000L, 0, 0x8000_0000L, 0x7F80_0000L, 0xFF80_0000L, 1,
        0x807F_FFFFL, 0x0080_0000L, 0x7F7F_FFFFL, 0xFF7F_FFFFL};
    private static final long[] FLOAT64 = {
        0x7FF8_0000_0000_0000L, 0x7FF0_0000_0000_0001L, 0xFFF8_0000_0000_0123L, 0x7FF4_0000_0000_0000L, 0,
        0x8000_0000_0000_0000L, 0x7FF0_0000_0000_0000L, 0xFFF0_0000_0000_0000L, 1, 0x800F_FFFF_FFFF_FFFFL,
        0x7FEF_FFFF_FFFF_FFFFL, 0xFFEF_FFFF_FFFF_FFFFL};

    private TestValues()
    {
    }

    /** A test value; {@code ordinaryOnly} leaves out specials and random patterns (no NaN, no infinity). */
    static long next(final DataType type, final Random random, final boolean ordinaryOnly)
    {
        final int pick = random.nextInt(16);
        if (pick == 0 && !ordinaryOnly)
        {
            final long[] specials = specials(type);
            return specials[random.nextInt(specials.length)];
        }
        final boolean ordinary = ordinaryOnly || pick > 4;
        return switch (type)
        {
            case INT8, UINT8 -> random.nextInt(256);
            case INT32, UINT32 -> random.nextInt() & 0xFFFF_FFFFL;
            case INT64, UINT64 -> random.nextLong();
            case FLOAT16 -> ordinary ?
                Float.floatToFloat16(ordinaryFloat(random, 8)) & 0xFFFFL : random.nextInt(0x1_0000);
            case BFLOAT16 -> ordinary ?
                Reductions.floatToBfloat16(ordinaryFloat(random, 30)) & 0xFFFFL : random.nextInt(0x1_0000);
            case FLOAT32 -> ordinary ?
                Float.floatToRawIntBits(ordinaryFloat(random, 30)) & 0xFFFF_FFFFL : random.nextInt() & 0xFFFF_FFFFL;
            case FLOAT64 -> ordinary ?
                Double.doubleToRawLongBits(Math.scalb(random.nextDouble() - 0.5, random.nextInt(60) - 30)) :
                random.nextLong();
        };
    }

    static long[] specials(final DataType type)
    {
        return switch (type)
        {
            case INT8, UINT8 -> INT8;
            case INT32, UINT32 -> INT32;
            case INT64, UINT64 -> INT64;
            case FLOAT16 -> FLOAT16;
            case BFLOAT16 -> BFLOAT16;
            case FLOAT32 -> FLOAT32;
            case FLOAT64 -> FLOAT64;
        };
    }

    /** A float with a random sign and a magnitude between {@code 2^-range} and {@code 2^range}. */
    private static float ordinaryFloat(final Random random, final int range)
    {
        return Math.scalb(random.nextFloat() - 0.5f, random.nextInt(2 * range) - range);
    }
}
