package io.jccl.tools.fit;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * One measured point of a results file: the average time of one collective call (one way for pingpong).
 *
 * @param source          whose measurement: the CSV's impl column, "jmh", or the file's name.
 * @param collective      "pingpong", "allreduce", ... (DESIGN.md section 7 names).
 * @param algorithm       the algorithm's name; for rows that name none, the classic algorithm it is modelled with.
 * @param algorithmNamed  false when the file named no algorithm (another library's measurements).
 * @param ranks           number of ranks.
 * @param bytes           size as nccl-tests counts it (the whole vector).
 * @param dtype           datatype label, "float32" when the file says none.
 * @param op              reduction operator label, "sum" when the file says none.
 * @param chunkBytes      chunk size the run used, 0 for the algorithm's default.
 * @param micros          average time, µs.
 * @param shared          the buffers lay in the shared segment (bench --shared, JMH memory=shared): the
 *                        shared-memory algorithms took their zero-copy paths.
 * @param sync            every call started after a barrier and was timed alone (bench --sync): a rooted
 *                        collective's latency, where back to back its calls overlap.
 * @param probeMicros     the pace probe the bench measured right after this row (its CSV's {@code probe_us}: an
 *                        8-byte pingpong between ranks 0 and 1, one way, µs), NaN when the row has none.
 * @param handoffMicros   the handoff probe the bench measured after it (its CSV's {@code handoff_us}: a 512 KiB
 *                        allgather through the staging areas, µs), NaN when the row has none.
 */
public record Measurement(
    String source, String collective, String algorithm, boolean algorithmNamed, int ranks, long bytes, String dtype,
    String op, long chunkBytes, double micros, boolean shared, boolean sync, double probeMicros, double handoffMicros)
{
    /** A measurement on private buffers. */
    public Measurement(
        final String source, final String collective, final String algorithm, final boolean algorithmNamed,
        final int ranks, final long bytes, final String dtype, final String op, final long chunkBytes,
        final double micros)
    {
        this(source, collective, algorithm, algorithmNamed, ranks, bytes, dtype, op, chunkBytes, micros, false);
    }

    /** A measurement of calls timed back to back. */
    public Measurement(
        final String source, final String collective, final String algorithm, final boolean algorithmNamed,
        final int ranks, final long bytes, final String dtype, final String op, final long chunkBytes,
        final double micros, final boolean shared)
    {
        this(source, collective, algorithm, algorithmNamed, ranks, bytes, dtype, op, chunkBytes, micros, shared, false);
    }

    /** A measurement without a pace probe. */
    public Measurement(
        final String source, final String collective, final String algorithm, final boolean algorithmNamed,
        final int ranks, final long bytes, final String dtype, final String op, final long chunkBytes,
        final double micros, final boolean shared, final boolean sync)
    {
        this(source, collective, algorithm, algorithmNamed, ranks, bytes, dtype, op, chunkBytes, micros, shared, sync,
            Double.NaN);
    }

    /** A measurement without a handoff probe. */
    public Measurement(
        final String source, final String collective, final String algorithm, final boolean algorithmNamed,
        final int ranks, final long bytes, final String dtype, final String op, final long chunkBytes,
        final double micros, final boolean shared, final boolean sync, final double probeMicros)
    {
        this(source, collective, algorithm, algorithmNamed, ranks, bytes, dtype, op, chunkBytes, micros, shared, sync,
            probeMicros, Double.NaN);
    }

    /** This point with another time (and no probes: the time is no longer one row's). */
    public Measurement withMicros(final double newMicros)
    {
        return new Measurement(source, collective, algorithm, algorithmNamed, ranks, bytes, dtype, op, chunkBytes,
            newMicros, shared, sync);
    }

    /** The series this point belongs to: one line of the plot, one table of the report. */
    public SeriesKey series()
    {
        return new SeriesKey(source, collective, algorithm, algorithmNamed, ranks, dtype, op, chunkBytes, shared, sync);
    }

    /**
     * One measurement per series and size: of repeated ones (several runs of the same sweep), the median time (the
     * lower middle one of an even count). On a shared machine one run's point can be slowed by an order of magnitude;
     * the median of three is not. Order: first appearance.
     */
    public static List<Measurement> medianPerPoint(final List<Measurement> measurements)
    {
        return byPoint(measurements).stream().map(Measurement::median).toList();
    }

    /** The measurements grouped by point (series and size), each group and the groups in order of first appearance. */
    public static List<List<Measurement>> byPoint(final List<Measurement> measurements)
    {
        final Map<Object, List<Measurement>> byPoint = new LinkedHashMap<>();
        for (final Measurement m : measurements)
        {
            byPoint.computeIfAbsent(List.of(m.series(), m.bytes()), k -> new ArrayList<>()).add(m);
        }
        return List.copyOf(byPoint.values());
    }

    /** Of repeated measurements of one point, the one of median time (the lower middle one of an even count). */
    public static Measurement median(final List<Measurement> repeats)
    {
        final List<Measurement> sorted = new ArrayList<>(repeats);
        sorted.sort(Comparator.comparingDouble(Measurement::micros));
        return sorted.get((sorted.size() - 1) / 2);
    }

    /** Identifies a series of measurements that differ only in size. */
    public record SeriesKey(
        String source, String collective, String algorithm, boolean algorithmNamed, int ranks, String dtype,
        String op, long chunkBytes, boolean shared, boolean sync)
    {
        /**
         * "allreduce ring, 4 ranks" (with the datatype, operator and chunk when they are not the defaults,
         * "shared buffers" for the zero-copy paths and "one call at a time" for --sync).
         */
        public String label()
        {
            final StringBuilder label = new StringBuilder(collective);
            label.append(' ').append(algorithmNamed ? algorithm : "(" + source + ", modelled as " + algorithm + ")");
            if (!"pingpong".equals(collective))
            {
                label.append(", ").append(ranks).append(ranks == 1 ? " rank" : " ranks");
            }
            if (!"pingpong".equals(collective) && (!"float32".equals(dtype) || !"sum".equals(op)))
            {
                label.append(", ").append(dtype).append(' ').append(op);
            }
            if (chunkBytes > 0)
            {
                label.append(", chunk ").append(Units.bytes(chunkBytes));
            }
            if (shared)
            {
                label.append(", shared buffers");
            }
            if (sync)
            {
                label.append(", one call at a time");
            }
            return label.toString();
        }
    }
}
