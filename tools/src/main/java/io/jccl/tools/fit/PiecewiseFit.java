package io.jccl.tools.fit;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Fits point-to-point time {@code T(m) = α_r + m·β_r}, piecewise over regimes r of message size, to measured points,
 * finding the breakpoints from the data. For every number of regimes K the best split is found by dynamic programming
 * over the candidate breakpoints (between consecutive measured sizes, each regime holding at least {@link #MIN_SIZES}
 * sizes), each regime fitted by least squares weighted by relative error ({@code w = 1/T²}). β is kept at 0 or above,
 * and so is the time where each regime starts (α of a regime far from 0 bytes may come out negative: it is the
 * intercept of a local line, not a latency; see {@link #fitRange}). K is chosen by the Bayesian information criterion
 * on the relative residuals (with the extra penalty change-point searches need: a breakpoint is chosen among many
 * candidates), with a noise floor of {@link #NOISE_FLOOR} so that splitting stops once the fit is as good as the
 * measurements, and lowered while two neighbouring regimes do not differ significantly in α or β (noise alone can make
 * such a split). A regime starts at the power of two nearest the geometric middle of the two sizes around its
 * breakpoint (protocol thresholds are powers of two).
 */
public final class PiecewiseFit
{
    /** Fewest distinct sizes a regime is fitted from: two parameters and one degree of freedom. */
    public static final int MIN_SIZES = 3;

    /**
     * Most regimes considered. A 2-rank pingpong on the 2-vCPU machine of 2026-11-24 has five, and BIC chose five in
     * each of three sweeps: messages of one or two lines, the ring, single copy within L2, single copy beyond it, and
     * DRAM from 8 MiB.
     */
    public static final int MAX_REGIMES = 5;

    /** Relative error below which a better fit is not worth another regime (timer noise and jitter). */
    public static final double NOISE_FLOOR = 0.01;

    /**
     * One fitted regime.
     *
     * @param fromBytes    where the regime starts (0 for the first).
     * @param firstBytes   smallest measured size in it.
     * @param lastBytes    largest measured size in it.
     * @param points       points fitted.
     * @param alpha        α, µs.
     * @param beta         β, µs/B.
     * @param alphaError   standard error of α.
     * @param betaError    standard error of β.
     * @param ci95Factor   Student t quantile: the 95 % interval is ± factor × standard error.
     * @param r2           R² of log T ({@link #logR2}).
     * @param medianError  median |predicted − measured| / measured.
     * @param rss          weighted residual sum of squares.
     * @param dof          degrees of freedom of the regime's fit.
     */
    public record Segment(
        long fromBytes, long firstBytes, long lastBytes, int points, double alpha, double beta, double alphaError,
        double betaError, double ci95Factor, double r2, double medianError, double rss, int dof)
    {
        public double predict(final double bytes)
        {
            return alpha + beta * bytes;
        }
    }

    /**
     * The chosen fit.
     *
     * @param segments the regimes, by size.
     * @param bic      the criterion for 1, 2, ... regimes (NaN where that many did not fit the data).
     */
    public record Result(List<Segment> segments, double[] bic)
    {
        /** Index of the segment a size belongs to. */
        public int segmentOf(final double bytes)
        {
            int index = 0;
            while (index + 1 < segments.size() && bytes >= segments.get(index + 1).fromBytes())
            {
                index++;
            }
            return index;
        }
    }

    private final long[] sizes;
    private final int[] groupStart;
    private final double[] bytes;
    private final double[] micros;

    private PiecewiseFit(final double[] bytes, final double[] micros)
    {
        this.bytes = bytes;
        this.micros = micros;
        final List<Integer> starts = new ArrayList<>();
        for (int i = 0; i < bytes.length; i++)
        {
            if (i == 0 || bytes[i] != bytes[i - 1])
            {
                starts.add(i);
            }
        }
        starts.add(bytes.length);
        this.groupStart = starts.stream().mapToInt(Integer::intValue).toArray();
        this.sizes = new long[groupStart.length - 1];
        for (int g = 0; g < sizes.length; g++)
        {
            sizes[g] = (long)bytes[groupStart[g]];
        }
    }

    /**
     * Fits points given as sizes and times (any order, repeated sizes allowed).
     *
     * @param regimes how many regimes to fit, or 0 to choose by the criterion.
     */
    public static Result fit(final double[] pointBytes, final double[] pointMicros, final int regimes)
    {
        final Integer[] order = new Integer[pointBytes.length];
        for (int i = 0; i < order.length; i++)
        {
            order[i] = i;
        }
        Arrays.sort(order, (x, y) -> Double.compare(pointBytes[x], pointBytes[y]));
        final double[] b = new double[order.length];
        final double[] t = new double[order.length];
        for (int i = 0; i < order.length; i++)
        {
            b[i] = pointBytes[order[i]];
            t[i] = pointMicros[order[i]];
        }
        return new PiecewiseFit(b, t).fit(regimes);
    }

    private Result fit(final int forcedRegimes)
    {
        final int groups = sizes.length;
        if (groups < 2)
        {
            throw new IllegalArgumentException("point-to-point fit needs at least 2 sizes, the data has " + groups);
        }
        final int maxRegimes = Math.max(1, Math.min(MAX_REGIMES, groups / MIN_SIZES));
        if (forcedRegimes > maxRegimes)
        {
            throw new IllegalArgumentException(forcedRegimes + " regimes need at least " + forcedRegimes * MIN_SIZES +
                " sizes, the data has " + groups);
        }
        // cost[i][j]: weighted residual sum of squares of one regime over size groups i..j
        final double[][] cost = new double[groups][groups];
        for (final double[] row : cost)
        {
            Arrays.fill(row, Double.POSITIVE_INFINITY);
        }
        for (int i = 0; i < groups; i++)
        {
            for (int j = i + Math.min(MIN_SIZES, groups) - 1; j < groups; j++)
            {
                cost[i][j] = fitRange(i, j).rss();
            }
        }
        // best[k][j]: least cost of k + 1 regimes over groups 0..j; from[k][j]: first group of the last regime
        final double[][] best = new double[maxRegimes][groups];
        final int[][] from = new int[maxRegimes][groups];
        for (int j = 0; j < groups; j++)
        {
            best[0][j] = cost[0][j];
        }
        for (int k = 1; k < maxRegimes; k++)
        {
            for (int j = 0; j < groups; j++)
            {
                best[k][j] = Double.POSITIVE_INFINITY;
                for (int i = 1; i <= j; i++)
                {
                    final double candidate = best[k - 1][i - 1] + cost[i][j];
                    if (candidate < best[k][j])
                    {
                        best[k][j] = candidate;
                        from[k][j] = i;
                    }
                }
            }
        }
        // choose K: least N·ln(max(RSS/N, floor²)) + (3K − 1)·ln N + (K − 1)·ln(G − 1), BIC with the extra
        // penalty of change-point searches (each breakpoint is the best of G − 1 candidates, which makes noise look
        // like a regime more often than one fixed extra parameter would)
        final int n = bytes.length;
        final double[] bic = new double[maxRegimes];
        int chosen = forcedRegimes > 0 ? forcedRegimes - 1 : 0;
        for (int k = 0; k < maxRegimes; k++)
        {
            final double rss = best[k][groups - 1];
            bic[k] = Double.isInfinite(rss) ? Double.NaN :
                n * Math.log(Math.max(rss / n, NOISE_FLOOR * NOISE_FLOOR)) + (3.0 * (k + 1) - 1) * Math.log(n) +
                k * Math.log(Math.max(2, groups - 1));
            if (forcedRegimes == 0 && !Double.isNaN(bic[k]) && bic[k] < bic[chosen])
            {
                chosen = k;
            }
        }
        // walk back the chosen split; while two neighbouring regimes do not differ significantly, take one fewer
        List<Segment> segments = split(chosen, from);
        while (forcedRegimes == 0 && chosen > 0 && !allDistinct(segments))
        {
            chosen--;
            segments = split(chosen, from);
        }
        return new Result(List.copyOf(segments), bic);
    }

    private List<Segment> split(final int lastRegime, final int[][] from)
    {
        final int groups = sizes.length;
        final int[] firstGroups = new int[lastRegime + 1];
        int end = groups - 1;
        for (int k = lastRegime; k >= 0; k--)
        {
            firstGroups[k] = k == 0 ? 0 : from[k][end];
            end = firstGroups[k] - 1;
        }
        final List<Segment> segments = new ArrayList<>();
        for (int k = 0; k <= lastRegime; k++)
        {
            final int first = firstGroups[k];
            final int last = k == lastRegime ? groups - 1 : firstGroups[k + 1] - 1;
            segments.add(segment(regimeStart(first), first, last));
        }
        return segments;
    }

    /**
     * True when every two neighbouring regimes differ in α or β by more than the 95 % interval of the difference.
     * The standard errors use the noise of the whole fit, not each regime's own: the split that fits best is also
     * the one whose regimes happen to have the smallest residuals, so their own would make noise look like a regime.
     */
    private static boolean allDistinct(final List<Segment> segments)
    {
        double rss = 0;
        int dof = 0;
        for (final Segment s : segments)
        {
            rss += s.rss();
            dof += s.dof();
        }
        if (dof < 1)
        {
            return true;
        }
        final double pooled = rss / dof;
        final double t = WeightedLeastSquares.t95(dof);
        for (int i = 1; i < segments.size(); i++)
        {
            final Segment a = segments.get(i - 1);
            final Segment b = segments.get(i);
            final double scaleA = a.dof() > 0 && a.rss() > 0 ? Math.sqrt(pooled / (a.rss() / a.dof())) : Double.NaN;
            final double scaleB = b.dof() > 0 && b.rss() > 0 ? Math.sqrt(pooled / (b.rss() / b.dof())) : Double.NaN;
            if (!differ(a.alpha() - b.alpha(), t * Math.hypot(scaleA * a.alphaError(), scaleB * b.alphaError())) &&
                !differ(a.beta() - b.beta(), t * Math.hypot(scaleA * a.betaError(), scaleB * b.betaError())))
            {
                return false;
            }
        }
        return true;
    }

    private static boolean differ(final double difference, final double interval)
    {
        return !(interval >= 0) || Math.abs(difference) > interval;
    }

    /** The power of two nearest the geometric middle of {@code below} and {@code above}, within (below, above]. */
    static long boundary(final long below, final long above)
    {
        final double middle = (log2(Math.max(1, below)) + log2(above)) / 2;
        final long power = 1L << Math.round(middle);
        return Math.min(above, Math.max(below + 1, power));
    }

    private static double log2(final double x)
    {
        return Math.log(x) / Math.log(2);
    }

    /**
     * Fits one regime as {@code T = a + (m − m₀)·β} with a and β at least 0, m₀ being where the regime starts: the
     * time is kept non-negative over the regime, not at 0 bytes. A regime far from 0 bytes whose bandwidth falls as
     * the data outgrows a cache (single copy from 512 KiB to 8 MiB on the machines here: 25 GB/s, then 15) is a line
     * steeper than its chord from the origin, with a negative intercept; α ≥ 0 would bend it to the chord and miss
     * by 20 %.
     */
    private Fitted fitRange(final int firstGroup, final int lastGroup)
    {
        final double origin = regimeStart(firstGroup);
        final int start = groupStart[firstGroup];
        final int end = groupStart[lastGroup + 1];
        final double[][] a = new double[end - start][];
        final double[] y = new double[end - start];
        final double[] w = new double[end - start];
        for (int i = start; i < end; i++)
        {
            a[i - start] = new double[] {1, bytes[i] - origin};
            y[i - start] = micros[i];
            w[i - start] = 1 / (micros[i] * micros[i]);
        }
        return new Fitted(WeightedLeastSquares.solveNonNegative(a, y, w), origin);
    }

    /** Where the regime whose first size group is {@code firstGroup} starts, in bytes. */
    private long regimeStart(final int firstGroup)
    {
        return firstGroup == 0 ? 0 : boundary(sizes[firstGroup - 1], sizes[firstGroup]);
    }

    /** A regime's fit about its start m₀: α = a − m₀·β, with the covariance of a and β carried over to α. */
    private record Fitted(WeightedLeastSquares.Solution solution, double origin)
    {
        double alpha()
        {
            return solution.x()[0] - origin * beta();
        }

        double beta()
        {
            return solution.x()[1];
        }

        double alphaError()
        {
            final double[][] c = solution.covariance();
            return Math.sqrt(Math.max(0, c[0][0] + origin * origin * c[1][1] - 2 * origin * c[0][1]));
        }

        double rss()
        {
            return solution.rss();
        }
    }

    private Segment segment(final long fromBytes, final int firstGroup, final int lastGroup)
    {
        final Fitted fitted = fitRange(firstGroup, lastGroup);
        final double alpha = fitted.alpha();
        final double beta = fitted.beta();
        final int start = groupStart[firstGroup];
        final int end = groupStart[lastGroup + 1];
        final double[] errors = new double[end - start];
        final double[] measured = Arrays.copyOfRange(micros, start, end);
        final double[] predicted = new double[end - start];
        for (int i = start; i < end; i++)
        {
            predicted[i - start] = alpha + beta * bytes[i];
            errors[i - start] = Math.abs(predicted[i - start] - micros[i]) / micros[i];
        }
        final double r2 = logR2(measured, predicted);
        final WeightedLeastSquares.Solution solution = fitted.solution();
        return new Segment(fromBytes, sizes[firstGroup], sizes[lastGroup], end - start, alpha, beta,
            fitted.alphaError(), solution.standardError(1), WeightedLeastSquares.t95(solution.dof()), r2,
            median(errors), solution.rss(), solution.dof());
    }

    /**
     * R² on the scale the fit works in: of log T, {@code 1 − Σ ln²(predicted/measured) / Σ (ln measured − mean)²}.
     * A least-squares fit weighted by relative error (w = 1/T²) minimises Σ((predicted − T)/T)², which is the
     * numerator to second order; the denominator is the spread of the points on the log-log plot. 1 when the points do
     * not spread (every time equal), NaN without points.
     */
    public static double logR2(final double[] measured, final double[] predicted)
    {
        if (measured.length == 0)
        {
            return Double.NaN;
        }
        double mean = 0;
        for (final double t : measured)
        {
            mean += Math.log(t);
        }
        mean /= measured.length;
        double residual = 0;
        double total = 0;
        for (int i = 0; i < measured.length; i++)
        {
            final double logT = Math.log(measured[i]);
            final double miss = Math.log(Math.max(predicted[i], Double.MIN_NORMAL)) - logT;
            residual += miss * miss;
            total += (logT - mean) * (logT - mean);
        }
        return total > 0 ? 1 - residual / total : 1;
    }

    /** Median of the values (the array is sorted in place). */
    public static double median(final double[] values)
    {
        if (values.length == 0)
        {
            return Double.NaN;
        }
        Arrays.sort(values);
        final int middle = values.length / 2;
        return values.length % 2 == 1 ? values[middle] : (values[middle - 1] + values[middle]) / 2;
    }
}
