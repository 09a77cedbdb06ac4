package io.jccl;

/**
 * A persistent receive ({@link Communicator#recvInit}): each start posts it again for the source and tag it was set up
 * with, {@link Communicator#ANY_SOURCE} and {@link Communicator#ANY_TAG} included, and {@link #source()} and
 * {@link #tag()} tell the message the last start took.
 */
public interface PersistentReceiveRequest extends PersistentRequest, ReceiveRequest
{
}
