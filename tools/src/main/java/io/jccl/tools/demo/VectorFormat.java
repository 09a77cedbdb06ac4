package io.jccl.tools.demo;

import java.math.BigDecimal;
import java.util.Locale;

/**
 * Renders a small vector the way the tables show it: {@code [1, 2, 3]}, or in blocks separated by bars when the
 * collective moves blocks of different lengths: {@code [A0 | A1, A1 | A2]}.
 */
final class VectorFormat
{
    /** How one element is written. */
    enum Style
    {
        /** A whole number: {@code 12}. */
        INTEGER,
        /** A label from {@link #label(int, int)}: {@code B3} (rank 1's element for rank 3). */
        LABEL,
        /** The shortest exact decimal: {@code 0.25}, {@code -6}. */
        EXACT,
        /** Four decimals: {@code 0.0321}. */
        FIXED4
    }

    /** Labels encode (rank, index) as rank × LABEL_BASE + index. */
    static final int LABEL_BASE = 16;

    private VectorFormat()
    {
    }

    /** The number that {@link Style#LABEL} renders as a letter for {@code rank} (A, B, ...) and {@code index}. */
    static int label(final int rank, final int index)
    {
        return rank * LABEL_BASE + index;
    }

    /** {@code values} as {@code [a, b, c]}. */
    static String format(final double[] values, final Style style)
    {
        return format(values, null, style);
    }

    /**
     * {@code values} in consecutive blocks of {@code blockCounts[i]} elements, separated by {@code " | "}; no
     * separators when {@code blockCounts} is null.
     */
    static String format(final double[] values, final int[] blockCounts, final Style style)
    {
        final int[] blocks = blockCounts == null ? new int[] {values.length} : blockCounts;
        final StringBuilder sb = new StringBuilder("[");
        int at = 0;
        for (int b = 0; b < blocks.length; b++)
        {
            if (b > 0)
            {
                sb.append(" |");
            }
            for (int k = 0; k < blocks[b]; k++)
            {
                if (at == values.length)
                {
                    throw new IllegalArgumentException("block counts cover more than the " + values.length +
                        " elements of the vector");
                }
                sb.append(k > 0 ? ", " : b > 0 ? " " : "").append(element(values[at++], style));
            }
        }
        if (at != values.length)
        {
            throw new IllegalArgumentException("block counts cover " + at + " of the " + values.length +
                " elements of the vector");
        }
        return sb.append(']').toString();
    }

    /** One element in {@code style}. */
    static String element(final double value, final Style style)
    {
        return switch (style)
        {
            case INTEGER -> Long.toString(Math.round(value));
            case LABEL ->
            {
                final int code = (int)Math.round(value);
                yield (char)('A' + code / LABEL_BASE) + Integer.toString(code % LABEL_BASE);
            }
            case EXACT -> exact(value);
            case FIXED4 -> String.format(Locale.ROOT, "%.4f", value);
        };
    }

    private static String exact(final double value)
    {
        if (value == Math.rint(value) && Math.abs(value) < 1e15)
        {
            return Long.toString((long)value);
        }
        return new BigDecimal(value).stripTrailingZeros().toPlainString();
    }
}
