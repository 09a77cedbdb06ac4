package io.jccl.tools.bench;

import java.io.PrintStream;
import java.util.Locale;

/** Aligned columns for people: sizes in B/KiB/MiB, times in µs, bandwidths in GB/s, a blank line between blocks. */
public final class TableWriter implements ResultWriter
{
    private static final String ROW = "%-15s %-20s %5s %9s %-8s %11s %11s %11s %7s %10s %10s %6s";

    private final PrintStream out;
    private boolean firstBlock = true;

    public TableWriter(final PrintStream out)
    {
        this.out = out;
    }

    @Override
    public void start(final RunInfo info)
    {
        out.print(header() + "\n");
        out.flush();
    }

    /** The column header line. */
    public static String header()
    {
        return String.format(Locale.ROOT, ROW, "collective", "algorithm", "ranks", "size", "dtype", "avg_us",
            "min_us", "max_us", "iters", "algbw_GB/s", "busbw_GB/s", "wrong");
    }

    @Override
    public void startBlock(final BenchPlan.Block block)
    {
        if (!firstBlock)
        {
            out.print("\n");
        }
        firstBlock = false;
    }

    @Override
    public void row(final BenchResult r)
    {
        out.print(String.format(Locale.ROOT, ROW, r.op().label(), r.algorithm(), r.ranks(),
            BenchOptions.humanBytes(r.bytes()), r.type().label(), time(r.avgUs()), time(r.minUs()),
            time(r.maxUs()), r.iters(), String.format(Locale.ROOT, "%.3f", r.algbw()),
            String.format(Locale.ROOT, "%.3f", r.busbw()), r.checked() ? Long.toString(r.wrong()) : "-") + "\n");
        out.flush();
    }

    @Override
    public void endBlock()
    {
    }

    @Override
    public void finish()
    {
        out.flush();
    }

    private static String time(final double us)
    {
        return String.format(Locale.ROOT, us < 100 ? "%.3f" : "%.1f", us);
    }
}
