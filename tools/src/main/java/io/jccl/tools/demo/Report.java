package io.jccl.tools.demo;

import io.jccl.Buf;
import io.jccl.Communicator;

import java.io.PrintStream;
import java.util.Arrays;
import java.util.List;

/**
 * The demo's one report, written by rank 0 alone: the other ranks send it their buffers with plain point-to-point
 * messages (not with the collectives being shown), so the output is in order and never interleaved. Also keeps
 * the tally of results checked against references computed locally.
 */
final class Report
{
    /** Tag of the point-to-point messages that carry buffers to rank 0 for printing. */
    private static final int REPORT_TAG = 9_001;
    private static final int MAX_GATHERED = 4096;

    private final Communicator comm;
    private final PrintStream out;
    private final Glyphs glyphs;
    private final double[] received;
    private int checks;
    private int failures;

    Report(final Communicator comm, final PrintStream out, final Glyphs glyphs)
    {
        this.comm = comm;
        this.out = out;
        this.glyphs = glyphs;
        this.received = comm.rank() == 0 ? new double[MAX_GATHERED] : null;
    }

    boolean isRoot()
    {
        return comm.rank() == 0;
    }

    Glyphs glyphs()
    {
        return glyphs;
    }

    /** Prints {@code line} on rank 0; other ranks print nothing. */
    void println(final String line)
    {
        if (isRoot())
        {
            out.println(line);
        }
    }

    /** Prints a blank line, then a section's title underlined. */
    void section(final String title)
    {
        println("");
        println(title);
        println("=".repeat(title.length()));
    }

    /** Prints a before/after table (rank 0 only). */
    void table(final String title, final List<String> before, final List<String> after)
    {
        for (final String line : BeforeAfterTable.render(title, glyphs.arrow(), before, after))
        {
            println(line);
        }
    }

    /**
     * Brings every rank's {@code local} to rank 0: returns them indexed by rank on rank 0, null elsewhere. Every
     * rank must call it at the same point.
     */
    double[][] gather(final double[] local)
    {
        if (local.length > MAX_GATHERED)
        {
            throw new IllegalArgumentException("a report holds at most " + MAX_GATHERED + " values per rank");
        }
        if (!isRoot())
        {
            comm.send(Buf.of(local), 0, REPORT_TAG);
            return null;
        }
        final double[][] all = new double[comm.size()][];
        all[0] = local.clone();
        for (int source = 1; source < comm.size(); source++)
        {
            final long bytes = comm.recv(Buf.of(received), source, REPORT_TAG);
            all[source] = Arrays.copyOf(received, (int)(bytes / Double.BYTES));
        }
        return all;
    }

    /**
     * Checks every rank's {@code actual} against {@code expected} (rank 0 only); prints each wrong rank. Returns
     * true when all are right.
     */
    boolean expect(final String what, final double[][] actual, final double[][] expected)
    {
        boolean right = true;
        for (int r = 0; r < expected.length; r++)
        {
            if (!Arrays.equals(actual[r], expected[r]))
            {
                right = false;
                println("  " + glyphs.wrong() + " " + what + " is wrong on rank " + r + ": " +
                    Arrays.toString(actual[r]) + ", expected " + Arrays.toString(expected[r]));
            }
        }
        return tally(right);
    }

    /** Checks one condition (rank 0 only); when it fails prints {@code failureMessage}. Returns the condition. */
    boolean expect(final boolean condition, final String failureMessage)
    {
        if (!condition)
        {
            println("  " + glyphs.wrong() + " " + failureMessage);
        }
        return tally(condition);
    }

    /** {@code ok} mark or {@code wrong} mark, for a result line. */
    String mark(final boolean right)
    {
        return right ? glyphs.ok() : glyphs.wrong();
    }

    int checks()
    {
        return checks;
    }

    int failures()
    {
        return failures;
    }

    private boolean tally(final boolean right)
    {
        checks++;
        if (!right)
        {
            failures++;
        }
        return right;
    }
}
