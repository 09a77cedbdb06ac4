package io.jccl.tools.tune;

import io.jccl.Collective;
import io.jccl.algorithms.AlgorithmRegistry;
import io.jccl.algorithms.TunedSelection;
import io.jccl.model.TuningTable;
import io.jccl.spi.CollectiveAlgorithm;
import io.jccl.tools.fit.Measurement;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Checks a tuning file against measurements it was not made from: for every collective, rank count and measured size,
 * the algorithm the engine runs with the file ({@link TunedSelection}: the file's rule, else its model) and that
 * algorithm's measured time against the fastest measured one. In sample a measured choice is right by construction;
 * only a sweep of another day says how much the choices were worth.
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
     */
    record Size(long bytes, String chosen, double chosenMicros, String best, double bestMicros)
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
     * @param measurements the results to judge it by; repeated points count at their median. Collectives measured
     *                     with one algorithm alone are left out: there was nothing to choose.
     */
    static List<Group> check(final TuningTable table, final long stagingBytes, final List<Measurement> measurements)
    {
        // collective and ranks -> size -> algorithm -> time (of the float32 sum rows, whose sizes rules are made for)
        final Map<String, TreeMap<Long, Map<String, Double>>> groups = new TreeMap<>();
        for (final Measurement m : Measurement.medianPerPoint(measurements))
        {
            if (m.algorithmNamed() && !m.shared() && Tuner.collective(m.collective()) != null &&
                "float32".equals(m.dtype()) && "sum".equals(m.op()))
            {
                groups.computeIfAbsent(String.format("%s %05d", m.collective(), m.ranks()), k -> new TreeMap<>())
                    .computeIfAbsent(m.bytes(), k -> new HashMap<>()).merge(m.algorithm(), m.micros(), Math::min);
            }
        }
        final AlgorithmRegistry registry = AlgorithmRegistry.instance();
        final List<Group> checked = new ArrayList<>();
        for (final Map.Entry<String, TreeMap<Long, Map<String, Double>>> group : groups.entrySet())
        {
            if (group.getValue().values().stream().allMatch(times -> times.size() == 1))
            {
                continue; // one algorithm measured (allgatherv, alltoallv, ...): nothing was chosen
            }
            final String[] key = group.getKey().split(" ");
            final Collective collective = Tuner.collective(key[0]);
            final int ranks = Integer.parseInt(key[1]);
            final TunedSelection selection = TunedSelection.of(table, ranks, registry, stagingBytes);
            final List<Size> sizes = new ArrayList<>();
            for (final Map.Entry<Long, Map<String, Double>> size : group.getValue().entrySet())
            {
                final Map<String, Double> times = size.getValue();
                final Map.Entry<String, Double> best = times.entrySet().stream().min(Map.Entry.comparingByValue())
                    .orElseThrow();
                final CollectiveAlgorithm chosen = selection.choose(collective, size.getKey());
                final String name = chosen == null ? null : chosen.name();
                final double chosenMicros = name == null ? Double.NaN : times.getOrDefault(name, Double.NaN);
                sizes.add(new Size(size.getKey(), name, chosenMicros, best.getKey(), best.getValue()));
            }
            checked.add(new Group(collective, ranks, List.copyOf(sizes)));
        }
        return checked;
    }
}
