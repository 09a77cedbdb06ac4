package io.jccl.shm;

import io.jccl.Buf;
import io.jccl.PersistentRequest;

import java.util.concurrent.TimeUnit;

/**
 * A send in progress: the bytes not yet written to the channel, and the request the caller holds; a persistent one
 * ({@link ShmTransport#sendInit}) is started again and again, any other once.
 */
final class SendOp implements PersistentRequest
{
    final ShmTransport transport;
    int dest;
    int tag;
    Object base;
    long offset;
    long bytes;
    long sent;
    /** Non-zero: the message goes single-copy ({@link SingleCopy}) under this rendezvous id. */
    long rendezvousId;
    /**
     * A heap array's message that goes single copy out of an off-heap copy ({@link SingleCopy#beginStaged}), until
     * the copy is made: the array and the message's offset in it ({@link #base} and {@link #offset} then say where
     * the copy is); null when the message goes from where the caller has it, or the copy is made.
     */
    Object stagedFrom;
    long stagedFromOffset;
    boolean started;
    boolean done;
    /** A collective's message that its receiver reduces (CollectiveContext#sendForReduction). */
    boolean forReduction;
    String operation;
    long sequence;
    /** The buffer of a persistent send, which each start sends; null for any other send. */
    Buf persistent;
    /**
     * A persistent send started and not yet seen complete by {@link #test()}, {@link #await()} or the communicator's
     * {@code waitAny}: until then {@code waitAny} takes it, after that it skips it (MPI's inactive request).
     */
    boolean active;

    SendOp(final ShmTransport transport)
    {
        this.transport = transport;
    }

    SendOp reset(final int dest, final int tag, final Object base, final long offset, final long bytes)
    {
        this.dest = dest;
        this.tag = tag;
        this.base = base;
        this.offset = offset;
        this.bytes = bytes;
        this.sent = 0;
        this.rendezvousId = 0;
        this.stagedFrom = null;
        this.started = false;
        this.done = false;
        this.forReduction = false;
        return this;
    }

    @Override
    public boolean test()
    {
        if (!done)
        {
            transport.progress();
        }
        active &= !done;
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
        transport.await(this, dest, operation, sequence, -1);
    }

    @Override
    public boolean await(final long timeout, final TimeUnit unit)
    {
        return transport.await(this, dest, operation, sequence, unit.toNanos(timeout));
    }

    @Override
    public long bytes()
    {
        return bytes;
    }
}
