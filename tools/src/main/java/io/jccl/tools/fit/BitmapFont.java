package io.jccl.tools.fit;

import java.awt.Graphics2D;
import java.awt.geom.AffineTransform;
import java.awt.geom.Rectangle2D;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;

/**
 * Text for the PNG plot when Java 2D has no font to draw with (a machine without fontconfig or fonts): glyphs from
 * the resource {@code fallback-font.txt} (8×14 pixel cells, baseline at row 11), drawn as small squares scaled to
 * the requested size. Plain, but legible, and needs nothing from the machine.
 */
final class BitmapFont
{
    private static final int ROWS = 14;
    private static final int BASELINE = 11;
    private static final int ADVANCE = 7;
    private static final double DESIGN_SIZE = 12.0;
    private static final Map<Character, int[]> GLYPHS = load();

    private BitmapFont()
    {
    }

    /** Width of {@code text} at {@code size} pixels. */
    static double width(final String text, final double size)
    {
        return text.length() * ADVANCE * size / DESIGN_SIZE;
    }

    /**
     * Draws {@code text} starting at x (already shifted for its anchor) with its baseline at y, turned 90°
     * anticlockwise around (x, y) when {@code vertical}.
     */
    static void draw(
        final Graphics2D g, final String text, final double x, final double y, final double size, final boolean bold,
        final boolean vertical)
    {
        final double pixel = size / DESIGN_SIZE;
        final AffineTransform saved = g.getTransform();
        g.translate(x, y);
        if (vertical)
        {
            g.rotate(-Math.PI / 2);
        }
        final Rectangle2D.Double dot = new Rectangle2D.Double();
        for (int i = 0; i < text.length(); i++)
        {
            final int[] rows = GLYPHS.getOrDefault(text.charAt(i), GLYPHS.get('?'));
            final double left = i * ADVANCE * pixel;
            for (int row = 0; row < ROWS; row++)
            {
                for (int column = 0; column < 8; column++)
                {
                    if ((rows[row] & (0x80 >> column)) != 0)
                    {
                        // a hair wider than a pixel so that neighbouring squares do not leave seams
                        dot.setRect(left + column * pixel, (row - BASELINE) * pixel, pixel * (bold ? 1.5 : 1.05),
                            pixel * 1.05);
                        g.fill(dot);
                    }
                }
            }
        }
        g.setTransform(saved);
    }

    private static Map<Character, int[]> load()
    {
        try (InputStream in = BitmapFont.class.getResourceAsStream("fallback-font.txt"))
        {
            if (in == null)
            {
                throw new IllegalStateException("fallback-font.txt is missing from the class path");
            }
            final Map<Character, int[]> glyphs = new HashMap<>();
            for (final String line : new String(in.readAllBytes(), StandardCharsets.UTF_8).split("\n"))
            {
                if (line.isBlank() || line.startsWith("#"))
                {
                    continue;
                }
                final String[] parts = line.trim().split(" ");
                final int[] rows = new int[ROWS];
                for (int row = 0; row < ROWS; row++)
                {
                    rows[row] = Integer.parseInt(parts[1].substring(2 * row, 2 * row + 2), 16);
                }
                glyphs.put((char)Integer.parseInt(parts[0], 16), rows);
            }
            return glyphs;
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException(ex);
        }
    }
}
