package io.jccl.tools.fit;

import io.jccl.model.CostFormulas;
import io.jccl.model.Json;
import io.jccl.tools.bench.CsvWriter;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Reads measurements from the files jccl and its peers write:
 * <ul>
 *   <li>jccl's bench CSV: {@code collective,algorithm,ranks,bytes,dtype,avg_us,...,wrong,op,memory,timing,probe_us,
 *       handoff_us} (DESIGN.md section 7; rows with {@code wrong > 0} are dropped; {@code op}, {@code memory}
 *       ({@code shared}: the zero-copy paths ran), {@code timing} ({@code sync}: one call at a time), the two probes
 *       and a {@code chunk_bytes} column are used when there; with a probe limit, rows whose {@code probe_us} is
 *       above it or empty are dropped);</li>
 *   <li>the peers' CSV: {@code [impl,]collective,ranks,bytes,avg_us,...}: no algorithm, so each collective is
 *       modelled with its classic algorithm ({@link CostFormulas#reference}), float32 sum;</li>
 *   <li>jccl's bench JSON ({@code --format json}), the same fields as the CSV, object by object;</li>
 *   <li>JMH JSON ({@code -rf json}): params {@code bytes}, {@code ranks}, {@code algorithm}, {@code dtype} (and
 *       {@code collective}, or {@code op} when it names one, else the collective is the benchmark method's name; an
 *       {@code op} or {@code reduceOp} that names a reduction operator is the operator), the score converted to µs
 *       per operation; a {@code memory} param of {@code shared} as in the CSV.</li>
 * </ul>
 * Columns are found by name, in any order; pingpong rows are one-way latency.
 */
public final class ResultsReader
{
    /**
     * What was read, and how many rows were dropped and why: {@code probeRows} were measured while the probe after
     * them (the CSV's {@code probe_us}) was above the limit asked for, or had no probe.
     */
    public record Results(List<Measurement> measurements, int wrongRows, int probeRows, List<String> skipped)
    {
    }

    /** No probe limit: every row, whatever its {@code probe_us}. */
    public static final double ANY_PROBE = Double.POSITIVE_INFINITY;

    private ResultsReader()
    {
    }

    /** Reads a CSV or a JMH JSON file, by content; rows without an impl column are the file's name's. */
    public static Results read(final Path file) throws IOException
    {
        return read(file, sourceName(file));
    }

    /**
     * Reads runs of one sweep: rows that name no source are the first file's, so that each point's runs meet in one
     * series and {@link Measurement#medianPerPoint} takes their median; says on {@code err} what it left out.
     */
    public static List<Measurement> readRuns(final List<Path> files, final PrintStream err) throws IOException
    {
        return readRuns(files, err, ANY_PROBE);
    }

    /** {@link #readRuns}, keeping only the rows whose {@code probe_us} is at most {@code probeMaxUs}. */
    public static List<Measurement> readRuns(final List<Path> files, final PrintStream err, final double probeMaxUs)
        throws IOException
    {
        final List<Measurement> measurements = new ArrayList<>();
        readEachRun(files, err, probeMaxUs).forEach(measurements::addAll);
        return measurements;
    }

    /** {@link #readRuns}, one list per file. */
    public static List<List<Measurement>> readEachRun(final List<Path> files, final PrintStream err) throws IOException
    {
        return readEachRun(files, err, ANY_PROBE);
    }

    /**
     * {@link #readEachRun}, keeping only the rows whose {@code probe_us} is at most {@code probeMaxUs}: those measured
     * while the machine's cores handed data over at the pace the limit describes.
     */
    public static List<List<Measurement>> readEachRun(final List<Path> files, final PrintStream err,
        final double probeMaxUs) throws IOException
    {
        final String defaultSource = sourceName(files.get(0));
        final List<List<Measurement>> runs = new ArrayList<>();
        for (final Path file : files)
        {
            final Results read;
            try
            {
                read = read(file, defaultSource, probeMaxUs);
            }
            catch (final IllegalArgumentException ex)
            {
                throw new IllegalArgumentException(file + ": " + ex.getMessage(), ex);
            }
            if (read.wrongRows() > 0)
            {
                err.println("jccl: " + file + ": left out " + read.wrongRows() + " rows with wrong results");
            }
            if (read.probeRows() > 0)
            {
                err.println("jccl: " + file + ": left out " + read.probeRows() + " of " +
                    (read.probeRows() + read.measurements().size()) + " rows measured with the probe above " +
                    probeMaxUs + " µs (or without one)");
            }
            for (final String skipped : read.skipped())
            {
                err.println("jccl: " + file + ": skipped " + skipped);
            }
            runs.add(read.measurements());
        }
        return runs;
    }

    /**
     * Reads a CSV, a bench JSON or a JMH JSON file, by content; rows without an impl column are
     * {@code defaultSource}'s.
     */
    public static Results read(final Path file, final String defaultSource) throws IOException
    {
        return read(file, defaultSource, ANY_PROBE);
    }

    /** {@link #read(Path, String)}, keeping only the rows whose {@code probe_us} is at most {@code probeMaxUs}. */
    public static Results read(final Path file, final String defaultSource, final double probeMaxUs)
        throws IOException
    {
        final String text = Files.readString(file, StandardCharsets.UTF_8);
        final String trimmed = text.stripLeading();
        if (trimmed.startsWith("[") || trimmed.startsWith("{"))
        {
            final Object parsed = Json.parse(text);
            if (isBenchJson(parsed))
            {
                return readBenchJson((List<?>)parsed, defaultSource, probeMaxUs);
            }
            if (probeMaxUs != ANY_PROBE)
            {
                throw new IllegalArgumentException("JMH results have no probe: no probe limit applies to them");
            }
            return readJmh(parsed);
        }
        return readCsv(text, defaultSource, probeMaxUs);
    }

    /** True for ./jccl bench --format json: a list of objects with the CSV's fields, the first holding avg_us. */
    private static boolean isBenchJson(final Object parsed)
    {
        return parsed instanceof List<?> list && !list.isEmpty() && list.get(0) instanceof Map<?, ?> first &&
            first.containsKey("avg_us") && first.containsKey("collective");
    }

    /** Reads ./jccl bench --format json, parsed, as the CSV it mirrors: each object a row, each field a column. */
    private static Results readBenchJson(final List<?> rows, final String defaultSource, final double probeMaxUs)
    {
        final StringBuilder csv = new StringBuilder();
        final List<String> names = new ArrayList<>();
        for (final Object item : rows)
        {
            final Map<?, ?> row = (Map<?, ?>)item;
            if (names.isEmpty())
            {
                row.keySet().forEach(key -> names.add(String.valueOf(key)));
                csv.append(String.join(",", names)).append('\n');
            }
            final List<String> fields = new ArrayList<>();
            for (final String name : names)
            {
                final Object value = row.get(name);
                fields.add(value == null ? "" : String.valueOf(value));
            }
            csv.append(String.join(",", fields)).append('\n');
        }
        return readCsv(csv.toString(), defaultSource, probeMaxUs);
    }

    /** The source a file's rows get when it names none: the file's name without its extension. */
    public static String sourceName(final Path file)
    {
        return file.getFileName().toString().replaceFirst("\\.[^.]*$", "");
    }

    /** Parses CSV text; {@code defaultSource} names the measurements when there is no impl column. */
    public static Results readCsv(final String text, final String defaultSource)
    {
        return readCsv(text, defaultSource, ANY_PROBE);
    }

    /**
     * {@link #readCsv(String, String)}, keeping only the rows whose {@code probe_us} is at most {@code probeMaxUs}.
     *
     * @throws IllegalArgumentException with a probe limit, when the CSV has no {@code probe_us} column.
     */
    public static Results readCsv(final String text, final String defaultSource, final double probeMaxUs)
    {
        final List<Measurement> measurements = new ArrayList<>();
        final List<String> skipped = new ArrayList<>();
        int wrong = 0;
        int outsideProbe = 0;
        Map<String, Integer> columns = null;
        int headerLength = 0;
        int lineNumber = 0;
        for (final String rawLine : text.split("\r?\n"))
        {
            lineNumber++;
            final String line = rawLine.strip();
            if (line.isEmpty() || line.startsWith("#"))
            {
                continue;
            }
            final String[] fields = split(line);
            if (columns == null)
            {
                columns = header(fields);
                headerLength = fields.length;
                if (probeMaxUs != ANY_PROBE && !columns.containsKey("probe_us"))
                {
                    throw new IllegalArgumentException("no probe_us column for a probe limit (./jccl bench writes " +
                        "one since 2026-11-27; the peers' CSV has none)");
                }
                continue;
            }
            if (fields.length < headerLength)
            {
                skipped.add("line " + lineNumber + ": " + fields.length + " fields, the header has " + headerLength);
                continue;
            }
            try
            {
                // bench leaves wrong empty when it did not check (no --check): nothing known to be wrong
                if (columns.containsKey("wrong") && !fields[columns.get("wrong")].isBlank() &&
                    parseDouble(fields[columns.get("wrong")]) > 0)
                {
                    wrong++;
                    continue;
                }
                if (probeMaxUs != ANY_PROBE && !(optionalMicros(fields, columns, "probe_us") <= probeMaxUs))
                {
                    outsideProbe++;
                    continue;
                }
                measurements.add(csvRow(fields, columns, defaultSource));
            }
            catch (final IllegalArgumentException ex)
            {
                skipped.add("line " + lineNumber + ": " + ex.getMessage());
            }
        }
        if (columns == null)
        {
            throw new IllegalArgumentException("no header line: expected CSV with collective,ranks,bytes,avg_us " +
                "columns, or JMH JSON");
        }
        return new Results(measurements, wrong, outsideProbe, skipped);
    }

    /** Parses JMH's JSON result list. */
    public static Results readJmh(final String text)
    {
        return readJmh(Json.parse(text));
    }

    private static Results readJmh(final Object parsed)
    {
        if (!(parsed instanceof List<?> list))
        {
            throw new IllegalArgumentException("JMH JSON: expected a list of benchmark results");
        }
        final List<Measurement> measurements = new ArrayList<>();
        final List<String> skipped = new ArrayList<>();
        for (final Object item : list)
        {
            if (!(item instanceof Map<?, ?> entry))
            {
                continue;
            }
            final String benchmark = String.valueOf(entry.get("benchmark"));
            try
            {
                measurements.add(jmhEntry(entry, benchmark));
            }
            catch (final IllegalArgumentException | ClassCastException ex)
            {
                skipped.add(benchmark + ": " + ex.getMessage());
            }
        }
        return new Results(measurements, 0, 0, skipped);
    }

    private static Measurement csvRow(final String[] fields, final Map<String, Integer> columns, final String source)
    {
        final String collective = normalise(fields[columns.get("collective")]);
        final String impl = columns.containsKey("impl") ? fields[columns.get("impl")].strip() : "";
        final String named = columns.containsKey("algorithm") ? fields[columns.get("algorithm")].strip() : "";
        final double micros = parseDouble(fields[columns.get("avg_us")]);
        final long bytes = (long)parseDouble(fields[columns.get("bytes")]);
        final int ranks = (int)parseDouble(fields[columns.get("ranks")]);
        if (!(micros > 0) || bytes < 0 || ranks < 1)
        {
            throw new IllegalArgumentException("needs avg_us > 0, bytes >= 0 and ranks >= 1");
        }
        return measurement(impl.isEmpty() ? source : impl, collective, named, ranks, bytes,
            optional(fields, columns, "dtype", "float32"), optional(fields, columns, "op", "sum"),
            (long)parseDouble(optional(fields, columns, "chunk_bytes", "0")), micros,
            CsvWriter.SHARED_MEMORY.equals(optional(fields, columns, "memory", CsvWriter.PRIVATE_MEMORY)),
            CsvWriter.SYNC.equals(optional(fields, columns, "timing", CsvWriter.BACK_TO_BACK)),
            optionalMicros(fields, columns, "probe_us"), optionalMicros(fields, columns, "handoff_us"));
    }

    /** The value of an optional column of µs, NaN when the CSV has no such column or the row leaves it empty. */
    private static double optionalMicros(final String[] fields, final Map<String, Integer> columns, final String name)
    {
        return columns.containsKey(name) && !fields[columns.get(name)].isBlank() ?
            parseDouble(fields[columns.get(name)]) : Double.NaN;
    }

    private static Measurement jmhEntry(final Map<?, ?> entry, final String benchmark)
    {
        final Map<?, ?> params = entry.get("params") instanceof Map<?, ?> p ? p : Map.of();
        final Map<?, ?> metric = (Map<?, ?>)entry.get("primaryMetric");
        if (metric == null || !(metric.get("score") instanceof Number score))
        {
            throw new IllegalArgumentException("no primaryMetric.score");
        }
        final double micros = toMicros(score.doubleValue(), String.valueOf(metric.get("scoreUnit")));
        // "op" names the collective as the bench's --op does, unless it is a reduction operator
        final String op = param(params, "op", null);
        final boolean opIsCollective = op != null && isOperation(normalise(op));
        String collective = param(params, "collective", opIsCollective ? op : null);
        if (collective == null)
        {
            collective = benchmark.substring(benchmark.lastIndexOf('.') + 1);
        }
        final String bytes = param(params, "bytes", null);
        if (bytes == null)
        {
            throw new IllegalArgumentException("no bytes param");
        }
        final String reduceOp = param(params, "reduceOp", param(params, "reduce_op",
            op != null && !opIsCollective ? op : "sum"));
        return measurement("jmh", normalise(collective), param(params, "algorithm", ""),
            Integer.parseInt(param(params, "ranks", "1")), (long)parseDouble(bytes), param(params, "dtype", "float32"),
            reduceOp, (long)parseDouble(param(params, "chunkBytes", "0")), micros,
            CsvWriter.SHARED_MEMORY.equals(param(params, "memory", "")), false, Double.NaN, Double.NaN);
    }

    private static Measurement measurement(
        final String source, final String collective, final String named, final int ranks, final long bytes,
        final String dtype, final String op, final long chunkBytes, final double micros, final boolean shared,
        final boolean sync, final double probeMicros, final double handoffMicros)
    {
        final boolean isNamed = !named.isEmpty() && !"-".equals(named) && !"pingpong".equals(collective);
        final String algorithm = isNamed ? named.toLowerCase(Locale.ROOT) : CostFormulas.reference(collective);
        return new Measurement(source, collective, algorithm, isNamed || "pingpong".equals(collective), ranks, bytes,
            dtype.strip().toLowerCase(Locale.ROOT), op.strip().toLowerCase(Locale.ROOT), chunkBytes, micros, shared,
            sync, probeMicros, handoffMicros);
    }

    /** Converts a JMH score in {@code unit} (us/op, ns/op, ms/op, s/op, or ops/us... for throughput) to µs/op. */
    static double toMicros(final double score, final String unit)
    {
        return switch (unit)
        {
            case "us/op" -> score;
            case "ns/op" -> score / 1e3;
            case "ms/op" -> score * 1e3;
            case "s/op" -> score * 1e6;
            case "ops/us" -> 1 / score;
            case "ops/ms" -> 1e3 / score;
            case "ops/s" -> 1e6 / score;
            default -> throw new IllegalArgumentException("unknown score unit '" + unit + "'");
        };
    }

    private static String param(final Map<?, ?> params, final String name, final String defaultValue)
    {
        final Object value = params.get(name);
        return value == null ? defaultValue : String.valueOf(value);
    }

    private static Map<String, Integer> header(final String[] fields)
    {
        final Map<String, Integer> columns = new HashMap<>();
        for (int i = 0; i < fields.length; i++)
        {
            columns.putIfAbsent(fields[i].strip().toLowerCase(Locale.ROOT), i);
        }
        for (final String required : new String[] {"collective", "ranks", "bytes", "avg_us"})
        {
            if (!columns.containsKey(required))
            {
                throw new IllegalArgumentException("CSV header has no '" + required + "' column: " +
                    String.join(",", fields));
            }
        }
        return columns;
    }

    private static String optional(
        final String[] fields, final Map<String, Integer> columns, final String name, final String defaultValue)
    {
        final Integer index = columns.get(name);
        if (index == null || fields[index].isBlank() || "-".equals(fields[index].strip()))
        {
            return defaultValue;
        }
        return fields[index].strip();
    }

    /** True for DESIGN.md's operation names: pingpong, the collectives, and reduction (a local kernel). */
    static boolean isOperation(final String name)
    {
        return "pingpong".equals(name) || "reduction".equals(name) || !CostFormulas.algorithms(name).isEmpty();
    }

    /** "Allreduce", "reduce-scatter", "ReduceScatter" → DESIGN.md's names; "pingPong"/"p2p" → "pingpong". */
    static String normalise(final String collective)
    {
        final String s = collective.strip().toLowerCase(Locale.ROOT).replace('-', '_');
        return switch (s)
        {
            case "reducescatter" -> "reduce_scatter";
            case "p2p", "ping_pong", "latency" -> "pingpong";
            default -> s;
        };
    }

    private static String[] split(final String line)
    {
        final String[] fields = line.split(",", -1);
        for (int i = 0; i < fields.length; i++)
        {
            final String f = fields[i].strip();
            fields[i] = f.length() >= 2 && f.startsWith("\"") && f.endsWith("\"") ? f.substring(1, f.length() - 1) : f;
        }
        return fields;
    }

    private static double parseDouble(final String text)
    {
        try
        {
            return Double.parseDouble(text.strip());
        }
        catch (final NumberFormatException ex)
        {
            throw new IllegalArgumentException("'" + text + "' is not a number");
        }
    }
}
