package io.jccl.tools.demo;

import io.jccl.Communicator;
import io.jccl.Jccl;
import io.jccl.JcclException;

import java.io.PrintStream;

/**
 * One rank of {@code ./jccl demo}: runs every collective and the worked examples with its peers. Rank 0 alone
 * writes the report, on stdout; it exits with 1 when a result was wrong, and any rank exits with 1 on an error.
 */
public final class DemoRank
{
    private DemoRank()
    {
    }

    public static void main(final String[] args)
    {
        final PrintStream out = System.out;
        int exitCode;
        try (Communicator comm = Jccl.connect())
        {
            final Report report = new Report(comm, out, Glyphs.forCharset(out.charset()));
            header(comm, report);
            new CollectiveTour(comm, report).run();
            new WorkedExamples(comm, report).run();
            report.println("");
            if (report.failures() == 0)
            {
                report.println("All " + report.checks() + " results match references computed on one rank " +
                    report.glyphs().ok());
                exitCode = 0;
            }
            else
            {
                report.println(report.failures() + " of " + report.checks() + " results are wrong (marked " +
                    report.glyphs().wrong() + " above)");
                exitCode = report.isRoot() ? 1 : 0;
            }
            // nobody leaves while rank 0 may still be receiving the report's last messages
            comm.barrier();
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
            System.err.println("demo interrupted");
            exitCode = 1;
        }
        catch (final JcclException ex)
        {
            // a peer died or timed out, or the job could not start: the message says which and where
            System.err.println("demo failed: " + ex.getMessage());
            exitCode = 1;
        }
        catch (final RuntimeException ex)
        {
            System.err.println("demo failed: " + ex);
            ex.printStackTrace();
            exitCode = 1;
        }
        out.flush();
        System.exit(exitCode);
    }

    private static void header(final Communicator comm, final Report report)
    {
        final double[][] pids = report.gather(new double[] {ProcessHandle.current().pid()});
        if (!report.isRoot())
        {
            return;
        }
        final StringBuilder list = new StringBuilder();
        for (int r = 0; r < pids.length; r++)
        {
            list.append(r == 0 ? "" : ", ").append((long)pids[r][0]);
        }
        report.println("jccl demo: " + (comm.size() == 1 ? "1 rank, one JVM (pid " : comm.size() +
            " ranks, each its own JVM (pids ") + list + "), exchanging data through shared memory");
        report.println("Rank 0 prints everything; the other ranks send it their buffers with point-to-point " +
            "messages. Every result is checked.");
    }
}
