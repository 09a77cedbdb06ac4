package io.jccl.tools.bench;

import io.jccl.Collective;
import io.jccl.Configuration;
import io.jccl.DataType;
import io.jccl.ReduceOp;
import io.jccl.algorithms.AlgorithmRegistry;
import io.jccl.tools.Arguments;
import io.jccl.tools.UsageException;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * The options of {@code jccl bench}, parsed and checked once by the command and again, from {@link #toArgs()}, by
 * every rank. Wrong arguments throw {@link UsageException} with a message that says what is wrong and what would be
 * right.
 */
public final class BenchOptions
{
    /** Largest ranks count accepted with -n (as {@code jccl run}). */
    public static final int MAX_RANKS = 1024;
    /** Largest message size: each rank keeps a send and a receive region of at least twice this with --cold. */
    public static final long MAX_BYTES = 1L << 30;
    /** Largest message size with --cold: a rotation needs two buffers of each kind in one mapped region. */
    public static final long MAX_COLD_BYTES = 1L << 29;
    public static final long DEFAULT_MIN_BYTES = 8;
    public static final long DEFAULT_MAX_BYTES = 64L << 20;
    /** Factor between consecutive sizes: x4, as run-peers, OSU and nccl-tests (-f 4) step. */
    public static final int DEFAULT_STEP = 4;
    public static final int MAX_STEP = 1024;

    private final int ranks;
    private final List<BenchOp> ops;
    private final boolean opsFromAll;
    private final String algo;
    private final long minBytes;
    private final long maxBytes;
    private final int step;
    private final DataType dataType;
    private final ReduceOp reduceOp;
    private final BenchFormat format;
    private final int iters;
    private final int warmup;
    private final boolean check;
    private final boolean cold;
    private final boolean shared;
    private final boolean sync;
    private final int root;
    private final Path compare;

    private BenchOptions(final Parser p)
    {
        this.ranks = p.ranks;
        this.ops = List.copyOf(p.ops);
        this.opsFromAll = p.opsFromAll;
        this.algo = p.algo;
        this.minBytes = p.minBytes;
        this.maxBytes = p.maxBytes;
        this.step = p.step;
        this.dataType = p.dataType;
        this.reduceOp = p.reduceOp;
        this.format = p.format;
        this.iters = p.iters;
        this.warmup = p.warmup;
        this.check = p.check;
        this.cold = p.cold;
        this.shared = p.shared;
        this.sync = p.sync;
        this.root = p.root;
        this.compare = p.compare;
    }

    /** Parses and checks the arguments after {@code bench}. */
    public static BenchOptions parse(final String[] args)
    {
        final Parser p = new Parser();
        p.parse(args);
        return new BenchOptions(p);
    }

    /** Arguments that parse back to these options: what the command passes to every rank. */
    public List<String> toArgs()
    {
        final List<String> args = new ArrayList<>();
        args.add("-n");
        args.add(Integer.toString(ranks));
        args.add("--op");
        args.add(opsFromAll ? "all" : String.join(",", ops.stream().map(BenchOp::label).toList()));
        if (algo != null)
        {
            args.add("--algo");
            args.add(algo);
        }
        args.add("--min-bytes");
        args.add(Long.toString(minBytes));
        args.add("--max-bytes");
        args.add(Long.toString(maxBytes));
        args.add("--step");
        args.add(Integer.toString(step));
        args.add("--dtype");
        args.add(dataType.label());
        args.add("--reduce-op");
        args.add(reduceOp.label());
        args.add("--format");
        args.add(format.label());
        if (iters > 0)
        {
            args.add("--iters");
            args.add(Integer.toString(iters));
        }
        if (warmup >= 0)
        {
            args.add("--warmup");
            args.add(Integer.toString(warmup));
        }
        if (check)
        {
            args.add("--check");
        }
        if (cold)
        {
            args.add("--cold");
        }
        if (shared)
        {
            args.add("--shared");
        }
        if (sync)
        {
            args.add("--sync");
        }
        args.add("--root");
        args.add(Integer.toString(root));
        if (compare != null)
        {
            args.add("--compare");
            args.add(compare.toAbsolutePath().toString());
        }
        return args;
    }

    public int ranks()
    {
        return ranks;
    }

    /** The operations to run, in order. */
    public List<BenchOp> ops()
    {
        return ops;
    }

    /** True when the operations came from {@code --op all}: those a job cannot run are skipped, not refused. */
    public boolean opsFromAll()
    {
        return opsFromAll;
    }

    /** The --algo value as given, or null for jccl's own choice per call. */
    public String algo()
    {
        return algo;
    }

    public long minBytes()
    {
        return minBytes;
    }

    public long maxBytes()
    {
        return maxBytes;
    }

    /** Factor between consecutive sizes. */
    public int step()
    {
        return step;
    }

    public DataType dataType()
    {
        return dataType;
    }

    public ReduceOp reduceOp()
    {
        return reduceOp;
    }

    public BenchFormat format()
    {
        return format;
    }

    /** Timed iterations per size, or 0 to scale them with the size. */
    public int iters()
    {
        return iters;
    }

    /** Warm-up iterations per size, or -1 for the default. */
    public int warmup()
    {
        return warmup;
    }

    public boolean check()
    {
        return check;
    }

    public boolean cold()
    {
        return cold;
    }

    /** True when the buffers come from {@link io.jccl.Communicator#allocateShared} (the job's shared segment). */
    public boolean shared()
    {
        return shared;
    }

    /**
     * True when every timed call starts after a barrier and each rank times that call alone (OSU's latency): a
     * rooted collective then cannot overlap one call with the next, as it does in the default back-to-back loop.
     */
    public boolean sync()
    {
        return sync;
    }

    public int root()
    {
        return root;
    }

    /** The run-peers CSV to compare with, or null. */
    public Path compare()
    {
        return compare;
    }

    /**
     * The algorithms to run {@code op} with, in registry order: the names --algo gives for it (every one of its
     * algorithms with {@code all}); a list holding only null when --algo is absent (jccl chooses per call); an empty
     * list when --algo names nothing this operation has.
     */
    public List<String> algorithmsFor(final BenchOp op)
    {
        if (algo == null)
        {
            final List<String> defaultChoice = new ArrayList<>();
            defaultChoice.add(null);
            return defaultChoice;
        }
        if (op.collective() == null)
        {
            return "all".equals(algo) || items(algo).contains(BenchOp.P2P_ALGORITHM) ?
                List.of(BenchOp.P2P_ALGORITHM) : List.of();
        }
        final Map<String, ?> known = AlgorithmRegistry.instance().of(op.collective());
        if ("all".equals(algo))
        {
            return List.copyOf(known.keySet());
        }
        final Set<String> wanted = new LinkedHashSet<>();
        for (final String item : items(algo))
        {
            final int colon = item.indexOf(':');
            if (colon < 0)
            {
                wanted.add(item);
            }
            else if (BenchOp.parse(item.substring(0, colon)) == op)
            {
                wanted.add(item.substring(colon + 1));
            }
        }
        final List<String> chosen = new ArrayList<>();
        for (final String name : known.keySet())
        {
            if (wanted.contains(name))
            {
                chosen.add(name);
            }
        }
        return chosen;
    }

    private static List<String> items(final String spec)
    {
        final List<String> items = new ArrayList<>();
        for (final String part : spec.split(","))
        {
            final String item = part.trim().toLowerCase(Locale.ROOT);
            if (!item.isEmpty())
            {
                items.add(item);
            }
        }
        return items;
    }

    /**
     * Parses a size: digits with an optional k, m or g suffix (powers of 1024), optionally followed by b or ib:
     * {@code 4096}, {@code 64k}, {@code 4M}, {@code 1GiB}.
     */
    public static long parseSize(final String option, final String text)
    {
        try
        {
            return Configuration.parseSize(text);
        }
        catch (final NumberFormatException ex)
        {
            throw new UsageException(option + " needs a size such as 4096, 64k, 4m or 1g, not '" + text + "'");
        }
    }

    /** Sizes as people read them: 8 B, 32 KiB, 1 MiB, 1.5 KiB. */
    public static String humanBytes(final long bytes)
    {
        final String[] units = {"B", "KiB", "MiB", "GiB"};
        double value = bytes;
        int unit = 0;
        while (value >= 1024 && unit < units.length - 1)
        {
            value /= 1024;
            unit++;
        }
        final String number = value == Math.rint(value) ? Long.toString((long)value) :
            String.format(Locale.ROOT, "%.1f", value);
        return number + " " + units[unit];
    }

    /** The option parser: fields filled in while walking the arguments, then checked together. */
    private static final class Parser
    {
        int ranks;
        final List<BenchOp> ops = new ArrayList<>();
        boolean opsFromAll;
        String algo;
        long minBytes = DEFAULT_MIN_BYTES;
        long maxBytes = DEFAULT_MAX_BYTES;
        int step = DEFAULT_STEP;
        DataType dataType = DataType.FLOAT32;
        ReduceOp reduceOp = ReduceOp.SUM;
        BenchFormat format = BenchFormat.TABLE;
        int iters;
        int warmup = -1;
        boolean check;
        boolean cold;
        boolean shared;
        boolean sync;
        int root;
        Path compare;

        void parse(final String[] args)
        {
            final Arguments arguments = new Arguments(args);
            String opsText = null;
            String option;
            while ((option = arguments.nextOption()) != null)
            {
                switch (option)
                {
                    case "-n" -> ranks = arguments.intValue(option, 1, MAX_RANKS);
                    case "--op", "--ops" -> opsText = arguments.value(option);
                    case "--algo" -> algo = arguments.value(option).trim().toLowerCase(Locale.ROOT);
                    case "--min-bytes" -> minBytes = parseSize(option, arguments.value(option));
                    case "--max-bytes" -> maxBytes = parseSize(option, arguments.value(option));
                    case "--step" -> step = arguments.intValue(option, 2, MAX_STEP);
                    case "--dtype" -> dataType = dataType(arguments.value(option));
                    case "--reduce-op" -> reduceOp = reduceOp(arguments.value(option));
                    case "--format" -> format = format(arguments.value(option));
                    case "--iters" -> iters = arguments.intValue(option, 1, Integer.MAX_VALUE);
                    case "--warmup" -> warmup = arguments.intValue(option, 0, Integer.MAX_VALUE);
                    case "--check" -> check = true;
                    case "--cold" -> cold = true;
                    case "--shared" -> shared = true;
                    case "--sync" -> sync = true;
                    case "--root" -> root = arguments.intValue(option, 0, MAX_RANKS - 1);
                    case "--compare" -> compare = Path.of(arguments.value(option));
                    default -> throw Arguments.unknownOption(option);
                }
            }
            arguments.expectNoOperands();
            if (ranks == 0)
            {
                throw new UsageException("say how many ranks with -n N");
            }
            if (opsText == null)
            {
                throw new UsageException("say what to measure with --op, e.g. --op allreduce or --op all (one or " +
                    "more of " + BenchOp.names() + ")");
            }
            parseOps(opsText);
            checkSizes();
            if (!reduceOp.reduces(dataType))
            {
                throw new UsageException("--reduce-op " + reduceOp.label() + " reduces integer types: use --dtype " +
                    "int8, int32, int64, uint8, uint32 or uint64, not " + dataType.label());
            }
            if (root >= ranks)
            {
                throw new UsageException("--root " + root + " is not a rank of a " + ranks + "-rank job (0 to " +
                    (ranks - 1) + ")");
            }
            if (compare != null && format != BenchFormat.TABLE && format != BenchFormat.CSV)
            {
                throw new UsageException("--compare prints a table or CSV: use --format table or --format csv, " +
                    "not " + format.label());
            }
            if (compare != null && sync)
            {
                throw new UsageException("--compare sets jccl beside run-peers, which times its calls back to back: " +
                    "leave out --sync");
            }
            if (algo != null)
            {
                checkAlgorithms();
            }
        }

        private void parseOps(final String text)
        {
            if ("all".equals(text.trim().toLowerCase(Locale.ROOT)))
            {
                opsFromAll = true;
                ops.addAll(BenchOp.all());
                return;
            }
            for (final String part : text.split(","))
            {
                if (part.isBlank())
                {
                    continue;
                }
                final BenchOp op = BenchOp.parse(part);
                if (op == null)
                {
                    throw new UsageException("unknown operation '" + part.trim() + "' in --op: expected all or " +
                        "one or more of " + BenchOp.names());
                }
                if (!ops.contains(op))
                {
                    ops.add(op);
                }
            }
            if (ops.isEmpty())
            {
                throw new UsageException("--op names no operation: expected all or one or more of " +
                    BenchOp.names());
            }
            if (ops.contains(BenchOp.PINGPONG) && ranks < 2)
            {
                throw new UsageException("pingpong runs between ranks 0 and 1: it needs -n 2 or more");
            }
        }

        private void checkSizes()
        {
            if (minBytes < 1)
            {
                throw new UsageException("--min-bytes must be at least 1");
            }
            if (minBytes > maxBytes)
            {
                throw new UsageException("--min-bytes " + minBytes + " is larger than --max-bytes " + maxBytes);
            }
            final long limit = cold ? MAX_COLD_BYTES : MAX_BYTES;
            if (maxBytes > limit)
            {
                throw new UsageException("--max-bytes " + humanBytes(maxBytes) + " is too large: at most " +
                    humanBytes(limit) + (cold ? " with --cold" : ""));
            }
        }

        private void checkAlgorithms()
        {
            if ("all".equals(algo))
            {
                return;
            }
            final List<String> items = items(algo);
            if (items.isEmpty())
            {
                throw new UsageException("--algo names no algorithm: give all, a name such as ring, or " +
                    "collective:name pairs such as allreduce:ring,broadcast:binomial");
            }
            final AlgorithmRegistry registry = AlgorithmRegistry.instance();
            for (final String item : items)
            {
                final int colon = item.indexOf(':');
                if (colon >= 0)
                {
                    checkQualified(registry, item, item.substring(0, colon), item.substring(colon + 1));
                }
                else
                {
                    checkBare(registry, item);
                }
            }
        }

        private void checkQualified(final AlgorithmRegistry registry, final String item, final String opName,
            final String name)
        {
            final BenchOp op = BenchOp.parse(opName);
            if (op == null)
            {
                throw new UsageException("--algo " + item + ": unknown operation '" + opName + "'");
            }
            if (!ops.contains(op))
            {
                throw new UsageException("--algo " + item + ": --op does not include " + op.label());
            }
            if (op.collective() == null)
            {
                if (!BenchOp.P2P_ALGORITHM.equals(name))
                {
                    throw new UsageException("--algo " + item + ": pingpong has one algorithm, " +
                        BenchOp.P2P_ALGORITHM);
                }
                return;
            }
            if (registry.of(op.collective()).get(name) == null)
            {
                throw new UsageException("--algo " + item + ": no " + op.label() + " algorithm named '" + name +
                    "'; known: " + String.join(", ", registry.of(op.collective()).keySet()));
            }
        }

        private void checkBare(final AlgorithmRegistry registry, final String name)
        {
            final Map<String, String> knownBy = new LinkedHashMap<>();
            for (final BenchOp op : ops)
            {
                final Collective collective = op.collective();
                if (collective == null ? BenchOp.P2P_ALGORITHM.equals(name) :
                    registry.of(collective).containsKey(name))
                {
                    return;
                }
                knownBy.put(op.label(), collective == null ? BenchOp.P2P_ALGORITHM :
                    String.join(", ", registry.of(collective).keySet()));
            }
            final StringBuilder known = new StringBuilder();
            knownBy.forEach((op, names) -> known.append("\n  ").append(op).append(": ").append(names));
            throw new UsageException("--algo " + name + ": none of the operations has an algorithm of that " +
                "name; known:" + known);
        }

        private static DataType dataType(final String text)
        {
            try
            {
                return DataType.parse(text);
            }
            catch (final IllegalArgumentException ex)
            {
                throw new UsageException("--dtype: " + ex.getMessage());
            }
        }

        private static ReduceOp reduceOp(final String text)
        {
            try
            {
                return ReduceOp.parse(text);
            }
            catch (final IllegalArgumentException ex)
            {
                throw new UsageException("--reduce-op: " + ex.getMessage());
            }
        }

        private static BenchFormat format(final String text)
        {
            final BenchFormat format = BenchFormat.parse(text);
            if (format == null)
            {
                throw new UsageException("unknown --format '" + text + "': expected table, osu, nccl, csv or json");
            }
            return format;
        }
    }
}
