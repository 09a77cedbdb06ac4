package io.jccl.tools;

import java.io.IOException;

/**
 * The files a command was given cannot be used (no header, no measurements, nothing to fit or tune): {@link Main}
 * prints the message and exits with 1, without the usage (the arguments were right) and without a stack trace (the
 * data, not jccl, is at fault).
 */
public final class InputException extends IllegalArgumentException
{
    private static final long serialVersionUID = 1L;

    public InputException(final IllegalArgumentException cause)
    {
        super(cause.getMessage(), cause);
    }

    /** A command's work on its input files, which may throw IllegalArgumentException about them. */
    @FunctionalInterface
    public interface Work
    {
        int run() throws IOException;
    }

    /** Runs {@code work}, turning an IllegalArgumentException about its input into an InputException. */
    public static int onInput(final Work work) throws IOException
    {
        try
        {
            return work.run();
        }
        catch (final IllegalArgumentException ex)
        {
            throw ex instanceof InputException input ? input : new InputException(ex);
        }
    }
}
