package io.jccl.tools.fit;

import io.jccl.Configuration;
import io.jccl.model.Pace;
import io.jccl.tools.Arguments;
import io.jccl.tools.Command;
import io.jccl.tools.InputException;
import io.jccl.tools.UsageException;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/** {@code ./jccl fit FILE}: fits α, β, γ to benchmark results and shows how well each formula explains them. */
public final class FitCommand implements Command
{
    private final PrintStream out;
    private final PrintStream err;

    public FitCommand(final PrintStream out, final PrintStream err)
    {
        this.out = out;
        this.err = err;
    }

    @Override
    public String name()
    {
        return "fit";
    }

    @Override
    public String summary()
    {
        return "fit the alpha-beta cost model to benchmark results and compare it with every measurement";
    }

    @Override
    public String usage()
    {
        return """
            usage: ./jccl fit RESULTS.csv|json... [--format table|json] [--plot FILE.svg|FILE.png]... [--regimes K]
                              [--staging-bytes B] [--cores C] [--source NAME] [--probe-max US | --pace fast|slow]

            Reads benchmark results (jccl's bench CSV or JSON, the peers' CSV, or JMH JSON), fits the cost model and
            predicts every measurement with its algorithm's formula. Several files are runs of the same sweep:
            each point is the median of its runs. The fit:
              1. alpha and beta per protocol regime from the pingpong rows (one way), the breakpoints between
                 regimes found from the data; least squares weighted by relative error (8 B and 64 MiB count
                 alike), with 95% confidence intervals;
              2. gamma per datatype and operator from the rows that reduce;
              3. the shared-memory parameters alpha_f, beta_c, beta_r from the shm_* rows.
            Prints per algorithm the measured and predicted times, the error, R² and the median |error|.

              --format table|json  output for people (default) or programs
              --plot FILE          log-log plot of time against size, measured points and model lines per
                                   algorithm: SVG or PNG by the name's extension (repeatable)
              --regimes K          fit exactly K point-to-point regimes (default: chosen by BIC, at most 5)
              --staging-bytes B    staging bytes per rank the measurements ran with (default 4m)
              --cores C            cores of the machine the measurements ran on (default this machine's):
                                   beyond them ranks take turns, which the model prices
              --source NAME        only the rows of this source (a CSV's impl column, or jmh)
              --probe-max US       only the bench rows whose probe_us (an 8-byte pingpong between ranks 0 and 1
                                   timed right after the row, one way) is at most US: the rows measured while
                                   the machine's cores handed data over at one pace, on a VM whose host moves
                                   its vCPUs
              --pace fast|slow     only the rows of that pace, where the probes (handoff_us, else probe_us) show
                                   a rank count's rows ran at two (as ./jccl tune tells them apart; every row of
                                   a rank count that ran at one)
            """;
    }

    @Override
    public int run(final String[] args) throws IOException
    {
        // results that cannot be fitted are the files' fault, not jccl's
        return InputException.onInput(() -> execute(args));
    }

    private int execute(final String[] args) throws IOException
    {
        String format = "table";
        final List<Path> plots = new ArrayList<>();
        int regimes = 0;
        long stagingBytes = Configuration.STAGING_BYTES_DEFAULT;
        int cores = Runtime.getRuntime().availableProcessors();
        String onlySource = null;
        double probeMaxUs = ResultsReader.ANY_PROBE;
        Pace pace = null;
        final List<String> operands = new ArrayList<>();
        String[] rest = args;
        while (rest.length > 0)
        {
            // options may come before and after the file
            final Arguments arguments = new Arguments(rest);
            String option;
            while ((option = arguments.nextOption()) != null)
            {
                switch (option)
                {
                    case "--format" -> format = formatValue(arguments.value(option));
                    case "--plot" -> plots.add(plotPath(arguments.value(option)));
                    case "--regimes" -> regimes = arguments.intValue(option, 1, PiecewiseFit.MAX_REGIMES);
                    case "--staging-bytes" -> stagingBytes = sizeValue(option, arguments.value(option));
                    case "--cores" -> cores = arguments.intValue(option, 1, 1 << 16);
                    case "--source" -> onlySource = arguments.value(option);
                    case "--probe-max" -> probeMaxUs = probeValue(option, arguments.value(option));
                    case "--pace" -> pace = paceValue(arguments.value(option));
                    default -> throw Arguments.unknownOption(option);
                }
            }
            final String[] left = arguments.operands();
            if (left.length == 0)
            {
                break;
            }
            operands.add(left[0]);
            rest = Arrays.copyOfRange(left, 1, left.length);
        }
        if (operands.isEmpty())
        {
            throw new UsageException("which results file?");
        }
        if (pace != null && probeMaxUs != ResultsReader.ANY_PROBE)
        {
            throw new UsageException("--probe-max sets the pace's limit by hand, --pace finds it: give one of them");
        }
        final List<Path> files = new ArrayList<>();
        for (final String operand : operands)
        {
            files.add(Path.of(operand));
        }
        Arguments.requireFiles(files);
        final String title = files.get(0).getFileName() +
            (files.size() == 2 ? " and " + files.get(1).getFileName() :
            files.size() > 2 ? " and " + (files.size() - 1) + " more files" : "");

        final List<ModelFitter.Result> results =
            fit(files, stagingBytes, cores, regimes, onlySource, probeMaxUs, pace, err);
        if ("json".equals(format))
        {
            out.println(FitReport.json(String.join(", ", operands), results));
        }
        else
        {
            for (final ModelFitter.Result result : results)
            {
                FitReport.printTable(out, result);
            }
        }
        for (final Path plot : plots)
        {
            FitPlot.write(plot, title, results, stagingBytes);
            err.println("jccl fit: wrote " + plot);
        }
        return 0;
    }

    /**
     * Reads results files, runs of the same sweep (each point the median of its runs; rows that name no source are
     * the first file's), and fits each source in them; says on {@code err} what it dropped.
     *
     * @throws IllegalArgumentException when the files have nothing to fit.
     */
    public static List<ModelFitter.Result> fit(
        final List<Path> files, final long stagingBytes, final int cores, final int regimes, final String onlySource,
        final PrintStream err) throws IOException
    {
        return fit(files, stagingBytes, cores, regimes, onlySource, ResultsReader.ANY_PROBE, null, err);
    }

    /**
     * {@link #fit}, of the rows whose {@code probe_us} is at most {@code probeMaxUs}, and of those at {@code pace}
     * when not null ({@link Paces#atPace}).
     */
    public static List<ModelFitter.Result> fit(
        final List<Path> files, final long stagingBytes, final int cores, final int regimes, final String onlySource,
        final double probeMaxUs, final Pace pace, final PrintStream err) throws IOException
    {
        List<Measurement> rows = ResultsReader.readRuns(files, err, probeMaxUs);
        final Paces paces = Paces.of(rows);
        if (pace != null)
        {
            final List<Measurement> kept = paces.atPace(rows, pace);
            err.println("jccl fit: " + (paces.splits().isEmpty() ? "the probes show one pace: every row fitted" :
                paces.describe() + "; fitting the " + pace.name().toLowerCase(Locale.ROOT) + " pace's rows, " +
                kept.size() + " of " + rows.size()));
            rows = kept;
        }
        else if (probeMaxUs == ResultsReader.ANY_PROBE && !paces.splits().isEmpty())
        {
            // one set of parameters for two machines: say so, as the errors will be large where a series mixes them
            err.println("jccl fit: the probes show two paces (" + paces.describe() + "), fitted as one machine; " +
                "--pace fast or --pace slow fits the rows of one");
        }
        return fitPoints(Measurement.medianPerPoint(rows),
            String.join(", ", files.stream().map(Path::toString).toList()), stagingBytes, cores, regimes, onlySource);
    }

    private static Pace paceValue(final String value)
    {
        try
        {
            return Pace.parse(value);
        }
        catch (final IllegalArgumentException ex)
        {
            throw new UsageException("--pace must be fast or slow, not '" + value + "'");
        }
    }

    /**
     * Fits each source of {@code points} (one measurement per point, e.g. {@link Measurement#medianPerPoint}), read
     * from the files {@code names} names.
     *
     * @throws IllegalArgumentException when there is nothing to fit.
     */
    public static List<ModelFitter.Result> fitPoints(
        final List<Measurement> points, final String names, final long stagingBytes, final int cores,
        final int regimes, final String onlySource)
    {
        final Map<String, List<Measurement>> bySource = new LinkedHashMap<>();
        for (final Measurement m : points)
        {
            if (onlySource == null || onlySource.equals(m.source()))
            {
                bySource.computeIfAbsent(m.source(), k -> new ArrayList<>()).add(m);
            }
        }
        if (bySource.isEmpty())
        {
            throw new IllegalArgumentException(names + ": no measurements" +
                (onlySource == null ? "" : " of source '" + onlySource + "'"));
        }
        final ModelFitter fitter = new ModelFitter(stagingBytes, cores);
        final List<ModelFitter.Result> results = new ArrayList<>();
        for (final Map.Entry<String, List<Measurement>> entry : bySource.entrySet())
        {
            results.add(fitter.fit(entry.getKey(), entry.getValue(), regimes));
        }
        return results;
    }

    private static String formatValue(final String value)
    {
        if (!"table".equals(value) && !"json".equals(value))
        {
            throw new UsageException("--format must be table or json, not '" + value + "'");
        }
        return value;
    }

    private static Path plotPath(final String value)
    {
        final String lower = value.toLowerCase(Locale.ROOT);
        if (!lower.endsWith(".svg") && !lower.endsWith(".png"))
        {
            throw new UsageException("--plot writes .svg or .png files, not '" + value + "'");
        }
        return Path.of(value);
    }

    /** The value of a {@code --probe-max} option: a time in µs above 0. */
    public static double probeValue(final String option, final String value)
    {
        try
        {
            final double us = Double.parseDouble(value);
            if (!(us > 0) || Double.isInfinite(us))
            {
                throw new UsageException(option + " needs a time in µs above 0, not '" + value + "'");
            }
            return us;
        }
        catch (final NumberFormatException ex)
        {
            throw new UsageException(option + " needs a time in µs such as 0.2, not '" + value + "'");
        }
    }

    private static long sizeValue(final String option, final String value)
    {
        try
        {
            final long size = Configuration.parseSize(value);
            if (size < 128)
            {
                throw new UsageException(option + " must be at least 128 bytes");
            }
            return size;
        }
        catch (final NumberFormatException ex)
        {
            throw new UsageException(option + " needs a size such as 4m, not '" + value + "'");
        }
    }
}
