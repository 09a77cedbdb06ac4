package io.jccl.tools.fit;

import io.jccl.model.Json;
import io.jccl.model.ModelParameters;
import io.jccl.model.Parameter;
import io.jccl.model.Regime;

import java.io.PrintStream;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/** Prints fit results as tables for people or as JSON for programs. */
public final class FitReport
{
    private static final double NS_PER_US = 1000.0;

    private FitReport()
    {
    }

    /**
     * The tables: point-to-point regimes, γ, the steps' σ and σ_o, shared-memory parameters, then every series and a
     * summary.
     */
    public static void printTable(final PrintStream out, final ModelFitter.Result result)
    {
        out.println("== " + result.source());
        out.println();
        printPointToPoint(out, result);
        printDisturbed(out, result);
        printGamma(out, result);
        printSteps(out, result);
        printSharedMemory(out, result);
        if (!result.predictedOnly().isEmpty())
        {
            out.println("predicted, not fitted: " + String.join(", ", result.predictedOnly()) + " (timed back to " +
                "back, a root that does not wait for its leaves, or a scan's rank that waits only for the ranks below " +
                "it, pipelines its calls, so the rows measure a stream's rate, not the latency of one call the " +
                "formulas price; zero-copy paths on shared buffers and bench --sync rows are fitted)");
            out.println();
        }
        for (final ModelFitter.Series series : result.series())
        {
            printSeries(out, series, result.disturbed());
        }
        out.println("summary: R² of log T and median |error| of each series");
        final int width = result.series().stream().mapToInt(s -> s.key().label().length()).max().orElse(6);
        final String row = "  %-" + width + "s %6s %8s %14s%n";
        out.printf(Locale.ROOT, row, "series", "points", "R²", "median |err|");
        for (final ModelFitter.Series series : result.series())
        {
            out.printf(Locale.ROOT, row, series.key().label(), series.points().size(), r2Text(series.r2()),
                String.format(Locale.ROOT, "%.1f %%", 100 * series.medianError()));
        }
        if (!result.unmodelled().isEmpty())
        {
            out.println("  no formula for: " + String.join(", ", result.unmodelled()));
        }
        out.println();
    }

    private static void printPointToPoint(final PrintStream out, final ModelFitter.Result result)
    {
        final PiecewiseFit.Result p2p = result.pointToPoint();
        if (p2p == null)
        {
            out.println("point-to-point: " + result.alphaBetaOrigin());
            for (final Regime r : result.parameters().regimes())
            {
                out.printf(Locale.ROOT, "  from %s: alpha %s us, beta %s ns/B (%s GB/s)%n", Units.bytes(r.fromBytes()),
                    Units.number(r.alpha()), Units.number(r.beta() * NS_PER_US),
                    Units.number(Units.gigabytesPerSecond(r.beta())));
            }
            out.println();
            return;
        }
        final List<PiecewiseFit.Segment> segments = p2p.segments();
        out.println("point-to-point, one way (" + result.alphaBetaOrigin() + "): T = alpha + m·beta, " +
            segments.size() + (segments.size() == 1 ? " regime" : " regimes") + breakpointsText(segments));
        out.printf(Locale.ROOT, "  %-19s %6s %22s %24s %8s %7s %12s%n", "regime", "points", "alpha us (95% CI)",
            "beta ns/B (95% CI)", "GB/s", "R²", "median |err|");
        for (int r = 0; r < segments.size(); r++)
        {
            final PiecewiseFit.Segment s = segments.get(r);
            final String range = Units.bytes(s.fromBytes()) + " - " + (r + 1 < segments.size() ?
                Units.bytes(segments.get(r + 1).fromBytes()) : "");
            out.printf(Locale.ROOT, "  %-19s %6d %22s %24s %8s %7s %10.1f %%%n", range, s.points(),
                Units.number(s.alpha()) + " ± " + Units.number(s.ci95Factor() * s.alphaError()),
                Units.number(s.beta() * NS_PER_US) + " ± " + Units.number(s.ci95Factor() * s.betaError() * NS_PER_US),
                Units.number(Units.gigabytesPerSecond(s.beta())), r2Text(s.r2()), 100 * s.medianError());
        }
        final StringBuilder bic = new StringBuilder();
        for (int k = 0; k < p2p.bic().length; k++)
        {
            bic.append(k == 0 ? "" : ", ").append(k + 1).append(": ")
                .append(Double.isNaN(p2p.bic()[k]) ? "-" : String.format(Locale.ROOT, "%.1f", p2p.bic()[k]));
        }
        out.println("  regimes chosen by BIC (lower is better): " + bic);
        out.println();
    }

    /** The rows the fit left out as disturbed, one line each. */
    private static void printDisturbed(final PrintStream out, final ModelFitter.Result result)
    {
        if (result.disturbed().isEmpty())
        {
            return;
        }
        out.printf(Locale.ROOT, "left out of the fit: %d %s more than %.0f times as long as the next larger sizes " +
            "of %s series (measured while the machine was disturbed; predicted below like every row):%n",
            result.disturbed().size(), result.disturbed().size() == 1 ? "row that took" : "rows that took",
            ModelFitter.DISTURBED_RATIO, result.disturbed().size() == 1 ? "its" : "their");
        for (final Measurement m : result.disturbed())
        {
            out.printf(Locale.ROOT, "  %s, %s: %s us%n", m.series().label(), Units.bytes(m.bytes()),
                Units.number(m.micros()));
        }
        out.println();
    }

    private static String breakpointsText(final List<PiecewiseFit.Segment> segments)
    {
        if (segments.size() < 2)
        {
            return "";
        }
        final List<String> points = new ArrayList<>();
        for (int r = 1; r < segments.size(); r++)
        {
            points.add(Units.bytes(segments.get(r).fromBytes()) + " (between " +
                Units.bytes(segments.get(r - 1).lastBytes()) + " and " + Units.bytes(segments.get(r).firstBytes()) +
                ")");
        }
        return ", breakpoints at " + String.join(", ", points);
    }

    private static void printGamma(final PrintStream out, final ModelFitter.Result result)
    {
        final List<ModelFitter.Estimate> gammas = result.estimates().stream()
            .filter(e -> e.parameter() == Parameter.GAMMA).toList();
        if (gammas.isEmpty())
        {
            out.printf(Locale.ROOT, "reduction gamma: no reduction rows, shipped %s ns/B%n",
                Units.number(result.parameters().gammas().get(ModelParameters.DEFAULT_GAMMA_KEY) * NS_PER_US));
            out.println();
            return;
        }
        out.println("reduction gamma, per byte of one operand (from the rows that reduce, alpha and beta held):");
        for (final ModelFitter.Estimate e : gammas)
        {
            out.printf(Locale.ROOT, "  %-16s %s ± %s ns/B  (%s GB/s)  from %d rows%s%n", e.gammaKey(),
                Units.number(e.value() * NS_PER_US), Units.number(e.ci95() * NS_PER_US),
                Units.number(Units.gigabytesPerSecond(e.value())), e.rows(), e.value() == 0 ? "  (fixed at 0: " +
                "the fit wanted it negative)" : "");
        }
        // γ_m is shared by every datatype; the rate it gives is shown for the γ of most rows (the default's)
        final ModelFitter.Estimate main = gammas.stream().max(Comparator.comparingInt(ModelFitter.Estimate::rows))
            .orElseThrow();
        for (final ModelFitter.Estimate e : result.estimates())
        {
            if (e.parameter() == Parameter.REDUCE_MEMORY)
            {
                out.printf(Locale.ROOT, "  %-16s %s ± %s ns/B  added from %s, every datatype (%s: %s GB/s)  from %d " +
                    "rows%s%n", "+ " + e.parameter().symbol(), Units.number(e.value() * NS_PER_US),
                    Units.number(e.ci95() * NS_PER_US),
                    Units.bytes(result.parameters().regimes().get(e.regime()).fromBytes()), main.gammaKey(),
                    Units.number(Units.gigabytesPerSecond(main.value() + e.value())), e.rows(),
                    e.value() == 0 ? "  (fixed at 0)" : "");
            }
        }
        out.println();
    }

    private static void printSteps(final PrintStream out, final ModelFitter.Result result)
    {
        final List<ModelFitter.Estimate> steps = result.estimates().stream()
            .filter(e -> e.parameter() == Parameter.SYNC || e.parameter() == Parameter.SYNC_OVERSUBSCRIBED ||
                e.parameter() == Parameter.CALL_OVERSUBSCRIBED || e.parameter() == Parameter.NU).toList();
        if (steps.isEmpty())
        {
            return;
        }
        out.println("a collective's steps, from the message-passing rows, on " + result.cores() + " cores:");
        for (final ModelFitter.Estimate e : steps)
        {
            final String what = switch (e.parameter())
            {
                case SYNC -> " us per step (message or flag) beyond a lone handoff, every rank with a core";
                case SYNC_OVERSUBSCRIBED -> " us per step and per rank sharing a core (p/c), ranks outnumbering cores";
                case CALL_OVERSUBSCRIBED -> " us per call and per rank sharing a core (p/c), ranks outnumbering cores";
                default -> " of a second core a lone message keeps busy, regime from " +
                    Units.bytes(result.parameters().regimes().get(e.regime()).fromBytes()) +
                    (e.value() > 1 ? " (above 1: messages at once slow each other more than the cores explain)" : "");
            };
            out.printf(Locale.ROOT, "  %-8s %s%s  (%d rows)%n", e.parameter().symbol(),
                Units.number(e.value()) + unc(e.ci95()), what, e.rows());
        }
        out.println();
    }

    private static void printSharedMemory(final PrintStream out, final ModelFitter.Result result)
    {
        final List<ModelFitter.Estimate> shared = result.estimates().stream()
            .filter(e -> e.parameter() == Parameter.FLAG || e.parameter() == Parameter.COPY ||
                e.parameter() == Parameter.READ || e.parameter() == Parameter.KERNEL_CALL ||
                e.parameter() == Parameter.KERNEL_READ || e.parameter() == Parameter.FLAG_SYNC_OVERSUBSCRIBED).toList();
        final boolean anyFitted = shared.stream().anyMatch(ModelFitter.Estimate::fitted);
        out.println("shared and local memory, reads through the kernel" + (anyFitted ? " (fitted to the rows whose " +
            "formulas use them: shm_* and Bruck; values without rows are priors)" : " (no rows use them: derived, " +
            "alpha_f = small-message alpha, beta_c = beta_r = beta/2, beta_k = 2 beta)") + ":");
        for (final ModelFitter.Estimate e : shared)
        {
            final String where = e.parameter() == Parameter.FLAG_SYNC_OVERSUBSCRIBED ? " per flag step × p/c" :
                !e.parameter().perRegime() ? "" :
                " regime from " + Units.bytes(result.parameters().regimes().get(e.regime()).fromBytes());
            final String value = e.parameter().perByte() ?
                Units.number(e.value() * NS_PER_US) + unc(e.ci95() * NS_PER_US) + " ns/B" :
                Units.number(e.value()) + unc(e.ci95()) + " us";
            out.printf(Locale.ROOT, "  %-8s%-24s %s%s%n", e.parameter().symbol(), where, value,
                e.fitted() ? "  (" + e.rows() + " rows)" : "");
        }
        out.println();
    }

    private static String unc(final double ci)
    {
        return Double.isFinite(ci) ? " ± " + Units.number(ci) : "";
    }

    private static void printSeries(final PrintStream out, final ModelFitter.Series series,
        final List<Measurement> disturbed)
    {
        out.printf(Locale.ROOT, "%s: R² %s, median |error| %.1f %%%n", series.key().label(), r2Text(series.r2()),
            100 * series.medianError());
        out.println("  formula: " + series.formula().text());
        out.printf(Locale.ROOT, "  %12s %14s %14s %9s%n", "bytes", "measured us", "predicted us", "error");
        for (final ModelFitter.Prediction p : series.points())
        {
            out.printf(Locale.ROOT, "  %12d %14s %14s %9s%s%n", p.measurement().bytes(),
                Units.number(p.measurement().micros()), Units.number(p.predicted()), Units.percent(p.error()),
                disturbed.contains(p.measurement()) ? "   left out of the fit: disturbed" : "");
        }
        out.println();
    }

    private static String r2Text(final double r2)
    {
        return Double.isNaN(r2) ? "-" : String.format(Locale.ROOT, "%.4f", r2);
    }

    /** The JSON form of the results of one file (one entry per source). */
    public static String json(final String file, final List<ModelFitter.Result> results)
    {
        final List<Object> fits = new ArrayList<>();
        for (final ModelFitter.Result result : results)
        {
            fits.add(json(result));
        }
        final Map<String, Object> root = new LinkedHashMap<>();
        root.put("file", file);
        root.put("fits", fits);
        return Json.write(root);
    }

    private static Map<String, Object> json(final ModelFitter.Result result)
    {
        final Map<String, Object> fit = new LinkedHashMap<>();
        fit.put("source", result.source());
        fit.put("alpha_beta_from", result.alphaBetaOrigin());
        fit.put("predicted_only", result.predictedOnly());
        fit.put("cores", result.cores());
        if (result.pointToPoint() != null)
        {
            final List<Object> regimes = new ArrayList<>();
            for (final PiecewiseFit.Segment s : result.pointToPoint().segments())
            {
                final Map<String, Object> r = new LinkedHashMap<>();
                r.put("from_bytes", s.fromBytes());
                r.put("first_measured_bytes", s.firstBytes());
                r.put("last_measured_bytes", s.lastBytes());
                r.put("points", s.points());
                r.put("alpha_us", s.alpha());
                r.put("alpha_stderr_us", finite(s.alphaError()));
                r.put("alpha_ci95_us", finite(s.ci95Factor() * s.alphaError()));
                r.put("beta_ns_per_byte", s.beta() * NS_PER_US);
                r.put("beta_stderr_ns_per_byte", finite(s.betaError() * NS_PER_US));
                r.put("beta_ci95_ns_per_byte", finite(s.ci95Factor() * s.betaError() * NS_PER_US));
                r.put("bandwidth_GBps", finite(Units.gigabytesPerSecond(s.beta())));
                r.put("r2", finite(s.r2()));
                r.put("median_abs_error", s.medianError());
                regimes.add(r);
            }
            fit.put("point_to_point", regimes);
        }
        final List<Object> estimates = new ArrayList<>();
        for (final ModelFitter.Estimate e : result.estimates())
        {
            final Map<String, Object> m = new LinkedHashMap<>();
            m.put("parameter", e.parameter().symbol());
            if (e.parameter().perRegime())
            {
                m.put("regime_from_bytes", result.parameters().regimes().get(e.regime()).fromBytes());
            }
            if (e.gammaKey() != null)
            {
                m.put("key", e.gammaKey());
            }
            final double scale = e.parameter().perByte() ? NS_PER_US : 1;
            m.put("unit", e.parameter().perByte() ? "ns/B" : e.parameter().unit());
            m.put("value", e.value() * scale);
            m.put("stderr", finite(e.error() * scale));
            m.put("ci95", finite(e.ci95() * scale));
            m.put("rows", e.rows());
            m.put("fitted", e.fitted());
            estimates.add(m);
        }
        fit.put("estimates", estimates);
        fit.put("model", result.parameters().toJson());
        final List<Object> series = new ArrayList<>();
        for (final ModelFitter.Series s : result.series())
        {
            final Map<String, Object> m = new LinkedHashMap<>();
            m.put("collective", s.key().collective());
            m.put("algorithm", s.key().algorithm());
            m.put("algorithm_named", s.key().algorithmNamed());
            m.put("ranks", s.key().ranks());
            m.put("dtype", s.key().dtype());
            m.put("op", s.key().op());
            m.put("chunk_bytes", s.key().chunkBytes());
            m.put("memory", s.key().shared() ? "shared" : "private");
            m.put("timing", s.key().sync() ? "sync" : "back_to_back");
            m.put("formula", s.formula().text());
            m.put("r2", finite(s.r2()));
            m.put("median_abs_error", s.medianError());
            final List<Object> points = new ArrayList<>();
            for (final ModelFitter.Prediction p : s.points())
            {
                final Map<String, Object> point = new LinkedHashMap<>();
                point.put("bytes", p.measurement().bytes());
                point.put("measured_us", p.measurement().micros());
                point.put("predicted_us", p.predicted());
                point.put("error", p.error());
                point.put("disturbed", result.disturbed().contains(p.measurement()));
                points.add(point);
            }
            m.put("points", points);
            series.add(m);
        }
        fit.put("series", series);
        fit.put("unmodelled", result.unmodelled());
        return fit;
    }

    private static Object finite(final double value)
    {
        return Double.isFinite(value) ? value : null;
    }
}
