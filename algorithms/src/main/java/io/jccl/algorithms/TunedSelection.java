package io.jccl.algorithms;

import io.jccl.Collective;
import io.jccl.Configuration;
import io.jccl.JcclException;
import io.jccl.model.Pace;
import io.jccl.model.TuningTable;
import io.jccl.shm.Log;
import io.jccl.spi.CollectiveAlgorithm;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.EnumMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The algorithm to use per collective and message size at one rank count, flattened at connect from a
 * {@link TuningTable}: the file's rules for this rank count, and the model's choice (with the file's parameters, or
 * the shipped ones) for every collective the file says nothing about. Per collective it holds the sorted starts of
 * its size ranges and the algorithm of each range (null in a gap no rule covers), so that {@link #choose} is a
 * binary search over a few longs: no allocation, no map, no boxing on the per-call path.
 * <pre>
 * starts   [0,           2 KiB,        4 MiB      ]
 * choices  [shm_oneshot, shm_twoshot,  ring       ]    bytes in [starts[i], starts[i+1]) use choices[i]
 * </pre>
 * A rule's chunk size goes where its algorithm takes one: into an instance of its own for the algorithms whose
 * chunk is fixed at construction ({@link AlgorithmRegistry#withChunkBytes}), else into the call
 * ({@code CollectiveArgs.chunkBytes}, read by the chunked shared-memory algorithms) unless the configuration sets
 * {@code jccl.chunk.bytes}.
 */
public final class TunedSelection
{
    private static final long[] NO_STARTS = {0};
    private static final CollectiveAlgorithm[] NO_CHOICES = {null};
    private static final long[] NO_CHUNKS = {0};

    private final int ranks;
    private final long[][] starts;
    private final CollectiveAlgorithm[][] choices;
    /** Per range: the chunk size a call carries, 0 for the algorithm's default (or one fixed in its instance). */
    private final long[][] callChunks;
    /** Whether the choices come from a tuning file (measured here), not only from the shipped model. */
    private boolean measured;
    /** What the choices were made from ({@link #of}), for {@link #atCores} and {@link #logChoices}; null for none. */
    private TuningTable table;
    private long stagingBytes;
    /** Where the paces part at this rank count, and the choices at each; null where the table has one pace. */
    private TuningTable.PaceSplit paceSplit;
    private TunedSelection atFast;
    private TunedSelection atSlow;

    private TunedSelection(
        final int ranks, final long[][] starts, final CollectiveAlgorithm[][] choices, final long[][] callChunks)
    {
        this.ranks = ranks;
        this.starts = starts;
        this.choices = choices;
        this.callChunks = callChunks;
    }

    /** No choices at all: every call falls back to the selector's preference lists. */
    public static TunedSelection none(final int ranks)
    {
        final int n = Collective.values().length;
        final long[][] starts = new long[n][];
        final CollectiveAlgorithm[][] choices = new CollectiveAlgorithm[n][];
        final long[][] callChunks = new long[n][];
        for (int c = 0; c < n; c++)
        {
            starts[c] = NO_STARTS;
            choices[c] = NO_CHOICES;
            callChunks[c] = NO_CHUNKS;
        }
        return new TunedSelection(ranks, starts, choices, callChunks);
    }

    /**
     * What a communicator uses: the tuning file the configuration names ({@link TuningTable#load}), or the shipped
     * model when there is none, at this job's rank count and staging size.
     *
     * @throws JcclException when the tuning file cannot be read or is not valid (the message names it).
     */
    public static TunedSelection load(final Configuration configuration, final AlgorithmRegistry registry)
    {
        final int ranks = configuration.worldSize();
        if (ranks < 1)
        {
            return none(ranks); // the transport refuses the world size, with its own message
        }
        final long stagingBytes = configuration.getLong(Configuration.STAGING_BYTES_PROP_NAME,
            Configuration.STAGING_BYTES_DEFAULT);
        try
        {
            final TuningTable table = TuningTable.load(configuration);
            final TunedSelection selection = of(table, ranks, registry, stagingBytes);
            selection.setMeasured(table != TuningTable.shipped());
            return selection;
        }
        catch (final IOException | IllegalArgumentException ex)
        {
            throw new JcclException("cannot use the tuning file " + TuningTable.path(configuration) + " (" +
                TuningTable.FILE_PROP_NAME + " / " + Configuration.envName(TuningTable.FILE_PROP_NAME) + "; " +
                TuningTable.NONE + " for none): " + ex.getMessage(), ex);
        }
    }

    /**
     * The JSON of the tuning file these choices come from ({@link TuningTable#toJson}), which must be the same on every
     * rank of a job, or ranks would choose apart; "" for the shipped table or none. The shipped table is part of the
     * build, which ranks agree on anyway, and writing it as JSON cost a rank about 60 ms of its connect (2 ranks on 2
     * cores, the JVM cold: the JSON's numbers are rounded through BigDecimal; PERFORMANCE.md, session 69).
     */
    public String tableJson()
    {
        return table == null || !measured ? "" : table.toJson();
    }

    /**
     * These choices for ranks that share {@code cores} cores, from the same table (no file read again): the model's
     * choices depend on whether ranks outnumber cores.
     */
    public TunedSelection atCores(final AlgorithmRegistry registry, final int cores)
    {
        if (table == null)
        {
            return this;
        }
        final TunedSelection selection = of(table, ranks, registry, stagingBytes, cores);
        selection.setMeasured(measured);
        return selection;
    }

    private void setMeasured(final boolean fromFile)
    {
        measured = fromFile;
        if (paceSplit != null)
        {
            atFast.measured = fromFile;
            atSlow.measured = fromFile;
        }
    }

    /** Logs the choices at INFO, on rank 0, with where they came from ({@code configuration}'s tuning file). */
    public void logChoices(final Configuration configuration)
    {
        final Log log = new Log(configuration, configuration.rank());
        if (table == null || configuration.rank() != 0 || !log.enabled(Log.INFO, Log.INIT))
        {
            return;
        }
        log.info(Log.INIT, "algorithm selection at " + ranks + " ranks from " + (measured ?
            "tuning file " + TuningTable.path(configuration) + " " + table.info() : "the shipped model"));
        for (final Collective collective : Collective.values())
        {
            log.info(Log.INIT, "  " + collective.label() + ": " + describe(collective));
        }
        if (paceSplit != null)
        {
            log.info(Log.INIT, String.format(Locale.ROOT, "from the first handoff probe on (the fast pace at most " +
                "%.1f µs; measured %.1f and %.1f), where they differ from the above:", paceSplit.thresholdMicros(),
                paceSplit.fastMicros(), paceSplit.slowMicros()));
            for (final Pace pace : Pace.values())
            {
                for (final Collective collective : Collective.values())
                {
                    final String choices = atPace(pace).describe(collective);
                    if (!choices.equals(describe(collective)))
                    {
                        log.info(Log.INIT, "  " + pace.label() + " pace, " + collective.label() + ": " + choices);
                    }
                }
            }
        }
    }

    /**
     * The choices of {@code table} at {@code ranks}, completed by its model wherever it has no rule for a collective.
     *
     * @param stagingBytes staging bytes per rank of this job (the shared-memory formulas depend on it).
     * @throws IllegalArgumentException when a rule at {@code ranks} names an algorithm the registry does not have, or
     *                                  a chunk size the algorithm cannot take (per call: at least
     *                                  {@value Configuration#CHUNK_BYTES_MIN} bytes).
     */
    public static TunedSelection of(
        final TuningTable table, final int ranks, final AlgorithmRegistry registry, final long stagingBytes)
    {
        return of(table, ranks, registry, stagingBytes, Runtime.getRuntime().availableProcessors());
    }

    /** {@link #of(TuningTable, int, AlgorithmRegistry, long)} for ranks that share {@code cores} cores. */
    public static TunedSelection of(final TuningTable table, final int ranks, final AlgorithmRegistry registry,
        final long stagingBytes, final int cores)
    {
        final Map<Collective, Collection<String>> available = new EnumMap<>(Collective.class);
        for (final Collective collective : Collective.values())
        {
            available.put(collective, registry.of(collective).keySet());
        }
        final TuningTable complete = table.withModelChoices(ranks, available, stagingBytes, cores);
        final TunedSelection selection = flatten(complete, ranks, registry, null);
        selection.table = table;
        selection.stagingBytes = stagingBytes;
        selection.paceSplit = table.paceSplit(ranks);
        if (selection.paceSplit != null)
        {
            selection.atFast = flatten(complete, ranks, registry, Pace.FAST);
            selection.atSlow = flatten(complete, ranks, registry, Pace.SLOW);
        }
        return selection;
    }

    /** The choices at {@code pace} (null: at both), each collective from its rules of that pace or else for both. */
    private static TunedSelection flatten(
        final TuningTable complete, final int ranks, final AlgorithmRegistry registry, final Pace pace)
    {
        final TunedSelection selection = none(ranks);
        for (final Collective collective : Collective.values())
        {
            final Pace rulesPace = pace != null && complete.hasRules(collective, ranks, pace) ? pace : null;
            final List<TuningTable.Rule> rules = complete.rules().stream()
                .filter(r -> r.collective() == collective && r.ranks() == ranks && r.pace() == rulesPace).toList();
            if (!rules.isEmpty())
            {
                selection.fill(collective, rules, registry);
            }
        }
        return selection;
    }

    /** Flattens one collective's rules (sorted, not overlapping) into starts and choices, with null in the gaps. */
    private void fill(final Collective collective, final List<TuningTable.Rule> rules, final AlgorithmRegistry registry)
    {
        final List<Long> rangeStarts = new ArrayList<>();
        final List<CollectiveAlgorithm> rangeChoices = new ArrayList<>();
        final List<Long> rangeChunks = new ArrayList<>();
        long end = 0;
        for (final TuningTable.Rule rule : rules)
        {
            if (rule.minBytes() > end || rangeStarts.isEmpty() && rule.minBytes() > 0)
            {
                rangeStarts.add(end);
                rangeChoices.add(null);
                rangeChunks.add(0L);
            }
            CollectiveAlgorithm algorithm = registry.find(collective, rule.algorithm());
            long callChunk = 0;
            if (rule.chunkBytes() > 0)
            {
                final CollectiveAlgorithm cut = registry.withChunkBytes(collective, rule.algorithm(),
                    rule.chunkBytes());
                if (cut != null)
                {
                    algorithm = cut;
                }
                else if (rule.chunkBytes() < Configuration.CHUNK_BYTES_MIN)
                {
                    throw new IllegalArgumentException(collective.label() + ":" + rule.algorithm() + ": chunk size " +
                        rule.chunkBytes() + " is below " + Configuration.CHUNK_BYTES_MIN + " bytes");
                }
                else
                {
                    callChunk = rule.chunkBytes();
                }
            }
            rangeStarts.add(rule.minBytes());
            rangeChoices.add(algorithm);
            rangeChunks.add(callChunk);
            end = rule.maxBytes();
        }
        if (end != Long.MAX_VALUE)
        {
            rangeStarts.add(end);
            rangeChoices.add(null);
            rangeChunks.add(0L);
        }
        final int c = collective.ordinal();
        starts[c] = rangeStarts.stream().mapToLong(Long::longValue).toArray();
        choices[c] = rangeChoices.toArray(new CollectiveAlgorithm[0]);
        callChunks[c] = rangeChunks.stream().mapToLong(Long::longValue).toArray();
    }

    /** Whether the choices come from a tuning file rather than only from the shipped model's parameters. */
    public boolean measured()
    {
        return measured;
    }

    /** The rank count the choices are for. */
    public int ranks()
    {
        return ranks;
    }

    /** Where the paces part at this rank count, or null when the choices are the same at both. */
    public TuningTable.PaceSplit paceSplit()
    {
        return paceSplit;
    }

    /** The choices at {@code pace}: this selection for null, or where the paces do not part. Allocates nothing. */
    public TunedSelection atPace(final Pace pace)
    {
        if (pace == null || paceSplit == null)
        {
            return this;
        }
        return pace == Pace.FAST ? atFast : atSlow;
    }

    /** The chosen algorithm for a call of {@code bytes}, or null when no rule covers it. Allocates nothing. */
    public CollectiveAlgorithm choose(final Collective collective, final long bytes)
    {
        return algorithm(collective, range(collective, bytes));
    }

    /** The algorithm of range {@code range} ({@link #range}), or null for a gap. */
    public CollectiveAlgorithm algorithm(final Collective collective, final int range)
    {
        return choices[collective.ordinal()][range];
    }

    /** The chunk size calls of range {@code range} carry, 0 for the algorithm's default. */
    public long callChunkBytes(final Collective collective, final int range)
    {
        return callChunks[collective.ordinal()][range];
    }

    /** The index of the size range that holds {@code bytes}. Allocates nothing. */
    public int range(final Collective collective, final long bytes)
    {
        final long[] s = starts[collective.ordinal()];
        // the last start <= bytes; starts[0] is 0 and bytes >= 0
        int low = 0;
        int high = s.length - 1;
        while (low < high)
        {
            final int middle = (low + high + 1) >>> 1;
            if (s[middle] <= bytes)
            {
                low = middle;
            }
            else
            {
                high = middle - 1;
            }
        }
        return low;
    }

    /** The size ranges of {@code collective}: "[0 B, 2 KiB) shm_oneshot; [2 KiB, ∞) shm_twoshot" (for logs). */
    public String describe(final Collective collective)
    {
        final long[] s = starts[collective.ordinal()];
        final CollectiveAlgorithm[] a = choices[collective.ordinal()];
        final StringBuilder sb = new StringBuilder();
        for (int i = 0; i < s.length; i++)
        {
            sb.append(i == 0 ? "" : "; ").append('[').append(bytes(s[i])).append(", ")
                .append(i + 1 < s.length ? bytes(s[i + 1]) : "∞").append(") ")
                .append(a[i] == null ? "(preference list)" : a[i].name())
                .append(callChunks[collective.ordinal()][i] > 0 ? " chunk " +
                    bytes(callChunks[collective.ordinal()][i]) : "");
        }
        return sb.toString();
    }

    private static String bytes(final long value)
    {
        if (value < 10 * 1024 && value % 1024 != 0)
        {
            return value + " B"; // a capacity boundary such as 1025 B reads wrong as "1.0 KiB"
        }
        final String[] units = {"B", "KiB", "MiB", "GiB", "TiB"};
        double v = value;
        int unit = 0;
        while (v >= 1024 && unit + 1 < units.length)
        {
            v /= 1024;
            unit++;
        }
        return v == Math.rint(v) ? (long)v + " " + units[unit] : String.format(Locale.ROOT, "%.1f %s", v, units[unit]);
    }
}
