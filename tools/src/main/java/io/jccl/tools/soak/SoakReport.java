package io.jccl.tools.soak;

import io.jccl.tools.bench.BenchOp;
import io.jccl.tools.soak.SoakOptions.Group;
import io.jccl.tools.soak.SoakOptions.Memory;

import java.io.PrintStream;
import java.util.Locale;

/**
 * Rank 0's account of a soak: decides when the time is up, prints a progress line every {@code --report}
 * (operations, wrong results, resident memory of every rank) and the summary at the end. Resident memory is compared
 * between the end of the warm-up (the first tenth of the run, when the JIT, the heap and the segment's pages have
 * settled) and the end, rank by rank, and its largest value after warm-up is kept.
 */
final class SoakReport
{
    /** Longs each rank reports: operations, wrong elements, skipped calls, then resident, anonymous, shared KiB. */
    static final int FIELDS = 6;
    private static final int OPS = 0;
    private static final int WRONG = 1;
    private static final int SKIPPED = 2;
    private static final int RSS = 3;
    private static final double KIB_PER_MIB = 1024.0;
    /**
     * Rank 0's operations by {@link BenchOp}, then the exchanges of point-to-point messages, those of them by
     * sendRecv and those from any source, by {@link Memory} from
     * {@link #TALLY_MEMORY} (rank 0's memory), by {@link Group} from {@link #TALLY_GROUP}, then the ones whose ranks
     * mixed direct and heap memory, the ones in place and the non-blocking ones.
     */
    static final int TALLY_EXCHANGE = BenchOp.values().length;
    static final int TALLY_SEND_RECV = TALLY_EXCHANGE + 1;
    static final int TALLY_ANY_SOURCE = TALLY_SEND_RECV + 1;
    static final int TALLY_MEMORY = TALLY_ANY_SOURCE + 1;
    static final int TALLY_GROUP = TALLY_MEMORY + Memory.values().length;
    static final int TALLY_MIXED = TALLY_GROUP + Group.values().length;
    static final int TALLY_IN_PLACE = TALLY_MIXED + 1;
    static final int TALLY_NON_BLOCKING = TALLY_IN_PLACE + 1;
    static final int TALLY_LENGTH = TALLY_NON_BLOCKING + 1;

    private final SoakOptions options;
    private final int ranks;
    private final PrintStream out;
    /** Per rank and memory kind (resident, anonymous, shared), KiB: at the end of the warm-up, last, peak since. */
    private final long[][] warmRss = new long[3][];
    private final long[][] lastRss = new long[3][];
    private final long[][] peakRss = new long[3][];
    private long startNs;
    private long nextReportMs;
    private long warmAtMs = -1;
    private long totalOps;
    private long totalWrong;
    private long totalSkipped;

    SoakReport(final SoakOptions options, final int ranks, final PrintStream out)
    {
        this.options = options;
        this.ranks = ranks;
        this.out = out;
        for (int kind = 0; kind < 3; kind++)
        {
            warmRss[kind] = new long[ranks];
            lastRss[kind] = new long[ranks];
            peakRss[kind] = new long[ranks];
        }
    }

    void start()
    {
        startNs = System.nanoTime();
        nextReportMs = options.reportMs();
        out.printf(Locale.ROOT, "soak: %d ranks for %s, messages up to %d bytes, seed %d; %s%s; a line " +
            "every %s%n", ranks, seconds(options.durationMs()), options.maxBytes(), options.seed(),
            String.join(", ", options.memory().stream().map(Memory::label).toList()) + " memory, " +
                String.join(", ", options.groups().stream().map(Group::label).toList()) + " communicators",
            (options.inPlace() ? ", in place too" : ", out of place only") +
                (options.nonBlocking() ? ", non-blocking calls too" : ", blocking calls only"),
            seconds(options.reportMs()));
    }

    /**
     * Takes every rank's {@link #FIELDS} longs and rank 0's tally of operations ({@link #TALLY_LENGTH}); prints what
     * is due. Returns true when the soak is over.
     */
    boolean update(final long[] everyone, final long[] tally)
    {
        final long elapsedMs = (System.nanoTime() - startNs) / 1_000_000;
        // every rank runs the same calls: rank 0's counts are the job's
        totalOps = everyone[OPS];
        totalSkipped = everyone[SKIPPED];
        totalWrong = 0;
        for (int r = 0; r < ranks; r++)
        {
            totalWrong += everyone[FIELDS * r + WRONG];
            for (int kind = 0; kind < 3; kind++)
            {
                lastRss[kind][r] = everyone[FIELDS * r + RSS + kind];
            }
        }
        if (warmAtMs < 0 && elapsedMs >= options.durationMs() / 10)
        {
            warmAtMs = elapsedMs;
            for (int kind = 0; kind < 3; kind++)
            {
                System.arraycopy(lastRss[kind], 0, warmRss[kind], 0, ranks);
            }
        }
        if (warmAtMs >= 0)
        {
            for (int kind = 0; kind < 3; kind++)
            {
                for (int r = 0; r < ranks; r++)
                {
                    peakRss[kind][r] = Math.max(peakRss[kind][r], lastRss[kind][r]);
                }
            }
        }
        final boolean over = elapsedMs >= options.durationMs();
        if (elapsedMs >= nextReportMs || over)
        {
            nextReportMs += options.reportMs() * Math.max(1, (elapsedMs - nextReportMs) / options.reportMs() + 1);
            out.printf(Locale.ROOT, "soak %7.1f s: %d ops (%.1f/s), %d wrong, %d skipped; rss MiB:%s%n",
                elapsedMs / 1000.0, totalOps, totalOps * 1000.0 / Math.max(1, elapsedMs), totalWrong, totalSkipped,
                mib(lastRss[0]));
        }
        if (over)
        {
            summary(elapsedMs, tally);
        }
        return over;
    }

    long totalWrong()
    {
        return totalWrong;
    }

    private void summary(final long elapsedMs, final long[] tally)
    {
        out.printf(Locale.ROOT, "soak done: %d ranks, %.1f s, %d ops, %d wrong, %d skipped (forced algorithm " +
            "could not serve the call), seed %d%n", ranks, elapsedMs / 1000.0, totalOps, totalWrong, totalSkipped,
            options.seed());
        final StringBuilder byKind = new StringBuilder("ops by kind:");
        for (final BenchOp op : BenchOp.values())
        {
            byKind.append(' ').append(op.label()).append(' ').append(tally[op.ordinal()]);
        }
        out.println(byKind.append(" p2p_exchange ").append(tally[TALLY_EXCHANGE]).append(" (by sendRecv ")
            .append(tally[TALLY_SEND_RECV]).append(", from any source ").append(tally[TALLY_ANY_SOURCE])
            .append(')'));
        final StringBuilder byMemory = new StringBuilder("ops by memory:");
        for (final Memory memory : Memory.values())
        {
            byMemory.append(' ').append(memory.label()).append(' ').append(tally[TALLY_MEMORY + memory.ordinal()]);
        }
        byMemory.append(" (direct and heap mixed across ranks ").append(tally[TALLY_MIXED]).append(')');
        byMemory.append("; by communicator:");
        for (final Group group : Group.values())
        {
            byMemory.append(' ').append(group.label()).append(' ').append(tally[TALLY_GROUP + group.ordinal()]);
        }
        out.println(byMemory.append("; in place ").append(tally[TALLY_IN_PLACE]).append("; non-blocking ")
            .append(tally[TALLY_NON_BLOCKING]));
        final String[] kinds = {"rss", "  anonymous (heap, native)", "  shared (segment pages touched)"};
        for (int kind = 0; kind < 3; kind++)
        {
            out.printf(Locale.ROOT, "%s MiB after warm-up (%.1f s):%s; at the end:%s; peak after warm-up:%s; " +
                "end minus warm-up:%s%n", kinds[kind], warmAtMs / 1000.0, mib(warmRss[kind]), mib(lastRss[kind]),
                mib(peakRss[kind]), growth(kind));
        }
        out.println(totalWrong == 0 ? "soak: all results right" : "soak: FAILED, " + totalWrong + " wrong elements");
    }

    private String growth(final int kind)
    {
        final StringBuilder sb = new StringBuilder();
        for (int r = 0; r < ranks; r++)
        {
            sb.append(String.format(Locale.ROOT, " %+.1f", (lastRss[kind][r] - warmRss[kind][r]) / KIB_PER_MIB));
        }
        return sb.toString();
    }

    private String mib(final long[] kib)
    {
        final StringBuilder sb = new StringBuilder();
        for (int r = 0; r < ranks; r++)
        {
            sb.append(String.format(Locale.ROOT, " %.1f", kib[r] / KIB_PER_MIB));
        }
        return sb.toString();
    }

    private static String seconds(final long ms)
    {
        return ms % 1000 == 0 ? ms / 1000 + " s" : String.format(Locale.ROOT, "%.1f s", ms / 1000.0);
    }
}
