package io.jccl.tools.fit;

/**
 * What the plot draws with, so that one drawing routine makes both the SVG and the PNG. Coordinates in pixels, origin
 * top left; colours as {@code #rrggbb}, or null for none.
 */
interface PlotCanvas
{
    /** Horizontal placement of text relative to its x. */
    enum Anchor
    {
        START, MIDDLE, END
    }

    void line(double x1, double y1, double x2, double y2, String color, double width, boolean dashed);

    void polyline(double[] xs, double[] ys, int count, String color, double width);

    void circle(double x, double y, double radius, String fill, String stroke);

    void rect(double x, double y, double width, double height, String fill, String stroke);

    /** Text with its baseline at y; {@code vertical} turns it 90° anticlockwise around (x, y). */
    void text(double x, double y, String text, double size, String color, Anchor anchor, boolean bold,
        boolean vertical);

    /** Width the layout reserves for {@code text}: a sans-serif average, the same for both outputs. */
    static double textWidth(final String text, final double size)
    {
        return 0.6 * size * text.length();
    }
}
