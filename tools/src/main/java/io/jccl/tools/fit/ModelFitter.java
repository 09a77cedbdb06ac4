package io.jccl.tools.fit;

import io.jccl.model.CostFormula;
import io.jccl.model.CostFormulas;
import io.jccl.model.CostModel;
import io.jccl.model.CostTerms;
import io.jccl.model.ModelParameters;
import io.jccl.model.Parameter;
import io.jccl.model.Regime;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;

/**
 * Fits the cost model to the measurements of one source, in three stages, each a least-squares fit weighted by
 * relative error ({@code w = 1/T²}):
 * <ol>
 *   <li>α and β per regime from the pingpong rows, breakpoints found from the data ({@link PiecewiseFit}). Without
 *       pingpong rows, one regime's α and β from the collectives that only move messages;</li>
 *   <li>γ per datatype and operator from the rows whose formula reduces and sends messages only (message-passing
 *       reduce, allreduce, reduce_scatter, and local {@code reduction} kernel rows), α and β held at stage 1's
 *       values;</li>
 *   <li>the shared-memory parameters α_f, β_c and β_r per regime (and γ where stage 2 had no rows) from the rows
 *       whose formula uses them, jointly. Each is drawn weakly towards a prior so that parameters the data does not
 *       determine keep a sensible value: α_f towards the small-message α, β_c and β_r towards half the regime's β (a
 *       point-to-point message is one copy in and one copy out), γ towards the shipped value. Parameters that come
 *       out negative are fixed at 0 and the rest refitted.</li>
 * </ol>
 * Every measurement with a formula is then predicted with the fitted parameters.
 */
public final class ModelFitter
{
    /** Weight of a prior, as a fraction of one measurement's weight at the same relative error. */
    static final double PRIOR_WEIGHT = 1e-3;

    private final CostModel shapes;
    private final ModelParameters start;
    private final long stagingBytes;

    /**
     * One fitted value with its standard error.
     *
     * @param parameter which parameter.
     * @param regime    its regime (0 for α_f and γ).
     * @param gammaKey  "float32:sum" for γ, else null.
     * @param value     the estimate (µs or µs/B).
     * @param error     its standard error (NaN when the fit has no degree of freedom).
     * @param ci95      half-width of its 95 % confidence interval.
     * @param rows      measurements that determined it.
     * @param fitted    false when it is a prior or derived value the data did not inform.
     */
    public record Estimate(
        Parameter parameter, int regime, String gammaKey, double value, double error, double ci95, int rows,
        boolean fitted)
    {
    }

    /** A measurement and the model's prediction of it. */
    public record Prediction(Measurement measurement, double predicted)
    {
        /** (predicted − measured) / measured. */
        public double error()
        {
            return (predicted - measurement.micros()) / measurement.micros();
        }
    }

    /**
     * The predictions of one series, with its weighted R² and median |error|.
     *
     * @param key         the series.
     * @param formula     the formula it was predicted with.
     * @param points      by size.
     * @param r2          1 − Σw·r² / Σw·(T − T̄w)², w = 1/T².
     * @param medianError median |relative error|.
     */
    public record Series(
        Measurement.SeriesKey key, CostFormula formula, List<Prediction> points, double r2, double medianError)
    {
    }

    /**
     * Everything the fit found for one source.
     *
     * @param source          whose measurements.
     * @param parameters      the fitted parameter set.
     * @param pointToPoint    the piecewise pingpong fit, or null when there were no pingpong rows.
     * @param alphaBetaOrigin how α and β were obtained, in words.
     * @param estimates       every parameter with its error, in the order α, β per regime, γ, shared memory.
     * @param series          every predicted series.
     * @param unmodelled      series without a formula ("allreduce:foo").
     */
    public record Result(
        String source, ModelParameters parameters, PiecewiseFit.Result pointToPoint, String alphaBetaOrigin,
        List<Estimate> estimates, List<Series> series, List<String> unmodelled)
    {
        /** The predictions of every series, flattened. */
        public List<Prediction> predictions()
        {
            return series.stream().flatMap(s -> s.points().stream()).toList();
        }
    }

    /** A row's formula terms, copied out of the reusable {@link CostTerms}. */
    private record Row(Measurement measurement, double[][] coefficients, double flag, double gamma)
    {
        String gammaKey()
        {
            return ModelParameters.gammaKey(measurement.dtype(), measurement.op());
        }

        boolean usesSharedMemory()
        {
            boolean uses = flag > 0;
            for (final double[] regime : coefficients)
            {
                uses |= regime[Parameter.COPY.ordinal()] > 0 || regime[Parameter.READ.ordinal()] > 0;
            }
            return uses;
        }

        double coefficient(final Unknown unknown)
        {
            return switch (unknown.parameter())
            {
                case FLAG -> flag;
                case GAMMA -> gammaKey().equals(unknown.gammaKey()) ? gamma : 0;
                default -> coefficients[unknown.regime()][unknown.parameter().ordinal()];
            };
        }
    }

    private record Unknown(Parameter parameter, int regime, String gammaKey, double prior)
    {
    }

    /**
     * @param stagingBytes S, staging bytes per rank the measurements ran with (shared-memory formulas).
     */
    public ModelFitter(final long stagingBytes)
    {
        this.stagingBytes = stagingBytes;
        this.start = ModelParameters.shipped();
        this.shapes = new CostModel(start, stagingBytes);
    }

    /**
     * Fits the measurements of one source.
     *
     * @param regimes number of point-to-point regimes, or 0 to find it from the data.
     */
    public Result fit(final String source, final List<Measurement> measurements, final int regimes)
    {
        final List<Estimate> estimates = new ArrayList<>();
        final List<Measurement> pingpong = measurements.stream().filter(m -> "pingpong".equals(m.collective()))
            .toList();

        // stage 1: α and β per regime
        ModelParameters parameters;
        PiecewiseFit.Result p2p = null;
        String origin;
        if (pingpong.size() >= 2)
        {
            p2p = PiecewiseFit.fit(pingpong.stream().mapToDouble(Measurement::bytes).toArray(),
                pingpong.stream().mapToDouble(Measurement::micros).toArray(), regimes);
            parameters = fromPointToPoint(p2p);
            for (int r = 0; r < p2p.segments().size(); r++)
            {
                final PiecewiseFit.Segment s = p2p.segments().get(r);
                estimates.add(new Estimate(Parameter.ALPHA, r, null, s.alpha(), s.alphaError(),
                    s.ci95Factor() * s.alphaError(), s.points(), true));
                estimates.add(new Estimate(Parameter.BETA, r, null, s.beta(), s.betaError(),
                    s.ci95Factor() * s.betaError(), s.points(), true));
            }
            origin = "pingpong, " + pingpong.size() + " points";
        }
        else
        {
            final Regime shippedFirst = start.regimes().get(0);
            parameters = start.withRegimes(List.of(new Regime(0, shippedFirst.alpha(), shippedFirst.beta(),
                shippedFirst.copy(), shippedFirst.read())));
            final List<Row> messageRows = rows(parameters, measurements).stream()
                .filter(r -> r.gamma() == 0 && !r.usesSharedMemory() && !"pingpong".equals(r.measurement().collective()))
                .toList();
            if (messageRows.isEmpty())
            {
                origin = "shipped (no pingpong rows, no message-passing collectives)";
            }
            else
            {
                final List<Unknown> unknowns = List.of(new Unknown(Parameter.ALPHA, 0, null, shippedFirst.alpha()),
                    new Unknown(Parameter.BETA, 0, null, shippedFirst.beta()));
                final Joint joint = solve(parameters, messageRows, unknowns, true);
                parameters = joint.parameters();
                estimates.addAll(joint.estimates());
                origin = "one regime, from " + messageRows.size() + " message-passing collective rows (no pingpong)";
            }
        }
        final Regime first = parameters.regimes().get(0);
        parameters = new ModelParameters(derivedSharedMemory(parameters.regimes()), Math.max(0, first.alpha()),
            parameters.gammas());

        // stage 2: γ per datatype and operator from message-passing reductions
        final List<Row> all = rows(parameters, measurements);
        final TreeSet<String> gammaKeys = new TreeSet<>();
        for (final Row row : all)
        {
            if (row.gamma() > 0 && !row.usesSharedMemory())
            {
                gammaKeys.add(row.gammaKey());
            }
        }
        for (final String key : gammaKeys)
        {
            final List<Row> rows = all.stream()
                .filter(r -> r.gamma() > 0 && !r.usesSharedMemory() && r.gammaKey().equals(key)).toList();
            final Joint joint = solve(parameters, rows, List.of(
                new Unknown(Parameter.GAMMA, 0, key, parameters.defaultGamma())), false);
            parameters = joint.parameters();
            estimates.addAll(joint.estimates());
        }

        // stage 3: shared-memory parameters, and γ where only shared-memory rows reduce
        final List<Row> sharedRows = all.stream().filter(Row::usesSharedMemory).toList();
        if (!sharedRows.isEmpty())
        {
            final Joint joint = solve(parameters, sharedRows, sharedUnknowns(parameters, sharedRows, gammaKeys), true);
            parameters = joint.parameters();
            estimates.addAll(joint.estimates());
        }
        else
        {
            estimates.addAll(derivedEstimates(parameters));
        }
        parameters = withDefaultGamma(parameters, estimates);

        // predictions, series by series
        final Map<Measurement.SeriesKey, List<Prediction>> bySeries = new LinkedHashMap<>();
        final List<String> unmodelled = new ArrayList<>();
        final CostModel fitted = new CostModel(parameters, stagingBytes);
        for (final Measurement m : measurements)
        {
            final CostFormula formula = CostFormulas.find(m.collective(), m.algorithm());
            if (formula == null)
            {
                if (!unmodelled.contains(m.collective() + ":" + m.algorithm()))
                {
                    unmodelled.add(m.collective() + ":" + m.algorithm());
                }
                continue;
            }
            final double predicted = fitted.predict(m.collective(), m.algorithm(), m.ranks(), m.bytes(), m.dtype(),
                m.op(), m.chunkBytes());
            bySeries.computeIfAbsent(m.series(), k -> new ArrayList<>()).add(new Prediction(m, predicted));
        }
        final List<Series> series = new ArrayList<>();
        for (final Map.Entry<Measurement.SeriesKey, List<Prediction>> entry : bySeries.entrySet())
        {
            final List<Prediction> points = new ArrayList<>(entry.getValue());
            points.sort(Comparator.comparingLong(p -> p.measurement().bytes()));
            final Measurement.SeriesKey key = entry.getKey();
            series.add(new Series(key, CostFormulas.find(key.collective(), key.algorithm()), List.copyOf(points),
                r2(points), medianError(points)));
        }
        return new Result(source, parameters, p2p, origin, List.copyOf(estimates), List.copyOf(series),
            List.copyOf(unmodelled));
    }

    /** Regimes of the pingpong fit, with β_c and β_r derived (half of β each). */
    private ModelParameters fromPointToPoint(final PiecewiseFit.Result p2p)
    {
        final List<Regime> regimes = new ArrayList<>();
        for (final PiecewiseFit.Segment s : p2p.segments())
        {
            regimes.add(new Regime(s.fromBytes(), s.alpha(), s.beta(), s.beta() / 2, s.beta() / 2));
        }
        return start.withRegimes(regimes);
    }

    private static List<Regime> derivedSharedMemory(final List<Regime> regimes)
    {
        final List<Regime> derived = new ArrayList<>();
        for (final Regime r : regimes)
        {
            final double half = Math.max(0, r.beta()) / 2;
            derived.add(new Regime(r.fromBytes(), r.alpha(), r.beta(), half, half));
        }
        return derived;
    }

    private static List<Estimate> derivedEstimates(final ModelParameters parameters)
    {
        final List<Estimate> derived = new ArrayList<>();
        derived.add(new Estimate(Parameter.FLAG, 0, null, parameters.flag(), Double.NaN, Double.NaN, 0, false));
        for (int r = 0; r < parameters.regimeCount(); r++)
        {
            final Regime regime = parameters.regimes().get(r);
            derived.add(new Estimate(Parameter.COPY, r, null, regime.copy(), Double.NaN, Double.NaN, 0, false));
            derived.add(new Estimate(Parameter.READ, r, null, regime.read(), Double.NaN, Double.NaN, 0, false));
        }
        return derived;
    }

    private static List<Unknown> sharedUnknowns(
        final ModelParameters parameters, final List<Row> rows, final TreeSet<String> fittedGammas)
    {
        final List<Unknown> unknowns = new ArrayList<>();
        if (rows.stream().anyMatch(r -> r.flag() > 0))
        {
            unknowns.add(new Unknown(Parameter.FLAG, 0, null, parameters.flag()));
        }
        for (int r = 0; r < parameters.regimeCount(); r++)
        {
            final int regime = r;
            for (final Parameter p : new Parameter[] {Parameter.COPY, Parameter.READ})
            {
                if (rows.stream().anyMatch(row -> row.coefficients()[regime][p.ordinal()] > 0))
                {
                    unknowns.add(new Unknown(p, regime, null, parameters.value(p, regime)));
                }
            }
        }
        final TreeSet<String> keys = new TreeSet<>();
        for (final Row row : rows)
        {
            if (row.gamma() > 0 && !fittedGammas.contains(row.gammaKey()))
            {
                keys.add(row.gammaKey());
            }
        }
        for (final String key : keys)
        {
            unknowns.add(new Unknown(Parameter.GAMMA, 0, key, parameters.defaultGamma()));
        }
        return unknowns;
    }

    /** The default γ: the fitted γ of most rows, so that other datatypes are predicted with a measured rate. */
    private static ModelParameters withDefaultGamma(final ModelParameters parameters, final List<Estimate> estimates)
    {
        return estimates.stream().filter(e -> e.parameter() == Parameter.GAMMA && e.fitted())
            .max(Comparator.comparingInt(Estimate::rows))
            .map(e -> parameters.withGamma(ModelParameters.DEFAULT_GAMMA_KEY, e.value()))
            .orElse(parameters);
    }

    private List<Row> rows(final ModelParameters parameters, final List<Measurement> measurements)
    {
        final CostModel model = new CostModel(parameters, stagingBytes);
        final List<Row> rows = new ArrayList<>();
        for (final Measurement m : measurements)
        {
            final CostFormula formula = CostFormulas.find(m.collective(), m.algorithm());
            if (formula == null)
            {
                continue;
            }
            final CostTerms terms = model.terms(formula, m.ranks(), m.bytes(), m.chunkBytes());
            final double[][] coefficients = new double[parameters.regimeCount()][Parameter.values().length];
            for (int r = 0; r < coefficients.length; r++)
            {
                for (final Parameter p : Parameter.values())
                {
                    if (p.perRegime())
                    {
                        coefficients[r][p.ordinal()] = terms.coefficient(p, r);
                    }
                }
            }
            rows.add(new Row(m, coefficients, terms.coefficient(Parameter.FLAG, 0),
                terms.coefficient(Parameter.GAMMA, 0)));
        }
        return rows;
    }

    private record Joint(ModelParameters parameters, List<Estimate> estimates)
    {
    }

    /**
     * Fits {@code unknowns} to {@code rows}, every other parameter held, with weak priors when asked; none may come
     * out negative ({@link WeightedLeastSquares#solveNonNegative}).
     */
    private Joint solve(
        final ModelParameters held, final List<Row> rows, final List<Unknown> unknowns, final boolean priors)
    {
        // the part of each row the unknowns do not explain
        ModelParameters base = held;
        for (final Unknown u : unknowns)
        {
            base = set(base, u, 0);
        }
        final int n = rows.size();
        final int k = unknowns.size();
        final int priorRows = priors ? k : 0;
        final double[][] a = new double[n + priorRows][k];
        final double[] y = new double[n + priorRows];
        final double[] w = new double[n + priorRows];
        for (int i = 0; i < n; i++)
        {
            final Row row = rows.get(i);
            final double measured = row.measurement().micros();
            double known = row.flag() * base.flag() +
                row.gamma() * base.gamma(row.measurement().dtype(), row.measurement().op());
            for (int r = 0; r < base.regimeCount(); r++)
            {
                for (final Parameter p : new Parameter[] {Parameter.ALPHA, Parameter.BETA, Parameter.COPY,
                    Parameter.READ})
                {
                    known += row.coefficients()[r][p.ordinal()] * base.value(p, r);
                }
            }
            for (int j = 0; j < k; j++)
            {
                a[i][j] = row.coefficient(unknowns.get(j));
            }
            y[i] = measured - known;
            w[i] = 1 / (measured * measured);
        }
        // priors: θ_j ≈ θ0_j, weighted like a small fraction of one measurement at the same relative error
        for (int j = 0; j < priorRows; j++)
        {
            final double prior = unknowns.get(j).prior();
            a[n + j][j] = 1;
            y[n + j] = prior;
            w[n + j] = prior > 0 ? PRIOR_WEIGHT / (prior * prior) : 0;
        }
        final WeightedLeastSquares.Solution solution = WeightedLeastSquares.solveNonNegative(a, y, w);
        final double t = WeightedLeastSquares.t95(solution.dof() - priorRows);
        ModelParameters result = held;
        final List<Estimate> estimates = new ArrayList<>();
        for (int j = 0; j < k; j++)
        {
            final Unknown u = unknowns.get(j);
            final double error = solution.standardError(j);
            final int informing = (int)rows.stream().filter(r -> r.coefficient(u) > 0).count();
            result = set(result, u, solution.x()[j]);
            estimates.add(new Estimate(u.parameter(), u.regime(), u.gammaKey(), solution.x()[j], error, t * error,
                informing, informing > 0));
        }
        return new Joint(result, estimates);
    }

    private static ModelParameters set(final ModelParameters parameters, final Unknown u, final double value)
    {
        return u.parameter() == Parameter.GAMMA ? parameters.withGamma(u.gammaKey(), value) :
            parameters.with(u.parameter(), u.regime(), value);
    }

    /** Weighted R², w = 1/T²: each point counts by its relative error. */
    static double r2(final List<Prediction> points)
    {
        double sumW = 0;
        double sumWy = 0;
        for (final Prediction p : points)
        {
            final double t = p.measurement().micros();
            sumW += 1 / (t * t);
            sumWy += 1 / t;
        }
        final double mean = sumWy / sumW;
        double residual = 0;
        double total = 0;
        for (final Prediction p : points)
        {
            final double t = p.measurement().micros();
            residual += p.error() * p.error();
            total += (t - mean) * (t - mean) / (t * t);
        }
        return total > 0 ? 1 - residual / total : Double.NaN;
    }

    static double medianError(final List<Prediction> points)
    {
        return PiecewiseFit.median(points.stream().mapToDouble(p -> Math.abs(p.error())).toArray());
    }
}
