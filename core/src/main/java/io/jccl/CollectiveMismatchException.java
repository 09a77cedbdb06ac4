package io.jccl;

/**
 * Ranks called different collectives, or the same collective with a different count, datatype, operator or root,
 * at the same position in their sequence of collectives. The message says what each rank called, e.g.
 * {@code collective #17 mismatch: rank 0 allreduce(count=1024, float32, sum), rank 1 allreduce(count=1000, float32,
 * sum)}. The communicator is broken afterwards: the ranks no longer agree on what comes next.
 */
public class CollectiveMismatchException extends JcclException
{
    private static final long serialVersionUID = 1L;

    private final long sequence;

    public CollectiveMismatchException(final long sequence, final String message)
    {
        super(message);
        this.sequence = sequence;
    }

    /** The collective sequence number (1 for a communicator's first collective) at which the ranks disagree. */
    public long sequence()
    {
        return sequence;
    }
}
