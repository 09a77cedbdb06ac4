package io.jccl.tools;

/** Wrong arguments: {@link Main} prints the message and the command's usage, and exits with 2. */
public final class UsageException extends RuntimeException
{
    private static final long serialVersionUID = 1L;

    public UsageException(final String message)
    {
        super(message);
    }
}
