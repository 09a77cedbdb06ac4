package io.jccl.tools.fit;

import io.jccl.model.Pace;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

/**
 * The paces a sweep ran at, told apart by the probes every bench row ends with, and per point the time to expect
 * across them. The probe is the handoff probe ({@code handoff_us}, a 512 KiB allgather through the staging areas)
 * where every row of a rank count has one, else the 8-byte pingpong between ranks 0 and 1 ({@code probe_us}): while
 * ranks outnumber cores the pingpong reads the waits for a core at either pace (4 ranks on 2 cores: 0.12-2.5 µs),
 * where the allgather read 63-93 µs at the fast pace and 126-228 at the slow one.
 * <p>
 * Some machines switch between two speeds of the cross-core handoff for seconds at a time: the AMD EPYC VM of MODEL.md
 * session 19 hands a line over in 54 or in 245 ns, which the probe reads as about 0.10 or 0.30 µs. There the median
 * of a few runs is the pace most of them happened to see, and at 22 of 122 sizes (2 ranks, six sweeps) no algorithm
 * came within 10 % of the best at both paces, so choices made by the median are right at one pace only, and which
 * one is luck.
 * {@link #expectedPerPoint} weighs each pace's median by the share of the sweeps' rows measured at it: the time a call
 * takes on average on that machine, which is what a job running for minutes pays. Within a pace it stays a median, so
 * one disturbed row does not move it; with one pace (every machine before that VM, any results without probes) it is
 * the plain median of {@link Measurement#medianPerPoint}.
 */
public final class Paces
{
    /**
     * Two groups of probes are two paces when the fastest quarter of the slower group is at least this ratio above the
     * slowest quarter of the faster one. Quarters, not tenths, since some sweeps run a fifth of their rows between the
     * paces. Twelve 4-rank sweeps of the AMD VM, each of which mixed its paces (MODEL.md, session 25): quarters
     * 1.46-2.07, below this ratio in one sweep, 13 % of whose rows were slow; tenths 1.24-1.69, below it in nine, and
     * one sweep whose handoff probe read 100-135 µs in a fifth of its rows kept any nine sweeps with it from parting.
     * Within one pace (each pace's rows of the twelve alone) 1.16-1.21, and 1.03 for the 8-byte probe at 4 ranks on 2
     * cores, where it waits for a core and its times spread without a gap.
     */
    static final double SEPARATION = 1.5;
    /**
     * Groups whose median probes are further apart than this are not two paces: the AMD VM's stood 3x apart, where a
     * probe of tens of µs after a short sweep's rows is a rank waking from a park or a time slice lost to other work
     * (a 2-rank broadcast sweep to 2 KiB: 0.37 µs in 49 rows, 64 µs in 9).
     */
    static final double MAX_PACE_RATIO = 10;
    /** Each pace holds at least this share of a rank count's rows: a few disturbed rows are not a pace. */
    static final double MIN_SHARE = 0.1;

    /**
     * Two paces of one rank count's rows.
     *
     * @param ranks     the rank count.
     * @param threshold probes up to this are the fast pace, above it the slow one (µs).
     * @param fastRows  rows at the fast pace.
     * @param slowRows  rows at the slow pace.
     * @param fastProbe median probe of the fast rows (µs).
     * @param slowProbe median probe of the slow rows (µs).
     * @param handoff   whether the probe is the handoff probe ({@link Measurement#handoffMicros}), else the 8-byte
     *                  one ({@link Measurement#probeMicros}).
     */
    public record Split(int ranks, double threshold, int fastRows, int slowRows, double fastProbe, double slowProbe,
        boolean handoff)
    {
        /** The fast pace's share of the rows. */
        public double fastShare()
        {
            return (double)fastRows / (fastRows + slowRows);
        }

        /** "2 ranks, the probe at 0.100 µs in 526 rows (42 %) and at 0.305 µs in 722 (58 %)". */
        public String describe()
        {
            return String.format(Locale.ROOT, "%d ranks, the %s at %.3f µs in %d rows (%.0f %%) and at " +
                "%.3f µs in %d (%.0f %%)", ranks, handoff ? "handoff probe" : "probe", fastProbe, fastRows,
                100 * fastShare(), slowProbe, slowRows, 100 * (1 - fastShare()));
        }

        /** Whether {@code m}, of this split's rank count, was measured at the fast pace. */
        boolean fast(final Measurement m)
        {
            return (handoff ? m.handoffMicros() : m.probeMicros()) <= threshold;
        }

        /** Whether {@code m}, of this split's rank count, was measured at {@code pace}. */
        boolean at(final Measurement m, final Pace pace)
        {
            return fast(m) == (pace == Pace.FAST);
        }
    }

    private final Map<Integer, Split> splits;

    private Paces(final Map<Integer, Split> splits)
    {
        this.splits = splits;
    }

    /**
     * The paces of {@code rows}, found per rank count (a probe's time depends on how many ranks share the cores), by
     * the handoff probe where every row of the rank count that has a probe has one (rows of other libraries have none).
     */
    public static Paces of(final List<Measurement> rows)
    {
        final Map<Integer, List<Measurement>> byRanks = new TreeMap<>();
        rows.forEach(m -> byRanks.computeIfAbsent(m.ranks(), r -> new ArrayList<>()).add(m));
        final Map<Integer, Split> splits = new TreeMap<>();
        byRanks.forEach((ranks, ofRanks) ->
        {
            final boolean handoff = ofRanks.stream().filter(m -> m.probeMicros() > 0 || m.handoffMicros() > 0)
                .allMatch(m -> m.handoffMicros() > 0);
            final double[] probes = ofRanks.stream().mapToDouble(handoff ? Measurement::handoffMicros :
                Measurement::probeMicros).filter(probe -> probe > 0).toArray();
            final Split split = split(ranks, probes, handoff);
            if (split != null)
            {
                splits.put(ranks, split);
            }
        });
        return new Paces(splits);
    }

    /**
     * Splits the probes where the two groups' logarithms are furthest apart for their sizes (Otsu's threshold: the
     * largest between-group variance), each group at least {@link #MIN_SHARE} of them; two paces when the groups
     * stand {@link #SEPARATION} apart and their medians at most {@link #MAX_PACE_RATIO}, else null.
     */
    static Split split(final int ranks, final double[] probes, final boolean handoff)
    {
        final double[] sorted = probes.clone();
        Arrays.sort(sorted);
        final int n = sorted.length;
        final double[] logSums = new double[n + 1];
        for (int i = 0; i < n; i++)
        {
            logSums[i + 1] = logSums[i] + Math.log(sorted[i]);
        }
        final int least = Math.max(1, (int)Math.ceil(n * MIN_SHARE));
        int fast = -1;
        double widest = -1;
        for (int k = least; k <= n - least; k++)
        {
            final double gap = logSums[k] / k - (logSums[n] - logSums[k]) / (n - k);
            final double between = (double)k * (n - k) * gap * gap;
            if (between > widest)
            {
                widest = between;
                fast = k;
            }
        }
        if (fast < 0 || sorted[fast + (n - fast) / 4] / sorted[fast * 3 / 4] < SEPARATION)
        {
            return null;
        }
        final double fastProbe = sorted[(fast - 1) / 2];
        final double slowProbe = sorted[fast + (n - fast - 1) / 2];
        return slowProbe > MAX_PACE_RATIO * fastProbe ? null :
            new Split(ranks, Math.sqrt(sorted[fast - 1] * sorted[fast]), fast, n - fast, fastProbe, slowProbe, handoff);
    }

    /** The rank counts whose rows ran at two paces. */
    public List<Split> splits()
    {
        return List.copyOf(splits.values());
    }

    /** Each rank count that ran at two paces, as {@link Split#describe}, joined by "; ". */
    public String describe()
    {
        return String.join("; ", splits.values().stream().map(Split::describe).toList());
    }

    /**
     * One measurement per series and size: where its rank count ran at two paces and the point was measured at both,
     * the median of each pace weighted by that pace's share of the rank count's rows; else the median of its rows
     * (the lower middle one of an even count), as {@link Measurement#medianPerPoint}. Order: first appearance.
     */
    public List<Measurement> expectedPerPoint(final List<Measurement> rows)
    {
        final List<Measurement> expected = new ArrayList<>();
        for (final List<Measurement> repeats : Measurement.byPoint(rows))
        {
            final Measurement median = Measurement.median(repeats);
            final Split split = splits.get(median.ranks());
            if (split == null)
            {
                expected.add(median);
                continue;
            }
            final List<Measurement> fast = repeats.stream().filter(split::fast).toList();
            final List<Measurement> slow = repeats.stream().filter(m -> !split.fast(m)).toList();
            expected.add(fast.isEmpty() || slow.isEmpty() ? median : median.withMicros(
                split.fastShare() * Measurement.median(fast).micros() +
                (1 - split.fastShare()) * Measurement.median(slow).micros()));
        }
        return expected;
    }

    /**
     * One measurement per series and size at {@code pace}: the median of the point's rows at that pace where its rank
     * count ran at two paces and the point has some, else the time to expect ({@link #expectedPerPoint}). What choices
     * for one pace are made from: complete wherever the sweeps were, though a pace may have missed some points.
     */
    public List<Measurement> perPointAt(final List<Measurement> rows, final Pace pace)
    {
        final List<Measurement> points = new ArrayList<>();
        for (final List<Measurement> repeats : Measurement.byPoint(rows))
        {
            final Split split = splits.get(repeats.get(0).ranks());
            final List<Measurement> atPace = split == null ? List.of() :
                repeats.stream().filter(m -> split.at(m, pace)).toList();
            points.add(atPace.isEmpty() ? expectedPerPoint(repeats).get(0) : Measurement.median(atPace));
        }
        return points;
    }

    /**
     * The rows measured at {@code pace}: of each rank count that ran at two paces, those on that side of its split;
     * of the others every row (one pace is both).
     */
    public List<Measurement> atPace(final List<Measurement> rows, final Pace pace)
    {
        return rows.stream().filter(m ->
        {
            final Split split = splits.get(m.ranks());
            return split == null || split.at(m, pace);
        }).toList();
    }
}
