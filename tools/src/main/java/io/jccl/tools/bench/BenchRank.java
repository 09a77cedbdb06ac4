package io.jccl.tools.bench;

import io.jccl.Communicator;
import io.jccl.Jccl;
import io.jccl.tools.UsageException;

/**
 * The main class of every rank of {@code jccl bench}: joins the job, runs the sweep, and exits with 1 when a
 * checked row had wrong results (2 for arguments it cannot parse, which the command has already checked).
 */
public final class BenchRank
{
    private BenchRank()
    {
    }

    public static void main(final String[] args)
    {
        final BenchOptions options;
        try
        {
            options = BenchOptions.parse(args);
        }
        catch (final UsageException ex)
        {
            System.err.println(BenchSweep.NOTE_PREFIX + ex.getMessage());
            System.exit(2);
            return;
        }
        final int wrongRows;
        try (Communicator comm = Jccl.connect())
        {
            final BenchPlan plan = new BenchPlan(options, BenchPlan.detectColdSpan());
            wrongRows = new BenchSweep(comm, options, plan, System.out, System.err).run();
        }
        System.exit(wrongRows > 0 ? 1 : 0);
    }
}
