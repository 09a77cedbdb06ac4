package io.jccl.launch;

import java.io.PrintStream;

/**
 * Where a job's output goes: every complete line a rank writes, and the launcher's own messages (the failure
 * summary). Called from one forwarding thread per rank and stream, so implementations must be thread-safe.
 */
public interface OutputSink
{
    /** The stream of the rank a line came from. */
    enum Source
    {
        STDOUT,
        STDERR
    }

    /**
     * One line of a rank's output, without its line terminator.
     *
     * @param rank   the rank that wrote it.
     * @param source the stream it was written to.
     * @param line   the text of the line.
     */
    void rankLine(int rank, Source source, String line);

    /** One line of the launcher's own report, e.g. which rank failed and how. */
    void launcherLine(String line);

    /** Ranks' stdout to {@link System#out}, their stderr and the launcher's messages to {@link System#err}. */
    static OutputSink console()
    {
        return new PrintStreamSink(System.out, System.err);
    }

    /** Ranks' stdout to {@code out}, their stderr and the launcher's messages to {@code err}, "[rank] " first. */
    static OutputSink to(final PrintStream out, final PrintStream err)
    {
        return new PrintStreamSink(out, err);
    }

    /** Drops everything; useful with {@link JobLauncher.Builder#captureOutput(boolean)}. */
    static OutputSink discard()
    {
        return new OutputSink()
        {
            @Override
            public void rankLine(final int rank, final Source source, final String line)
            {
            }

            @Override

            public void launcherLine(final String line)
            {
            }
        };
    }

    /**
     * Writes each line whole, under one lock shared by both streams, so that lines of different ranks never mix
     * within a line and a line is flushed as soon as it is complete.
     */
    final class PrintStreamSink implements OutputSink
    {
        private final PrintStream out;
        private final PrintStream err;
        private final Object lock = new Object();

        PrintStreamSink(final PrintStream out, final PrintStream err)
        {
            this.out = out;
            this.err = err;
        }

        @Override

        public void rankLine(final int rank, final Source source, final String line)
        {
            final PrintStream stream = source == Source.STDOUT ? out : err;
            final String text = "[" + rank + "] " + line + System.lineSeparator();
            synchronized (lock)
            {
                stream.print(text);
                stream.flush();
            }
        }

        @Override

        public void launcherLine(final String line)
        {
            final String text = "jccl: " + line + System.lineSeparator();
            synchronized (lock)
            {
                out.flush();
                err.print(text);
                err.flush();
            }
        }
    }
}
