package io.jccl;

/** A communication failure: a dead or stuck peer, a timeout, a mismatch, a segment that cannot be created. */
public class JcclException extends RuntimeException
{
    private static final long serialVersionUID = 1L;

    public JcclException(final String message)
    {
        super(message);
    }

    public JcclException(final String message, final Throwable cause)
    {
        super(message, cause);
    }
}
