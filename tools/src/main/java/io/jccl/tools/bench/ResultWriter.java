package io.jccl.tools.bench;

import java.io.PrintStream;

/**
 * Prints the results of a sweep in one format, on rank 0, as they come: {@link #start}, then for each block of
 * rows (one operation with one algorithm) {@link #startBlock}, {@link #row} per size and {@link #endBlock}, and
 * {@link #finish} at the end. Lines end with '\n' whatever the platform, as the formats they copy do.
 */
public interface ResultWriter
{
    void start(RunInfo info);

    void startBlock(BenchPlan.Block block);

    void row(BenchResult result);

    void endBlock();

    void finish();

    /** The writer of the options' format, or the comparison with --compare. */
    static ResultWriter create(final BenchOptions options, final PrintStream out)
    {
        if (options.compare() != null)
        {
            return new CompareWriter(out, PeerResults.read(options.compare()), options.format() == BenchFormat.CSV);
        }
        return switch (options.format())
        {
            case TABLE -> new TableWriter(out);
            case OSU -> new OsuWriter(out);
            case NCCL -> new NcclWriter(out);
            case CSV -> new CsvWriter(out);
            case JSON -> new JsonWriter(out);
        };
    }
}
