package io.jccl.tools.fit;

import io.jccl.model.CostModel;
import io.jccl.model.Regime;

import javax.imageio.ImageIO;
import java.awt.image.BufferedImage;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The picture of a fit: one panel per collective and rank count, time against size on log-log axes, the measured
 * points and the model's line for every algorithm, in the same colour; the pingpong panel also marks the regimes
 * with their α (or, where α is a negative intercept, their time where they start) and bandwidth. Written as SVG (by
 * hand) or PNG (Java 2D, headless), by the file's extension.
 */
public final class FitPlot
{
    private static final String[] COLORS = {"#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b",
        "#e377c2", "#17becf", "#7f7f7f", "#bcbd22"};
    private static final String AXIS = "#333333";
    private static final String GRID = "#e3e3e3";
    private static final String TEXT = "#111111";
    private static final int PANEL_WIDTH = 580;
    private static final int PANEL_HEIGHT = 400;
    private static final int LEFT = 74;
    private static final int RIGHT = 18;
    private static final int TOP = 54;
    private static final int BOTTOM = 48;
    private static final int HEADER = 52;
    private static final int LINE_POINTS = 160;
    private static final double PNG_SCALE = 1.5;
    private static final List<String> ORDER = List.of("pingpong", "barrier", "broadcast", "reduce", "allreduce",
        "gather", "scatter", "allgather", "reduce_scatter", "alltoall", "reduction");

    private FitPlot()
    {
    }

    /** One algorithm's points and model line in a panel. */
    private record Line(String label, String color, double[] bytes, double[] measured, double[] lineBytes,
        double[] lineMicros)
    {
    }

    /** One panel: a collective at one rank count. */
    private record Panel(String title, List<Line> lines, List<Regime> regimes)
    {
    }

    /** Writes the plot of {@code results} to {@code path}: SVG or PNG by its extension. */
    public static void write(
        final Path path, final String title, final List<ModelFitter.Result> results, final long stagingBytes)
        throws IOException
    {
        final Path parent = path.toAbsolutePath().getParent();
        Files.createDirectories(parent);
        if (path.toString().toLowerCase(Locale.ROOT).endsWith(".png"))
        {
            System.setProperty("java.awt.headless", "true");
            ImageIO.write(png(title, results, stagingBytes, !PngCanvas.systemFontsWork()), "png", path.toFile());
        }
        else
        {
            final List<Panel> panels = panels(results, stagingBytes);
            final SvgCanvas canvas = new SvgCanvas(width(panels), height(panels));
            draw(canvas, "jccl fit: " + title, panels);
            Files.writeString(path, canvas.finish(), StandardCharsets.UTF_8);
        }
    }

    /** The plot as an image; {@code bitmapText} draws text with the built-in font instead of the system's. */
    static BufferedImage png(
        final String title, final List<ModelFitter.Result> results, final long stagingBytes, final boolean bitmapText)
    {
        final List<Panel> panels = panels(results, stagingBytes);
        final PngCanvas canvas = new PngCanvas(width(panels), height(panels), PNG_SCALE, bitmapText);
        draw(canvas, "jccl fit: " + title, panels);
        return canvas.finish();
    }

    private static int columns(final List<Panel> panels)
    {
        return Math.min(2, panels.size());
    }

    private static int width(final List<Panel> panels)
    {
        return columns(panels) * PANEL_WIDTH;
    }

    private static int height(final List<Panel> panels)
    {
        return HEADER + (panels.size() + columns(panels) - 1) / columns(panels) * PANEL_HEIGHT;
    }

    private static List<Panel> panels(final List<ModelFitter.Result> results, final long stagingBytes)
    {
        final List<Panel> panels = collectPanels(results, stagingBytes);
        if (panels.isEmpty())
        {
            throw new IllegalArgumentException("nothing to plot: no measurement has a formula");
        }
        return panels;
    }

    private static List<Panel> collectPanels(final List<ModelFitter.Result> results, final long stagingBytes)
    {
        final Map<String, List<Line>> linesByPanel = new LinkedHashMap<>();
        final Map<String, List<Regime>> regimesByPanel = new LinkedHashMap<>();
        final Map<String, String> titles = new LinkedHashMap<>();
        final Map<String, Integer> colorsUsed = new LinkedHashMap<>();
        final boolean manySources = results.size() > 1;
        for (final ModelFitter.Result result : results)
        {
            final CostModel model = result.model(stagingBytes);
            for (final ModelFitter.Series series : result.series())
            {
                final Measurement.SeriesKey key = series.key();
                final boolean pingpong = "pingpong".equals(key.collective());
                final String panelKey = String.format(Locale.ROOT, "%02d %s %05d",
                    ORDER.contains(key.collective()) ? ORDER.indexOf(key.collective()) : ORDER.size(),
                    key.collective(), pingpong ? 0 : key.ranks());
                titles.put(panelKey, pingpong ? "pingpong, one way: α + m·β per regime" :
                    key.collective() + ", " + key.ranks() + (key.ranks() == 1 ? " rank" : " ranks"));
                if (pingpong && !manySources)
                {
                    regimesByPanel.put(panelKey, result.parameters().regimes());
                }
                final int colorIndex = colorsUsed.merge(panelKey, 1, Integer::sum) - 1;
                linesByPanel.computeIfAbsent(panelKey, k -> new ArrayList<>())
                    .add(line(series, model, label(series, manySources), COLORS[colorIndex % COLORS.length]));
            }
        }
        final List<Panel> panels = new ArrayList<>();
        linesByPanel.keySet().stream().sorted().forEach(k ->
            panels.add(new Panel(titles.get(k), linesByPanel.get(k), regimesByPanel.getOrDefault(k, List.of()))));
        return panels;
    }

    private static String label(final ModelFitter.Series series, final boolean manySources)
    {
        final Measurement.SeriesKey key = series.key();
        final StringBuilder label = new StringBuilder();
        if ("pingpong".equals(key.collective()))
        {
            label.append(manySources ? key.source() : "measured");
        }
        else if (key.algorithmNamed())
        {
            label.append(key.algorithm());
            if (manySources)
            {
                label.append(" (").append(key.source()).append(')');
            }
        }
        else
        {
            label.append(key.source()).append(", modelled as ").append(key.algorithm());
        }
        if (!"pingpong".equals(key.collective()) && (!"float32".equals(key.dtype()) || !"sum".equals(key.op())))
        {
            label.append(' ').append(key.dtype()).append(' ').append(key.op());
        }
        if (key.chunkBytes() > 0)
        {
            label.append(", chunk ").append(Units.bytes(key.chunkBytes()));
        }
        label.append(String.format(Locale.ROOT, "  (median |err| %.0f %%)", 100 * series.medianError()));
        return label.toString();
    }

    private static Line line(
        final ModelFitter.Series series, final CostModel model, final String label, final String color)
    {
        final List<ModelFitter.Prediction> points = series.points();
        final double[] bytes = new double[points.size()];
        final double[] measured = new double[points.size()];
        for (int i = 0; i < bytes.length; i++)
        {
            bytes[i] = Math.max(1, points.get(i).measurement().bytes());
            measured[i] = points.get(i).measurement().micros();
        }
        final Measurement.SeriesKey key = series.key();
        final double lo = Math.log(bytes[0]);
        final double hi = Math.log(bytes[bytes.length - 1]);
        final int count = hi > lo ? LINE_POINTS : 1;
        final double[] lineBytes = new double[count];
        final double[] lineMicros = new double[count];
        for (int i = 0; i < count; i++)
        {
            final long size = Math.round(Math.exp(count == 1 ? lo : lo + (hi - lo) * i / (count - 1)));
            lineBytes[i] = size;
            lineMicros[i] = model.predict(series.formula(), key.ranks(), size, key.dtype(), key.op(), key.chunkBytes());
        }
        return new Line(label, color, bytes, measured, lineBytes, lineMicros);
    }

    private static void draw(final PlotCanvas canvas, final String heading, final List<Panel> panels)
    {
        final int columns = columns(panels);
        canvas.text(16, 26, heading, 17, TEXT, PlotCanvas.Anchor.START, true, false);
        canvas.text(16, 44, "points: measured;  lines: the alpha-beta model fitted to them;  log-log axes", 12,
            "#555555", PlotCanvas.Anchor.START, false, false);
        for (int i = 0; i < panels.size(); i++)
        {
            drawPanel(canvas, panels.get(i), (i % columns) * PANEL_WIDTH, HEADER + (i / columns) * PANEL_HEIGHT);
        }
    }

    private static void drawPanel(final PlotCanvas canvas, final Panel panel, final double x0, final double y0)
    {
        final double left = x0 + LEFT;
        final double right = x0 + PANEL_WIDTH - RIGHT;
        final double top = y0 + TOP;
        final double bottom = y0 + PANEL_HEIGHT - BOTTOM;

        // ranges: every measured point and every model value
        double minBytes = Double.POSITIVE_INFINITY;
        double maxBytes = 0;
        double minTime = Double.POSITIVE_INFINITY;
        double maxTime = 0;
        for (final Line line : panel.lines())
        {
            for (int i = 0; i < line.bytes().length; i++)
            {
                minBytes = Math.min(minBytes, line.bytes()[i]);
                maxBytes = Math.max(maxBytes, line.bytes()[i]);
                minTime = Math.min(minTime, line.measured()[i]);
                maxTime = Math.max(maxTime, line.measured()[i]);
            }
            for (final double t : line.lineMicros())
            {
                if (t > 0)
                {
                    minTime = Math.min(minTime, t);
                    maxTime = Math.max(maxTime, t);
                }
            }
        }
        final double xLo = log2(minBytes) - 0.5;
        final double xHi = log2(maxBytes) + 0.5;
        final double yLo = Math.floor(Math.log10(minTime) * 4) / 4 - 0.1;
        final double yHi = Math.ceil(Math.log10(maxTime) * 4) / 4 + 0.1;
        final Axis x = new Axis(xLo, xHi, left, right);
        final Axis y = new Axis(yLo, yHi, bottom, top);

        canvas.text((left + right) / 2, y0 + 20, panel.title(), 14, TEXT, PlotCanvas.Anchor.MIDDLE, true, false);

        // grid and ticks: x at powers of two, y at decades (and 2, 5 when the range is short)
        final int step = octaveStep(xHi - xLo);
        for (int k = (int)Math.ceil(xLo / step) * step; k <= xHi; k += step)
        {
            final double px = x.at(k);
            canvas.line(px, top, px, bottom, GRID, 1, false);
            canvas.line(px, bottom, px, bottom + 4, AXIS, 1, false);
            canvas.text(px, bottom + 17, Units.bytes(Math.pow(2, k)), 11, TEXT, PlotCanvas.Anchor.MIDDLE, false,
                false);
        }
        final double[] mantissas = yHi - yLo < 2.2 ? new double[] {1, 2, 5} : new double[] {1};
        for (int decade = (int)Math.floor(yLo); decade <= yHi; decade++)
        {
            for (final double mantissa : mantissas)
            {
                final double value = mantissa * Math.pow(10, decade);
                final double log = Math.log10(value);
                if (log < yLo || log > yHi)
                {
                    continue;
                }
                final double py = y.at(log);
                canvas.line(left, py, right, py, GRID, 1, false);
                canvas.line(left - 4, py, left, py, AXIS, 1, false);
                canvas.text(left - 7, py + 4, timeLabel(value), 11, TEXT, PlotCanvas.Anchor.END, false, false);
            }
        }

        // regimes of the pingpong fit
        for (int r = 0; r < panel.regimes().size(); r++)
        {
            final Regime regime = panel.regimes().get(r);
            final double from = r == 0 ? xLo : Math.max(xLo, log2(regime.fromBytes()));
            final double to = r + 1 < panel.regimes().size() ?
                Math.min(xHi, log2(panel.regimes().get(r + 1).fromBytes())) : xHi;
            if (r > 0 && from > xLo)
            {
                canvas.line(x.at(from), top, x.at(from), bottom, "#999999", 1, true);
            }
            if (to > from)
            {
                // above the frame, where no data is, on two rows so that narrow regimes do not overlap
                final double middle = x.at((from + to) / 2);
                canvas.text(middle, top - (r % 2 == 0 ? 5 : 18), regimeLabel(regime), 10, "#555555",
                    PlotCanvas.Anchor.MIDDLE, false, false);
            }
        }

        // model lines, then the measured points on top
        for (final Line line : panel.lines())
        {
            final double[] xs = new double[line.lineBytes().length];
            final double[] ys = new double[line.lineBytes().length];
            int count = 0;
            for (int i = 0; i < xs.length; i++)
            {
                if (line.lineMicros()[i] > 0)
                {
                    xs[count] = x.at(log2(line.lineBytes()[i]));
                    ys[count] = y.at(Math.log10(line.lineMicros()[i]));
                    count++;
                }
            }
            canvas.polyline(xs, ys, count, line.color(), 1.8);
        }
        for (final Line line : panel.lines())
        {
            for (int i = 0; i < line.bytes().length; i++)
            {
                canvas.circle(x.at(log2(line.bytes()[i])), y.at(Math.log10(line.measured()[i])), 3.6, line.color(),
                    "#ffffff");
            }
        }

        // frame, axis titles, legend
        canvas.rect(left, top, right - left, bottom - top, null, AXIS);
        canvas.text((left + right) / 2, bottom + 36, "message size (bytes, log scale)", 12, TEXT,
            PlotCanvas.Anchor.MIDDLE, false, false);
        canvas.text(x0 + 16, (top + bottom) / 2, "time per call (log scale)", 12, TEXT, PlotCanvas.Anchor.MIDDLE,
            false, true);
        legend(canvas, panel.lines(), left + 8, top + 8);
    }

    private static void legend(final PlotCanvas canvas, final List<Line> lines, final double x, final double y)
    {
        final double size = 11;
        final double rowHeight = 15;
        double width = 0;
        for (final Line line : lines)
        {
            width = Math.max(width, PlotCanvas.textWidth(line.label(), size));
        }
        canvas.rect(x, y, width + 40, lines.size() * rowHeight + 8, "#ffffff", "#bbbbbb");
        for (int i = 0; i < lines.size(); i++)
        {
            final Line line = lines.get(i);
            final double rowY = y + 4 + rowHeight * i + rowHeight / 2;
            canvas.line(x + 6, rowY, x + 28, rowY, line.color(), 1.8, false);
            canvas.circle(x + 17, rowY, 3.6, line.color(), "#ffffff");
            canvas.text(x + 34, rowY + 4, line.label(), size, TEXT, PlotCanvas.Anchor.START, false, false);
        }
    }

    /** Octaves between x ticks: at most 8 ticks. */
    private static int octaveStep(final double octaves)
    {
        for (final int step : new int[] {1, 2, 3, 4, 5, 6, 8, 10})
        {
            if (octaves / step <= 8)
            {
                return step;
            }
        }
        return 12;
    }

    /**
     * "α 0.262 µs, 4.64 GB/s"; for a regime whose intercept is negative (a line steeper than its chord from the origin,
     * README, *Fitting the model*), its time where it starts instead, which is never negative: a report's reader
     * would take a negative α for a broken fit.
     */
    static String regimeLabel(final Regime regime)
    {
        final String bandwidth = Units.number(Units.gigabytesPerSecond(regime.beta())) + " GB/s";
        if (regime.alpha() >= 0)
        {
            return "α " + Units.number(regime.alpha()) + " µs, " + bandwidth;
        }
        final double startMicros = regime.alpha() + regime.fromBytes() * regime.beta();
        return Units.bytes(regime.fromBytes()) + " in " + (startMicros >= 1000 ?
            Units.number(startMicros / 1000) + " ms, " : Units.number(startMicros) + " µs, ") + bandwidth;
    }

    /** "0.1 µs", "20 µs", "1 ms", "2 s". */
    static String timeLabel(final double micros)
    {
        if (micros >= 1e6)
        {
            return trim(micros / 1e6) + " s";
        }
        if (micros >= 1e3)
        {
            return trim(micros / 1e3) + " ms";
        }
        return trim(micros) + " µs";
    }

    private static String trim(final double value)
    {
        return String.format(Locale.ROOT, "%.3f", value).replaceFirst("\\.?0+$", "");
    }

    private static double log2(final double x)
    {
        return Math.log(x) / Math.log(2);
    }

    /** Maps a log value in [lo, hi] to pixels [from, to]. */
    private record Axis(double lo, double hi, double from, double to)
    {
        double at(final double value)
        {
            return from + (value - lo) / (hi - lo) * (to - from);
        }
    }
}
