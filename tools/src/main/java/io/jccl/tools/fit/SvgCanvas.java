package io.jccl.tools.fit;

import java.util.Locale;

/** Writes the plot as SVG text, by hand. */
final class SvgCanvas implements PlotCanvas
{
    private final StringBuilder svg = new StringBuilder();

    SvgCanvas(final int width, final int height)
    {
        svg.append(String.format(Locale.ROOT, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" " +
            "viewBox=\"0 0 %d %d\" font-family=\"DejaVu Sans, Helvetica, Arial, sans-serif\">%n", width, height,
            width, height));
        svg.append(String.format(Locale.ROOT, "<rect width=\"%d\" height=\"%d\" fill=\"#ffffff\"/>%n", width, height));
    }

    @Override
    public void line(
        final double x1, final double y1, final double x2, final double y2, final String color, final double width,
        final boolean dashed)
    {
        svg.append(String.format(Locale.ROOT, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\" " +
            "stroke-width=\"%.2f\"%s/>%n", x1, y1, x2, y2, color, width, dashed ? " stroke-dasharray=\"4 3\"" : ""));
    }

    @Override
    public void polyline(final double[] xs, final double[] ys, final int count, final String color, final double width)
    {
        svg.append("<polyline fill=\"none\" stroke=\"").append(color).append("\" stroke-width=\"")
            .append(String.format(Locale.ROOT, "%.2f", width)).append("\" stroke-linejoin=\"round\" points=\"");
        for (int i = 0; i < count; i++)
        {
            svg.append(String.format(Locale.ROOT, "%s%.1f,%.1f", i == 0 ? "" : " ", xs[i], ys[i]));
        }
        svg.append("\"/>\n");
    }

    @Override
    public void circle(final double x, final double y, final double radius, final String fill, final String stroke)
    {
        svg.append(String.format(Locale.ROOT, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"%.1f\" fill=\"%s\" stroke=\"%s\"/>%n",
            x, y, radius, fill == null ? "none" : fill, stroke == null ? "none" : stroke));
    }

    @Override
    public void rect(
        final double x, final double y, final double width, final double height, final String fill,
        final String stroke)
    {
        svg.append(String.format(Locale.ROOT, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" " +
            "fill=\"%s\" stroke=\"%s\"/>%n", x, y, width, height, fill == null ? "none" : fill,
            stroke == null ? "none" : stroke));
    }

    @Override
    public void text(
        final double x, final double y, final String text, final double size, final String color,
        final Anchor anchor, final boolean bold, final boolean vertical)
    {
        final String anchorName = switch (anchor)
        {
            case START -> "start";
            case MIDDLE -> "middle";
            case END -> "end";
        };
        svg.append(String.format(Locale.ROOT, "<text x=\"%.1f\" y=\"%.1f\" font-size=\"%.1f\" fill=\"%s\" " +
            "text-anchor=\"%s\"%s%s>", x, y, size, color, anchorName, bold ? " font-weight=\"bold\"" : "",
            vertical ? String.format(Locale.ROOT, " transform=\"rotate(-90 %.1f %.1f)\"", x, y) : ""));
        svg.append(text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;"));
        svg.append("</text>\n");
    }

    /** The finished SVG document. */
    String finish()
    {
        return svg + "</svg>\n";
    }
}
