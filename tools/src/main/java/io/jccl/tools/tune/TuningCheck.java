package io.jccl.tools.tune;

import io.jccl.Collective;
import io.jccl.algorithms.AlgorithmRegistry;
import io.jccl.algorithms.RuleChoices;
import io.jccl.algorithms.TunedSelection;
import io.jccl.model.Pace;
import io.jccl.model.TuningTable;
import io.jccl.shm.ShmTransport;
import io.jccl.spi.CollectiveAlgorithm;
import io.jccl.tools.fit.Measurement;
import io.jccl.tools.fit.Paces;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Checks a tuning file against measurements it was not made from: for every collective, rank count and measured size,
 * the algorithm the engine runs with the file ({@link TunedSelection}: the file's rule, else its model) and that
 * algorithm's measured time against the fastest measured one, at the time to expect of the runs ({@link Paces}: their
 * median, or on a machine of two paces each pace's median weighted by its share), at their plain median, and in each
 * run alone. In sample a measured choice is right by construction; only a sweep of another day says how much the
 * choices were worth, and only several say how much of a miss is the sweeps' own noise (4 ranks on 2 cores: the same
 * tuning file scored 87-94 % judged by three sweeps, 90-93 % by six; MODEL.md, session 17). Or checks the choices the
 * engine recorded in bench runs without {@code --algo} ({@link #checkRecorded}), its default selection as it stands,
 * or the choices of its rules at each pace ({@link #checkRules}).
 */
final class TuningCheck
{
    /**
     * One measured size.
     *
     * @param bytes        the size.
     * @param chosen       the algorithm the file chooses, null when neither its rules nor its model cover the size.
     * @param chosenMicros its measured time, NaN when it was not measured at this size.
     * @param best         the fastest measured algorithm.
     * @param bestMicros   its time.
     * @param runsWithin   the runs in which the choice measured within {@link Tuner#GOOD_ENOUGH} of that run's
     *                     fastest.
     * @param runsJudged   the runs that measured the choice and another algorithm at this size.
     * @param medianWithin the choice within {@link Tuner#GOOD_ENOUGH} of the fastest at the plain median of the runs,
     *                     which on a machine of two paces is the pace most runs saw at this size.
     */
    record Size(long bytes, String chosen, double chosenMicros, String best, double bestMicros, int runsWithin,
        int runsJudged, boolean medianWithin)
    {
        /** How much slower the file's choice measured than the fastest, NaN when it cannot be told. */
        double slowdown()
        {
            return chosenMicros / bestMicros - 1;
        }
    }

    /** The sizes of one collective at one rank count. */
    record Group(Collective collective, int ranks, List<Size> sizes)
    {
    }

    private TuningCheck()
    {
    }

    /**
     * @param table        the tuning file.
     * @param stagingBytes staging bytes per rank of the jobs the file is for (the model's shared-memory terms).
     * @param runs         the results to judge it by, one list per run; repeated points count at their time to
     *                     expect (and at their median), and each run is also judged alone. Collectives measured with
     *                     one algorithm alone are left out: there was nothing to choose.
     */
    static List<Group> check(final TuningTable table, final long stagingBytes, final List<List<Measurement>> runs)
    {
        return judge(runs, fileChooser(table, stagingBytes, null));
    }

    /** The file's choices at {@code pace} (null: those for both paces), as the engine flattens them per rank count. */
    private static Chooser fileChooser(final TuningTable table, final long stagingBytes, final Pace pace)
    {
        final AlgorithmRegistry registry = AlgorithmRegistry.instance();
        final Map<Integer, TunedSelection> selections = new HashMap<>();
        return (collective, ranks, bytes) ->
        {
            final CollectiveAlgorithm chosen = selections
                .computeIfAbsent(ranks, r -> TunedSelection.of(table, r, registry, stagingBytes))
                .atPace(pace).choose(collective, bytes);
            return chosen == null ? null : chosen.name();
        };
    }

    /**
     * {@link #check(TuningTable, long, List)} at one pace: the rows of {@code runs} measured at {@code pace}, at the
     * rank counts where both the file and the runs part the paces, judged against the file's choices for that pace
     * ({@code paced}) or for both (not). Empty where no rank count is parted by both.
     */
    static List<Group> checkAtPace(final TuningTable table, final long stagingBytes,
        final List<List<Measurement>> runs, final Pace pace, final boolean paced)
    {
        final Paces paces = Paces.of(runs.stream().flatMap(List::stream).toList());
        final List<Integer> parted = handoffParted(paces).stream().filter(ranks -> table.paceSplit(ranks) != null)
            .toList();
        final List<List<Measurement>> atPace = atPace(runs, paces, pace, parted);
        if (atPace.isEmpty())
        {
            return List.of();
        }
        return judge(atPace, fileChooser(table, stagingBytes, paced ? pace : null));
    }

    /**
     * Judges the choices the engine made in runs of {@code ./jccl bench} without {@code --algo}: each row of
     * {@code choices} names the algorithm the engine chose at its size (its rules, and the tuning file or shipped
     * model it ran with), which a tuning file alone cannot say. Where runs chose differently, the choice of most runs
     * counts.
     *
     * @param choices      the rows of bench runs without --algo, one list per run.
     * @param runs         the results to judge them by, as for {@link #check(TuningTable, long, List)}.
     * @throws IllegalArgumentException when a run holds two rows of one point: a run with --algo, not the engine's
     *                                  own choices.
     */
    static List<Group> checkRecorded(final List<List<Measurement>> choices, final List<List<Measurement>> runs)
    {
        final Map<Point, Map<String, Integer>> recorded = new HashMap<>();
        for (final List<Measurement> run : choices)
        {
            final Map<Point, String> seen = new HashMap<>();
            for (final Measurement m : run)
            {
                if (!judged(m))
                {
                    continue;
                }
                final Point point = new Point(Tuner.collective(m.collective()), m.ranks(), m.bytes());
                final String other = seen.put(point, m.algorithm());
                if (other != null)
                {
                    throw new IllegalArgumentException(m.source() + ": " + m.collective() + " at " + m.ranks() +
                        " ranks, " + m.bytes() + " B, ran " + other + " and " + m.algorithm() + " in one run: the " +
                        "choices come from runs of ./jccl bench without --algo, where the engine chooses");
                }
                recorded.computeIfAbsent(point, k -> new TreeMap<>()).merge(m.algorithm(), 1, Integer::sum);
            }
        }
        return judge(runs, (collective, ranks, bytes) ->
        {
            final Map<String, Integer> votes = recorded.get(new Point(collective, ranks, bytes));
            return votes == null ? null : votes.entrySet().stream().max(Map.Entry.comparingByValue()).orElseThrow()
                .getKey();
        });
    }

    /**
     * {@link #checkRecorded} at one pace, where the judging runs part a rank count's paces: the rows of
     * {@code choices} whose own handoff probe read {@code pace} (a pace-following engine chose them at it), judged by
     * the rows of {@code runs} at that pace, at the rank counts so parted. Empty where none is.
     */
    static List<Group> checkRecordedAtPace(final List<List<Measurement>> choices,
        final List<List<Measurement>> runs, final Pace pace)
    {
        final Paces paces = Paces.of(runs.stream().flatMap(List::stream).toList());
        final List<Integer> parted = handoffParted(paces);
        final List<List<Measurement>> choicesAtPace = atPace(choices, paces, pace, parted);
        final List<List<Measurement>> runsAtPace = atPace(runs, paces, pace, parted);
        if (choicesAtPace.isEmpty() || runsAtPace.isEmpty())
        {
            return List.of();
        }
        return checkRecorded(choicesAtPace, runsAtPace);
    }

    /**
     * The rows of {@code runs} that judge the rules at {@code pace} ({@link #checkRules}): at the rank counts whose
     * rows the bench's handoff probe parts, those at {@code pace}; when {@code pace} is null, every row of the other
     * rank counts. Runs left without rows are dropped.
     */
    static List<List<Measurement>> rulesJudgedBy(final List<List<Measurement>> runs, final Pace pace)
    {
        final Paces paces = Paces.of(runs.stream().flatMap(List::stream).toList());
        final List<Integer> parted = handoffParted(paces);
        return pace != null ? atPace(runs, paces, pace, parted) : runs.stream()
            .map(run -> run.stream().filter(m -> !parted.contains(m.ranks())).toList())
            .filter(run -> !run.isEmpty()).toList();
    }

    /**
     * The engine's own rules without a tuning file ({@link RuleChoices}) for ranks that share {@code cores} cores, at
     * {@code pace} (null: before any probe), judged by {@code runs} ({@link #rulesJudgedBy}).
     */
    static List<Group> checkRules(final List<List<Measurement>> runs, final Pace pace, final int cores,
        final long stagingBytes)
    {
        final Map<Integer, RuleChoices> rules = new HashMap<>();
        return judge(runs, (collective, ranks, bytes) ->
        {
            final RuleChoices atRanks = rules.computeIfAbsent(ranks, r ->
                new RuleChoices(r, cores, ShmTransport.defaultSingleCopyBytes(r, cores), stagingBytes));
            try
            {
                return atRanks.choose(collective, bytes, pace);
            }
            catch (final IllegalStateException | IllegalArgumentException ex)
            {
                return null; // no algorithm serves such a call
            }
        });
    }

    /** The rank counts whose rows the bench's handoff probe parts into two paces. */
    private static List<Integer> handoffParted(final Paces paces)
    {
        return paces.splits().stream().filter(Paces.Split::handoff).map(Paces.Split::ranks).toList();
    }

    /** Each run's rows at {@code pace}, of the rank counts {@code parted}; runs left without rows dropped. */
    private static List<List<Measurement>> atPace(final List<List<Measurement>> runs, final Paces paces,
        final Pace pace, final List<Integer> parted)
    {
        return runs.stream()
            .map(run -> paces.atPace(run, pace).stream().filter(m -> parted.contains(m.ranks())).toList())
            .filter(run -> !run.isEmpty()).toList();
    }

    /**
     * Of the sizes whose choice was measured in more than one run: how many had it within {@link Tuner#GOOD_ENOUGH}
     * of that run's fastest in every run, in some, in none.
     */
    static int[] runAgreement(final List<Group> groups)
    {
        final int[] counts = new int[3];
        for (final Group group : groups)
        {
            for (final Size size : group.sizes())
            {
                if (!Double.isNaN(size.slowdown()) && size.runsJudged() > 1)
                {
                    counts[size.runsWithin() == size.runsJudged() ? 0 : size.runsWithin() > 0 ? 1 : 2]++;
                }
            }
        }
        return counts;
    }

    /** Whether a row is of the kind choices are judged on: jccl's float32 sum on private buffers. */
    private static boolean judged(final Measurement m)
    {
        return m.algorithmNamed() && !m.shared() && Tuner.collective(m.collective()) != null &&
            "float32".equals(m.dtype()) && "sum".equals(m.op());
    }

    private record Point(Collective collective, int ranks, long bytes)
    {
    }

    /** The algorithm chosen at a point, or null when the chooser says nothing there. */
    private interface Chooser
    {
        String choose(Collective collective, int ranks, long bytes);
    }

    private static List<Group> judge(final List<List<Measurement>> runs, final Chooser chooser)
    {
        // collective and ranks -> size -> algorithm -> time (of the float32 sum rows, whose sizes rules are made for)
        final Map<String, TreeMap<Long, Map<String, Double>>> groups = new TreeMap<>();
        final List<Measurement> all = new ArrayList<>();
        runs.forEach(all::addAll);
        for (final Measurement m : Paces.of(all).expectedPerPoint(all))
        {
            if (judged(m))
            {
                groups.computeIfAbsent(String.format("%s %05d", m.collective(), m.ranks()), k -> new TreeMap<>())
                    .computeIfAbsent(m.bytes(), k -> new HashMap<>()).merge(m.algorithm(), m.micros(), Math::min);
            }
        }
        final Map<Point, Map<String, Double>> medians = times(Measurement.medianPerPoint(all));
        final List<Map<Point, Map<String, Double>>> perRun = runs.stream().map(TuningCheck::times).toList();
        final List<Group> checked = new ArrayList<>();
        for (final Map.Entry<String, TreeMap<Long, Map<String, Double>>> group : groups.entrySet())
        {
            if (group.getValue().values().stream().allMatch(times -> times.size() == 1))
            {
                continue; // one algorithm measured (alltoallv, gatherv, ...): nothing was chosen
            }
            final String[] key = group.getKey().split(" ");
            final Collective collective = Tuner.collective(key[0]);
            final int ranks = Integer.parseInt(key[1]);
            final List<Size> sizes = new ArrayList<>();
            for (final Map.Entry<Long, Map<String, Double>> size : group.getValue().entrySet())
            {
                final Map<String, Double> times = size.getValue();
                final Map.Entry<String, Double> best = times.entrySet().stream().min(Map.Entry.comparingByValue())
                    .orElseThrow();
                final String name = chooser.choose(collective, ranks, size.getKey());
                final double chosenMicros = name == null ? Double.NaN : times.getOrDefault(name, Double.NaN);
                final Point point = new Point(collective, ranks, size.getKey());
                int runsWithin = 0;
                int runsJudged = 0;
                for (final Map<Point, Map<String, Double>> run : perRun)
                {
                    if (judgeable(run.get(point), name))
                    {
                        runsJudged++;
                        runsWithin += within(run.get(point), name) ? 1 : 0;
                    }
                }
                sizes.add(new Size(size.getKey(), name, chosenMicros, best.getKey(), best.getValue(), runsWithin,
                    runsJudged, judgeable(medians.get(point), name) && within(medians.get(point), name)));
            }
            checked.add(new Group(collective, ranks, List.copyOf(sizes)));
        }
        return checked;
    }

    /** Per point, each algorithm's time: of the rows choices are judged on. */
    private static Map<Point, Map<String, Double>> times(final List<Measurement> rows)
    {
        final Map<Point, Map<String, Double>> times = new HashMap<>();
        for (final Measurement m : rows)
        {
            if (judged(m))
            {
                times.computeIfAbsent(new Point(Tuner.collective(m.collective()), m.ranks(), m.bytes()),
                    k -> new HashMap<>()).merge(m.algorithm(), m.micros(), Math::min);
            }
        }
        return times;
    }

    /** Whether one point's {@code times} tell how {@code name} did: it and another algorithm were measured. */
    private static boolean judgeable(final Map<String, Double> times, final String name)
    {
        return name != null && times != null && times.size() > 1 && times.containsKey(name);
    }

    /** Whether {@code name} took at most {@link Tuner#GOOD_ENOUGH} more than the fastest of {@code times}. */
    private static boolean within(final Map<String, Double> times, final String name)
    {
        return times.get(name) <= times.values().stream().min(Double::compare).orElseThrow() * (1 + Tuner.GOOD_ENOUGH);
    }
}
