package io.jccl.model;

import io.jccl.Collective;
import io.jccl.Configuration;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SortedSet;
import java.util.TreeSet;

/**
 * Which algorithm (and chunk size) to use for each collective × ranks × size range, as {@code ./jccl tune} wrote it
 * for this machine, with the fitted model parameters it came from. The engine loads it once at start
 * ({@link #load(Configuration)}) and asks {@link #lookup} for every call; a call no rule covers falls back to the
 * engine's own choice, which can be the model's ({@link #withModelChoices}).
 * <p>
 * Location: the setting {@value #FILE_PROP_NAME} ({@code JCCL_TUNING_FILE}) when set ({@value #NONE}: no file), else
 * {@code ~/.jccl/tuning.json}. File format (JSON; sizes in bytes, {@code max_bytes} exclusive and absent on the last
 * range, {@code chunk_bytes} 0 for the algorithm's default):
 * <pre>
 * {
 *   "format": "jccl-tuning 1",
 *   "created": "2025-01-31T12:00:00Z", "host": "box", "source": "results.csv",
 *   "model": {"regimes": [{"from_bytes": 0, "alpha_us": 0.2, "beta_ns_per_byte": 0.1, ...}], "flag_us": 0.06,
 *             "gamma_ns_per_byte": {"default": 0.05, "float32:sum": 0.05}},
 *   "rules": [
 *     {"collective": "allreduce", "ranks": 4, "min_bytes": 0, "max_bytes": 65536, "algorithm": "shm_oneshot",
 *      "chunk_bytes": 0},
 *     {"collective": "allreduce", "ranks": 4, "min_bytes": 65536, "algorithm": "shm_twoshot", "chunk_bytes": 0}
 *   ]
 * }
 * </pre>
 * On a machine whose cross-core handoff runs at two paces ({@link Pace}), format {@value #FORMAT_PACES} adds, per rank
 * count where the measurements showed both, the threshold of the engine's handoff probe between them, and rules that
 * apply at one pace only; the rules without a pace hold until the engine's first probe, and wherever a pace has no
 * rule of its own for a collective:
 * <pre>
 *   "paces": [{"ranks": 2, "handoff_threshold_us": 61.2, "fast_us": 27.0, "slow_us": 131.0}],
 *   "rules": [..., {"collective": "allgather", "ranks": 2, "min_bytes": 0, "algorithm": "shm_direct",
 *                   "chunk_bytes": 0, "pace": "fast"}, ...]
 * </pre>
 * Immutable; {@link #lookup} allocates nothing.
 */
public final class TuningTable
{
    /** Setting that names the tuning file (environment {@code JCCL_TUNING_FILE}). */
    public static final String FILE_PROP_NAME = "jccl.tuning.file";

    /** Setting value that means "no tuning file": the shipped model chooses (reproducible tests and benchmarks). */
    public static final String NONE = "none";

    /** Value of the "format" field. */
    public static final String FORMAT = "jccl-tuning 1";

    /** Value of the "format" field of a file with paces (which a jccl that reads only {@link #FORMAT} would misread). */
    public static final String FORMAT_PACES = "jccl-tuning 2";

    /** Where model rules are evaluated: quarter octaves from 1 byte to 64 GiB. */
    private static final int GRID_STEPS_PER_OCTAVE = 4;
    private static final int GRID_OCTAVES = 36;
    private static final SortedSet<Long> GRID = grid();

    private final ModelParameters model;
    private final Map<String, String> info;
    private final List<Rule> rules;
    private final List<PaceSplit> paces;
    private final Rule[][] byCollective;

    /**
     * One size range of one collective at one rank count.
     *
     * @param collective the collective.
     * @param ranks      the rank count it applies to (exactly).
     * @param minBytes   first size, inclusive.
     * @param maxBytes   end of the range, exclusive; {@link Long#MAX_VALUE} for no end.
     * @param algorithm  the algorithm's name, as the registry names it.
     * @param chunkBytes chunk size for algorithms that cut messages, 0 for the algorithm's default.
     * @param pace       the pace the rule applies at; null for both (and before the engine has probed the pace).
     */
    public record Rule(Collective collective, int ranks, long minBytes, long maxBytes, String algorithm, long chunkBytes,
        Pace pace)
    {
        public Rule
        {
            if (ranks < 1 || minBytes < 0 || maxBytes <= minBytes || chunkBytes < 0 || algorithm.isBlank())
            {
                throw new IllegalArgumentException("bad tuning rule: " + collective.label() + " ranks " + ranks +
                    " bytes [" + minBytes + ", " + maxBytes + ") " + algorithm + " chunk " + chunkBytes);
            }
        }

        /** A rule for both paces. */
        public Rule(final Collective collective, final int ranks, final long minBytes, final long maxBytes,
            final String algorithm, final long chunkBytes)
        {
            this(collective, ranks, minBytes, maxBytes, algorithm, chunkBytes, null);
        }

        /** This rule at {@code atPace} alone (null: at both). */
        public Rule withPace(final Pace atPace)
        {
            return new Rule(collective, ranks, minBytes, maxBytes, algorithm, chunkBytes, atPace);
        }

        /** True when the rule covers a call of {@code ranks} and {@code bytes}. */
        public boolean covers(final int callRanks, final long bytes)
        {
            return callRanks == ranks && bytes >= minBytes && bytes < maxBytes;
        }
    }

    /**
     * Where the engine's handoff probe tells one pace from the other at one rank count.
     *
     * @param ranks           the rank count.
     * @param thresholdMicros a probe of at most this many µs is the fast pace, a longer one the slow pace.
     * @param fastMicros      the probe's median at the fast pace in the measurements (for reports).
     * @param slowMicros      its median at the slow pace.
     */
    public record PaceSplit(int ranks, double thresholdMicros, double fastMicros, double slowMicros)
    {
        public PaceSplit
        {
            if (ranks < 2 || !(thresholdMicros > 0) || !(fastMicros > 0) || !(slowMicros > 0))
            {
                throw new IllegalArgumentException("bad pace split: ranks " + ranks + ", threshold " +
                    thresholdMicros + " µs (probes at " + fastMicros + " and " + slowMicros + " µs)");
            }
        }
    }

    /**
     * @param model the parameters the rules came from (and the model choices of {@link #withModelChoices} use).
     * @param info  free-form facts about the tuning run: created, host, source.
     * @param rules the rules; ranges of one collective, rank count and pace must not overlap.
     */
    public TuningTable(final ModelParameters model, final Map<String, String> info, final List<Rule> rules)
    {
        this(model, info, rules, List.of());
    }

    /**
     * @param paces where the pace changes, per rank count; every rule with a pace must be at a rank count listed.
     */
    public TuningTable(
        final ModelParameters model, final Map<String, String> info, final List<Rule> rules, final List<PaceSplit> paces)
    {
        this.model = model;
        this.info = Map.copyOf(info);
        final List<Rule> sorted = new ArrayList<>(rules);
        sorted.sort(TuningTable::compareRules);
        for (int i = 1; i < sorted.size(); i++)
        {
            final Rule previous = sorted.get(i - 1);
            final Rule rule = sorted.get(i);
            if (previous.collective() == rule.collective() && previous.ranks() == rule.ranks() &&
                previous.pace() == rule.pace() && rule.minBytes() < previous.maxBytes())
            {
                throw new IllegalArgumentException("tuning rules overlap: " + previous + " and " + rule);
            }
        }
        final List<PaceSplit> splits = new ArrayList<>(paces);
        splits.sort(Comparator.comparingInt(PaceSplit::ranks));
        for (int i = 1; i < splits.size(); i++)
        {
            if (splits.get(i).ranks() == splits.get(i - 1).ranks())
            {
                throw new IllegalArgumentException("two pace splits at " + splits.get(i).ranks() + " ranks");
            }
        }
        for (final Rule rule : sorted)
        {
            if (rule.pace() != null && splits.stream().noneMatch(split -> split.ranks() == rule.ranks()))
            {
                throw new IllegalArgumentException("a rule at the " + rule.pace().label() + " pace at " +
                    rule.ranks() + " ranks, where no pace split says how to tell the paces apart: " + rule);
            }
        }
        this.rules = List.copyOf(sorted);
        this.paces = List.copyOf(splits);
        this.byCollective = new Rule[Collective.values().length][];
        int from = 0;
        for (final Collective collective : Collective.values())
        {
            // sorted by collective first, in the enum's order: each collective's rules are the next run of them
            int to = from;
            while (to < sorted.size() && sorted.get(to).collective() == collective)
            {
                to++;
            }
            byCollective[collective.ordinal()] = sorted.subList(from, to).toArray(new Rule[0]);
            from = to;
        }
    }

    /**
     * Rules in the order the table keeps them: by collective, rank count, pace (both first) and first size. A method,
     * not a chain of comparators: every rank builds tables at connect, mostly in the interpreter, where each lambda
     * costs a call site's linkage.
     */
    private static int compareRules(final Rule a, final Rule b)
    {
        int order = a.collective().compareTo(b.collective());
        if (order == 0)
        {
            order = Integer.compare(a.ranks(), b.ranks());
        }
        if (order == 0 && a.pace() != b.pace())
        {
            order = a.pace() == null ? -1 : b.pace() == null ? 1 : a.pace().compareTo(b.pace());
        }
        return order != 0 ? order : Long.compare(a.minBytes(), b.minBytes());
    }

    /**
     * No rules, the shipped model: always the same table, so that the engine tells it from a file's by identity
     * (comparing the two would link the records' {@code equals} at every rank's connect, some 10 ms interpreted).
     */
    public static TuningTable shipped()
    {
        return Shipped.TABLE;
    }

    /** The tuning file named by {@value #FILE_PROP_NAME} / {@code JCCL_TUNING_FILE}, else the default path. */
    public static Path path(final Configuration configuration)
    {
        final String configured = configuration.get(FILE_PROP_NAME);
        return configured != null && !configured.isBlank() ? Path.of(configured.trim()) : defaultPath();
    }

    /** {@code ~/.jccl/tuning.json}. */
    public static Path defaultPath()
    {
        return Path.of(System.getProperty("user.home"), ".jccl", "tuning.json");
    }

    /**
     * What the engine loads at start: the file at {@link #path(Configuration)}; {@link #shipped()} when that is the
     * default path and there is no file there, or when the setting is {@value #NONE}. A file named by the setting
     * must exist.
     *
     * @throws IOException              when the file cannot be read, or a configured one does not exist.
     * @throws IllegalArgumentException when it is not a valid tuning file (the message names the file).
     */
    public static TuningTable load(final Configuration configuration) throws IOException
    {
        if (NONE.equalsIgnoreCase(String.valueOf(configuration.get(FILE_PROP_NAME)).trim()))
        {
            return shipped();
        }
        final Path path = path(configuration);
        try
        {
            return read(path);
        }
        catch (final NoSuchFileException ex)
        {
            if (configuration.get(FILE_PROP_NAME) != null && !configuration.get(FILE_PROP_NAME).isBlank())
            {
                throw new NoSuchFileException(path.toString(), null, "tuning file named by " + FILE_PROP_NAME +
                    " (" + Configuration.envName(FILE_PROP_NAME) + ") does not exist");
            }
            return shipped();
        }
    }

    /** Reads a tuning file. */
    public static TuningTable read(final Path path) throws IOException
    {
        final String text = Files.readString(path, StandardCharsets.UTF_8);
        try
        {
            return parse(text);
        }
        catch (final IllegalArgumentException | ClassCastException ex)
        {
            throw new IllegalArgumentException("tuning file " + path + ": " + ex.getMessage(), ex);
        }
    }

    /** Parses the JSON of a tuning file. */
    @SuppressWarnings("unchecked")
    public static TuningTable parse(final String text)
    {
        final Object parsed = Json.parse(text);
        if (!(parsed instanceof Map))
        {
            throw new IllegalArgumentException("expected a JSON object");
        }
        final Map<String, Object> json = (Map<String, Object>)parsed;
        final String format = Json.string(json, "format");
        if (!FORMAT.equals(format) && !FORMAT_PACES.equals(format))
        {
            throw new IllegalArgumentException("format is '" + format + "', this jccl reads '" + FORMAT + "' and '" +
                FORMAT_PACES + "'");
        }
        final Map<String, String> info = new LinkedHashMap<>();
        for (final String key : new String[] {"created", "host", "source"})
        {
            if (json.get(key) instanceof String value)
            {
                info.put(key, value);
            }
        }
        final List<Rule> rules = new ArrayList<>();
        for (final Object item : Json.array(json, "rules"))
        {
            final Map<String, Object> r = (Map<String, Object>)item;
            rules.add(new Rule(Collective.parse(Json.string(r, "collective")), (int)Json.number(r, "ranks"),
                (long)Json.number(r, "min_bytes"),
                r.containsKey("max_bytes") ? (long)Json.number(r, "max_bytes") : Long.MAX_VALUE,
                Json.string(r, "algorithm"), r.containsKey("chunk_bytes") ? (long)Json.number(r, "chunk_bytes") : 0,
                r.containsKey("pace") ? Pace.parse(Json.string(r, "pace")) : null));
        }
        final List<PaceSplit> paces = new ArrayList<>();
        if (json.containsKey("paces"))
        {
            for (final Object item : Json.array(json, "paces"))
            {
                final Map<String, Object> p = (Map<String, Object>)item;
                paces.add(new PaceSplit((int)Json.number(p, "ranks"), Json.number(p, "handoff_threshold_us"),
                    Json.number(p, "fast_us"), Json.number(p, "slow_us")));
            }
        }
        return new TuningTable(ModelParameters.fromJson(Json.object(json, "model")), info, rules, paces);
    }

    /** The JSON text of this table, in the documented format. */
    public String toJson()
    {
        final Map<String, Object> json = new LinkedHashMap<>();
        json.put("format", paces.isEmpty() ? FORMAT : FORMAT_PACES);
        for (final String key : new String[] {"created", "host", "source"})
        {
            if (info.containsKey(key))
            {
                json.put(key, info.get(key));
            }
        }
        json.put("model", model.toJson());
        if (!paces.isEmpty())
        {
            final List<Object> paceList = new ArrayList<>();
            for (final PaceSplit split : paces)
            {
                final Map<String, Object> p = new LinkedHashMap<>();
                p.put("ranks", split.ranks());
                p.put("handoff_threshold_us", split.thresholdMicros());
                p.put("fast_us", split.fastMicros());
                p.put("slow_us", split.slowMicros());
                paceList.add(p);
            }
            json.put("paces", paceList);
        }
        final List<Object> ruleList = new ArrayList<>();
        for (final Rule rule : rules)
        {
            final Map<String, Object> r = new LinkedHashMap<>();
            r.put("collective", rule.collective().label());
            r.put("ranks", rule.ranks());
            r.put("min_bytes", rule.minBytes());
            if (rule.maxBytes() != Long.MAX_VALUE)
            {
                r.put("max_bytes", rule.maxBytes());
            }
            r.put("algorithm", rule.algorithm());
            r.put("chunk_bytes", rule.chunkBytes());
            if (rule.pace() != null)
            {
                r.put("pace", rule.pace().label());
            }
            ruleList.add(r);
        }
        json.put("rules", ruleList);
        return Json.write(json) + "\n";
    }

    /** Writes the table to {@code path} (through a temporary file, so readers never see half a file). */
    public void write(final Path path) throws IOException
    {
        final Path parent = path.toAbsolutePath().getParent();
        Files.createDirectories(parent);
        final Path temporary = Files.createTempFile(parent, ".tuning", ".tmp");
        try
        {
            Files.writeString(temporary, toJson(), StandardCharsets.UTF_8);
            Files.move(temporary, path, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        }
        finally
        {
            Files.deleteIfExists(temporary);
        }
    }

    /** The rule for a call at either pace (a rule without one), or null when none covers it. */
    public Rule lookup(final Collective collective, final int ranks, final long bytes)
    {
        return lookup(collective, ranks, bytes, null);
    }

    /**
     * The rule for a call at {@code pace}: one of that pace where the collective has any at {@code ranks}, else one
     * for both paces; null when none covers it.
     */
    public Rule lookup(final Collective collective, final int ranks, final long bytes, final Pace pace)
    {
        final boolean ownRules = pace != null && hasRules(collective, ranks, pace);
        for (final Rule rule : byCollective[collective.ordinal()])
        {
            if (rule.pace() == (ownRules ? pace : null) && rule.covers(ranks, bytes))
            {
                return rule;
            }
        }
        return null;
    }

    /** Whether {@code collective} has rules of its own at {@code pace} (null: for both) at {@code ranks}. */
    public boolean hasRules(final Collective collective, final int ranks, final Pace pace)
    {
        for (final Rule rule : byCollective[collective.ordinal()])
        {
            if (rule.ranks() == ranks && rule.pace() == pace)
            {
                return true;
            }
        }
        return false;
    }

    /** Where the paces part at {@code ranks}, or null when the measurements showed one pace there. */
    public PaceSplit paceSplit(final int ranks)
    {
        for (final PaceSplit split : paces)
        {
            if (split.ranks() == ranks)
            {
                return split;
            }
        }
        return null;
    }

    public List<PaceSplit> paces()
    {
        return paces;
    }

    public ModelParameters model()
    {
        return model;
    }

    /** created, host, source, as far as known. */
    public Map<String, String> info()
    {
        return info;
    }

    public List<Rule> rules()
    {
        return rules;
    }

    /**
     * This table plus, for every collective of {@code available} that has no rule at {@code ranks}, the model's
     * choice among its algorithms at every size (γ of float32 sum). What an engine with {@code ranks} ranks uses so
     * that the model chooses wherever the file says nothing, with the file's parameters or the shipped ones.
     *
     * @param available algorithm names each collective has in this engine; names without a formula are skipped.
     */
    public TuningTable withModelChoices(final int ranks, final Map<Collective, ? extends Collection<String>> available)
    {
        return withModelChoices(ranks, available, Configuration.STAGING_BYTES_DEFAULT);
    }

    /** {@link #withModelChoices(int, Map)} for ranks with {@code stagingBytes} of staging each. */
    public TuningTable withModelChoices(
        final int ranks, final Map<Collective, ? extends Collection<String>> available, final long stagingBytes)
    {
        return withModelChoices(ranks, available, stagingBytes, Runtime.getRuntime().availableProcessors());
    }

    /** {@link #withModelChoices(int, Map, long)} for ranks that share {@code cores} cores. */
    public TuningTable withModelChoices(final int ranks, final Map<Collective, ? extends Collection<String>> available,
        final long stagingBytes, final int cores)
    {
        final List<Rule> all = new ArrayList<>(rules);
        final CostModel costModel = new CostModel(model, stagingBytes, cores);
        for (final Map.Entry<Collective, ? extends Collection<String>> entry : available.entrySet())
        {
            final Collective collective = entry.getKey();
            if (!hasRules(collective, ranks, null))
            {
                all.addAll(modelRules(costModel, collective, ranks, entry.getValue()));
            }
        }
        return new TuningTable(model, info, all, paces);
    }

    private static SortedSet<Long> grid()
    {
        final TreeSet<Long> grid = new TreeSet<>();
        for (int step = 0; step <= GRID_STEPS_PER_OCTAVE * GRID_OCTAVES; step++)
        {
            grid.add(Math.round(Math.pow(2.0, (double)step / GRID_STEPS_PER_OCTAVE)));
        }
        return Collections.unmodifiableSortedSet(grid);
    }

    /**
     * The model's fastest algorithm among {@code candidates} at every size, evaluated at quarter octaves from 1 byte
     * to 64 GiB and just past the capacity of every candidate that has one (so that a range never runs past what its
     * algorithm serves), as rules (ranges start at the first grid size where the choice changes; the last has no
     * end, unless no candidate serves the largest sizes). Empty when no candidate has a formula.
     * <p>
     * Every rank runs this at connect for each collective without rules of its own, mostly in the interpreter: so
     * the formulas and γ are found once, not at each size (their string keys made the shipped model's choices take
     * 150 ms interpreted instead of 32, PERFORMANCE.md, session 43), and a lone formula needs no evaluation.
     */
    public static List<Rule> modelRules(
        final CostModel costModel, final Collective collective, final int ranks, final Collection<String> candidates)
    {
        final List<String> names = new ArrayList<>();
        final List<CostFormula> formulas = new ArrayList<>();
        final TreeSet<Long> grid = new TreeSet<>(GRID);
        for (final String candidate : candidates)
        {
            final CostFormula formula = CostFormulas.find(collective.label(), candidate);
            if (formula != null)
            {
                names.add(candidate);
                formulas.add(formula);
                if (formula.capacity().maxBytes(ranks) < grid.last())
                {
                    grid.add(formula.capacity().maxBytes(ranks) + 1);
                }
            }
        }
        final List<Rule> rules = new ArrayList<>();
        if (formulas.size() == 1 && formulas.get(0).capacity().maxBytes(ranks) >= GRID.last())
        {
            // one formula, serving every size: the fastest everywhere
            rules.add(new Rule(collective, ranks, 0, Long.MAX_VALUE, names.get(0), 0));
            return rules;
        }
        final double gamma = costModel.parameters().gamma("float32", "sum");
        String current = null;
        long start = 0;
        for (final long size : grid)
        {
            String best = null;
            double bestTime = Double.POSITIVE_INFINITY;
            for (int i = 0; i < formulas.size(); i++)
            {
                final CostFormula formula = formulas.get(i);
                if (formula.serves(ranks, size))
                {
                    final double time = costModel.predict(formula, ranks, size, gamma);
                    if (time < bestTime)
                    {
                        bestTime = time;
                        best = names.get(i);
                    }
                }
            }
            if (best == null)
            {
                // no candidate serves this size or any larger one: the last range ends here
                if (current != null)
                {
                    rules.add(new Rule(collective, ranks, start, size, current, 0));
                }
                return rules;
            }
            if (!best.equals(current))
            {
                if (current != null)
                {
                    rules.add(new Rule(collective, ranks, start, size, current, 0));
                    start = size;
                }
                current = best;
            }
        }
        rules.add(new Rule(collective, ranks, start, Long.MAX_VALUE, current, 0));
        return rules;
    }

    @Override
    public boolean equals(final Object o)
    {
        return o instanceof TuningTable other && model.equals(other.model) && info.equals(other.info) &&
            rules.equals(other.rules) && paces.equals(other.paces);
    }

    @Override
    public int hashCode()
    {
        return rules.hashCode();
    }

    @Override
    public String toString()
    {
        return "TuningTable" + info + " " + rules.size() + " rules";
    }

    /** The shipped table, made at the first call of {@link #shipped()}. */
    private static final class Shipped
    {
        private static final TuningTable TABLE = new TuningTable(ModelParameters.shipped(), Map.of(), List.of());
    }
}
