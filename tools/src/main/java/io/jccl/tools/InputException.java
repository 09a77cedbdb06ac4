package io.jccl.tools;

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
}
