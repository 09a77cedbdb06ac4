package io.jccl.tools.fit;

import io.jccl.model.Json;
import io.jccl.model.Regime;
import io.jccl.tools.UsageException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import javax.imageio.ImageIO;
import java.awt.image.BufferedImage;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

@Timeout(30)
class FitCommandTest
{
    private final ByteArrayOutputStream out = new ByteArrayOutputStream();
    private final ByteArrayOutputStream err = new ByteArrayOutputStream();
    private final FitCommand command = new FitCommand(new PrintStream(out, true, StandardCharsets.UTF_8),
        new PrintStream(err, true, StandardCharsets.UTF_8));

    @TempDir
    Path directory;

    @Test
    void tableShowsRegimesGammaAndEverySeries() throws Exception
    {
        final Path results = SyntheticData.write(directory.resolve("results.csv"), 0.02, 31);
        assertEquals(0, command.run(new String[] {results.toString()}));
        final String text = text(out);
        assertTrue(text.contains("3 regimes, breakpoints at 4 KiB (between 2 KiB and 4 KiB), 4 MiB"), text);
        assertTrue(text.contains("alpha us (95% CI)"), text);
        assertTrue(text.contains("float32:sum"), text);
        assertTrue(text.contains("allreduce shm_twoshot, 4 ranks: R² "), text);
        assertTrue(text.contains("  formula: 2(p − 1)α + 2n(p − 1)/p·β + n(p − 1)/p·γ"), text);
        assertTrue(text.contains("summary: R² of log T"), text);
        assertTrue(text.contains("+ gamma_m "), text);
        assertTrue(text.contains("sigma_f  per flag step × p/c"), text);
        assertTrue(text.contains("predicted, not fitted: broadcast (timed back to back, a root that does not wait"),
            text);
    }

    @Test
    void jsonHoldsRegimesEstimatesAndPredictions() throws Exception
    {
        final Path results = SyntheticData.write(directory.resolve("results.csv"), 0.02, 32);
        assertEquals(0, command.run(new String[] {results.toString(), "--format", "json"}));
        @SuppressWarnings("unchecked")
        final Map<String, Object> root = (Map<String, Object>)Json.parse(text(out));
        final Map<?, ?> fit = (Map<?, ?>)((List<?>)root.get("fits")).get(0);
        assertEquals(3, ((List<?>)fit.get("point_to_point")).size());
        final Map<?, ?> first = (Map<?, ?>)((List<?>)fit.get("point_to_point")).get(0);
        assertTrue(((Number)first.get("alpha_ci95_us")).doubleValue() > 0);
        final List<?> series = (List<?>)fit.get("series");
        assertEquals(1 + 2 * SyntheticResults.SWEEP.values().stream().mapToInt(List::size).sum(), series.size());
        final Map<?, ?> point = (Map<?, ?>)((List<?>)((Map<?, ?>)series.get(1)).get("points")).get(0);
        assertTrue(point.containsKey("measured_us") && point.containsKey("predicted_us") && point.containsKey("error"));
        assertEquals("private", ((Map<?, ?>)series.get(1)).get("memory"));
        assertEquals(List.of("broadcast"), fit.get("predicted_only"));
        final List<?> estimates = (List<?>)fit.get("estimates");
        assertTrue(estimates.stream().anyMatch(e -> "gamma_m".equals(((Map<?, ?>)e).get("parameter"))));
        assertTrue(estimates.stream().anyMatch(e -> "sigma_f".equals(((Map<?, ?>)e).get("parameter"))));
        final Map<?, ?> model = (Map<?, ?>)fit.get("model");
        assertTrue(model.containsKey("flag_sync_oversubscribed_us"), model.toString());
        assertTrue(((Map<?, ?>)((List<?>)model.get("regimes")).get(0)).containsKey("reduce_memory_ns_per_byte"));
    }

    /** Three runs of one sweep: each point is fitted once, at the median of its three times. */
    @Test
    void severalFilesAreRunsAndEachPointTheirMedian() throws Exception
    {
        final String header = "collective,algorithm,ranks,bytes,dtype,avg_us,min_us,max_us,iters,algbw_GBps," +
            "busbw_GBps,wrong\n";
        final double[][] runs = {{1.0, 2.0, 3.0}, {1.2, 9.0, 2.9}, {50.0, 2.1, 3.1}};
        final long[] sizes = {1024, 4096, 16384};
        final String[] args = new String[runs.length + 2];
        for (int r = 0; r < runs.length; r++)
        {
            final StringBuilder csv = new StringBuilder(header);
            for (int i = 0; i < sizes.length; i++)
            {
                csv.append("pingpong,p2p,2,").append(sizes[i]).append(",float32,").append(runs[r][i])
                    .append(",0,0,1,0,0,\n");
            }
            final Path run = directory.resolve("run" + r + ".csv");
            Files.writeString(run, csv);
            args[r] = run.toString();
        }
        args[runs.length] = "--format";
        args[runs.length + 1] = "json";
        assertEquals(0, command.run(args));
        @SuppressWarnings("unchecked")
        final Map<String, Object> root = (Map<String, Object>)Json.parse(text(out));
        final List<?> fits = (List<?>)root.get("fits");
        assertEquals(1, fits.size(), "rows that name no source are the first file's, not one source per file");
        final Map<?, ?> fit = (Map<?, ?>)fits.get(0);
        assertEquals("run0", fit.get("source"));
        final List<?> points = (List<?>)((Map<?, ?>)((List<?>)fit.get("series")).get(0)).get("points");
        assertEquals(3, points.size());
        final double[] medians = {1.2, 2.1, 3.0};
        for (int i = 0; i < medians.length; i++)
        {
            assertEquals(medians[i], ((Number)((Map<?, ?>)points.get(i)).get("measured_us")).doubleValue(), 1e-9);
        }
    }

    /**
     * --pace fits the rows of one pace alone: a run at the fast pace (probe 0.1 µs) and the same run three times as
     * slow at the slow one (0.3 µs) fit with --pace fast as the fast run alone does; --probe-max and --pace exclude
     * each other.
     */
    @Test
    void paceFitsTheRowsOfOnePaceAlone() throws Exception
    {
        final String run = Files.readString(SyntheticData.write(directory.resolve("run.csv"), 0.02, 35));
        final Path fast = Files.writeString(directory.resolve("fast.csv"), atPace(run, 1, 0.1));
        final Path slow = Files.writeString(directory.resolve("slow.csv"), atPace(run, 3, 0.3));
        assertEquals(0, command.run(new String[] {"--format", "json", fast.toString(), slow.toString(), "--pace",
            "fast"}));
        final Object paced = ((Map<?, ?>)Json.parse(text(out))).get("fits");
        assertTrue(text(err).contains("fitting the fast pace's rows"), text(err));
        out.reset();
        err.reset();
        assertEquals(0, command.run(new String[] {"--format", "json", fast.toString()}));
        assertEquals(((Map<?, ?>)Json.parse(text(out))).get("fits"), paced);
        assertFalse(text(err).contains("two paces"), text(err));
        assertEquals(0, command.run(new String[] {fast.toString(), slow.toString()}));
        assertTrue(text(err).contains("the probes show two paces (2 ranks, the probe at 0.100 µs"), text(err));
        assertTrue(text(err).contains("--pace fast or --pace slow"), text(err));
        assertThrows(UsageException.class, () -> command.run(new String[] {fast.toString(), "--pace", "fast",
            "--probe-max", "0.2"}));
        assertThrows(UsageException.class, () -> command.run(new String[] {fast.toString(), "--pace", "quick"}));
    }

    /** The bench CSV {@code run} with every time multiplied by {@code factor} and a probe_us column of {@code probe}. */
    private static String atPace(final String run, final double factor, final double probe)
    {
        final StringBuilder csv = new StringBuilder();
        for (final String line : run.split("\n"))
        {
            if (line.startsWith("collective,"))
            {
                csv.append(line).append(",probe_us\n");
                continue;
            }
            final String[] cells = line.split(",", -1);
            cells[5] = String.valueOf(factor * Double.parseDouble(cells[5]));
            csv.append(String.join(",", cells)).append(',').append(probe).append('\n');
        }
        return csv.toString();
    }

    @Test
    void plotsSvgAndPng() throws Exception
    {
        final Path results = SyntheticData.write(directory.resolve("results.csv"), 0.02, 33);
        final Path svg = directory.resolve("plots/fit.svg");
        final Path png = directory.resolve("plots/fit.png");
        assertEquals(0, command.run(new String[] {"--plot", svg.toString(), results.toString(), "--plot",
            png.toString()}));

        final String svgText = Files.readString(svg);
        assertTrue(svgText.startsWith("<svg xmlns=\"http://www.w3.org/2000/svg\""), svgText.substring(0, 80));
        assertTrue(svgText.contains(">allreduce, 4 ranks</text>"));
        assertTrue(svgText.contains(">message size (bytes, log scale)</text>"));
        assertTrue(svgText.contains("<polyline"));
        assertTrue(svgText.trim().endsWith("</svg>"));

        final BufferedImage image = ImageIO.read(png.toFile());
        // 9 panels (pingpong, then 4 collectives × 2 rank counts) in 2 columns
        assertEquals((int)Math.ceil(2 * 580 * 1.5), image.getWidth());
        assertEquals((int)Math.ceil((52 + 5 * 400) * 1.5), image.getHeight());
        assertTrue(text(err).contains("wrote " + png), text(err));
    }

    /** A regime's label on the plot: its α, or where α is a negative intercept, its time where it starts. */
    @Test
    void regimeLabelsNeverShowANegativeLatency()
    {
        assertEquals("α 0.262 µs, 4.00 GB/s", FitPlot.regimeLabel(new Regime(0, 0.262, 0.00025, 0, 0)));
        // 16 MiB at 0.15 ns/B after an intercept of -1230 µs: 1286.6 µs where the regime starts
        assertEquals("16 MiB in 1.29 ms, 6.67 GB/s",
            FitPlot.regimeLabel(new Regime(16L << 20, -1230, 0.00015, 0, 0)));
    }

    /** Without system fonts the PNG's text comes from the built-in font: the title row is drawn either way. */
    @Test
    void pngTextWithTheBuiltInFont() throws Exception
    {
        final Path results = SyntheticData.write(directory.resolve("results.csv"), 0.02, 34);
        final List<ModelFitter.Result> fits = FitCommand.fit(List.of(results), 4L << 20, SyntheticResults.CORES, 0, null,
            new PrintStream(err, true, StandardCharsets.UTF_8));
        final BufferedImage image = FitPlot.png("results.csv", fits, 4L << 20, true);
        ImageIO.write(image, "png", directory.resolve("bitmap.png").toFile());
        // the heading "jccl fit: results.csv" sits in the top left: dark pixels there, none in the top right
        assertTrue(darkPixels(image, 20, 20, 200, 30) > 100);
        assertEquals(0, darkPixels(image, image.getWidth() - 300, 0, 280, 60));
    }

    private static int darkPixels(final BufferedImage image, final int x0, final int y0, final int w, final int h)
    {
        int dark = 0;
        for (int y = y0; y < y0 + h; y++)
        {
            for (int x = x0; x < x0 + w; x++)
            {
                dark += (image.getRGB(x, y) & 0xff) < 100 ? 1 : 0;
            }
        }
        return dark;
    }

    @Test
    void misuseIsAUsageError()
    {
        assertThrows(UsageException.class, () -> command.run(new String[0]));
        assertThrows(UsageException.class, () -> command.run(new String[] {"a.csv", "b.csv"}));
        assertThrows(UsageException.class, () -> command.run(new String[] {"--plot", "x.gif", "a.csv"}));
        assertThrows(UsageException.class, () -> command.run(new String[] {"--format", "xml", "a.csv"}));
        assertEquals("no such file: " + directory.resolve("none.csv"), assertThrows(UsageException.class,
            () -> command.run(new String[] {directory.resolve("none.csv").toString()})).getMessage());
        assertEquals("not a regular file: " + directory, assertThrows(UsageException.class,
            () -> command.run(new String[] {directory.toString()})).getMessage());
    }

    private static String text(final ByteArrayOutputStream bytes)
    {
        return bytes.toString(StandardCharsets.UTF_8);
    }
}
