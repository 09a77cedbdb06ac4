package io.jccl.tools.fit;

import java.awt.BasicStroke;
import java.awt.Color;
import java.awt.Font;
import java.awt.Graphics2D;
import java.awt.RenderingHints;
import java.awt.geom.AffineTransform;
import java.awt.geom.Ellipse2D;
import java.awt.geom.Line2D;
import java.awt.geom.Path2D;
import java.awt.geom.Rectangle2D;
import java.awt.image.BufferedImage;

/**
 * Draws the plot into an image with Java 2D (headless: no display needed), scaled for sharp text. Text uses the
 * system's sans-serif font, or {@link BitmapFont} on machines where Java 2D has none.
 */
final class PngCanvas implements PlotCanvas
{
    private final BufferedImage image;
    private final Graphics2D g;
    private final boolean bitmapText;

    PngCanvas(final int width, final int height, final double scale)
    {
        this(width, height, scale, !systemFontsWork());
    }

    /** {@code bitmapText} forces the built-in font (tests). */
    PngCanvas(final int width, final int height, final double scale, final boolean bitmapText)
    {
        this.bitmapText = bitmapText;
        image = new BufferedImage((int)Math.ceil(width * scale), (int)Math.ceil(height * scale),
            BufferedImage.TYPE_INT_RGB);
        g = image.createGraphics();
        g.setRenderingHint(RenderingHints.KEY_ANTIALIASING, RenderingHints.VALUE_ANTIALIAS_ON);
        g.setRenderingHint(RenderingHints.KEY_TEXT_ANTIALIASING, RenderingHints.VALUE_TEXT_ANTIALIAS_ON);
        g.setRenderingHint(RenderingHints.KEY_STROKE_CONTROL, RenderingHints.VALUE_STROKE_PURE);
        g.scale(scale, scale);
        g.setColor(Color.WHITE);
        g.fill(new Rectangle2D.Double(0, 0, width, height));
    }

    @Override
    public void line(
        final double x1, final double y1, final double x2, final double y2, final String color, final double width,
        final boolean dashed)
    {
        g.setColor(Color.decode(color));
        g.setStroke(dashed ? new BasicStroke((float)width, BasicStroke.CAP_BUTT, BasicStroke.JOIN_MITER, 10,
            new float[] {4, 3}, 0) : new BasicStroke((float)width));
        g.draw(new Line2D.Double(x1, y1, x2, y2));
    }

    @Override
    public void polyline(final double[] xs, final double[] ys, final int count, final String color, final double width)
    {
        final Path2D.Double path = new Path2D.Double();
        for (int i = 0; i < count; i++)
        {
            if (i == 0)
            {
                path.moveTo(xs[i], ys[i]);
            }
            else
            {
                path.lineTo(xs[i], ys[i]);
            }
        }
        g.setColor(Color.decode(color));
        g.setStroke(new BasicStroke((float)width, BasicStroke.CAP_ROUND, BasicStroke.JOIN_ROUND));
        g.draw(path);
    }

    @Override
    public void circle(final double x, final double y, final double radius, final String fill, final String stroke)
    {
        final Ellipse2D.Double shape = new Ellipse2D.Double(x - radius, y - radius, 2 * radius, 2 * radius);
        if (fill != null)
        {
            g.setColor(Color.decode(fill));
            g.fill(shape);
        }
        if (stroke != null)
        {
            g.setColor(Color.decode(stroke));
            g.setStroke(new BasicStroke(1f));
            g.draw(shape);
        }
    }

    @Override
    public void rect(
        final double x, final double y, final double width, final double height, final String fill,
        final String stroke)
    {
        final Rectangle2D.Double shape = new Rectangle2D.Double(x, y, width, height);
        if (fill != null)
        {
            g.setColor(Color.decode(fill));
            g.fill(shape);
        }
        if (stroke != null)
        {
            g.setColor(Color.decode(stroke));
            g.setStroke(new BasicStroke(1f));
            g.draw(shape);
        }
    }

    @Override
    public void text(
        final double x, final double y, final String text, final double size, final String color,
        final Anchor anchor, final boolean bold, final boolean vertical)
    {
        if (bitmapText)
        {
            g.setColor(Color.decode(color));
            final double width = BitmapFont.width(text, size);
            final double shift = anchor == Anchor.START ? 0 : anchor == Anchor.MIDDLE ? -width / 2 : -width;
            final double dx = vertical ? 0 : shift;
            final double dy = vertical ? -shift : 0;
            BitmapFont.draw(g, text, x + dx, y + dy, size, bold, vertical);
            return;
        }
        final Font font = new Font(Font.SANS_SERIF, bold ? Font.BOLD : Font.PLAIN, 1).deriveFont((float)size);
        g.setFont(font);
        g.setColor(Color.decode(color));
        final double width = g.getFontMetrics().getStringBounds(text, g).getWidth();
        final double shift = switch (anchor)
        {
            case START -> 0;
            case MIDDLE -> -width / 2;
            case END -> -width;
        };
        final AffineTransform saved = g.getTransform();
        g.translate(x, y);
        if (vertical)
        {
            g.rotate(-Math.PI / 2);
        }
        g.drawString(text, (float)shift, 0f);
        g.setTransform(saved);
    }

    /**
     * True when Java 2D can lay out and draw text here. Without fontconfig or any font it throws (an Error or a
     * NullPointerException from deep inside the font system, depending on the JDK).
     */
    static boolean systemFontsWork()
    {
        try
        {
            final Graphics2D probe = new BufferedImage(8, 8, BufferedImage.TYPE_INT_RGB).createGraphics();
            probe.setFont(new Font(Font.SANS_SERIF, Font.PLAIN, 12));
            probe.drawString("0 µs", 0, 8);
            final boolean measurable = probe.getFontMetrics().stringWidth("0") > 0;
            probe.dispose();
            return measurable;
        }
        catch (final RuntimeException | LinkageError | InternalError ex)
        {
            return false;
        }
        catch (final Error ex)
        {
            // "Probable fatal error: No fonts found" is a plain java.lang.Error
            if (ex.getClass() == Error.class)
            {
                return false;
            }
            throw ex;
        }
    }

    /** The finished image. */
    BufferedImage finish()
    {
        g.dispose();
        return image;
    }
}
