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
}
