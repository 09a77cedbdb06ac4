package io.jccl.tools.bench;

import java.io.PrintStream;
import java.util.Locale;

/**
 * The contract CSV of DESIGN.md section 7: one header line, then one line per row. Times in µs and bandwidths in
 * GB/s with 3 decimals (as ../shared/peers/run-peers prints times); {@code wrong} is empty when not checked.
 */
public final class CsvWriter implements ResultWriter
{
    /** The contract columns (DESIGN.md section 7): add columns at the end, never rename. */
    public static final String HEADER =
        "collective,algorithm,ranks,bytes,dtype,avg_us,min_us,max_us,iters,algbw_GBps,busbw_GBps,wrong";

    private final PrintStream out;

    public CsvWriter(final PrintStream out)
    {
        this.out = out;
    }

    @Override
    public void start(final RunInfo info)
    {
        out.print(HEADER + "\n");
        out.flush();
    }

    @Override
    public void startBlock(final BenchPlan.Block block)
    {
    }

    @Override
    public void row(final BenchResult r)
    {
        out.print(line(r) + "\n");
        out.flush();
    }

    /** One CSV line, without its terminator. */
    public static String line(final BenchResult r)
    {
        return String.format(Locale.ROOT, "%s,%s,%d,%d,%s,%.3f,%.3f,%.3f,%d,%.3f,%.3f,%s", r.op().label(),
            r.algorithm(), r.ranks(), r.bytes(), r.type().label(), r.avgUs(), r.minUs(), r.maxUs(), r.iters(),
            r.algbw(), r.busbw(), r.checked() ? Long.toString(r.wrong()) : "");
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
}
