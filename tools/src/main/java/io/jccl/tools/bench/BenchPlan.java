package io.jccl.tools.bench;

import io.jccl.DataType;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * What a sweep runs, worked out the same way by the command (to size the rank JVMs) and by every rank: the blocks
 * of rows (an operation with one algorithm), the sizes of each operation, what is skipped and why, and how large
 * each rank's send and receive regions must be.
 * <p>
 * Sizes go from --min-bytes in ×4 steps up to --max-bytes, like ../shared/peers/run-peers. A size is skipped when
 * it is not a whole number of elements, or, for the blocked collectives, not divisible into one equal block per
 * rank (as run-peers does). With --cold each call uses the next of several buffers laid out {@link #stride} apart,
 * together spanning more than the last-level cache.
 * <p>
 * The blocks of one operation run size by size ({@link #steps}): at each size every algorithm in turn, each size
 * starting one algorithm further on. Run a block at a time, the machine's drift over a sweep fell between the
 * algorithms, and a tuning file took it for a difference between them.
 */
public final class BenchPlan
{
    /** Buffers are this far apart at least, so that no two share a cache line. */
    public static final int ALIGNMENT = 64;
    /** Most buffers a --cold rotation uses; tiny messages rotate through this many rather than fill the span. */
    public static final int MAX_COLD_SETS = 4096;
    /** The least span of a --cold rotation, when the machine does not say how large its caches are. */
    public static final long MIN_COLD_SPAN = 64L << 20;

    /** One measurement of the sweep: the block at index {@code block} of {@link #blocks()}, at {@code bytes}. */
    public record Step(int block, long bytes)
    {
    }

    /** Rows of one operation with one algorithm; {@code algorithm} null means jccl chooses per call. */
    public record Block(BenchOp op, String algorithm)
    {
        /** One comment line naming the block: "# jccl: allreduce, algorithm ring, 4 ranks, float32, sum". */
        public String describe(final BenchOptions options)
        {
            final StringBuilder sb = new StringBuilder("# jccl: ").append(op.label()).append(", ");
            sb.append(algorithm == null ? "algorithm chosen by jccl per call" : "algorithm " + algorithm);
            sb.append(", ").append(options.ranks()).append(options.ranks() == 1 ? " rank, " : " ranks, ");
            sb.append(options.dataType().label());
            if (op.reducing())
            {
                sb.append(", ").append(options.reduceOp().label());
            }
            if (op.rooted())
            {
                sb.append(", root ").append(options.root());
            }
            if (op == BenchOp.PINGPONG)
            {
                sb.append(", ranks 0 and 1, one-way latency");
            }
            if (options.cold())
            {
                sb.append(", cold buffers");
            }
            if (options.sync())
            {
                sb.append(", one call at a time");
            }
            return sb.toString();
        }
    }

    private final BenchOptions options;
    private final int ranks;
    private final long coldSpan;
    private final List<Block> blocks = new ArrayList<>();
    private final List<String> notes = new ArrayList<>();
    private final List<List<Long>> sizesByOp = new ArrayList<>();
    private final long regionBytes;
    private final long largestMessageBytes;

    public BenchPlan(final BenchOptions options, final long coldSpan)
    {
        this.options = options;
        this.ranks = options.ranks();
        this.coldSpan = coldSpan;
        for (int i = 0; i < BenchOp.all().size(); i++)
        {
            sizesByOp.add(List.of());
        }
        long largest = ALIGNMENT;
        long largestMessage = 0;
        for (final BenchOp op : options.ops())
        {
            if (op == BenchOp.PINGPONG && ranks < 2)
            {
                notes.add("pingpong skipped: it needs 2 ranks or more");
                continue;
            }
            final List<String> algorithms = options.algorithmsFor(op);
            if (algorithms.isEmpty())
            {
                notes.add(op.label() + " skipped: --algo " + options.algo() + " names none of its algorithms");
                continue;
            }
            final List<Long> sizes = sizes(op);
            if (sizes.isEmpty())
            {
                continue;
            }
            sizesByOp.set(op.ordinal(), sizes);
            for (final String algorithm : algorithms)
            {
                blocks.add(new Block(op, algorithm));
            }
            for (final long bytes : sizes)
            {
                largest = Math.max(largest, sets(bytes) * stride(bytes));
                largestMessage = Math.max(largestMessage, bytes);
            }
        }
        this.regionBytes = align(largest);
        this.largestMessageBytes = largestMessage;
    }

    /** {@link #MIN_COLD_SPAN} or twice the largest cache of CPU 0, whichever is larger. */
    public static long detectColdSpan()
    {
        long largest = 0;
        for (int index = 0; index < 8; index++)
        {
            final Path file = Path.of("/sys/devices/system/cpu/cpu0/cache/index" + index + "/size");
            try
            {
                largest = Math.max(largest, BenchOptions.parseSize("cache size", Files.readString(file).trim()));
            }
            catch (final IOException | RuntimeException ex)
            {
                // no such cache level, or a format this does not know: the others and the minimum still hold
            }
        }
        return Math.max(MIN_COLD_SPAN, 2 * largest);
    }

    public List<Block> blocks()
    {
        return blocks;
    }

    /** Sizes in bytes {@code op} runs at; the barrier runs once, at 0 bytes. */
    public List<Long> sizesOf(final BenchOp op)
    {
        return sizesByOp.get(op.ordinal());
    }

    /** What is skipped, and why: one line each, for stderr. */
    public List<String> notes()
    {
        return notes;
    }

    /**
     * Every measurement of the sweep in the order it runs: operation by operation as {@link #blocks()} lists them;
     * within one, size by size, each of its blocks in turn, the turn at the i-th size starting at its i-th block
     * (modulo their number), so that no algorithm always follows the same one.
     */
    public List<Step> steps()
    {
        final List<Step> steps = new ArrayList<>();
        for (int first = 0, end; first < blocks.size(); first = end)
        {
            end = first + 1;
            while (end < blocks.size() && blocks.get(end).op() == blocks.get(first).op())
            {
                end++;
            }
            final int count = end - first;
            final List<Long> sizes = sizesOf(blocks.get(first).op());
            for (int i = 0; i < sizes.size(); i++)
            {
                for (int turn = 0; turn < count; turn++)
                {
                    steps.add(new Step(first + (i + turn) % count, sizes.get(i)));
                }
            }
        }
        return steps;
    }

    /** Rows the sweep will print if nothing is refused at run time. */
    public int rows()
    {
        int rows = 0;
        for (final Block block : blocks)
        {
            rows += sizesOf(block.op()).size();
        }
        return rows;
    }

    /** Bytes of each of a rank's two regions (send and receive), a multiple of {@link #ALIGNMENT}. */
    public long regionBytes()
    {
        return regionBytes;
    }

    /**
     * Direct memory a rank JVM needs: both regions, the algorithms' scratch (Bruck keeps up to twice the largest
     * message there) and some room for everything else.
     */
    public long directMemoryBytes()
    {
        return 2 * regionBytes + 2 * largestMessageBytes + (64L << 20);
    }

    /** Symmetric memory a rank needs with --shared: both regions, each on its own cache lines. */
    public long symmetricBytes()
    {
        return 2 * (regionBytes + 64);
    }

    /** Buffers a call rotates through at {@code bytes}: 1 cache-hot, more with --cold. */
    public int sets(final long bytes)
    {
        if (!options.cold())
        {
            return 1;
        }
        final long stride = stride(bytes);
        final long wanted = (coldSpan + stride - 1) / stride;
        return (int)Math.max(2, Math.min(MAX_COLD_SETS, wanted));
    }

    /** Distance in bytes between the rotated buffers at {@code bytes}. */
    public long stride(final long bytes)
    {
        return align(Math.max(1, bytes));
    }

    private List<Long> sizes(final BenchOp op)
    {
        if (op == BenchOp.BARRIER)
        {
            return List.of(0L);
        }
        final DataType type = options.dataType();
        final List<Long> sizes = new ArrayList<>();
        final List<Long> partial = new ArrayList<>();
        final List<Long> unblocked = new ArrayList<>();
        for (long bytes = options.minBytes(); bytes <= options.maxBytes(); bytes *= options.step())
        {
            if (bytes % type.size() != 0)
            {
                partial.add(bytes);
            }
            else if (op.blocked() && (bytes / type.size()) % ranks != 0)
            {
                unblocked.add(bytes);
            }
            else
            {
                sizes.add(bytes);
            }
        }
        if (!partial.isEmpty())
        {
            notes.add(op.label() + ": skipped " + sizeList(partial) + ": not a whole number of " + type.label() +
                " elements");
        }
        if (!unblocked.isEmpty())
        {
            notes.add(op.label() + ": skipped " + sizeList(unblocked) + ": not divisible into " + ranks +
                " equal blocks of " + type.label() + " elements");
        }
        return sizes;
    }

    /** Up to four sizes one by one, more as "N sizes (first ... last)". */
    static String sizeList(final List<Long> sizes)
    {
        final List<String> texts = new ArrayList<>();
        for (final long bytes : sizes)
        {
            texts.add(BenchOptions.humanBytes(bytes));
        }
        return sizes.size() <= 4 ? String.join(", ", texts) : String.format(Locale.ROOT, "%d sizes (%s ... %s)",
            sizes.size(), texts.get(0), texts.get(texts.size() - 1));
    }

    private static long align(final long bytes)
    {
        return (bytes + ALIGNMENT - 1) / ALIGNMENT * ALIGNMENT;
    }
}
