package io.jccl.engine;

import io.jccl.Buf;
import io.jccl.CollectiveRequest;
import io.jccl.Communicator;
import io.jccl.Configuration;
import io.jccl.DataType;
import io.jccl.ReduceOp;
import io.jccl.Request;
import io.jccl.engine.PendingCollective.Kind;
import io.jccl.spi.ArgumentChecks;

/**
 * The {@code i...} collectives of one communicator (shared with its views): checks what can be checked before
 * anything is queued (null buffers and ops, roots out of range), fills a pooled request and hands it to the
 * {@link ProgressEngine}, which {@link #start()} creates before the first call. The checks that need the whole call
 * (sizes, overlaps) are the blocking collective's, on the progress thread: they fail the request before any byte
 * moves.
 */
final class NonBlockingCollectives implements AutoCloseable
{
    private final Communicator parent;
    private final SubCommunicators splitter;
    private final Configuration configuration;
    private ProgressEngine engine;

    NonBlockingCollectives(final Communicator parent, final SubCommunicators splitter,
        final Configuration configuration)
    {
        this.parent = parent;
        this.splitter = splitter;
        this.configuration = configuration;
    }

    CollectiveRequest barrier()
    {
        return engine().submit(engine.acquire(Kind.BARRIER));
    }

    CollectiveRequest broadcast(final Buf buf, final int root)
    {
        checkRoot(root);
        final PendingCollective p = engine().acquire(Kind.BROADCAST);
        p.recv = notNull(buf, "buffer");
        p.root = root;
        p.bytes = buf.bytes();
        return engine.submit(p);
    }

    CollectiveRequest reduce(final Buf send, final Buf recv, final ReduceOp op, final int root)
    {
        checkRoot(root);
        final PendingCollective p = engine().acquire(Kind.REDUCE);
        p.send = notNull(send, "send buffer");
        p.recv = parent.rank() == root ? notNull(recv, "receive buffer") : recv;
        p.op = reducing(op, send.type());
        p.root = root;
        p.bytes = parent.rank() == root ? send.bytes() : 0;
        return engine.submit(p);
    }

    CollectiveRequest allreduce(final Buf send, final Buf recv, final ReduceOp op)
    {
        final PendingCollective p = engine().acquire(Kind.ALLREDUCE);
        p.send = notNull(send, "send buffer");
        p.recv = notNull(recv, "receive buffer");
        p.op = reducing(op, send.type());
        p.bytes = send.bytes();
        return engine.submit(p);
    }

    CollectiveRequest scan(final Buf send, final Buf recv, final ReduceOp op)
    {
        return prefix(Kind.SCAN, send, recv, op);
    }

    CollectiveRequest exscan(final Buf send, final Buf recv, final ReduceOp op)
    {
        return prefix(Kind.EXSCAN, send, recv, op);
    }

    private CollectiveRequest prefix(final Kind kind, final Buf send, final Buf recv, final ReduceOp op)
    {
        final PendingCollective p = engine().acquire(kind);
        p.send = notNull(send, "send buffer");
        p.recv = notNull(recv, "receive buffer");
        p.op = reducing(op, send.type());
        p.bytes = send.bytes();
        return engine.submit(p);
    }

    CollectiveRequest gather(final Buf send, final Buf recv, final int root)
    {
        checkRoot(root);
        final PendingCollective p = engine().acquire(Kind.GATHER);
        p.send = notNull(send, "send buffer");
        p.recv = parent.rank() == root ? notNull(recv, "receive buffer") : recv;
        p.root = root;
        p.bytes = parent.rank() == root ? send.bytes() * parent.size() : 0;
        return engine.submit(p);
    }

    CollectiveRequest gatherv(final Buf send, final Buf recv, final int[] counts, final int[] displs, final int root)
    {
        checkRoot(root);
        final PendingCollective p = engine().acquire(Kind.GATHERV);
        p.send = notNull(send, "send buffer");
        p.recv = parent.rank() == root ? notNull(recv, "receive buffer") : recv;
        p.counts = counts;
        p.displs = displs;
        p.root = root;
        p.bytes = parent.rank() == root ? recv.bytes() : 0;
        return engine.submit(p);
    }

    CollectiveRequest scatter(final Buf send, final Buf recv, final int root)
    {
        checkRoot(root);
        final PendingCollective p = engine().acquire(Kind.SCATTER);
        p.send = parent.rank() == root ? notNull(send, "send buffer") : send;
        p.recv = notNull(recv, "receive buffer");
        p.root = root;
        p.bytes = recv.bytes();
        return engine.submit(p);
    }

    CollectiveRequest scatterv(final Buf send, final Buf recv, final int[] counts, final int[] displs, final int root)
    {
        checkRoot(root);
        final PendingCollective p = engine().acquire(Kind.SCATTERV);
        p.send = parent.rank() == root ? notNull(send, "send buffer") : send;
        p.recv = notNull(recv, "receive buffer");
        p.counts = counts;
        p.displs = displs;
        p.root = root;
        p.bytes = recv.bytes();
        return engine.submit(p);
    }

    CollectiveRequest allgather(final Buf send, final Buf recv)
    {
        final PendingCollective p = engine().acquire(Kind.ALLGATHER);
        p.send = notNull(send, "send buffer");
        p.recv = notNull(recv, "receive buffer");
        p.bytes = send.bytes() * parent.size();
        return engine.submit(p);
    }

    CollectiveRequest allgatherv(final Buf send, final Buf recv, final int[] counts, final int[] displs)
    {
        final PendingCollective p = engine().acquire(Kind.ALLGATHERV);
        p.send = notNull(send, "send buffer");
        p.recv = notNull(recv, "receive buffer");
        p.counts = counts;
        p.displs = displs;
        p.bytes = recv.bytes();
        return engine.submit(p);
    }

    CollectiveRequest reduceScatter(final Buf send, final Buf recv, final ReduceOp op)
    {
        final PendingCollective p = engine().acquire(Kind.REDUCE_SCATTER);
        p.send = notNull(send, "send buffer");
        p.recv = notNull(recv, "receive buffer");
        p.op = reducing(op, send.type());
        p.bytes = recv.bytes();
        return engine.submit(p);
    }

    CollectiveRequest reduceScatterv(final Buf send, final Buf recv, final int[] counts, final ReduceOp op)
    {
        final PendingCollective p = engine().acquire(Kind.REDUCE_SCATTERV);
        p.send = notNull(send, "send buffer");
        p.recv = notNull(recv, "receive buffer");
        p.counts = counts;
        p.op = reducing(op, send.type());
        p.bytes = recv.bytes();
        return engine.submit(p);
    }

    CollectiveRequest alltoall(final Buf send, final Buf recv)
    {
        final PendingCollective p = engine().acquire(Kind.ALLTOALL);
        p.send = notNull(send, "send buffer");
        p.recv = notNull(recv, "receive buffer");
        p.bytes = send.bytes();
        return engine.submit(p);
    }

    CollectiveRequest alltoallv(final Buf send, final int[] sendCounts, final int[] sendDispls, final Buf recv,
        final int[] recvCounts, final int[] recvDispls)
    {
        final PendingCollective p = engine().acquire(Kind.ALLTOALLV);
        p.send = notNull(send, "send buffer");
        p.recv = notNull(recv, "receive buffer");
        p.counts = sendCounts;
        p.displs = sendDispls;
        p.recvCounts = recvCounts;
        p.recvDispls = recvDispls;
        p.bytes = recv.bytes();
        return engine.submit(p);
    }

    /** Whether {@code request} is one of these collectives' requests. */
    boolean owns(final Request request)
    {
        return engine != null && request instanceof PendingCollective pending && pending.startedOn(engine);
    }

    /** Finishes what was started, then stops the progress thread and closes its communicator. */
    @Override
    public void close()
    {
        if (engine != null)
        {
            engine.close();
            engine = null;
        }
    }

    /**
     * Creates the engine on the first call: a duplicate of the parent (a collective call on it, so the caller does
     * this before it enters the parent for the non-blocking call itself) and the progress thread.
     */
    void start()
    {
        if (engine == null)
        {
            // the duplicate waits as a progress thread should (Configuration.PROGRESS_IDLE_*)
            final ShmCommunicator duplicate = splitter.split(parent, 0, parent.rank());
            duplicate.transport().progressThreadWaits(
                configuration.getLong(Configuration.PROGRESS_IDLE_SPINS_PROP_NAME,
                    Configuration.PROGRESS_IDLE_SPINS_DEFAULT),
                configuration.getLong(Configuration.PROGRESS_IDLE_YIELDS_PROP_NAME,
                    Configuration.PROGRESS_IDLE_YIELDS_DEFAULT),
                configuration.getLong(Configuration.PROGRESS_IDLE_MAX_PARK_US_PROP_NAME,
                    Configuration.PROGRESS_IDLE_MAX_PARK_US_DEFAULT));
            engine = new ProgressEngine(duplicate);
        }
    }

    private ProgressEngine engine()
    {
        if (engine == null)
        {
            throw new IllegalStateException("non-blocking collectives used before start() or after close()");
        }
        return engine;
    }

    private void checkRoot(final int root)
    {
        ArgumentChecks.checkRank(root, parent.size(), "root");
    }

    private static Buf notNull(final Buf buf, final String role)
    {
        ArgumentChecks.checkBuffer(buf, role, false);
        return buf;
    }

    /** {@code op}, once known to reduce elements of {@code type}. */
    private static ReduceOp reducing(final ReduceOp op, final DataType type)
    {
        ArgumentChecks.checkOp(op, type);
        return op;
    }
}
