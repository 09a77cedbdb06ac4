package io.jccl.tools.bench;

import io.jccl.launch.OutputSink;

import java.io.PrintStream;

/**
 * Where the output of the bench ranks goes: rank 0's stdout (the results) verbatim to {@code out}, rank 0's
 * progress and notes (stderr lines starting with {@link BenchSweep#NOTE_PREFIX}) verbatim to {@code err}, and
 * every other line with its rank in front, as {@code jccl run} prints it: "[2] ...". One lock keeps lines whole.
 */
public final class BenchSink implements OutputSink
{
    private final PrintStream out;
    private final PrintStream err;
    private final Object lock = new Object();

    public BenchSink(final PrintStream out, final PrintStream err)
    {
        this.out = out;
        this.err = err;
    }

    @Override
    public void rankLine(final int rank, final Source source, final String line)
    {
        final boolean verbatim = rank == 0 &&
            (source == Source.STDOUT || line.startsWith(BenchSweep.NOTE_PREFIX));
        final PrintStream stream = source == Source.STDOUT ? out : err;
        final String text = (verbatim ? "" : "[" + rank + "] ") + line + "\n";
        synchronized (lock)
        {
            stream.print(text);
            stream.flush();
        }
    }

    @Override
    public void launcherLine(final String line)
    {
        synchronized (lock)
        {
            out.flush();
            err.print("jccl: " + line + "\n");
            err.flush();
        }
    }
}
