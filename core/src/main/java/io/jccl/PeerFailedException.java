package io.jccl;

/**
 * A peer died, stopped responding, failed, or was late (alive, but not in the operation within
 * {@code jccl.timeout.ms}) while this rank waited on an operation. The communicator is broken afterwards: every
 * later call fails fast with the same cause.
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

    /** The rank blamed: the one that failed, or in a collective that timed out the first that had not called it. */
    public int peer()
    {
        return peer;
    }
}
