package io.jccl.tools.tune;

import io.jccl.Configuration;
import io.jccl.model.Pace;
import io.jccl.model.TuningTable;
import io.jccl.tools.Arguments;
import io.jccl.tools.Command;
import io.jccl.tools.InputException;
import io.jccl.tools.UsageException;
import io.jccl.tools.bench.BenchCommand;
import io.jccl.tools.fit.FitCommand;
import io.jccl.tools.fit.Measurement;
import io.jccl.tools.fit.Paces;
import io.jccl.tools.fit.ModelFitter;
import io.jccl.tools.fit.PiecewiseFit;
import io.jccl.tools.fit.ResultsReader;
import io.jccl.tools.fit.Units;

import java.io.IOException;
import java.io.PrintStream;
import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Stream;

/**
 * {@code ./jccl tune}: measures this machine with the bench sweep over every algorithm (or reads results with
 * {@code --from}), fits the model, chooses an algorithm per collective × ranks × size range, writes the tuning file
 * the engine loads, and prints how the choices compare with the fastest measured algorithm at every measured size.
 */
public final class TuneCommand implements Command
{
    /** The sweep tune runs by itself: sizes up to this (every algorithm at every size takes minutes). */
    static final String DEFAULT_MAX_BYTES = "8m";
    /** Sweeps per rank count while every rank has a core. */
    static final int DEFAULT_REPEAT = 3;
    /**
     * Sweeps per rank count above the machine's cores, where a row is at the mercy of the scheduler and three sweeps
     * leave most points one row at each pace of the machine. 4 ranks on 2 cores, nine sweeps of 2026-11-27, files
     * judged by three sweeps they were not made from (perf/tune-splits; MODEL.md, session 25): made from six, the
     * file's choices for the fast pace were within 10 % of the fastest at a median of 90.8 % of sizes over the
     * splits, and 90 % or more in 50 of 84; for the slow pace 85.9 %. Made from three, 86.6 % (in 503 of 1680) and
     * 83.3 %. Nine (of twelve sweeps) did better again, 94.6 % and 87.4 %, at half as much time again.
     */
    static final int DEFAULT_OVERSUBSCRIBED_REPEAT = 6;

    private final PrintStream out;
    private final PrintStream err;

    public TuneCommand(final PrintStream out, final PrintStream err)
    {
        this.out = out;
        this.err = err;
    }

    @Override
    public String name()
    {
        return "tune";
    }

    @Override
    public String summary()
    {
        return "choose algorithms per size from benchmark results and the fitted model; write the tuning file";
    }

    @Override
    public String usage()
    {
        return """
            usage: ./jccl tune [-n N[,N...]] [--op OPS] [--max-bytes B] [--repeat R] [--iters K] [--warmup K]
                               [--out FILE] [--choose measured|model] [--regimes K] [--probe-max US] [--dry-run]
                   ./jccl tune --from RESULTS.csv|json... [--out FILE] [--choose measured|model] [--source NAME]
                               [--staging-bytes B] [--regimes K] [--probe-max US] [--dry-run]
                   ./jccl tune --check RESULTS.csv|json... [--file FILE] [--source NAME] [--staging-bytes B]
                               [--probe-max US]
                   ./jccl tune --check RESULTS.csv|json... --choices RUNS.csv... [--source NAME] [--probe-max US]
                   ./jccl tune --check RESULTS.csv|json... --rules [--cores C] [--source NAME] [--staging-bytes B]
                               [--probe-max US]

            Measures this machine: ./jccl bench -n N --op OPS --algo all --max-bytes B --format csv, R times per
            rank count (every run's rows are kept in one CSV next to the tuning file). Or reads results with
            --from. Then fits the cost model (as ./jccl fit does), chooses for every collective and rank count the
            algorithm (and chunk size) for each size range, and writes the tuning file the engine loads at start.
            Prints, for every measured size, the chosen algorithm's measured time against the fastest measured
            algorithm, and the share of sizes within 10% of it. Each point counts at the median of its runs; where
            the bench's probes (handoff_us, or probe_us in older sweeps) show that a rank count's rows ran at two
            paces of the machine, at the median of each pace weighted by that pace's share of the rows: the time a
            call takes on average. Where the handoff probe shows two paces, the file also gets rules for each pace,
            chosen from that pace's rows, which the engine follows by probing the pace itself (README, "Choosing by
            the pace of the moment"); --check then also judges them at each pace.

              -n N[,N...]          rank counts to measure (default 2); 4 ranks on 2 cores measure scheduling
              --op OPS             operations to measure, as bench takes them (default all)
              --max-bytes B        largest size to measure (default 8m; the model chooses beyond)
              --repeat R           sweeps per rank count (default 3, and 6 where ranks outnumber the cores)
              --iters K, --warmup K  timed and warm-up calls per size, as bench takes them (default: bench's)
              --from RESULTS...    the results instead: a bench sweep over the algorithms (./jccl bench ...
                                   --algo all --format csv) or JMH JSON; several files are runs of one
                                   sweep, fitted and chosen from together, as above
              --out FILE           where to write (default: $JCCL_TUNING_FILE, else ~/.jccl/tuning.json)
              --choose measured    within the measured sizes an algorithm within 10% of the fastest measured
                                   (of several runs, one within 10% in the most runs alone), beyond them the
                                   model's choice (default)
              --choose model       the model's choice at every size
              --source NAME        only the rows of this source (a CSV's impl column, or jmh)
              --staging-bytes B    staging bytes per rank the measurements ran with (default 4m)
              --regimes K          point-to-point regimes to fit (default: from the data)
              --probe-max US       only the bench rows whose probe_us is at most US µs: tune for (or judge by)
                                   the machine's fast pace alone, as ./jccl fit --probe-max
              --dry-run            print the choices and their quality, write nothing
              --check RESULTS...   judge a tuning file by results it was not made from (several files: runs of
                                   one sweep, counted per point as above, and each run alone): per measured size, the
                                   algorithm the engine runs with the file against the fastest measured; writes
                                   nothing
              --file FILE          the tuning file --check judges (default: the one the engine loads)
              --choices RUNS...    --check judges instead the algorithms the engine chose in these runs of
                                   ./jccl bench without --algo (its algorithm column): the default selection
                                   as it stands, rules included, with whatever tuning file the runs loaded;
                                   where the results show two paces, also each pace alone (every row at the
                                   pace its own handoff probe read)
              --rules              --check judges instead what the engine's own rules choose without a tuning
                                   file, for the bench's calls: where the results show two paces, the rules of
                                   each pace by that pace's rows (as if the engine's probe always read the pace
                                   right), elsewhere the rules before any probe by every row
              --cores C            with --rules: the cores the measured ranks shared (default: this machine's)
            """;
    }

    @Override
    public int run(final String[] args) throws IOException
    {
        // results that cannot be tuned from are the files' fault, not jccl's
        return InputException.onInput(() -> execute(args));
    }

    private int execute(final String[] args) throws IOException
    {
        final Arguments arguments = new Arguments(args);
        final List<Path> from = new ArrayList<>();
        Path outPath = null;
        Tuner.Choice choice = Tuner.Choice.MEASURED;
        String onlySource = null;
        long stagingBytes = Configuration.STAGING_BYTES_DEFAULT;
        int regimes = 0;
        double probeMaxUs = ResultsReader.ANY_PROBE;
        boolean dryRun = false;
        final Sweep sweep = new Sweep();
        final List<Path> check = new ArrayList<>();
        final List<Path> choices = new ArrayList<>();
        boolean rules = false;
        int cores = Runtime.getRuntime().availableProcessors();
        boolean coresGiven = false;
        Path checked = null;
        boolean resultsOptionGiven = false;
        boolean tuneOptionGiven = false;
        String option;
        while ((option = arguments.nextOption()) != null)
        {
            switch (option)
            {
                case "--from" -> arguments.values(option).forEach(file -> from.add(Path.of(file)));
                case "--out" -> outPath = Path.of(arguments.value(option));
                case "--choose" -> choice = choiceValue(arguments.value(option));
                case "--source" -> onlySource = arguments.value(option);
                case "--staging-bytes" -> stagingBytes = sizeValue(option, arguments.value(option));
                case "--regimes" -> regimes = arguments.intValue(option, 1, PiecewiseFit.MAX_REGIMES);
                case "--probe-max" -> probeMaxUs = FitCommand.probeValue(option, arguments.value(option));
                case "--dry-run" -> dryRun = true;
                case "--check" -> arguments.values(option).forEach(file -> check.add(Path.of(file)));
                case "--file" -> checked = Path.of(arguments.value(option));
                case "--choices" -> arguments.values(option).forEach(file -> choices.add(Path.of(file)));
                case "--rules" -> rules = true;
                case "--cores" ->
                {
                    cores = arguments.intValue(option, 1, 65536);
                    coresGiven = true;
                }
                case "-n" -> sweep.ranks = ranksValue(arguments.value(option));
                case "--op", "--ops" -> sweep.ops = arguments.value(option);
                case "--max-bytes" -> sweep.maxBytes = arguments.value(option);
                case "--repeat" -> sweep.repeat = arguments.intValue(option, 1, 99);
                case "--iters" -> sweep.iters = Integer.toString(arguments.intValue(option, 1, Integer.MAX_VALUE));
                case "--warmup" -> sweep.warmup = Integer.toString(arguments.intValue(option, 0, Integer.MAX_VALUE));
                default -> throw Arguments.unknownOption(option);
            }
            sweep.optionsGiven |= List.of("-n", "--op", "--ops", "--max-bytes", "--repeat", "--iters", "--warmup")
                .contains(option);
            resultsOptionGiven |= List.of("--source", "--staging-bytes").contains(option);
            tuneOptionGiven |= List.of("--from", "--out", "--choose", "--regimes", "--dry-run").contains(option);
        }
        arguments.expectNoOperands();
        if (coresGiven && !rules)
        {
            throw new UsageException("--cores goes with --check --rules");
        }
        if (!check.isEmpty() || checked != null || !choices.isEmpty() || rules)
        {
            if (check.isEmpty())
            {
                throw new UsageException((checked != null ? "--file names the tuning file" : !choices.isEmpty() ?
                    "--choices names the runs whose choices" : "--rules names the rules") +
                    " --check judges: give the results with --check");
            }
            if (tuneOptionGiven || sweep.optionsGiven)
            {
                throw new UsageException("--check judges an existing tuning file, runs' choices or the rules: it " +
                    "takes only --file, --choices, --rules, --cores, --source and --staging-bytes");
            }
            if (rules)
            {
                if (checked != null || !choices.isEmpty())
                {
                    throw new UsageException("--check judges a tuning file (--file), the choices of runs " +
                        "(--choices) or the rules (--rules), one of them");
                }
                return checkRules(check, onlySource, probeMaxUs, cores, stagingBytes);
            }
            if (!choices.isEmpty())
            {
                if (checked != null)
                {
                    throw new UsageException("--check judges a tuning file (--file) or the choices of runs " +
                        "(--choices), not both");
                }
                return checkChoices(choices, check, onlySource, probeMaxUs);
            }
            return check(checked != null ? checked : TuningTable.path(Configuration.fromEnvironment()), check,
                onlySource, stagingBytes, probeMaxUs);
        }
        final Path target = outPath != null ? outPath : defaultTarget();
        final List<Path> sweepRuns = new ArrayList<>();
        try
        {
            return tune(from, sweepRuns, sweep, target, dryRun, resultsOptionGiven, stagingBytes, regimes, onlySource,
                choice, probeMaxUs);
        }
        finally
        {
            for (final Path run : sweepRuns)
            {
                Files.deleteIfExists(run);
            }
            if (!sweepRuns.isEmpty())
            {
                // the runs' directory, unless a dry run's CSV of the runs is in it too
                final Path directory = sweepRuns.get(0).getParent();
                try (Stream<Path> left = Files.list(directory))
                {
                    if (left.findAny().isEmpty())
                    {
                        Files.delete(directory);
                    }
                }
            }
        }
    }

    /**
     * Measures (into {@code sweepRuns}, for the caller to delete) or reads the results, fits, chooses, prints the
     * choices' quality and writes the tuning file.
     */
    private int tune(final List<Path> from, final List<Path> sweepRuns, final Sweep sweep, final Path target,
        final boolean dryRun, final boolean resultsOptionGiven, final long stagingBytesGiven, final int regimes,
        final String onlySource, final Tuner.Choice choice, final double probeMaxUs) throws IOException
    {
        long stagingBytes = stagingBytesGiven;
        if (from.isEmpty())
        {
            if (resultsOptionGiven)
            {
                throw new UsageException("--source and --staging-bytes describe results given with --from; tune's " +
                    "own sweep runs with this environment's staging size (JCCL_STAGING_BYTES)");
            }
            from.add(measure(sweep, target, dryRun, sweepRuns));
            // the ranks of the sweep ran with this environment's staging size
            stagingBytes = Configuration.fromEnvironment().getLong(Configuration.STAGING_BYTES_PROP_NAME,
                Configuration.STAGING_BYTES_DEFAULT);
        }
        else if (sweep.optionsGiven)
        {
            throw new UsageException("-n, --op, --max-bytes, --repeat, --iters and --warmup set up tune's own " +
                "sweep: they do not go with --from");
        }
        Arguments.requireFiles(from);

        // several files (or tune's own sweeps) are runs of one sweep: the fit and the choices both see each point's
        // time to expect, the median of its runs at each pace the machine ran at
        final List<List<Measurement>> runs = ResultsReader.readEachRun(sweepRuns.isEmpty() ? from : sweepRuns, err,
            probeMaxUs);
        final List<Measurement> rows = runs.stream().flatMap(List::stream).toList();
        final Paces paces = Paces.of(rows);
        final List<Measurement> points = paces.expectedPerPoint(rows);
        final ModelFitter.Result fit = pickSource(FitCommand.fitPoints(points, joined(from), stagingBytes,
            Runtime.getRuntime().availableProcessors(), regimes, onlySource));
        final List<Measurement> measurements = points.stream().filter(m -> m.source().equals(fit.source())).toList();
        final List<List<Measurement>> eachRun = runs.stream()
            .map(run -> run.stream().filter(m -> m.source().equals(fit.source())).toList()).toList();
        final String fromNames = names(from);
        final Tuner.Result tuned = new Tuner(fit.parameters(), stagingBytes, choice).tune(measurements, eachRun);
        if (tuned.rules().isEmpty())
        {
            throw new IllegalArgumentException(fromNames + ": no collective with named algorithms to choose between " +
                "(tune needs jccl bench results on private buffers; other libraries' results name no algorithm, " +
                "and on shared buffers jccl takes the zero-copy paths by rule)");
        }
        printQuality(tuned, fromNames, fit.source(), choice);
        printPaces(paces, "the choices weigh each pace's median by its share of the rows");
        final List<TuningTable.Rule> rules = new ArrayList<>(tuned.rules());
        final List<TuningTable.PaceSplit> paceSplits = new ArrayList<>();
        for (final Paces.Split split : paces.splits())
        {
            // the engine's probe is the bench's handoff probe: a split by the 8-byte probe says nothing it can use
            if (split.handoff())
            {
                paceSplits.add(new TuningTable.PaceSplit(split.ranks(), split.threshold(), split.fastProbe(),
                    split.slowProbe()));
                final List<Measurement> ofRanks = rows.stream()
                    .filter(m -> m.ranks() == split.ranks() && m.source().equals(fit.source())).toList();
                final List<Measurement> chosenFrom = ofRanks.stream().filter(Tuner::choosesFrom).toList();
                for (final Pace pace : Pace.values())
                {
                    final List<Measurement> atPace = paces.perPointAt(ofRanks, pace);
                    final Tuner.Result paceTuned = new Tuner(fit.parameters(), stagingBytes, choice)
                        .tune(atPace, eachRun.stream().map(run -> paces.atPace(run, pace)).toList());
                    paceTuned.rules().forEach(rule -> rules.add(rule.withPace(pace)));
                    printPaceQuality(paceTuned, split.ranks(), pace);
                    printPaceEvidence(chosenFrom, paces, pace);
                }
            }
        }

        final Map<String, String> info = new LinkedHashMap<>();
        info.put("created", Instant.now().truncatedTo(ChronoUnit.SECONDS).toString());
        info.put("host", hostName());
        info.put("source", String.join(", ", from.stream().map(f -> f.toAbsolutePath().toString()).toList()));
        final TuningTable table = new TuningTable(fit.parameters(), info, rules, paceSplits);
        // in sample the choice is the fastest by construction; each run alone says how far that goes
        if (runs.size() > 1)
        {
            final int[] agreement = TuningCheck.runAgreement(TuningCheck.check(table, stagingBytes, eachRun));
            printRunAgreement(agreement, agreement[1] == 0 ? "" : " (where only some runs put the choice there, " +
                "the algorithms are within the runs' noise of each other)");
        }
        if (dryRun)
        {
            out.println("dry run: would write " + target + " (" + table.rules().size() + " rules)");
        }
        else
        {
            table.write(target);
            out.println("wrote " + target + " (" + table.rules().size() + " rules); the engine reads it at start " +
                "(" + TuningTable.FILE_PROP_NAME + " / JCCL_TUNING_FILE names another file)");
        }
        return 0;
    }

    /** {@code --check}: how the choices of the tuning file {@code file} measured in {@code results}. */
    private int check(final Path file, final List<Path> results, final String onlySource, final long stagingBytes,
        final double probeMaxUs) throws IOException
    {
        if (!Files.isRegularFile(file))
        {
            throw new UsageException("no tuning file " + file + " (" + TuningTable.FILE_PROP_NAME +
                " / JCCL_TUNING_FILE, or --file, names another)");
        }
        final TuningTable table = TuningTable.read(file);
        final List<List<Measurement>> runs = runs(results, onlySource, probeMaxUs);
        final List<TuningCheck.Group> groups = TuningCheck.check(table, stagingBytes, runs);
        if (groups.isEmpty())
        {
            throw nothingToJudgeBy(results);
        }
        report("jccl tune --check: " + file + (table.info().containsKey("source") ? " (made from " +
            table.info().get("source") + ")" : "") + " against " + names(results), groups, "file's choice",
            "tuning file", "the file's choice was not measured there, or the file does not cover them", runs);
        printPaceChecks(table, stagingBytes, runs);
        return 0;
    }

    /**
     * Where the file and the judging runs both part a rank count's paces: per pace, the file's choices for that pace
     * against that pace's rows, beside its choices for both paces (what the engine runs before its first probe, and
     * what a file of one pace would have chosen).
     */
    private void printPaceChecks(final TuningTable table, final long stagingBytes, final List<List<Measurement>> runs)
    {
        for (final Pace pace : Pace.values())
        {
            final int[] paced = count(TuningCheck.checkAtPace(table, stagingBytes, runs, pace, true));
            final int[] both = count(TuningCheck.checkAtPace(table, stagingBytes, runs, pace, false));
            if (paced[1] > 0)
            {
                out.printf(Locale.ROOT, "at the %s pace alone (the runs' rows at it, where the file parts the " +
                    "paces): the file's choices for that pace within 10%% of the best measured at %d of %d sizes " +
                    "(%.1f %%), its choices for both paces at %d of %d%n", pace.label(), paced[0], paced[1],
                    100.0 * paced[0] / paced[1], both[0], both[1]);
            }
        }
    }

    /** Sizes within {@link Tuner#GOOD_ENOUGH} of the best, and sizes judged. */
    private static int[] count(final List<TuningCheck.Group> groups)
    {
        final int[] counts = new int[2];
        for (final TuningCheck.Group group : groups)
        {
            for (final TuningCheck.Size size : group.sizes())
            {
                if (!Double.isNaN(size.slowdown()))
                {
                    counts[0] += size.slowdown() <= Tuner.GOOD_ENOUGH ? 1 : 0;
                    counts[1]++;
                }
            }
        }
        return counts;
    }

    /** {@code --check --choices}: how the algorithms the engine chose in {@code runs} measured in {@code results}. */
    private int checkChoices(final List<Path> runs, final List<Path> results, final String onlySource,
        final double probeMaxUs) throws IOException
    {
        Arguments.requireFiles(runs);
        final List<List<Measurement>> choices = new ArrayList<>();
        for (final Path run : runs)
        {
            choices.add(ResultsReader.read(run).measurements());
        }
        final List<List<Measurement>> judgedBy = runs(results, onlySource, probeMaxUs);
        final List<TuningCheck.Group> groups = TuningCheck.checkRecorded(choices, judgedBy);
        if (groups.isEmpty())
        {
            throw nothingToJudgeBy(results);
        }
        if (groups.stream().allMatch(g -> g.sizes().stream().allMatch(size -> size.chosen() == null)))
        {
            throw new IllegalArgumentException(joined(runs) + ": no float32 sum collective on private buffers at a " +
                "size the results measure with several named algorithms (the choices come from ./jccl bench " +
                "without --algo, the results from --algo all, at the same sizes)");
        }
        report("jccl tune --check: the choices recorded in " + joined(runs) + " against " + names(results), groups,
            "engine's choice", "the engine's choices",
            "the runs did not measure that size, or its choice was not measured with --algo", judgedBy);
        for (final Pace pace : Pace.values())
        {
            final int[] counts = count(TuningCheck.checkRecordedAtPace(choices, judgedBy, pace));
            if (counts[1] > 0)
            {
                out.printf(Locale.ROOT, "at the %s pace alone (the rows of both at it, by their own probes, where " +
                    "the results part the paces): the engine's choices within 10%% of the best measured at %d of %d " +
                    "sizes (%.1f %%)%n", pace.label(), counts[0], counts[1], 100.0 * counts[0] / counts[1]);
            }
        }
        return 0;
    }

    /**
     * {@code --check --rules}: how the engine's own rules choose against {@code results}, at each pace where the
     * results part a rank count's paces, and before any probe elsewhere.
     */
    private int checkRules(final List<Path> results, final String onlySource, final double probeMaxUs,
        final int cores, final long stagingBytes) throws IOException
    {
        final List<List<Measurement>> judgedBy = runs(results, onlySource, probeMaxUs);
        final Paces paces = Paces.of(judgedBy.stream().flatMap(List::stream).toList());
        final List<String> lines = new ArrayList<>();
        boolean any = false;
        for (final Pace pace : new Pace[] {Pace.FAST, Pace.SLOW, null})
        {
            final List<List<Measurement>> rows = TuningCheck.rulesJudgedBy(judgedBy, pace);
            final List<TuningCheck.Group> groups = rows.isEmpty() ? List.of() :
                TuningCheck.checkRules(rows, pace, cores, stagingBytes);
            if (groups.isEmpty())
            {
                continue;
            }
            any = true;
            final String which = pace == null ? "before any probe, by every row of the rank counts whose rows " +
                "show one pace" : "at the " + pace.label() + " pace, by the rows measured at it (" +
                paces.describe() + ")";
            report("jccl tune --check: the engine's own rules without a tuning file, on " + cores + " cores, " + which +
                ", against " + names(results), groups, "rules' choice", "the rules' choices",
                "the results did not measure that algorithm there", rows);
            out.println();
            final int[] counts = count(groups);
            lines.add(String.format(Locale.ROOT, "%s: the rules' choices within 10%% of the best measured at %d of " +
                "%d sizes (%.1f %%)", pace == null ? "before any probe" : "at the " + pace.label() + " pace",
                counts[0], counts[1], 100.0 * counts[0] / Math.max(1, counts[1])));
        }
        if (!any)
        {
            throw nothingToJudgeBy(results);
        }
        lines.forEach(out::println);
        return 0;
    }

    /**
     * The results of --check, one list per file, of the source {@code onlySource} when given and with a probe at most
     * {@code probeMaxUs}; the files must exist.
     */
    private List<List<Measurement>> runs(final List<Path> results, final String onlySource, final double probeMaxUs)
        throws IOException
    {
        Arguments.requireFiles(results);
        return ResultsReader.readEachRun(results, err, probeMaxUs).stream()
            .map(run -> run.stream().filter(m -> onlySource == null || m.source().equals(onlySource)).toList())
            .toList();
    }

    private static IllegalArgumentException nothingToJudgeBy(final List<Path> results)
    {
        return new IllegalArgumentException(joined(results) + ": no float32 sum collective measured with several " +
            "named algorithms to judge by (jccl bench --algo all)");
    }

    /** Several runs of one sweep. */
    private static String names(final List<Path> files)
    {
        return joined(files) + (files.size() > 1 ? " (" + files.size() + " runs)" : "");
    }

    private static String joined(final List<Path> files)
    {
        return String.join(", ", files.stream().map(Path::toString).toList());
    }

    /**
     * Prints a --check: per collective and rank count, each size's choice against the fastest measured; with several
     * runs also in how many of them alone the choice was within 10 % of that run's fastest, since a median of a few
     * runs can name a different fastest algorithm than the next few do; and where the runs ran at two paces, the count
     * at each point's plain median too, the pace most of them saw there.
     */
    private void report(final String title, final List<TuningCheck.Group> groups, final String choiceColumn,
        final String whose, final String notCounted, final List<List<Measurement>> judgedBy)
    {
        final int runs = judgedBy.size();
        out.println(title);
        out.println();
        int good = 0;
        int total = 0;
        int uncounted = 0;
        for (final TuningCheck.Group group : groups)
        {
            out.println(group.collective().label() + ", " + group.ranks() + " ranks");
            out.printf(Locale.ROOT, "  %12s  %-20s %12s  %-20s %12s %9s%s%n", "bytes", choiceColumn, "its time us",
                "best measured", "best us", "slower", runs > 1 ? "  runs within 10%" : "");
            int groupGood = 0;
            int groupTotal = 0;
            for (final TuningCheck.Size size : group.sizes())
            {
                final double slowdown = size.slowdown();
                final boolean counted = !Double.isNaN(slowdown);
                final boolean ok = counted && slowdown <= Tuner.GOOD_ENOUGH;
                groupGood += ok ? 1 : 0;
                groupTotal += counted ? 1 : 0;
                uncounted += counted ? 0 : 1;
                final String runsColumn = runs > 1 && size.runsJudged() > 0 ?
                    String.format(Locale.ROOT, "  %10d of %d", size.runsWithin(), size.runsJudged()) :
                    runs > 1 ? String.format(Locale.ROOT, "  %15s", "-") : "";
                out.printf(Locale.ROOT, "  %12d  %-20s %12s  %-20s %12s %9s%s%s%n", size.bytes(),
                    size.chosen() == null ? "(not covered)" : size.chosen(),
                    counted ? Units.number(size.chosenMicros()) : "not run", size.best(),
                    Units.number(size.bestMicros()), counted ? slower(slowdown) : "-", runsColumn,
                    ok || !counted ? "" : "   <- more than 10% slower than the best");
            }
            good += groupGood;
            total += groupTotal;
            out.printf(Locale.ROOT, "  within 10%% of the best measured at %d of %d sizes%n%n", groupGood, groupTotal);
        }
        printRunAgreement(TuningCheck.runAgreement(groups), "");
        out.printf(Locale.ROOT, "%s within 10%% of the best measured algorithm at %d of %d sizes (%.1f %%)%s%n", whose,
            good, total, 100.0 * good / Math.max(1, total), uncounted == 0 ? "" : "; " + uncounted +
            " sizes not counted: " + notCounted);
        final Paces paces = Paces.of(judgedBy.stream().flatMap(List::stream).toList());
        printPaces(paces, "each point counts at the time to expect, each pace's median weighted by its share");
        if (!paces.splits().isEmpty())
        {
            final long atMedian = groups.stream().flatMap(g -> g.sizes().stream())
                .filter(TuningCheck.Size::medianWithin).count();
            out.printf(Locale.ROOT, "at each point's plain median instead, the pace most runs saw there: within 10%% " +
                "at %d of %d sizes (%.1f %%); --probe-max judges by the fast pace alone%n", atMedian, total,
                100.0 * atMedian / Math.max(1, total));
        }
    }

    /** Says which rank counts' rows ran at two paces of the machine, when any did. */
    private void printPaces(final Paces paces, final String consequence)
    {
        if (!paces.splits().isEmpty())
        {
            out.println("the probes after each row saw two paces of the machine: " + paces.describe() + "; " +
                consequence);
        }
    }

    /** The line of {@link TuningCheck#runAgreement}, when there is one to print. */
    private void printRunAgreement(final int[] agreement, final String comment)
    {
        if (agreement[0] + agreement[1] + agreement[2] > 0)
        {
            out.printf(Locale.ROOT, "run by run: within 10%% of that run's fastest in every run at %d sizes, in some " +
                "at %d, in none at %d%s%n", agreement[0], agreement[1], agreement[2], comment);
        }
    }

    /** What tune measures when there is no --from. */
    private static final class Sweep
    {
        List<Integer> ranks = List.of(2);
        String ops = "all";
        String maxBytes = DEFAULT_MAX_BYTES;
        /** --repeat, or 0 for the defaults. */
        int repeat;
        String iters;
        String warmup;
        boolean optionsGiven;

        /** Sweeps on n ranks: --repeat, else the default for a machine of these cores. */
        int repeats(final int n, final int cores)
        {
            return repeat > 0 ? repeat : defaultRepeat(n, cores);
        }

        List<String> benchArgs(final int n)
        {
            final List<String> args = new ArrayList<>(List.of("-n", Integer.toString(n), "--op", ops, "--algo", "all",
                "--max-bytes", maxBytes, "--format", "csv"));
            if (iters != null)
            {
                args.addAll(List.of("--iters", iters));
            }
            if (warmup != null)
            {
                args.addAll(List.of("--warmup", warmup));
            }
            return args;
        }
    }

    /** Sweeps tune runs by itself on this many ranks of a machine of these cores, without --repeat. */
    static int defaultRepeat(final int ranks, final int cores)
    {
        return ranks > cores ? DEFAULT_OVERSUBSCRIBED_REPEAT : DEFAULT_REPEAT;
    }

    /** Where the tuning file goes without --out: the configured file, or ~/.jccl/tuning.json. */
    private static Path defaultTarget()
    {
        final Configuration configuration = Configuration.fromEnvironment();
        if (TuningTable.NONE.equalsIgnoreCase(configuration.get(TuningTable.FILE_PROP_NAME, "").trim()))
        {
            throw new UsageException(TuningTable.FILE_PROP_NAME + " (JCCL_TUNING_FILE) is '" + TuningTable.NONE +
                "': say where to write with --out");
        }
        return TuningTable.path(configuration);
    }

    /**
     * Runs the bench sweep over every algorithm, {@link Sweep#repeats} times per rank count, and returns the CSV of
     * every run's rows: next to the tuning file ({@code tuning-bench.csv} beside {@code tuning.json}), or in a
     * temporary file for a dry run. The runs' own CSVs, in a temporary directory, go into {@code kept} once all have
     * run, for the caller to tune from (run by run) and delete; when a run fails they stay, and the error says where.
     */
    private Path measure(final Sweep sweep, final Path target, final boolean dryRun, final List<Path> kept)
        throws IOException
    {
        final Path directory = Files.createTempDirectory("jccl-tune");
        final List<Path> runs = new ArrayList<>();
        final int cores = Runtime.getRuntime().availableProcessors();
        for (final int n : sweep.ranks)
        {
            final int repeats = sweep.repeats(n, cores);
            for (int run = 1; run <= repeats; run++)
            {
                final List<String> args = sweep.benchArgs(n);
                err.println("jccl tune: sweep " + run + " of " + repeats + " on " + n + " ranks: ./jccl bench " +
                    String.join(" ", args));
                final Path csv = directory.resolve("bench-n" + n + "-run" + run + ".csv");
                try (PrintStream csvOut = new PrintStream(Files.newOutputStream(csv), true, StandardCharsets.UTF_8))
                {
                    // the sweep's own bookkeeping collectives must not depend on the file being replaced
                    final int code = new BenchCommand(csvOut, err).run(args.toArray(new String[0]),
                        Map.of(Configuration.envName(TuningTable.FILE_PROP_NAME), TuningTable.NONE));
                    if (code != 0)
                    {
                        throw new IllegalStateException("the bench sweep on " + n + " ranks failed (exit " + code +
                            "); nothing tuned; its output so far is in " + directory);
                    }
                }
                runs.add(csv);
            }
        }
        final String name = target.getFileName().toString().replaceFirst("\\.json$", "") + "-bench.csv";
        final Path results = dryRun ? directory.resolve(name) : target.toAbsolutePath().getParent().resolve(name);
        Files.createDirectories(results.getParent());
        final int rows = concatenate(runs, results);
        kept.addAll(runs);
        err.println("jccl tune: the " + rows + " rows of " + runs.size() + " run" + (runs.size() == 1 ? "" : "s") +
            " in " + results);
        return results;
    }

    /**
     * Writes the rows of every CSV of {@code runs} under their one header to {@code target} (./jccl fit and tune
     * --from read repeated rows as runs of one sweep); returns the rows.
     */
    private static int concatenate(final List<Path> runs, final Path target) throws IOException
    {
        final StringBuilder text = new StringBuilder();
        int rows = 0;
        for (final Path run : runs)
        {
            for (final String line : Files.readAllLines(run, StandardCharsets.UTF_8))
            {
                final boolean header = line.startsWith("collective,");
                if (!line.isBlank() && (!header || text.isEmpty()))
                {
                    text.append(line).append('\n');
                    rows += header ? 0 : 1;
                }
            }
        }
        if (rows == 0)
        {
            throw new IllegalArgumentException("the sweep produced no results: " + runs);
        }
        Files.writeString(target, text, StandardCharsets.UTF_8);
        return rows;
    }

    private static List<Integer> ranksValue(final String value)
    {
        final List<Integer> ranks = new ArrayList<>();
        for (final String item : value.split(","))
        {
            try
            {
                final int n = Integer.parseInt(item.trim());
                if (n < 2 || n > 8)
                {
                    throw new NumberFormatException();
                }
                ranks.add(n);
            }
            catch (final NumberFormatException ex)
            {
                throw new UsageException("-n takes rank counts from 2 to 8, comma separated, not '" + value + "'");
            }
        }
        return List.copyOf(ranks);
    }

    private ModelFitter.Result pickSource(final List<ModelFitter.Result> fits)
    {
        final List<ModelFitter.Result> named = fits.stream()
            .filter(f -> f.series().stream().anyMatch(s -> s.key().algorithmNamed() &&
                !"pingpong".equals(s.key().collective())))
            .toList();
        if (named.size() > 1)
        {
            throw new UsageException("the results hold several sources (" + String.join(", ",
                named.stream().map(ModelFitter.Result::source).toList()) + "): pick one with --source");
        }
        return named.isEmpty() ? fits.get(0) : named.get(0);
    }

    private void printQuality(final Tuner.Result tuned, final String from, final String source,
        final Tuner.Choice choice)
    {
        out.println("jccl tune: " + from + " (source " + source + "), choosing by " +
            (choice == Tuner.Choice.MODEL ? "the model at every size" :
            "measurement within the measured sizes, the model beyond"));
        out.println();
        int good = 0;
        int goodModel = 0;
        int total = 0;
        for (final Tuner.GroupQuality group : tuned.quality())
        {
            out.println(group.collective().label() + ", " + group.ranks() + " ranks: candidates " + String.join(", ",
                group.candidates().stream().map(Tuner.Candidate::label).toList()));
            out.printf(Locale.ROOT, "  %12s  %-20s %12s  %-20s %12s %9s  %-20s %9s%n", "bytes", "tuned choice",
                "its time us", "best measured", "best us", "slower", "model's choice", "slower");
            int groupGood = 0;
            for (final Tuner.SizeQuality size : group.sizes())
            {
                final boolean ok = size.tunedSlowdown() <= Tuner.GOOD_ENOUGH;
                groupGood += ok ? 1 : 0;
                goodModel += size.modelSlowdown() <= Tuner.GOOD_ENOUGH ? 1 : 0;
                out.printf(Locale.ROOT, "  %12d  %-20s %12s  %-20s %12s %9s  %-20s %9s%s%n", size.bytes(),
                    size.tuned().label(), Units.number(size.tunedMicros()), size.best().label(),
                    Units.number(size.bestMicros()), slower(size.tunedSlowdown()), size.model().label(),
                    slower(size.modelSlowdown()), ok ? "" : "   <- more than 10% slower than the best");
            }
            good += groupGood;
            total += group.sizes().size();
            final StringBuilder ranges = new StringBuilder();
            for (final TuningTable.Rule rule : tuned.rules())
            {
                if (rule.collective() == group.collective() && rule.ranks() == group.ranks())
                {
                    ranges.append(ranges.isEmpty() ? "" : "; ").append(range(rule)).append(' ')
                        .append(rule.algorithm()).append(rule.chunkBytes() > 0 ? " chunk " +
                        Units.bytes(rule.chunkBytes()) : "");
                }
            }
            out.println("  rules: " + ranges);
            out.printf(Locale.ROOT, "  within 10%% of the best measured at %d of %d sizes%n%n", groupGood,
                group.sizes().size());
        }
        out.printf(Locale.ROOT, "tuned selection within 10%% of the best measured algorithm at %d of %d sizes " +
            "(%.1f %%); the model alone at %d (%.1f %%)%n", good, total, 100.0 * good / Math.max(1, total), goodModel,
            100.0 * goodModel / Math.max(1, total));
    }

    /** One line per pace: how the choices for that pace alone did against the fastest measured at it. */
    private void printPaceQuality(final Tuner.Result tuned, final int ranks, final Pace pace)
    {
        int good = 0;
        int total = 0;
        for (final Tuner.GroupQuality group : tuned.quality())
        {
            for (final Tuner.SizeQuality size : group.sizes())
            {
                good += size.tunedSlowdown() <= Tuner.GOOD_ENOUGH ? 1 : 0;
                total++;
            }
        }
        out.printf(Locale.ROOT, "at %d ranks, choices for the %s pace alone (used from the engine's first handoff " +
            "probe that reads it), from that pace's rows: within 10%% of the best measured at %d of %d sizes%n",
            ranks, pace.label(), good, total);
    }

    /**
     * How many rows each point's time at {@code pace} rests on ({@code ofRanks}: the rows of one rank count that the
     * tuner chooses from, {@link Tuner#choosesFrom}): a pace's rules made from one row per point follow whatever
     * disturbed that row (4 ranks on 2 cores: one size of one algorithm moves by up to 5x between sweeps), so say so
     * when most points have one or none.
     */
    private void printPaceEvidence(final List<Measurement> ofRanks, final Paces paces, final Pace pace)
    {
        final int[] counts = Measurement.byPoint(ofRanks).stream().mapToInt(point -> paces.atPace(point, pace).size())
            .sorted().toArray();
        final int median = counts[(counts.length - 1) / 2];
        final long one = Arrays.stream(counts).filter(c -> c == 1).count();
        final long none = Arrays.stream(counts).filter(c -> c == 0).count();
        out.printf(Locale.ROOT, "  its points rest on %d row%s each at the median: %d of %d on one row, %d on none " +
            "(the time to expect stands in)%s%n", median, median == 1 ? "" : "s", one, counts.length, none,
            median < 2 ? "; one row per point lets a single disturbed row decide a rule: more sweeps (--repeat, or " +
            "more --from runs) give each pace more" : "");
    }

    private static String range(final TuningTable.Rule rule)
    {
        return "[" + Units.bytes(rule.minBytes()) + ", " +
            (rule.maxBytes() == Long.MAX_VALUE ? "∞" : Units.bytes(rule.maxBytes())) + ")";
    }

    private static String slower(final double slowdown)
    {
        return Double.isNaN(slowdown) ? "not run" : String.format(Locale.ROOT, "%.1f %%", 100 * slowdown);
    }

    private static String hostName()
    {
        try
        {
            return InetAddress.getLocalHost().getHostName();
        }
        catch (final IOException ex)
        {
            return "unknown";
        }
    }

    private static Tuner.Choice choiceValue(final String value)
    {
        return switch (value)
        {
            case "measured" -> Tuner.Choice.MEASURED;
            case "model" -> Tuner.Choice.MODEL;
            default -> throw new UsageException("--choose must be measured or model, not '" + value + "'");
        };
    }

    private static long sizeValue(final String option, final String value)
    {
        try
        {
            return Configuration.parseSize(value);
        }
        catch (final NumberFormatException ex)
        {
            throw new UsageException(option + " needs a size such as 4m, not '" + value + "'");
        }
    }
}
