package io.jccl.tools.tune;

import io.jccl.Collective;
import io.jccl.model.CostFormulas;
import io.jccl.model.CostModel;
import io.jccl.model.ModelParameters;
import io.jccl.model.TuningTable;
import io.jccl.tools.fit.Measurement;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * Turns measurements and the model fitted to them into tuning rules, and says how good the rules are against the
 * measurements. For each collective × ranks the candidates are the algorithms (and chunk sizes) measured for it;
 * two ways to choose:
 * <ul>
 *   <li>{@link Choice#MODEL}: at every size the candidate the fitted model predicts fastest;</li>
 *   <li>{@link Choice#MEASURED} (the default): within the measured sizes a candidate measured within
 *       {@link #GOOD_ENOUGH} of the fastest; of several runs, one of those that came within it of the fastest in the
 *       most runs alone (a median of three can sit within 10 % on one run's luck); of those the model's choice, then
 *       the previous size's, then the fastest measured: a difference smaller than that is as likely noise as real,
 *       and the model's choice is smooth in size where the measured best flickers. It switches at the geometric
 *       middle between two measured sizes (or where the model predicts the switch, when that lies between them);
 *       below them the first size's choice, above them the model's.</li>
 * </ul>
 */
public final class Tuner
{
    /** A measured candidate this much slower than the fastest at a size is as good as the fastest there. */
    public static final double GOOD_ENOUGH = 0.10;

    /** How rules are chosen. */
    public enum Choice
    {
        MEASURED, MODEL
    }

    /** An algorithm with the chunk size it ran with (0: its default). */
    public record Candidate(String algorithm, long chunkBytes)
    {
        String label()
        {
            return chunkBytes > 0 ? algorithm + "/" + chunkBytes : algorithm;
        }
    }

    /**
     * One measured size of one collective × ranks: what the rules choose there and how it compares.
     *
     * @param bytes          the size.
     * @param best           fastest measured candidate.
     * @param bestMicros     its time.
     * @param tuned          the rules' choice.
     * @param tunedMicros    its measured time (NaN when it was not measured at this size).
     * @param model          the model's choice.
     * @param modelMicros    its measured time (NaN when not measured).
     */
    public record SizeQuality(
        long bytes, Candidate best, double bestMicros, Candidate tuned, double tunedMicros, Candidate model,
        double modelMicros)
    {
        /** tuned / best − 1: 0 when the tuned choice is the fastest measured. */
        public double tunedSlowdown()
        {
            return tunedMicros / bestMicros - 1;
        }

        public double modelSlowdown()
        {
            return modelMicros / bestMicros - 1;
        }
    }

    /** The quality of one collective × ranks. */
    public record GroupQuality(Collective collective, int ranks, List<Candidate> candidates, List<SizeQuality> sizes)
    {
    }

    /** The rules and their quality. */
    public record Result(List<TuningTable.Rule> rules, List<GroupQuality> quality)
    {
    }

    private final CostModel model;
    private final Choice choice;

    public Tuner(final ModelParameters parameters, final long stagingBytes, final Choice choice)
    {
        this.model = new CostModel(parameters, stagingBytes);
        this.choice = choice;
    }

    /**
     * Whether tune chooses from this row: a collective of several algorithms and one of them in the cost model, on
     * private buffers. The v forms have one algorithm each: nothing to choose, and sizes that would count as well
     * chosen whatever the file said.
     */
    public static boolean choosesFrom(final Measurement m)
    {
        // on shared buffers the engine takes the zero-copy paths by rule, not by the tuning file
        return collective(m.collective()) != null && m.algorithmNamed() && !m.shared() &&
            CostModel.knows(m.collective(), m.algorithm()) && CostFormulas.algorithms(m.collective()).size() > 1;
    }

    /**
     * Rules for every collective × ranks in {@code measurements}, one time per point (pingpong, unknown collectives
     * and measurements on shared buffers are skipped).
     */
    public Result tune(final List<Measurement> measurements)
    {
        return tune(measurements, List.of(measurements));
    }

    /**
     * Rules for every collective × ranks in {@code points}, each point's time to expect, taken from {@code runs}
     * (several runs of one sweep; rows the points do not choose from are ignored), which say how often each
     * candidate came within {@link #GOOD_ENOUGH} of the fastest.
     */
    public Result tune(final List<Measurement> points, final List<List<Measurement>> runs)
    {
        final Map<String, List<Measurement>> groups = new TreeMap<>();
        for (final Measurement m : points)
        {
            if (choosesFrom(m))
            {
                groups.computeIfAbsent(String.format("%s %05d", m.collective(), m.ranks()), k -> new ArrayList<>())
                    .add(m);
            }
        }
        final List<TuningTable.Rule> rules = new ArrayList<>();
        final List<GroupQuality> quality = new ArrayList<>();
        for (final List<Measurement> group : groups.values())
        {
            final List<Measurement> rows = typical(group);
            final Collective collective = collective(rows.get(0).collective());
            final int ranks = rows.get(0).ranks();
            final TreeMap<Long, Map<Candidate, Double>> bySize = new TreeMap<>();
            final List<Candidate> candidates = new ArrayList<>();
            for (final Measurement m : rows)
            {
                final Candidate candidate = new Candidate(m.algorithm(), m.chunkBytes());
                if (!candidates.contains(candidate))
                {
                    candidates.add(candidate);
                }
                bySize.computeIfAbsent(m.bytes(), k -> new LinkedHashMap<>()).merge(candidate, m.micros(), Math::min);
            }
            final String dtype = rows.get(0).dtype();
            final String op = rows.get(0).op();
            final List<TuningTable.Rule> groupRules = choice == Choice.MODEL ?
                modelRules(collective, ranks, candidates, dtype, op, 0) :
                measuredRules(collective, ranks, candidates, bySize, runsWithin(runs, rows.get(0)), dtype, op);
            rules.addAll(groupRules);
            quality.add(new GroupQuality(collective, ranks, List.copyOf(candidates),
                quality(groupRules, bySize, ranks, candidates, dtype, op, collective)));
        }
        return new Result(List.copyOf(rules), List.copyOf(quality));
    }

    /** The rows of the most common datatype and operator (float32 sum when measured): rules are per size only. */
    private static List<Measurement> typical(final List<Measurement> group)
    {
        final boolean hasDefault = group.stream().anyMatch(m -> "float32".equals(m.dtype()) && "sum".equals(m.op()));
        if (hasDefault)
        {
            return group.stream().filter(m -> "float32".equals(m.dtype()) && "sum".equals(m.op())).toList();
        }
        final Map<String, Long> counts = new TreeMap<>();
        group.forEach(m -> counts.merge(m.dtype() + ":" + m.op(), 1L, Long::sum));
        final String common = counts.entrySet().stream().max(Map.Entry.comparingByValue()).orElseThrow().getKey();
        return group.stream().filter(m -> common.equals(m.dtype() + ":" + m.op())).toList();
    }

    /**
     * Per size of {@code like}'s series but the algorithm (its source, collective, ranks, datatype and operator) and
     * per candidate: in how many of {@code runs} it was measured within {@link #GOOD_ENOUGH} of that run's fastest.
     */
    private static Map<Long, Map<Candidate, Integer>> runsWithin(
        final List<List<Measurement>> runs, final Measurement like)
    {
        final Map<Long, Map<Candidate, Integer>> counts = new HashMap<>();
        for (final List<Measurement> run : runs)
        {
            final Map<Long, Map<Candidate, Double>> bySize = new HashMap<>();
            for (final Measurement m : run)
            {
                if (choosesFrom(m) && m.source().equals(like.source()) && m.collective().equals(like.collective()) &&
                    m.ranks() == like.ranks() && Objects.equals(m.dtype(), like.dtype()) &&
                    Objects.equals(m.op(), like.op()))
                {
                    bySize.computeIfAbsent(m.bytes(), k -> new HashMap<>())
                        .merge(new Candidate(m.algorithm(), m.chunkBytes()), m.micros(), Math::min);
                }
            }
            bySize.forEach((bytes, times) ->
            {
                final double limit = times.get(fastestMeasured(times)) * (1 + GOOD_ENOUGH);
                times.forEach((candidate, time) ->
                {
                    if (time <= limit)
                    {
                        counts.computeIfAbsent(bytes, k -> new HashMap<>()).merge(candidate, 1, Integer::sum);
                    }
                });
            });
        }
        return counts;
    }

    private List<TuningTable.Rule> measuredRules(
        final Collective collective, final int ranks, final List<Candidate> candidates,
        final TreeMap<Long, Map<Candidate, Double>> bySize, final Map<Long, Map<Candidate, Integer>> runsWithin,
        final String dtype, final String op)
    {
        final List<TuningTable.Rule> rules = new ArrayList<>();
        Candidate current = null;
        long start = 0;
        long previousSize = -1;
        for (final Map.Entry<Long, Map<Candidate, Double>> entry : bySize.entrySet())
        {
            final Candidate best = goodEnough(entry.getValue(), runsWithin.getOrDefault(entry.getKey(), Map.of()),
                current, fastestModelled(collective, ranks, candidates, entry.getKey(), dtype, op));
            if (current != null && !best.equals(current))
            {
                // switch between the two measured sizes: where the model says, else at the geometric middle
                final long boundary = switchPoint(collective, ranks, current, best, previousSize, entry.getKey(), dtype,
                    op);
                rules.add(rule(collective, ranks, start, boundary, current));
                start = boundary;
            }
            current = best;
            previousSize = entry.getKey();
        }
        // beyond the largest measured size: the model's choice, from the geometric middle of one more octave (or
        // where the last choice reaches its capacity)
        final long end = Math.max(previousSize + 1, previousSize * 2);
        final long modelStart = Math.min(capacityEnd(collective, ranks, current),
            Math.max(start + 1, Math.round(Math.sqrt((double)previousSize * end))));
        final List<TuningTable.Rule> beyond = modelRules(collective, ranks, candidates, dtype, op, modelStart);
        if (beyond.isEmpty() || beyond.get(0).algorithm().equals(current.algorithm()) && beyond.size() == 1 &&
            capacityEnd(collective, ranks, current) == Long.MAX_VALUE)
        {
            rules.add(rule(collective, ranks, start, Long.MAX_VALUE, current));
            return rules;
        }
        rules.add(rule(collective, ranks, start, modelStart, current));
        rules.addAll(beyond);
        return merge(rules);
    }

    /** Where between {@code below} and {@code above} the model predicts {@code next} overtakes {@code previous}. */
    private long switchPoint(
        final Collective collective, final int ranks, final Candidate previous, final Candidate next, final long below,
        final long above, final String dtype, final String op)
    {
        final double logLo = Math.log(Math.max(1, below));
        final double logHi = Math.log(above);
        final int steps = 32;
        for (int i = 1; i < steps; i++)
        {
            final long size = Math.round(Math.exp(logLo + (logHi - logLo) * i / steps));
            if (size > below && size < above && predict(collective, ranks, next, size, dtype, op) <
                predict(collective, ranks, previous, size, dtype, op))
            {
                return Math.min(size, capacityEnd(collective, ranks, previous));
            }
        }
        final long middle = Math.max(below + 1,
            Math.min(above, Math.round(Math.sqrt((double)Math.max(1, below) * above))));
        return Math.min(middle, capacityEnd(collective, ranks, previous));
    }

    /** One past the largest size {@code candidate} serves at {@code ranks}; {@link Long#MAX_VALUE} for no limit. */
    private static long capacityEnd(final Collective collective, final int ranks, final Candidate candidate)
    {
        final long capacity = CostFormulas.find(collective.label(), candidate.algorithm()).capacity().maxBytes(ranks);
        return capacity == Long.MAX_VALUE ? Long.MAX_VALUE : capacity + 1;
    }

    /** The model's fastest candidate at quarter octaves from {@code from} bytes on, as rules. */
    private List<TuningTable.Rule> modelRules(
        final Collective collective, final int ranks, final List<Candidate> candidates, final String dtype,
        final String op, final long from)
    {
        // quarter octaves, and just past the capacity of every candidate that has one
        final TreeSet<Long> grid = new TreeSet<>();
        final int firstStep = from <= 1 ? 0 : (int)Math.ceil(4 * Math.log(from) / Math.log(2));
        for (int step = firstStep; step <= 4 * 36; step++)
        {
            grid.add(Math.max(from, Math.round(Math.pow(2.0, step / 4.0))));
        }
        for (final Candidate candidate : candidates)
        {
            final long capacity = CostFormulas.find(collective.label(), candidate.algorithm()).capacity()
                .maxBytes(ranks);
            if (capacity >= from && capacity < grid.last())
            {
                grid.add(capacity + 1);
            }
        }
        final List<TuningTable.Rule> rules = new ArrayList<>();
        Candidate current = null;
        long start = from;
        for (final long size : grid)
        {
            final Candidate best = fastestModelled(collective, ranks, candidates, size, dtype, op);
            if (current != null && !best.equals(current))
            {
                rules.add(rule(collective, ranks, start, size, current));
                start = size;
            }
            current = best;
        }
        if (current != null)
        {
            rules.add(rule(collective, ranks, start, Long.MAX_VALUE, current));
        }
        return rules;
    }

    private List<SizeQuality> quality(
        final List<TuningTable.Rule> rules, final TreeMap<Long, Map<Candidate, Double>> bySize, final int ranks,
        final List<Candidate> candidates, final String dtype, final String op, final Collective collective)
    {
        final TuningTable table = new TuningTable(model.parameters(), Map.of(), rules);
        final List<SizeQuality> sizes = new ArrayList<>();
        for (final Map.Entry<Long, Map<Candidate, Double>> entry : bySize.entrySet())
        {
            final Map<Candidate, Double> measured = entry.getValue();
            final Candidate best = fastestMeasured(measured);
            final TuningTable.Rule rule = table.lookup(collective, ranks, entry.getKey());
            final Candidate tuned = new Candidate(rule.algorithm(), rule.chunkBytes());
            final Candidate modelled = fastestModelled(collective, ranks, candidates, entry.getKey(), dtype, op);
            sizes.add(new SizeQuality(entry.getKey(), best, measured.get(best), tuned,
                measured.getOrDefault(tuned, Double.NaN), modelled, measured.getOrDefault(modelled, Double.NaN)));
        }
        return sizes;
    }

    private static Candidate fastestMeasured(final Map<Candidate, Double> measured)
    {
        return measured.entrySet().stream().min(Map.Entry.comparingByValue()).orElseThrow().getKey();
    }

    /**
     * Of the candidates measured within {@link #GOOD_ENOUGH} of the fastest, those that came within it of their run's
     * fastest in the most runs ({@code runsWithin}); of those the model's choice, else the previous one, else the
     * fastest.
     */
    private static Candidate goodEnough(
        final Map<Candidate, Double> measured, final Map<Candidate, Integer> runsWithin, final Candidate previous,
        final Candidate modelled)
    {
        final double limit = measured.get(fastestMeasured(measured)) * (1 + GOOD_ENOUGH);
        int most = 0;
        for (final Map.Entry<Candidate, Double> entry : measured.entrySet())
        {
            if (entry.getValue() <= limit)
            {
                most = Math.max(most, runsWithin.getOrDefault(entry.getKey(), 0));
            }
        }
        final List<Candidate> contenders = new ArrayList<>();
        for (final Map.Entry<Candidate, Double> entry : measured.entrySet())
        {
            if (entry.getValue() <= limit && runsWithin.getOrDefault(entry.getKey(), 0) == most)
            {
                contenders.add(entry.getKey());
            }
        }
        for (final Candidate preferred : new Candidate[] {modelled, previous})
        {
            if (contenders.contains(preferred))
            {
                return preferred;
            }
        }
        return contenders.stream().min(Comparator.comparingDouble(measured::get)).orElseThrow();
    }

    private Candidate fastestModelled(
        final Collective collective, final int ranks, final List<Candidate> candidates, final long bytes,
        final String dtype, final String op)
    {
        return candidates.stream().min(Comparator.comparingDouble(c -> predict(collective, ranks, c, bytes, dtype, op)))
            .orElseThrow();
    }

    private double predict(
        final Collective collective, final int ranks, final Candidate candidate, final long bytes, final String dtype,
        final String op)
    {
        // an algorithm is never the fastest at a size it cannot serve (the LL ones beyond 1 KiB per rank)
        if (!CostFormulas.find(collective.label(), candidate.algorithm()).serves(ranks, bytes))
        {
            return Double.POSITIVE_INFINITY;
        }
        return model.predict(collective.label(), candidate.algorithm(), ranks, bytes, dtype, op,
            candidate.chunkBytes());
    }

    private static TuningTable.Rule rule(
        final Collective collective, final int ranks, final long from, final long to, final Candidate candidate)
    {
        return new TuningTable.Rule(collective, ranks, from, to, candidate.algorithm(), candidate.chunkBytes());
    }

    /** Joins neighbouring rules that choose the same. */
    private static List<TuningTable.Rule> merge(final List<TuningTable.Rule> rules)
    {
        final List<TuningTable.Rule> merged = new ArrayList<>();
        for (final TuningTable.Rule rule : rules)
        {
            final TuningTable.Rule last = merged.isEmpty() ? null : merged.get(merged.size() - 1);
            if (last != null && last.algorithm().equals(rule.algorithm()) && last.chunkBytes() == rule.chunkBytes() &&
                last.maxBytes() == rule.minBytes())
            {
                merged.set(merged.size() - 1, new TuningTable.Rule(last.collective(), last.ranks(), last.minBytes(),
                    rule.maxBytes(), last.algorithm(), last.chunkBytes()));
            }
            else
            {
                merged.add(rule);
            }
        }
        return merged;
    }

    /** The collective labelled {@code name}, or null (pingpong, reduction, unknown names). */
    static Collective collective(final String name)
    {
        for (final Collective c : Collective.values())
        {
            if (Objects.equals(c.label(), name))
            {
                return c;
            }
        }
        return null;
    }
}
