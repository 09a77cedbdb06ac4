package io.jccl.tools.demo;

import io.jccl.launch.OutputSink;

import java.io.PrintStream;

/**
 * The demo's output: rank 0's stdout is the report, passed through verbatim; anything else (another rank's
 * stdout, any rank's stderr) keeps the launcher's "[rank] " prefix, and the launcher's own lines go to stderr.
 */
final class RankZeroSink implements OutputSink
{
    private final PrintStream out;
    private final PrintStream err;
    private final Object lock = new Object();

    RankZeroSink(final PrintStream out, final PrintStream err)
    {
        this.out = out;
        this.err = err;
    }

    @Override
    public void rankLine(final int rank, final Source source, final String line)
    {
        final boolean report = rank == 0 && source == Source.STDOUT;
        final PrintStream stream = source == Source.STDOUT ? out : err;
        final String text = report ? line : "[" + rank + "] " + line;
        synchronized (lock)
        {
            stream.println(text);
            stream.flush();
        }
    }

    @Override
    public void launcherLine(final String line)
    {
        synchronized (lock)
        {
            out.flush();
            err.println("jccl: " + line);
            err.flush();
        }
    }
}
