package io.jccl.tools.demo;

import io.jccl.tools.demo.VectorFormat.Style;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

@Timeout(10)
class VectorFormatTest
{
    @Test
    void writesWholeNumbersLikeTheSeedTables()
    {
        assertEquals("[1, 2, 3]", VectorFormat.format(new double[] {1, 2, 3}, Style.INTEGER));
        assertEquals("[-6, 0, 120]", VectorFormat.format(new double[] {-6, 0, 120}, Style.INTEGER));
        assertEquals("[]", VectorFormat.format(new double[0], Style.INTEGER));
    }

    @Test
    void labelsNameTheRankByLetterAndTheIndexByNumber()
    {
        final double[] values = {VectorFormat.label(0, 0), VectorFormat.label(1, 3), VectorFormat.label(7, 7)};
        assertEquals("[A0, B3, H7]", VectorFormat.format(values, Style.LABEL));
    }

    @Test
    void separatesBlocksOfUnevenLength()
    {
        final double[] values = {10, 20, 21, 30, 31, 32};
        assertEquals("[10 | 20, 21 | 30, 31, 32]", VectorFormat.format(values, new int[] {1, 2, 3}, Style.INTEGER));
        assertEquals("[10 | | 20, 21, 30, 31, 32]",
            VectorFormat.format(values, new int[] {1, 0, 5}, Style.INTEGER));
    }

    @Test
    void refusesBlockCountsThatDoNotCoverTheVector()
    {
        final double[] values = {1, 2, 3};
        assertThrows(IllegalArgumentException.class,
            () -> VectorFormat.format(values, new int[] {1, 1}, Style.INTEGER));
        assertThrows(IllegalArgumentException.class,
            () -> VectorFormat.format(values, new int[] {2, 2}, Style.INTEGER));
    }

    @Test
    void exactDecimalsDropTrailingZerosAndFixedOnesKeepFourPlaces()
    {
        assertEquals("[0.25, 1.5, -6, 0.0999755859375]", VectorFormat.format(
            new double[] {0.25, 1.5, -6, Float.float16ToFloat(Float.floatToFloat16(0.1f))}, Style.EXACT));
        assertEquals("[0.0038, 0.1267, 1.0000]", VectorFormat.format(new double[] {0.00379, 0.12669, 1}, Style.FIXED4));
    }
}
