package io.jccl.tools.fit;

import io.jccl.model.CostFormula;
import io.jccl.model.CostFormulas;
import io.jccl.model.CostModel;
import io.jccl.model.CostTerms;
import io.jccl.model.ModelParameters;
import io.jccl.model.Parameter;
import io.jccl.model.Regime;
import io.jccl.tools.bench.BenchOp;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.stream.Collectors;

/**
 * Fits the cost model to the measurements of one source, in three stages, each a least-squares fit weighted by
 * relative error ({@code w = 1/T²}), of every row but those measured while the machine was disturbed
 * ({@link #disturbed}), which are predicted with the rest:
 * <ol>
 *   <li>α and β per regime from the pingpong rows of the fewest ranks (with more ranks than cores a pingpong's α
 *       includes the waits for a core, which σ_o and ω are to show), breakpoints found from the data
 *       ({@link PiecewiseFit}). Without pingpong rows, one regime's α and β from the collectives that only move
 *       messages;</li>
 *   <li>from the collectives that only send messages (every message-passing algorithm, and local {@code reduction}
 *       kernel rows), α and β held at stage 1's values: γ per datatype and operator, and γ_m of the last regime
 *       (what a reduction adds per byte when its vector is of the largest messages' size, its operands in DRAM or
 *       the last-level cache rather than near the core; drawn weakly towards 0); what a collective's step costs
 *       beyond a lone message, σ while every rank has a core and σ_o while ranks outnumber the cores, and what a
 *       call costs while they outnumber them, ω; and ν per regime, how much of a second core a lone message keeps
 *       busy, which prices messages in flight at once. σ, σ_o and ω are drawn weakly towards 0 (on the scale of the
 *       small-message α), ν towards 1/2, so that a few rows still give an answer;</li>
 *   <li>the shared-memory parameters α_f, β_c and β_r per regime, and the kernel reads' α_k and β_k per regime (and
 *       γ where stage 2 had no rows) from the rows whose formula uses them, jointly. Each is drawn weakly towards a
 *       prior so that parameters the data does not determine keep a sensible value: α_f towards the small-message
 *       α, β_c and β_r towards half the regime's β (a point-to-point message is one copy in and one copy out), β_k
 *       towards twice it (a single-copy message's two ends share its bytes, a kernel read is one core's), α_k
 *       towards {@link ModelParameters#KERNEL_CALL_DEFAULT}. When these rows reduce, γ and γ_m are fitted again
 *       with them, to these rows and every message-passing row that reduces, stage 2's values their priors: a
 *       zero-copy reduction prices its bytes at β_r + γ, which only the other rows can split. Parameters that come
 *       out negative are fixed at 0 and the rest refitted. σ_o and ω are fitted here too when no message-passing
 *       row ran oversubscribed, and σ_f, what a flag step costs while ranks outnumber cores (it waits for every
 *       rank to have run, a message step for one peer), drawn towards σ_o; where no flag step ran oversubscribed σ_f
 *       is σ_o.</li>
 * </ol>
 * Every measurement with a formula is then predicted with the fitted parameters. The rooted collectives (broadcast,
 * reduce, gather, scatter) are predicted but not fitted when other collectives were measured, except their zero-copy
 * paths on shared buffers and rows timed one call at a time (bench --sync): timed back to back, as the bench and the
 * peers' benchmarks time them by default, a root that does not wait for its leaves starts the next call while they
 * finish the last, so their rows measure a pipelined stream's rate, not the latency of one call, which is what the
 * formulas price (fitted with them, σ_o and ω came out at 0 and the 4-rank collectives missed by 20-90 %). Scan and
 * exscan run ahead the same way, rank r waiting only for the ranks below it, and are predicted but not fitted too.
 */
public final class ModelFitter
{
    /** Weight of a prior, as a fraction of one measurement's weight at the same relative error. */
    static final double PRIOR_WEIGHT = 1e-3;

    /** ν where the data says nothing: half-way between one core and both. */
    static final double NU_PRIOR = 0.5;

    /**
     * A row this many times slower than the next larger sizes of its series (the median of up to
     * {@link #DISTURBED_NEIGHBOURS}) was disturbed ({@link #disturbed}).
     */
    static final double DISTURBED_RATIO = 2;

    /** How many of the next larger sizes a row is compared with ({@link #disturbed}). */
    static final int DISTURBED_NEIGHBOURS = 3;

    /**
     * The collectives whose ranks run ahead from call to call, predicted but not fitted when others were measured (see
     * the class comment): those with a root, scan and exscan.
     */
    private static final Set<String> RUN_AHEAD = BenchOp.all().stream()
        .filter(op -> op.rooted() || op == BenchOp.SCAN || op == BenchOp.EXSCAN).map(BenchOp::label)
        .collect(Collectors.toUnmodifiableSet());

    private final ModelParameters start;
    private final long stagingBytes;
    private final int cores;

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
     * The predictions of one series, with its R² (of log T) and median |error|.
     *
     * @param key         the series.
     * @param formula     the formula it was predicted with.
     * @param points      by size.
     * @param r2          R² of log T ({@link PiecewiseFit#logR2}).
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
     * @param estimates       every parameter with its error, in the order α, β per regime, γ, σ, σ_o, ν per regime,
     *                        shared memory.
     * @param series          every predicted series.
     * @param unmodelled      series without a formula ("allreduce:foo").
     * @param cores           c, the cores the measurements' ranks shared.
     * @param predictedOnly   the collectives whose rows were predicted but not fitted (the rooted ones).
     * @param disturbed       the rows left out of the fit as measured during a disturbance ({@link #disturbed});
     *                        they are predicted like every row.
     */
    public record Result(
        String source, ModelParameters parameters, PiecewiseFit.Result pointToPoint, String alphaBetaOrigin,
        List<Estimate> estimates, List<Series> series, List<String> unmodelled, int cores, List<String> predictedOnly,
        List<Measurement> disturbed)
    {
        /** The fitted model, for the machine the measurements ran on. */
        public CostModel model(final long stagingBytes)
        {
            return new CostModel(parameters, stagingBytes, cores);
        }

        /** The predictions of every series, flattened. */
        public List<Prediction> predictions()
        {
            return series.stream().flatMap(s -> s.points().stream()).toList();
        }
    }

    /** A row's formula terms, copied out of the reusable {@link CostTerms}. */
    private record Row(
        Measurement measurement, double[][] coefficients, double flag, double gamma, double sync,
        double syncOversubscribed, double kernelCalls, double callsOversubscribed, double flagSyncOversubscribed)
    {
        String gammaKey()
        {
            return ModelParameters.gammaKey(measurement.dtype(), measurement.op());
        }

        boolean usesSharedMemory()
        {
            boolean uses = flag > 0 || kernelCalls > 0;
            for (final double[] regime : coefficients)
            {
                uses |= regime[Parameter.COPY.ordinal()] > 0 || regime[Parameter.READ.ordinal()] > 0 ||
                    regime[Parameter.KERNEL_READ.ordinal()] > 0;
            }
            return uses;
        }

        double coefficient(final Unknown unknown)
        {
            return switch (unknown.parameter())
            {
                case FLAG -> flag;
                case GAMMA -> gammaKey().equals(unknown.gammaKey()) ? gamma : 0;
                case SYNC -> sync;
                case SYNC_OVERSUBSCRIBED -> syncOversubscribed;
                case KERNEL_CALL -> kernelCalls;
                case CALL_OVERSUBSCRIBED -> callsOversubscribed;
                case FLAG_SYNC_OVERSUBSCRIBED -> flagSyncOversubscribed;
                default -> coefficients[unknown.regime()][unknown.parameter().ordinal()];
            };
        }
    }

    /**
     * A parameter to fit, and the prior it is drawn weakly towards: {@code prior} give or take {@code priorScale}
     * (the weight of one measurement at the same relative error, times {@link #PRIOR_WEIGHT}).
     */
    private record Unknown(Parameter parameter, int regime, String gammaKey, double prior, double priorScale)
    {
        /** A prior whose own value is its scale. */
        Unknown(final Parameter parameter, final int regime, final String gammaKey, final double prior)
        {
            this(parameter, regime, gammaKey, prior, prior);
        }

        /** A step or call cost σ, σ_o or ω, drawn towards 0 on the scale of a small message's α. */
        static Unknown step(final Parameter parameter, final ModelParameters parameters)
        {
            final double alpha = parameters.regimes().get(0).alpha();
            return new Unknown(parameter, 0, null, 0, alpha > 0 ? alpha : 0.1);
        }
    }

    /**
     * @param stagingBytes S, staging bytes per rank the measurements ran with (shared-memory formulas).
     * @param cores        c, the cores of the machine the measurements ran on.
     */
    public ModelFitter(final long stagingBytes, final int cores)
    {
        this.stagingBytes = stagingBytes;
        this.cores = cores;
        this.start = ModelParameters.shipped();
    }

    /**
     * Fits the measurements of one source.
     *
     * @param regimes number of point-to-point regimes, or 0 to find it from the data.
     */
    public Result fit(final String source, final List<Measurement> measurements, final int regimes)
    {
        final List<Estimate> estimates = new ArrayList<>();
        final boolean othersMeasured = measurements.stream().anyMatch(m -> !pipelines(m) &&
            !"pingpong".equals(m.collective()) && CostFormulas.find(m.collective(), m.algorithm(), m.shared()) != null);
        final List<Measurement> fittable = othersMeasured ?
            measurements.stream().filter(m -> !pipelines(m)).toList() : measurements;
        final List<Measurement> disturbed = disturbed(fittable);
        final List<Measurement> fitRows = fittable.stream().filter(m -> !disturbed.contains(m)).toList();
        final List<String> predictedOnly = othersMeasured ?
            measurements.stream().filter(ModelFitter::pipelines).map(Measurement::collective).distinct().toList() :
            List.of();
        // the pingpong of the fewest ranks: with more ranks than cores its α includes the waits for a core, which the
        // collectives' σ_o and ω are there to show
        final int pingpongRanks = measurements.stream().filter(m -> "pingpong".equals(m.collective()))
            .mapToInt(Measurement::ranks).min().orElse(0);
        final List<Measurement> pingpong = fitRows.stream()
            .filter(m -> "pingpong".equals(m.collective()) && m.ranks() == pingpongRanks).toList();
        final long disturbedPingpong = disturbed.stream()
            .filter(m -> "pingpong".equals(m.collective()) && m.ranks() == pingpongRanks).count();

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
            origin = "pingpong, " + pingpong.size() + " points" +
                (disturbedPingpong == 0 ? "" : ", " + disturbedPingpong + " more left out as disturbed") +
                (pingpongRanks > cores ? ", " + pingpongRanks +
                " ranks on " + cores + " cores: alpha includes waits for a core; fit with a run of " + cores +
                " ranks for the collectives' sigma_o and omega" : "");
        }
        else
        {
            final Regime shippedFirst = start.regimes().get(0);
            // without a pingpong the messages' α is the whole of a step's latency: σ and σ_o start at 0
            parameters = start.withRegimes(List.of(new Regime(0, shippedFirst.alpha(), shippedFirst.beta(),
                shippedFirst.copy(), shippedFirst.read()))).with(Parameter.SYNC, 0, 0)
                .with(Parameter.SYNC_OVERSUBSCRIBED, 0, 0).with(Parameter.CALL_OVERSUBSCRIBED, 0, 0);
            final List<Row> messageRows = rows(parameters, fitRows).stream()
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
            parameters.sync(), parameters.syncOversubscribed(), parameters.kernelCall(),
            parameters.callOversubscribed(), parameters.gammas());

        // stage 2: γ per datatype and operator, σ, σ_o, ω and ν per regime, from the collectives that only send
        // messages
        final List<Row> all = rows(parameters, fitRows);
        final List<Row> messageRows = all.stream()
            .filter(r -> !r.usesSharedMemory() && !"pingpong".equals(r.measurement().collective())).toList();
        final List<Unknown> messageUnknowns = reductionUnknowns(parameters, messageRows);
        final boolean oversubscribedFitted = messageRows.stream().anyMatch(r -> r.syncOversubscribed() > 0);
        if (messageRows.stream().anyMatch(r -> r.sync() > 0))
        {
            messageUnknowns.add(Unknown.step(Parameter.SYNC, parameters));
        }
        if (oversubscribedFitted)
        {
            messageUnknowns.add(Unknown.step(Parameter.SYNC_OVERSUBSCRIBED, parameters));
            messageUnknowns.add(Unknown.step(Parameter.CALL_OVERSUBSCRIBED, parameters));
        }
        for (int r = 0; r < parameters.regimeCount(); r++)
        {
            final int regime = r;
            if (messageRows.stream().anyMatch(row -> row.coefficients()[regime][Parameter.NU.ordinal()] > 0))
            {
                messageUnknowns.add(new Unknown(Parameter.NU, r, null, NU_PRIOR, 1.0));
            }
        }
        if (!messageUnknowns.isEmpty())
        {
            final Joint joint = solve(parameters, messageRows, messageUnknowns, true);
            parameters = joint.parameters();
            estimates.addAll(joint.estimates());
        }

        // stage 3: shared-memory and kernel-read parameters, and γ (and σ_o, ω) where only these rows inform them
        final List<Row> sharedRows = all.stream().filter(Row::usesSharedMemory).toList();
        if (!sharedRows.isEmpty())
        {
            final List<Row> rows = new ArrayList<>(sharedRows);
            final List<Unknown> unknowns = sharedUnknowns(parameters, sharedRows);
            if (sharedRows.stream().anyMatch(r -> r.gamma() > 0))
            {
                // the zero-copy reductions price their bytes at β_r + γ, which these rows alone cannot split: γ and
                // γ_m are fitted again, here, to every row that reduces, stage 2's values their priors
                rows.addAll(messageRows.stream().filter(r -> r.gamma() > 0).toList());
                estimates.removeIf(e -> e.parameter() == Parameter.GAMMA || e.parameter() == Parameter.REDUCE_MEMORY);
                unknowns.addAll(reductionUnknowns(parameters, rows));
            }
            if (!oversubscribedFitted && sharedRows.stream().anyMatch(r -> r.syncOversubscribed() > 0))
            {
                unknowns.add(Unknown.step(Parameter.SYNC_OVERSUBSCRIBED, parameters));
                unknowns.add(Unknown.step(Parameter.CALL_OVERSUBSCRIBED, parameters));
            }
            if (sharedRows.stream().anyMatch(r -> r.flagSyncOversubscribed() > 0))
            {
                // towards σ_o: a flag step is at least a message step's wait for a core
                final double scale = Math.max(parameters.syncOversubscribed(), parameters.regimes().get(0).alpha());
                unknowns.add(new Unknown(Parameter.FLAG_SYNC_OVERSUBSCRIBED, 0, null,
                    parameters.syncOversubscribed(), scale > 0 ? scale : 0.1));
            }
            final Joint joint = solve(parameters, rows, unknowns, true);
            parameters = joint.parameters();
            estimates.addAll(joint.estimates());
        }
        else
        {
            estimates.addAll(derivedEstimates(parameters));
        }
        parameters = withDefaultGamma(parameters, estimates);
        if (estimates.stream().noneMatch(e -> e.parameter() == Parameter.FLAG_SYNC_OVERSUBSCRIBED))
        {
            // no flag step ran oversubscribed: price them as the message steps, as the shipped model does
            parameters = parameters.with(Parameter.FLAG_SYNC_OVERSUBSCRIBED, 0, parameters.syncOversubscribed());
        }

        // predictions, series by series
        final Map<Measurement.SeriesKey, List<Prediction>> bySeries = new LinkedHashMap<>();
        final List<String> unmodelled = new ArrayList<>();
        final CostModel fitted = new CostModel(parameters, stagingBytes, cores);
        for (final Measurement m : measurements)
        {
            final CostFormula formula = CostFormulas.find(m.collective(), m.algorithm(), m.shared());
            if (formula == null)
            {
                if (!unmodelled.contains(m.collective() + ":" + m.algorithm()))
                {
                    unmodelled.add(m.collective() + ":" + m.algorithm());
                }
                continue;
            }
            final double predicted = fitted.predict(formula, m.ranks(), m.bytes(), m.dtype(), m.op(), m.chunkBytes());
            bySeries.computeIfAbsent(m.series(), k -> new ArrayList<>()).add(new Prediction(m, predicted));
        }
        final List<Series> series = new ArrayList<>();
        for (final Map.Entry<Measurement.SeriesKey, List<Prediction>> entry : bySeries.entrySet())
        {
            final List<Prediction> points = new ArrayList<>(entry.getValue());
            points.sort(Comparator.comparingLong(p -> p.measurement().bytes()));
            final Measurement.SeriesKey key = entry.getKey();
            series.add(new Series(key, CostFormulas.find(key.collective(), key.algorithm(), key.shared()),
                List.copyOf(points), r2(points), medianError(points)));
        }
        return new Result(source, parameters, p2p, origin, List.copyOf(estimates), List.copyOf(series),
            List.copyOf(unmodelled), cores, predictedOnly, disturbed);
    }

    /**
     * The rows measured while the machine was disturbed: those that took more than {@link #DISTURBED_RATIO} times as
     * long as the next larger sizes of their series. No protocol makes a smaller message or vector that much dearer
     * (a switch to single copy, the one place a larger one gets faster, gains a few percent; ranks that outnumber the
     * cores put neighbouring sizes out of order by some 20 %), and weighted by relative error one such row pulls the
     * fit as much as any other. In the pingpong it can make the criterion choose fewer regimes: a 16 KiB pingpong at
     * 13.5 µs between 8 KiB at 2.0 and 32 KiB at 3.2, its probe at 47 times the sweep's median, left a fit of
     * 2026-12-02 three regimes, two of them at 17-18 % median error, where without it the criterion found five at
     * 1-5 %. The next sizes' median, not the fastest of them: a 64-byte one-shot allreduce once took 0.145 µs among
     * 0.42-0.58 around it, and would have condemned the three sizes below it.
     */
    static List<Measurement> disturbed(final List<Measurement> measurements)
    {
        final Map<Measurement.SeriesKey, List<Measurement>> bySeries = new LinkedHashMap<>();
        for (final Measurement m : measurements)
        {
            bySeries.computeIfAbsent(m.series(), k -> new ArrayList<>()).add(m);
        }
        final List<Measurement> disturbed = new ArrayList<>();
        for (final List<Measurement> series : bySeries.values())
        {
            disturbed.addAll(disturbedInSeries(series));
        }
        return List.copyOf(disturbed);
    }

    private static List<Measurement> disturbedInSeries(final List<Measurement> series)
    {
        // each size's fastest time, by size
        final TreeMap<Long, Double> fastest = new TreeMap<>();
        for (final Measurement m : series)
        {
            fastest.merge(m.bytes(), m.micros(), Math::min);
        }
        final List<Measurement> disturbed = new ArrayList<>();
        for (final Measurement m : series)
        {
            final double[] larger = fastest.tailMap(m.bytes(), false).values().stream().limit(DISTURBED_NEIGHBOURS)
                .mapToDouble(Double::doubleValue).sorted().toArray();
            // the median of the next sizes (of two, the slower), so that one odd fast size condemns no other
            if (larger.length > 0 && m.micros() > DISTURBED_RATIO * larger[larger.length / 2])
            {
                disturbed.add(m);
            }
        }
        return disturbed;
    }

    /** Regimes of the pingpong fit, with β_c and β_r derived (half of β each) and β_k (twice β). */
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
        derived.add(new Estimate(Parameter.KERNEL_CALL, 0, null, parameters.kernelCall(), Double.NaN, Double.NaN, 0,
            false));
        for (int r = 0; r < parameters.regimeCount(); r++)
        {
            derived.add(new Estimate(Parameter.KERNEL_READ, r, null, parameters.regimes().get(r).kernel(), Double.NaN,
                Double.NaN, 0, false));
        }
        return derived;
    }

    private static List<Unknown> sharedUnknowns(final ModelParameters parameters, final List<Row> rows)
    {
        final List<Unknown> unknowns = new ArrayList<>();
        if (rows.stream().anyMatch(r -> r.flag() > 0))
        {
            unknowns.add(new Unknown(Parameter.FLAG, 0, null, parameters.flag()));
        }
        if (rows.stream().anyMatch(r -> r.kernelCalls() > 0))
        {
            unknowns.add(new Unknown(Parameter.KERNEL_CALL, 0, null, parameters.kernelCall()));
        }
        for (int r = 0; r < parameters.regimeCount(); r++)
        {
            final int regime = r;
            for (final Parameter p : new Parameter[] {Parameter.COPY, Parameter.READ, Parameter.KERNEL_READ})
            {
                if (rows.stream().anyMatch(row -> row.coefficients()[regime][p.ordinal()] > 0))
                {
                    unknowns.add(new Unknown(p, regime, null, parameters.value(p, regime)));
                }
            }
        }
        return unknowns;
    }

    /**
     * γ of every datatype and operator {@code rows} reduce, drawn weakly towards its value in {@code parameters}
     * (the default γ for a new one), and γ_m of the last regime, the largest vectors', when they reduce there, drawn
     * towards its value on the scale of the default γ. γ_m is the last regime's alone so that γ keeps the rows of
     * the others, and stands for a reduction whose operands sit in the caches; the first breakpoint is often the
     * small-message protocol's, far below any cache size.
     */
    private static List<Unknown> reductionUnknowns(final ModelParameters parameters, final List<Row> rows)
    {
        final List<Unknown> unknowns = new ArrayList<>();
        final TreeSet<String> keys = new TreeSet<>();
        for (final Row row : rows)
        {
            if (row.gamma() > 0)
            {
                keys.add(row.gammaKey());
            }
        }
        for (final String key : keys)
        {
            unknowns.add(new Unknown(Parameter.GAMMA, 0, key,
                parameters.gammas().getOrDefault(key, parameters.defaultGamma())));
        }
        final int last = parameters.regimeCount() - 1;
        if (last > 0 && rows.stream().anyMatch(row -> row.coefficients()[last][Parameter.REDUCE_MEMORY.ordinal()] > 0))
        {
            unknowns.add(new Unknown(Parameter.REDUCE_MEMORY, last, null,
                parameters.value(Parameter.REDUCE_MEMORY, last), parameters.defaultGamma()));
        }
        return unknowns;
    }

    /**
     * True for a row of a collective whose ranks can run ahead from call to call (see the class comment); not rows
     * timed one call at a time (bench --sync), nor the zero-copy paths on shared buffers, where the root waits for the
     * leaves, or they for it, before the buffers read in place may change.
     */
    private static boolean pipelines(final Measurement m)
    {
        return RUN_AHEAD.contains(m.collective()) && !m.sync() && !(m.shared() &&
            CostFormulas.hasZeroCopyPath(m.collective(), m.algorithm()));
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
        final CostModel model = new CostModel(parameters, stagingBytes, cores);
        final List<Row> rows = new ArrayList<>();
        for (final Measurement m : measurements)
        {
            final CostFormula formula = CostFormulas.find(m.collective(), m.algorithm(), m.shared());
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
                terms.coefficient(Parameter.GAMMA, 0), terms.coefficient(Parameter.SYNC, 0),
                terms.coefficient(Parameter.SYNC_OVERSUBSCRIBED, 0), terms.coefficient(Parameter.KERNEL_CALL, 0),
                terms.coefficient(Parameter.CALL_OVERSUBSCRIBED, 0),
                terms.coefficient(Parameter.FLAG_SYNC_OVERSUBSCRIBED, 0)));
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
            double known = row.flag() * base.flag() + row.sync() * base.sync() +
                row.syncOversubscribed() * base.syncOversubscribed() + row.kernelCalls() * base.kernelCall() +
                row.callsOversubscribed() * base.callOversubscribed() +
                row.flagSyncOversubscribed() * base.flagSyncOversubscribed() +
                row.gamma() * base.gamma(row.measurement().dtype(), row.measurement().op());
            for (int r = 0; r < base.regimeCount(); r++)
            {
                for (final Parameter p : new Parameter[] {Parameter.ALPHA, Parameter.BETA, Parameter.COPY,
                    Parameter.READ, Parameter.KERNEL_READ, Parameter.REDUCE_MEMORY})
                {
                    known += row.coefficients()[r][p.ordinal()] * base.value(p, r);
                }
                // ν's coefficient is in bytes: its term is that × β × ν
                final Regime regime = base.regimes().get(r);
                known += row.coefficients()[r][Parameter.NU.ordinal()] * regime.beta() * regime.nu();
            }
            for (int j = 0; j < k; j++)
            {
                final Unknown u = unknowns.get(j);
                final double scale = u.parameter() == Parameter.NU ? base.regimes().get(u.regime()).beta() : 1;
                a[i][j] = row.coefficient(u) * scale;
            }
            y[i] = measured - known;
            w[i] = 1 / (measured * measured);
        }
        // priors: θ_j ≈ θ0_j, weighted like a small fraction of one measurement at the same relative error
        for (int j = 0; j < priorRows; j++)
        {
            final Unknown u = unknowns.get(j);
            a[n + j][j] = 1;
            y[n + j] = u.prior();
            w[n + j] = u.priorScale() > 0 ? PRIOR_WEIGHT / (u.priorScale() * u.priorScale()) : 0;
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

    /** R² of log T ({@link PiecewiseFit#logR2}): each point counts by its relative error. */
    static double r2(final List<Prediction> points)
    {
        return PiecewiseFit.logR2(points.stream().mapToDouble(p -> p.measurement().micros()).toArray(),
            points.stream().mapToDouble(Prediction::predicted).toArray());
    }

    static double medianError(final List<Prediction> points)
    {
        return PiecewiseFit.median(points.stream().mapToDouble(p -> Math.abs(p.error())).toArray());
    }
}
