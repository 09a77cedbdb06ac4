package io.jccl.tools.demo;

import java.util.ArrayList;
import java.util.List;

/**
 * Lays out one collective's buffers, one row per rank, before on the left and after on the right:
 * <pre>
 * allreduce (sum): every rank ends with the element-wise sum
 *   rank 0: [1, 2]  ──►  rank 0: [4, 6]
 *   rank 1: [3, 4]       rank 1: [4, 6]
 * </pre>
 * The arrow is written on the first row only; the before column is padded to its widest cell.
 */
final class BeforeAfterTable
{
    private BeforeAfterTable()
    {
    }

    /** The title line, then a row per rank; {@code before} and {@code after} hold one cell per rank. */
    static List<String> render(final String title, final String arrow, final List<String> before,
        final List<String> after)
    {
        if (before.size() != after.size())
        {
            throw new IllegalArgumentException(before.size() + " cells before but " + after.size() + " after");
        }
        final int ranks = before.size();
        final int labelWidth = ("rank " + (ranks - 1) + ":").length();
        int width = 0;
        for (final String cell : before)
        {
            width = Math.max(width, cell.length());
        }
        final String noArrow = " ".repeat(arrow.length());

        final List<String> lines = new ArrayList<>(ranks + 1);
        lines.add(title);
        for (int r = 0; r < ranks; r++)
        {
            final String label = pad("rank " + r + ":", labelWidth);
            lines.add("  " + label + " " + pad(before.get(r), width) + "  " + (r == 0 ? arrow : noArrow) + "  " +
                label + " " + after.get(r));
        }
        return lines;
    }

    private static String pad(final String text, final int width)
    {
        return text.length() >= width ? text : text + " ".repeat(width - text.length());
    }
}
