package io.jccl;

/**
 * A peer died, stopped responding, or failed while this rank waited on an operation. The communicator is
 * broken afterwards: every later call fails fast with the same cause.
 */
public class PeerFailedException extends JcclException
{
    private static final long serialVersionUID = 1L;

    private final int peer;

    public PeerFailedException(final int peer, final String message)
    {
        super(message);
        this.peer = peer;
    }

    /** The rank that failed. */
    public int peer()
    {
        return peer;
    }
}
