package io.jccl.shm;

import io.jccl.Buf;
import io.jccl.JcclException;
import io.jccl.PersistentReceiveRequest;

import java.nio.ByteBuffer;
import java.util.concurrent.TimeUnit;

/**
 * A receive: posted by the application (a request; a persistent one, {@link ShmTransport#recvInit}, posted again at
 * each start), or created for a message that arrived before anybody asked for it (unexpected: buffered on the heap
 * until a receive matches it).
 */
final class RecvOp implements PersistentReceiveRequest
{
    final ShmTransport transport;
    /** The sending rank; {@link io.jccl.Communicator#ANY_SOURCE} until a receive from any rank matches a message. */
    int source;
    /** The tag; {@link io.jccl.Communicator#ANY_TAG} until a receive for any tag matches a message. */
    int tag;
    Object base;
    long offset;
    long capacity;
    /** Message length; -1 until the first record arrives. */
    long length;
    long received;
    boolean truncated;
    boolean done;
    /** Withdrawn before any message matched it ({@link #cancel()}): done, and took nothing. */
    boolean cancelled;
    /** Non-zero while the message arrives single-copy ({@link SingleCopy}) from {@link #remoteAddress}. */
    long rendezvousId;
    long remoteAddress;
    /** Bytes of the message ready at {@link #remoteAddress}: all of them, unless the sender still copies them there. */
    long remoteReady;
    /** The off-heap buffer of an unexpected single-copy message, kept reachable while its address is in use. */
    ByteBuffer unexpectedBuffer;
    /** The array of an unexpected message buffered in the transport's pool, which its next use buffers into. */
    byte[] pooledBytes;
    /** An unexpected message this receive matched while it was still arriving. */
    RecvOp pending;
    JcclException error;
    String operation;
    /** The operation's number: receives posted earlier have lower ones, and match first. */
    long sequence;
    /** An unexpected message's place in the order this rank buffered them (from every source). */
    long arrival;
    /** The buffer of a persistent receive, which each start posts again; null for any other receive. */
    Buf persistent;
    /** The source and tag a persistent receive was set up for, which each start posts it for again. */
    int postedSource;
    int postedTag;
    /** As {@link SendOp#active}. */
    boolean active;

    RecvOp(final ShmTransport transport)
    {
        this.transport = transport;
    }

    RecvOp reset(final int source, final int tag, final Object base, final long offset, final long capacity)
    {
        this.source = source;
        this.tag = tag;
        this.base = base;
        this.offset = offset;
        this.capacity = capacity;
        this.length = -1;
        this.received = 0;
        this.truncated = false;
        this.done = false;
        this.cancelled = false;
        this.rendezvousId = 0;
        this.remoteAddress = 0;
        this.unexpectedBuffer = null;
        this.pending = null;
        this.error = null;
        return this;
    }

    @Override
    public boolean test()
    {
        if (!done)
        {
            transport.progress();
        }
        return completed();
    }

    /** Whether the receive has completed, without progress: finishes it from an early message that has arrived. */
    boolean completed()
    {
        if (!done && pending != null && pending.done)
        {
            transport.completeFrom(this, pending);
        }
        active &= !done;
        if (done && error != null)
        {
            throw error;
        }
        return done;
    }

    @Override
    public void start()
    {
        transport.start(this);
    }

    @Override
    public void await()
    {
        transport.await(this, source, operation, sequence, -1);
    }

    @Override
    public boolean await(final long timeout, final TimeUnit unit)
    {
        return transport.await(this, source, operation, sequence, unit.toNanos(timeout));
    }

    @Override
    public long bytes()
    {
        return length;
    }

    @Override
    public boolean cancel()
    {
        return transport.cancel(this);
    }

    @Override
    public boolean isCancelled()
    {
        return cancelled;
    }

    @Override
    public int source()
    {
        return source;
    }

    @Override
    public int tag()
    {
        return tag;
    }
}
