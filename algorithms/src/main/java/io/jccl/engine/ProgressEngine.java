package io.jccl.engine;

import io.jccl.JcclException;
import org.agrona.concurrent.Agent;
import org.agrona.concurrent.AgentRunner;
import org.jctools.queues.atomic.MpmcAtomicArrayQueue;
import org.jctools.queues.atomic.MpscAtomicArrayQueue;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

/**
 * The background progress of one communicator's non-blocking collectives: an Agrona {@link Agent} on its own daemon
 * thread, fed through a JCTools queue, running each operation to completion, in order, on a private duplicate of the
 * communicator (so they never match the caller's blocking calls, which go on at the same time on the original).
 * <p>
 * The queues are JCTools' atomic variants (field updaters and atomic arrays): its plain ones reach
 * {@code sun.misc.Unsafe}, whose memory access Java 24 warns about on every rank's stderr and later releases deny.
 * <p>
 * Idle: after its last operation the thread polls briefly, then parks until the next submission unparks it, so it
 * takes no core from the caller's computation while nothing is in flight ({@link ParkWhenIdleStrategy}). While an
 * operation waits for peers, the duplicate's own waits spin briefly, yield, then park.
 * <p>
 * A caller in {@link PendingCollective#await()} has nothing to compute: it runs the queued operations itself, up to
 * the one it awaits, when the progress thread is not running one ({@link #runUntil}), and its waits for peers are a
 * blocking call's. That spares two wake-ups (the progress thread's and its own) and the progress thread's parks: an
 * 8-byte iallreduce awaited at once took 100 µs without. Whoever runs operations holds {@code running}; taking it
 * (a CAS) and releasing it (a volatile store) order one runner's use of the queue and the duplicate before the next.
 * <p>
 * No allocation per operation: requests come from a pool and return to it when the caller has seen them complete.
 * <p>
 * Close: operations already started run to completion first (normally when the peers start them too; with an error
 * when a peer has failed or closed), then the thread stops and the duplicate closes.
 */
final class ProgressEngine implements Agent, AutoCloseable
{
    /** Most operations in flight at once; a caller that starts more waits for the oldest to finish. */
    static final int MAX_IN_FLIGHT = 1024;
    /** How often close() wakes the parked agent until it has stopped. */
    private static final int CLOSE_RETRY_MS = 1;

    private final ShmCommunicator comm;
    private final MpscAtomicArrayQueue<PendingCollective> queue = new MpscAtomicArrayQueue<>(MAX_IN_FLIGHT);
    private final MpmcAtomicArrayQueue<PendingCollective> pool = new MpmcAtomicArrayQueue<>(MAX_IN_FLIGHT);
    private final AtomicLong completed = new AtomicLong();
    /** Held by the thread running operations: the progress thread, or a caller in await. */
    private final AtomicBoolean running = new AtomicBoolean();
    /** The thread holding {@code running}, written by it alone: only that thread reads itself here. */
    private Thread runningThread;
    private final ParkWhenIdleStrategy idle = new ParkWhenIdleStrategy();
    private final AgentRunner runner;
    private final Thread thread;
    private final String name;
    /** Operations started by callers (one thread at a time, as the communicator enforces). */
    private long started;

    ProgressEngine(final ShmCommunicator comm)
    {
        this.comm = comm;
        this.name = "jccl-progress-" + comm.rank();
        this.runner = new AgentRunner(idle, ex -> { }, null, this);
        this.thread = AgentRunner.startOnThread(runner, task ->
        {
            final Thread t = new Thread(task, name);
            t.setDaemon(true);
            return t;
        });
    }

    /** A request to fill: from the pool, or new when every pooled one is in use. */
    PendingCollective acquire(final PendingCollective.Kind kind)
    {
        final PendingCollective pooled = pool.relaxedPoll();
        return (pooled != null ? pooled : new PendingCollective(this)).prepare(kind);
    }

    /** Queues a filled request for the progress thread. */
    PendingCollective submit(final PendingCollective op)
    {
        if (!queue.offer(op))
        {
            submitSlowPath(op);
        }
        started++;
        LockSupport.unpark(thread);
        return op;
    }

    private void submitSlowPath(final PendingCollective op)
    {
        while (!queue.offer(op))
        {
            checkAlive();
            LockSupport.parkNanos(10_000);
        }
    }

    void recycle(final PendingCollective op)
    {
        pool.relaxedOffer(op);
    }

    /** Throws when the progress thread is gone (only a bug ends it early): a waiting caller must not hang. */
    void checkAlive()
    {
        if (!thread.isAlive())
        {
            throw new JcclException("the progress thread " + name + " has stopped");
        }
    }

    @Override
    public int doWork()
    {
        if (queue.isEmpty())
        {
            return 0;
        }
        if (!running.compareAndSet(false, true))
        {
            idle.parkNext();
            return 0;
        }
        runningThread = Thread.currentThread();  // not the field thread: the first doWork may come before it is set
        try
        {
            final PendingCollective op = queue.relaxedPoll();
            if (op == null)
            {
                return 0;
            }
            run(op);
            return 1;
        }
        finally
        {
            runningThread = null;
            running.set(false);
        }
    }

    /**
     * Runs the queued operations on the caller's thread up to and including {@code awaited}, unless another thread
     * is running one: then the caller waits for the progress thread to complete it. A thread that already runs them
     * (a future's dependent action that awaits another request) runs on.
     */
    void runUntil(final PendingCollective awaited)
    {
        final Thread me = Thread.currentThread();
        if (runningThread == me)
        {
            runQueued(awaited);
            return;
        }
        if (!running.compareAndSet(false, true))
        {
            return;
        }
        runningThread = me;
        comm.transport().callerDrives(true);
        try
        {
            runQueued(awaited);
        }
        finally
        {
            comm.transport().callerDrives(false);
            runningThread = null;
            running.set(false);
            if (!queue.isEmpty())
            {
                LockSupport.unpark(thread);  // another thread submitted meanwhile: the progress thread may be parked
            }
        }
    }

    private void runQueued(final PendingCollective awaited)
    {
        PendingCollective op;
        while (!awaited.isDone() && (op = queue.relaxedPoll()) != null)
        {
            run(op);
        }
    }

    private void run(final PendingCollective op)
    {
        op.runOn(comm);
        completed.lazySet(completed.get() + 1);  // ordered store: one runner at a time writes it
    }

    @Override
    public String roleName()
    {
        return name;
    }

    /** Runs what was started to completion, then stops the thread and closes the duplicate. */
    @Override
    public void close()
    {
        while (completed.get() != started)
        {
            if (!thread.isAlive())
            {
                failQueued(new JcclException("the progress thread " + name + " stopped before the operation ran"));
                break;
            }
            LockSupport.parkNanos(TimeUnit.MICROSECONDS.toNanos(100));
        }
        // the agent may be parked without a time limit: wake it until it sees that it must stop
        runner.close(CLOSE_RETRY_MS, LockSupport::unpark);
        comm.close();
    }

    private void failQueued(final Throwable cause)
    {
        PendingCollective op;
        while ((op = queue.poll()) != null)
        {
            op.fail(cause);
        }
    }
}
