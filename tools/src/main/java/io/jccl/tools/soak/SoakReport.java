package io.jccl.tools.soak;

import io.jccl.tools.bench.BenchOp;

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
    private static final double KIB_PER_MIB = 1024.0;

    private final SoakOptions options;
    private final int ranks;
    private final PrintStream out;
    private final long[] warmRss;
    private final long[] lastRss;
    private final long[] peakRss;
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
        this.warmRss = new long[ranks];
        this.lastRss = new long[ranks];
        this.peakRss = new long[ranks];
    }

    void start()
    {
        startNs = System.nanoTime();
        nextReportMs = options.reportMs();
        out.printf(Locale.ROOT, "soak: %d ranks for %s, messages up to %d bytes, seed %d; a line every %s%n", ranks,
            seconds(options.durationMs()), options.maxBytes(), options.seed(), seconds(options.reportMs()));
    }

    /**
     * Takes every rank's (ops, wrong, resident KiB, skipped) and rank 0's operations by kind; prints what is due.
     * Returns true when the soak is over.
     */
    boolean update(final long[] everyone, final long[] opsByKind)
    {
        final long elapsedMs = (System.nanoTime() - startNs) / 1_000_000;
        totalOps = everyone[0];
        totalSkipped = everyone[3];
        totalWrong = 0;
        for (int r = 0; r < ranks; r++)
        {
            totalWrong += everyone[4 * r + 1];
            lastRss[r] = everyone[4 * r + 2];
        }
        if (warmAtMs < 0 && elapsedMs >= options.durationMs() / 10)
        {
            warmAtMs = elapsedMs;
            System.arraycopy(lastRss, 0, warmRss, 0, ranks);
        }
        if (warmAtMs >= 0)
        {
            for (int r = 0; r < ranks; r++)
            {
                peakRss[r] = Math.max(peakRss[r], lastRss[r]);
            }
        }
        final boolean over = elapsedMs >= options.durationMs();
        if (elapsedMs >= nextReportMs || over)
        {
            nextReportMs += options.reportMs() * Math.max(1, (elapsedMs - nextReportMs) / options.reportMs() + 1);
            out.printf(Locale.ROOT, "soak %7.1f s: %d ops (%.1f/s), %d wrong, %d skipped; rss MiB:%s%n",
                elapsedMs / 1000.0, totalOps, totalOps * 1000.0 / Math.max(1, elapsedMs), totalWrong, totalSkipped,
                mib(lastRss));
        }
        if (over)
        {
            summary(elapsedMs, opsByKind);
        }
        return over;
    }

    long totalWrong()
    {
        return totalWrong;
    }

    private void summary(final long elapsedMs, final long[] opsByKind)
    {
        out.printf(Locale.ROOT, "soak done: %d ranks, %.1f s, %d ops, %d wrong, %d skipped (forced algorithm " +
            "could not serve the call), seed %d%n", ranks, elapsedMs / 1000.0, totalOps, totalWrong, totalSkipped,
            options.seed());
        final StringBuilder kinds = new StringBuilder("ops by kind:");
        for (final BenchOp op : BenchOp.values())
        {
            kinds.append(' ').append(op.label()).append(' ').append(opsByKind[op.ordinal()]);
        }
        out.println(kinds);
        out.printf(Locale.ROOT, "rss MiB after warm-up (%.1f s):%s; at the end:%s; peak after warm-up:%s; " +
            "end minus warm-up:%s%n", warmAtMs / 1000.0, mib(warmRss), mib(lastRss), mib(peakRss), growth());
        out.println(totalWrong == 0 ? "soak: all results right" : "soak: FAILED, " + totalWrong + " wrong elements");
    }

    private String growth()
    {
        final StringBuilder sb = new StringBuilder();
        for (int r = 0; r < ranks; r++)
        {
            sb.append(String.format(Locale.ROOT, " %+.1f", (lastRss[r] - warmRss[r]) / KIB_PER_MIB));
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
