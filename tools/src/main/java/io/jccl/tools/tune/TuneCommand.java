package io.jccl.tools.tune;

import io.jccl.Configuration;
import io.jccl.model.TuningTable;
import io.jccl.tools.Arguments;
import io.jccl.tools.Command;
import io.jccl.tools.UsageException;
import io.jccl.tools.fit.FitCommand;
import io.jccl.tools.fit.Measurement;
import io.jccl.tools.fit.ModelFitter;
import io.jccl.tools.fit.PiecewiseFit;
import io.jccl.tools.fit.ResultsReader;
import io.jccl.tools.fit.Units;

import java.io.IOException;
import java.io.PrintStream;
import java.net.InetAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * {@code ./jccl tune --from RESULTS}: fits the model to benchmark results, chooses an algorithm per collective ×
 * ranks × size range, writes the tuning file the engine loads, and prints how the choices compare with the fastest
 * measured algorithm at every measured size.
 */
public final class TuneCommand implements Command
{
    /** A choice this much slower than the best measured still counts as good. */
    static final double GOOD_ENOUGH = 0.10;

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
            usage: ./jccl tune --from RESULTS.csv|json [--out FILE] [--choose measured|model] [--source NAME]
                               [--staging-bytes B] [--regimes K] [--dry-run]

            Fits the cost model to benchmark results (as ./jccl fit does), chooses for every collective and rank
            count of the results the algorithm (and chunk size) for each size range, and writes the tuning file
            the engine loads at start. Prints, for every measured size, the chosen algorithm's measured time
            against the fastest measured algorithm, and the share of sizes within 10% of it.

              --from FILE          the results: a bench sweep over the algorithms (./jccl bench ... --format csv)
                                   or JMH JSON
              --out FILE           where to write (default: $JCCL_TUNING_FILE, else ~/.jccl/tuning.json)
              --choose measured    within the measured sizes the fastest measured algorithm, beyond them the
                                   model's choice (default)
              --choose model       the model's choice at every size
              --source NAME        only the rows of this source (a CSV's impl column, or jmh)
              --staging-bytes B    staging bytes per rank the measurements ran with (default 4m)
              --regimes K          point-to-point regimes to fit (default: from the data)
              --dry-run            print the choices and their quality, write nothing
            """;
    }

    @Override
    public int run(final String[] args) throws IOException
    {
        final Arguments arguments = new Arguments(args);
        Path from = null;
        Path outPath = null;
        Tuner.Choice choice = Tuner.Choice.MEASURED;
        String onlySource = null;
        long stagingBytes = Configuration.STAGING_BYTES_DEFAULT;
        int regimes = 0;
        boolean dryRun = false;
        String option;
        while ((option = arguments.nextOption()) != null)
        {
            switch (option)
            {
                case "--from" -> from = Path.of(arguments.value(option));
                case "--out" -> outPath = Path.of(arguments.value(option));
                case "--choose" -> choice = choiceValue(arguments.value(option));
                case "--source" -> onlySource = arguments.value(option);
                case "--staging-bytes" -> stagingBytes = sizeValue(option, arguments.value(option));
                case "--regimes" -> regimes = arguments.intValue(option, 1, PiecewiseFit.MAX_REGIMES);
                case "--dry-run" -> dryRun = true;
                default -> throw Arguments.unknownOption(option);
            }
        }
        arguments.expectNoOperands();
        if (from == null)
        {
            throw new UsageException("tune does not run the sweep itself yet: run ./jccl bench -n N --op all " +
                "--algo all --format csv > results.csv and pass it with --from results.csv");
        }
        if (!Files.isRegularFile(from))
        {
            throw new UsageException("no such file: " + from);
        }

        final List<ModelFitter.Result> fits = FitCommand.fit(from, stagingBytes, regimes, onlySource, err);
        final ModelFitter.Result fit = pickSource(fits);
        final List<Measurement> measurements = ResultsReader.read(from).measurements().stream()
            .filter(m -> m.source().equals(fit.source())).toList();
        final Tuner.Result tuned = new Tuner(fit.parameters(), stagingBytes, choice).tune(measurements);
        if (tuned.rules().isEmpty())
        {
            throw new IllegalArgumentException(from + ": no collective with named algorithms to choose between " +
                "(tune needs jccl bench results; other libraries' results name no algorithm)");
        }
        printQuality(tuned, from, fit.source(), choice);

        final Map<String, String> info = new LinkedHashMap<>();
        info.put("created", Instant.now().truncatedTo(ChronoUnit.SECONDS).toString());
        info.put("host", hostName());
        info.put("source", from.toAbsolutePath().toString());
        final TuningTable table = new TuningTable(fit.parameters(), info, tuned.rules());
        final Path target = outPath != null ? outPath : TuningTable.path(Configuration.fromEnvironment());
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

    private void printQuality(final Tuner.Result tuned, final Path from, final String source, final Tuner.Choice choice)
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
                final boolean ok = size.tunedSlowdown() <= GOOD_ENOUGH;
                groupGood += ok ? 1 : 0;
                goodModel += size.modelSlowdown() <= GOOD_ENOUGH ? 1 : 0;
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
            "(%.0f %%); the model alone at %d (%.0f %%)%n", good, total, 100.0 * good / Math.max(1, total), goodModel,
            100.0 * goodModel / Math.max(1, total));
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
