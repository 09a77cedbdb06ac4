package io.jccl.tools.soak;

import io.jccl.Configuration;
import io.jccl.tools.Arguments;
import io.jccl.tools.UsageException;
import io.jccl.tools.bench.BenchOp;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;

/**
 * The options of {@code ./jccl soak}, parsed the same way by the command and by every rank (the command passes
 * {@link #toArgs()} on).
 *
 * @param ranks        number of ranks.
 * @param durationMs   how long to run.
 * @param maxBytes     largest message, as {@code ./jccl bench} counts bytes.
 * @param seed         seed of the random calls and of their data.
 * @param reportMs     interval between progress lines.
 * @param memory       the kinds of memory the calls' buffers are drawn from.
 * @param groups       the communicators the calls are drawn from.
 * @param nonBlocking  whether some steps start non-blocking collectives and make a blocking call while they run, or
 *                     exchange point-to-point messages.
 * @param inPlace      whether some calls of the ops that have an in-place form use it.
 * @param ops          the operations the calls are drawn from, in {@link BenchOp}'s order.
 */
public record SoakOptions(int ranks, long durationMs, long maxBytes, long seed, long reportMs, List<Memory> memory,
    List<Group> groups, boolean nonBlocking, boolean inPlace, List<BenchOp> ops)
{
    public static final int DEFAULT_RANKS = 4;
    public static final long DEFAULT_DURATION_MS = 60_000;
    public static final long DEFAULT_MAX_BYTES = 4L << 20;
    public static final long DEFAULT_REPORT_MS = 10_000;

    /** Where a call's buffers live. */
    public enum Memory
    {
        /** Direct ByteBuffers: the path of most benchmarks. */
        DIRECT,
        /** Arrays on the Java heap: the copies that go through a bounce buffer or the heap's own addresses. */
        HEAP,
        /** The job segment ({@code allocateShared}): the zero-copy paths that read peers' buffers in place. */
        SHARED;

        public String label()
        {
            return name().toLowerCase(Locale.ROOT);
        }
    }

    /** The communicator a call runs on. */
    public enum Group
    {
        /** The job's communicator. */
        WORLD,
        /** {@code dup()} of it: the same ranks in a segment of their own. */
        DUP,
        /**
         * {@code split(rank % 2, -rank)}: the even and the odd ranks, each group numbered backwards, running their
         * calls at the same time.
         */
        SPLIT;

        public String label()
        {
            return name().toLowerCase(Locale.ROOT);
        }
    }

    public SoakOptions
    {
        memory = List.copyOf(memory);
        groups = List.copyOf(groups);
        ops = List.copyOf(ops);
    }

    public static SoakOptions parse(final String[] args)
    {
        final Arguments arguments = new Arguments(args);
        int ranks = DEFAULT_RANKS;
        long durationMs = DEFAULT_DURATION_MS;
        long maxBytes = DEFAULT_MAX_BYTES;
        long seed = System.nanoTime();
        long reportMs = -1;
        List<Memory> memory = List.of(Memory.values());
        List<Group> groups = List.of(Group.values());
        boolean nonBlocking = true;
        boolean inPlace = true;
        List<BenchOp> ops = BenchOp.all();
        String option;
        while ((option = arguments.nextOption()) != null)
        {
            switch (option)
            {
                case "-n" -> ranks = arguments.intValue(option, 2, 64);
                case "--duration" -> durationMs = durationMs(option, arguments.value(option));
                case "--max-bytes" -> maxBytes = bytes(option, arguments.value(option));
                case "--seed" -> seed = longValue(option, arguments.value(option));
                case "--report" -> reportMs = durationMs(option, arguments.value(option));
                case "--memory" -> memory = kinds(option, arguments.value(option), Memory.class);
                case "--groups" -> groups = kinds(option, arguments.value(option), Group.class);
                case "--blocking-only" -> nonBlocking = false;
                case "--out-of-place-only" -> inPlace = false;
                case "--ops" -> ops = ops(option, arguments.value(option));
                default -> throw Arguments.unknownOption(option);
            }
        }
        arguments.expectNoOperands();
        if (maxBytes < 64)
        {
            throw new UsageException("--max-bytes must be at least 64, not " + maxBytes);
        }
        if (reportMs < 0)
        {
            reportMs = Math.min(DEFAULT_REPORT_MS, Math.max(1_000, durationMs / 10));
        }
        return new SoakOptions(ranks, durationMs, maxBytes, seed, reportMs, memory, groups, nonBlocking,
            inPlace, ops);
    }

    /** The arguments that give these options back, for the ranks. */
    public List<String> toArgs()
    {
        final List<String> args = new ArrayList<>(List.of("-n", Integer.toString(ranks), "--duration",
            durationMs + "ms", "--max-bytes", Long.toString(maxBytes), "--seed", Long.toString(seed), "--report",
            reportMs + "ms", "--memory", String.join(",", memory.stream().map(Memory::label).toList()), "--groups",
            String.join(",", groups.stream().map(Group::label).toList()), "--ops",
            String.join(",", ops.stream().map(BenchOp::label).toList())));
        if (!nonBlocking)
        {
            args.add("--blocking-only");
        }
        if (!inPlace)
        {
            args.add("--out-of-place-only");
        }
        return args;
    }

    /**
     * Bench operations separated by commas, each once, or {@code all}; kept in {@link BenchOp}'s order, so that the
     * same set draws the same calls however it is written.
     */
    static List<BenchOp> ops(final String option, final String text)
    {
        if (text.trim().equalsIgnoreCase("all"))
        {
            return BenchOp.all();
        }
        final List<BenchOp> ops = new ArrayList<>();
        for (final String name : text.split(",", -1))
        {
            final BenchOp op = BenchOp.parse(name);
            if (op == null)
            {
                throw new UsageException(option + " takes operations among " + BenchOp.names() + ", separated by " +
                    "commas, or all; not '" + name.trim() + "'");
            }
            if (ops.contains(op))
            {
                throw new UsageException(option + " names " + op.label() + " twice");
            }
            ops.add(op);
        }
        return BenchOp.all().stream().filter(ops::contains).toList();
    }

    /** Names of {@code kind}'s constants separated by commas ("direct,heap"), in any order, each once. */
    static <E extends Enum<E>> List<E> kinds(final String option, final String text, final Class<E> kind)
    {
        final List<E> kinds = new ArrayList<>();
        for (final String name : text.split(",", -1))
        {
            final E value;
            try
            {
                value = Enum.valueOf(kind, name.trim().toUpperCase(Locale.ROOT));
            }
            catch (final IllegalArgumentException ex)
            {
                final List<String> names = Arrays.stream(kind.getEnumConstants())
                    .map(e -> e.name().toLowerCase(Locale.ROOT)).toList();
                throw new UsageException(option + " takes " + String.join(", ", names) + ", separated by commas, " +
                    "not '" + name.trim() + "'");
            }
            if (kinds.contains(value))
            {
                throw new UsageException(option + " names " + name.trim() + " twice");
            }
            kinds.add(value);
        }
        return kinds;
    }

    /** "10m", "30s", "1h", "500ms", or a number of seconds. */
    static long durationMs(final String option, final String text)
    {
        final String t = text.trim().toLowerCase(Locale.ROOT);
        final long unit;
        final String digits;
        if (t.endsWith("ms"))
        {
            unit = 1;
            digits = t.substring(0, t.length() - 2);
        }
        else if (t.endsWith("s"))
        {
            unit = 1_000;
            digits = t.substring(0, t.length() - 1);
        }
        else if (t.endsWith("m"))
        {
            unit = 60_000;
            digits = t.substring(0, t.length() - 1);
        }
        else if (t.endsWith("h"))
        {
            unit = 3_600_000;
            digits = t.substring(0, t.length() - 1);
        }
        else
        {
            unit = 1_000;
            digits = t;
        }
        try
        {
            final long value = Long.parseLong(digits);
            if (value <= 0 || value > 100L * 86_400_000 / unit)
            {
                throw new UsageException(option + " must be positive and under 100 days, not " + text);
            }
            return value * unit;
        }
        catch (final NumberFormatException ex)
        {
            throw new UsageException(option + " needs a duration like 10m, 30s or 1h, not '" + text + "'");
        }
    }

    private static long bytes(final String option, final String text)
    {
        try
        {
            return Configuration.parseSize(text);
        }
        catch (final NumberFormatException ex)
        {
            throw new UsageException(option + " needs a size like 4m, not '" + text + "'");
        }
    }

    private static long longValue(final String option, final String text)
    {
        try
        {
            return Long.parseLong(text.trim());
        }
        catch (final NumberFormatException ex)
        {
            throw new UsageException(option + " needs a whole number, not '" + text + "'");
        }
    }
}
