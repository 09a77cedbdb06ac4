package io.jccl;

/**
 * A receive in flight ({@link Communicator#irecv}): a {@link Request} that also tells where its message came from and
 * with which tag.
 */
public interface ReceiveRequest extends Request
{
    /**
     * The rank whose message this receive took: the source it was posted for, or, posted for
     * {@link Communicator#ANY_SOURCE}, the sender it matched once its message started to arrive
     * ({@link Communicator#ANY_SOURCE} until then). Valid after completion.
     */
    int source();

    /**
     * The tag of the message this receive took: the tag it was posted for, or, posted for {@link Communicator#ANY_TAG},
     * the tag of the message it matched ({@link Communicator#ANY_TAG} until then). Valid after completion.
     */
    int tag();

    /**
     * Withdraws this receive if no message has matched it yet (MPI_Cancel) and returns true: the request is then
     * complete ({@link #test()} returns true, {@link #bytes()} -1) and {@link #isCancelled()}, and the message it would
     * have taken goes to the next receive that matches it. Returns false when a message has matched it, or it has
     * completed: it then completes, or has completed, as it would have. Call it on the thread that uses the
     * communicator, as {@code test()}.
     */
    boolean cancel();

    /** Whether {@link #cancel()} withdrew this receive. */
    boolean isCancelled();
}
