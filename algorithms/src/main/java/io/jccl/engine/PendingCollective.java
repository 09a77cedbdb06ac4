package io.jccl.engine;

import io.jccl.Buf;
import io.jccl.CollectiveRequest;
import io.jccl.Communicator;
import io.jccl.JcclException;
import io.jccl.PeerFailedException;
import io.jccl.ReduceOp;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * One non-blocking collective: its arguments, filled by the caller's thread, and its completion, published by the
 * thread that ran it (the progress thread, or a caller in {@link #await()}: {@link ProgressEngine#runUntil}). Pooled
 * by {@link ProgressEngine}: a request goes back to the pool once the caller has seen it complete (MPI's request-free
 * on wait), unless the caller took its {@link #future()}.
 * <p>
 * Ordering: {@code state} and {@code future} and {@code waiter} are volatile. The running thread writes the results
 * into the caller's buffers, then stores {@code state = DONE} (volatile: everything before it is visible to whoever
 * reads DONE), then reads {@code waiter} and {@code future}; the caller stores those, then reads {@code state}. With
 * both sides sequentially consistent at least one of them sees the other, so a waiter is always woken and a future
 * always completed.
 */
final class PendingCollective implements CollectiveRequest
{
    /** In the pool, or released to it by the caller. */
    static final int FREE = 0;
    /** Started, not yet complete. */
    static final int STARTED = 1;
    /** Complete: results (or {@link #failure}) are visible. */
    static final int DONE = 2;

    /** Spins of a waiting caller before it parks (the progress thread unparks it). */
    private static final int AWAIT_SPINS = 2_000;
    /** Longest single park of a waiting caller: a bound on a lost wake-up, never hit when all goes well. */
    private static final long MAX_PARK_NS = TimeUnit.MILLISECONDS.toNanos(1);

    enum Kind
    {
        BARRIER, BROADCAST, REDUCE, ALLREDUCE, GATHER, GATHERV, SCATTER, SCATTERV, ALLGATHER, ALLGATHERV,
        REDUCE_SCATTER, REDUCE_SCATTERV, ALLTOALL, ALLTOALLV, SCAN, EXSCAN
    }

    private final ProgressEngine engine;

    private volatile int state = FREE;
    private volatile Thread waiter;
    private volatile CompletableFuture<Void> future;

    // arguments, written by the caller before the operation is queued (the queue's offer publishes them)
    Kind kind;
    Buf send;
    Buf recv;
    ReduceOp op;
    int root;
    int[] counts;
    int[] displs;
    int[] recvCounts;
    int[] recvDispls;
    long bytes;

    /** Written by the progress thread before DONE. */
    private Throwable failure;

    PendingCollective(final ProgressEngine engine)
    {
        this.engine = engine;
    }

    /** Resets the arguments for a new operation of {@code kind}; the caller fills the ones it uses. */
    PendingCollective prepare(final Kind kind)
    {
        this.kind = kind;
        this.send = null;
        this.recv = null;
        this.op = null;
        this.root = -1;
        this.counts = null;
        this.displs = null;
        this.recvCounts = null;
        this.recvDispls = null;
        this.bytes = 0;
        this.failure = null;
        this.waiter = null;
        this.state = STARTED;
        return this;
    }

    /** Runs the collective on the progress engine's communicator and publishes its completion. */
    void runOn(final Communicator comm)
    {
        try
        {
            switch (kind)
            {
                case BARRIER -> comm.barrier();
                case BROADCAST -> comm.broadcast(recv, root);
                case REDUCE -> comm.reduce(send, recv, op, root);
                case ALLREDUCE -> comm.allreduce(send, recv, op);
                case GATHER -> comm.gather(send, recv, root);
                case GATHERV -> comm.gatherv(send, recv, counts, displs, root);
                case SCATTER -> comm.scatter(send, recv, root);
                case SCATTERV -> comm.scatterv(send, recv, counts, displs, root);
                case ALLGATHER -> comm.allgather(send, recv);
                case ALLGATHERV -> comm.allgatherv(send, recv, counts, displs);
                case REDUCE_SCATTER -> comm.reduceScatter(send, recv, op);
                case REDUCE_SCATTERV -> comm.reduceScatterv(send, recv, counts, op);
                case ALLTOALL -> comm.alltoall(send, recv);
                case ALLTOALLV -> comm.alltoallv(send, counts, displs, recv, recvCounts, recvDispls);
                case SCAN -> comm.scan(send, recv, op);
                case EXSCAN -> comm.exscan(send, recv, op);
            }
        }
        catch (final Throwable ex)
        {
            failure = ex;
        }
        complete();
    }

    boolean isDone()
    {
        return state == DONE;
    }

    /** Whether this request was started on {@code engine}. */
    boolean startedOn(final ProgressEngine engine)
    {
        return this.engine == engine;
    }

    /** Fails an operation that never ran (the progress engine is closing or broken). */
    void fail(final Throwable cause)
    {
        failure = cause;
        complete();
    }

    private void complete()
    {
        state = DONE;
        final Thread w = waiter;
        if (w != null)
        {
            LockSupport.unpark(w);
        }
        final CompletableFuture<Void> f = future;
        if (f != null)
        {
            completeFuture(f);
        }
    }

    @Override
    public boolean test()
    {
        final int s = checkInUse();
        if (s != DONE)
        {
            // a caller that tests in a loop must not spin for good on a progress thread that has stopped
            engine.checkAlive();
            return false;
        }
        release();
        return true;
    }

    @Override
    public void await()
    {
        checkInUse();
        if (state != DONE)
        {
            engine.runUntil(this);
        }
        waitUntilDone(Long.MAX_VALUE);
        release();
    }

    @Override
    public boolean await(final long timeout, final TimeUnit unit)
    {
        checkInUse();
        if (!waitUntilDone(System.nanoTime() + unit.toNanos(timeout)))
        {
            return false;
        }
        release();
        return true;
    }

    @Override
    public long bytes()
    {
        return bytes;
    }

    @Override
    public CompletableFuture<Void> future()
    {
        CompletableFuture<Void> f = future;
        if (f == null)
        {
            checkInUse();
            f = new CompletableFuture<>();
            future = f;
        }
        if (state == DONE && !f.isDone())
        {
            // the progress thread stores DONE before it completes the future: a caller that saw DONE sees it done
            completeFuture(f);
        }
        return f;
    }

    /** Waits for DONE until {@code deadline} (nanoTime); false when it passed first. */
    private boolean waitUntilDone(final long deadline)
    {
        for (int i = 0; i < AWAIT_SPINS; i++)
        {
            if (state == DONE)
            {
                return true;
            }
        }
        waiter = Thread.currentThread();
        try
        {
            while (state != DONE)
            {
                final long now = System.nanoTime();
                if (deadline != Long.MAX_VALUE && now - deadline >= 0)
                {
                    return false;
                }
                engine.checkAlive();
                LockSupport.parkNanos(this, deadline == Long.MAX_VALUE ? MAX_PARK_NS :
                    Math.min(MAX_PARK_NS, deadline - now));
            }
            return true;
        }
        finally
        {
            waiter = null;
        }
    }

    /** The caller has seen completion: recycle (unless a future holds on) and report a failure. */
    private void release()
    {
        final Throwable failed = failure;
        final Kind k = kind;
        if (future == null)
        {
            send = null;
            recv = null;
            counts = null;
            displs = null;
            recvCounts = null;
            recvDispls = null;
            failure = null;
            state = FREE;
            engine.recycle(this);
        }
        if (failed != null)
        {
            throw rethrown(failed, k);
        }
    }

    private int checkInUse()
    {
        final int s = state;
        if (s == FREE)
        {
            throw new IllegalStateException("this request already completed and went back to the pool: a " +
                "non-blocking collective's request is used until test() returns true or await() returns, not after");
        }
        return s;
    }

    private void completeFuture(final CompletableFuture<Void> f)
    {
        final Throwable failed = failure;
        if (failed == null)
        {
            f.complete(null);
        }
        else
        {
            f.completeExceptionally(failed);
        }
    }

    /** The failure as seen from the caller's thread: same type, the progress thread's exception as the cause. */
    private static RuntimeException rethrown(final Throwable failed, final Kind kind)
    {
        final String message = "non-blocking " + kind.name().toLowerCase(java.util.Locale.ROOT) + " failed: " +
            failed.getMessage();
        if (failed instanceof PeerFailedException pf)
        {
            final PeerFailedException ex = new PeerFailedException(pf.peer(), message);
            ex.initCause(pf);
            return ex;
        }
        if (failed instanceof IllegalArgumentException)
        {
            return new IllegalArgumentException(message, failed);
        }
        if (failed instanceof IllegalStateException)
        {
            return new IllegalStateException(message, failed);
        }
        return new JcclException(message, failed);
    }
}
