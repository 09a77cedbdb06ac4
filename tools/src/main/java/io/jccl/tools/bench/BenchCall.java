package io.jccl.tools.bench;

import io.jccl.Buf;
import io.jccl.Collective;
import io.jccl.CollectiveRequest;
import io.jccl.Communicator;
import io.jccl.ReduceOp;
import io.jccl.spi.CollectiveArgs;
import org.agrona.MutableDirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;

import java.util.Arrays;

/**
 * One operation at one size, ready to be called many times: the buffer views of every rotated set are made up
 * front, so {@link #run(int)} allocates nothing. Set 0 starts at the beginning of the send and receive regions;
 * set k is {@code k × stride} further. Set 0 is also what {@code --check} verifies: before the checked call the
 * receive side is poisoned (and the broadcast root's buffer refilled), the send region holds
 * {@link SeededData} inputs from element 0.
 */
public abstract class BenchCall
{
    /** Tag of the ping-pong messages. */
    static final int PING_TAG = 77;

    protected final BenchOp op;
    protected final Communicator comm;
    protected final int rank;
    protected final int ranks;
    protected final int root;
    protected final ReduceOp reduceOp;
    /** Elements of the whole vector. */
    protected final long count;
    /** Elements of one rank's block (the whole vector for operations that are not blocked). */
    protected final long block;
    protected final Buf[] send;
    protected final Buf[] recv;
    protected final int[] counts;
    /** Whether {@link #inPlace()} made the buffers overlap as MPI_IN_PLACE does. */
    private boolean inPlace;

    private BenchCall(final BenchOp op, final Communicator comm, final Regions regions, final long count,
        final int sets, final long strideElements, final int root, final ReduceOp reduceOp)
    {
        this.op = op;
        this.comm = comm;
        this.rank = comm.rank();
        this.ranks = comm.size();
        this.root = root;
        this.reduceOp = reduceOp;
        this.count = count;
        this.block = op.blocked() ? count / ranks : count;
        final long elementSize = regions.sendBuf().type().size();
        final long sendCount = op.sendBytes(count * elementSize, ranks) / elementSize;
        final long recvCount = op.recvBytes(count * elementSize, ranks) / elementSize;
        this.send = new Buf[sets];
        this.recv = new Buf[sets];
        for (int set = 0; set < sets; set++)
        {
            send[set] = regions.sendBuf().slice(set * strideElements, sendCount);
            recv[set] = regions.recvBuf().slice(set * strideElements, recvCount);
        }
        this.counts = new int[ranks];
        Arrays.fill(counts, Math.toIntExact(block));
    }

    /**
     * The call of {@code op} with elements {@code count} of the whole vector, through {@code comm} (a view forcing
     * the algorithm, or the communicator itself).
     */
    public static BenchCall create(final BenchOp op, final Communicator comm, final Regions regions,
        final long count, final int sets, final long strideElements, final int root, final ReduceOp reduceOp)
    {
        return switch (op)
        {
            case PINGPONG -> new PingPong(comm, regions, count, sets, strideElements);
            case BARRIER -> new Barrier(comm, regions, sets);
            case BROADCAST -> new Broadcast(comm, regions, count, sets, strideElements, root);
            case REDUCE -> new Reduce(comm, regions, count, sets, strideElements, root, reduceOp);
            case ALLREDUCE -> new Allreduce(comm, regions, count, sets, strideElements, reduceOp);
            case GATHER -> new Gather(comm, regions, count, sets, strideElements, root);
            case SCATTER -> new Scatter(comm, regions, count, sets, strideElements, root);
            case ALLGATHER -> new Allgather(comm, regions, count, sets, strideElements);
            case REDUCE_SCATTER -> new ReduceScatter(comm, regions, count, sets, strideElements, reduceOp);
            case ALLTOALL -> new Alltoall(comm, regions, count, sets, strideElements);
            case ALLGATHERV -> new Allgatherv(comm, regions, count, sets, strideElements);
            case REDUCE_SCATTERV -> new ReduceScatterv(comm, regions, count, sets, strideElements, reduceOp);
            case ALLTOALLV -> new Alltoallv(comm, regions, count, sets, strideElements);
            case GATHERV -> new Gatherv(comm, regions, count, sets, strideElements, root);
            case SCATTERV -> new Scatterv(comm, regions, count, sets, strideElements, root);
            case SCAN, EXSCAN -> new Prefix(op, comm, regions, count, sets, strideElements, reduceOp);
        };
    }

    /**
     * Whether {@code op} has an in-place form: allreduce, reduce, allgather, gather, gatherv, reduce-scatter, scatter,
     * scatterv, scan and exscan.
     */
    public static boolean hasInPlace(final BenchOp op)
    {
        return switch (op)
        {
            case ALLREDUCE, REDUCE, ALLGATHER, GATHER, GATHERV, REDUCE_SCATTER, SCATTER, SCATTERV, SCAN, EXSCAN -> true;
            default -> false;
        };
    }

    /**
     * Makes the call in place, as {@link Communicator} describes it: the reductions' send is their receive buffer,
     * an allgather's send (and a gather or gatherv root's) its block of the receive buffer, a reduce-scatter's receive
     * (and a scatter or scatterv root's) its block of the send buffer. Only for the ops of {@link #hasInPlace}.
     *
     * @return this call.
     */
    public BenchCall inPlace()
    {
        if (!hasInPlace(op))
        {
            throw new IllegalArgumentException(op.label() + " has no in-place form");
        }
        for (int set = 0; set < send.length; set++)
        {
            switch (op)
            {
                case ALLREDUCE, REDUCE, SCAN, EXSCAN -> send[set] = recv[set];
                case ALLGATHER -> send[set] = recv[set].slice(rank * block, block);
                case GATHER, GATHERV -> send[set] = rank == root ? recv[set].slice(root * block, block) : send[set];
                case REDUCE_SCATTER -> recv[set] = send[set].slice(rank * block, block);
                default -> recv[set] = rank == root ? send[set].slice(root * block, block) : recv[set];
            }
        }
        inPlace = true;
        return this;
    }

    /** One call on buffer set {@code set}. The hot path: no allocation. */
    public abstract void run(int set);

    /**
     * The call on buffer set {@code set} as a non-blocking collective ({@code comm.i...}), which runs with jccl's own
     * choice of algorithm whatever view {@code comm} is; ping-pong has no such form.
     */
    public abstract CollectiveRequest start(int set);

    /** False on the ranks that sit out (ping-pong runs on ranks 0 and 1 only). */
    public boolean participates()
    {
        return true;
    }

    /**
     * Puts set 0 in the state a checked call starts from, once the send region holds this rank's seeded input from
     * element 0: outputs poisoned, the broadcast root's data in place, and an in-place call's input where it reads it.
     */
    public void prepareCheck(final SeededData data, final Regions regions)
    {
        final MutableDirectBuffer recvRegion = regions.recvRegion();
        if (inPlace)
        {
            switch (op)
            {
                case ALLREDUCE, REDUCE, SCAN, EXSCAN -> data.fill(recvRegion, rank, count);
                case ALLGATHER, GATHER, GATHERV ->
                {
                    if (op == BenchOp.ALLGATHER || rank == root)
                    {
                        final int elementSize = data.type().size();
                        data.poison(recvRegion, 0, recv[0].count());
                        data.fill(new UnsafeBuffer(recvRegion, Math.toIntExact(rank * block * elementSize),
                            Math.toIntExact(block * elementSize)), rank, block);
                    }
                }
                default ->
                {
                    // reduce-scatter, scatter and scatterv: the result lands in the send region, which holds the input
                }
            }
            return;
        }
        switch (op)
        {
            case BARRIER ->
            {
            }
            case BROADCAST ->
            {
                if (rank == root)
                {
                    data.fill(recvRegion, root, count);
                }
                else
                {
                    data.poison(recvRegion, 0, count);
                }
            }
            default ->
            {
                if (participates())
                {
                    data.poison(recvRegion, 0, recv[0].count());
                }
            }
        }
    }

    /** Elements of this rank's output of the checked call (set 0) that differ from the reference. */
    public long wrong(final SeededData data, final Regions regions)
    {
        final MutableDirectBuffer recvRegion = regions.recvRegion();
        if (inPlace && op == BenchOp.REDUCE_SCATTER)
        {
            return data.wrongReductions(regions.sendRegion(), rank * block, block, rank * block);
        }
        if (inPlace && (op == BenchOp.SCATTER || op == BenchOp.SCATTERV) && rank == root)
        {
            return data.wrongCopies(regions.sendRegion(), root * block, block, root, root * block);
        }
        return switch (op)
        {
            case BARRIER -> 0;
            case PINGPONG -> participates() ? data.wrongCopies(recvRegion, 0, count, 1 - rank, 0) : 0;
            case BROADCAST -> data.wrongCopies(recvRegion, 0, count, root, 0);
            case REDUCE -> rank == root ? data.wrongReductions(recvRegion, 0, count, 0) : 0;
            case ALLREDUCE -> data.wrongReductions(recvRegion, 0, count, 0);
            case GATHER, GATHERV -> rank == root ? wrongBlocks(data, recvRegion, 0) : 0;
            case SCATTER, SCATTERV -> data.wrongCopies(recvRegion, 0, block, root, rank * block);
            case ALLGATHER, ALLGATHERV -> wrongBlocks(data, recvRegion, 0);
            case REDUCE_SCATTER, REDUCE_SCATTERV -> data.wrongReductions(recvRegion, 0, block, rank * block);
            case ALLTOALL, ALLTOALLV -> wrongBlocks(data, recvRegion, rank * block);
            case SCAN -> data.ofRanksBelow(rank + 1).wrongReductions(recvRegion, 0, count, 0);
            // rank 0's exclusive result is none: its receive buffer keeps what it held (its input, in place)
            case EXSCAN -> rank > 0 ? data.ofRanksBelow(rank).wrongReductions(recvRegion, 0, count, 0) :
                inPlace ? data.wrongCopies(recvRegion, 0, count, 0, 0) : data.wrongPoison(recvRegion, 0, count);
        };
    }

    /** Block j of the output must be input block {@code from} of rank j. */
    private long wrongBlocks(final SeededData data, final MutableDirectBuffer recvRegion, final long from)
    {
        long wrong = 0;
        for (int j = 0; j < ranks; j++)
        {
            wrong += data.wrongCopies(recvRegion, j * block, block, j, from);
        }
        return wrong;
    }

    /**
     * Fills {@code a} as the communicator fills it for this call on set 0, so that the communicator can say which
     * algorithm it would use, or why a forced one cannot serve the call. Null for ping-pong (no collective).
     */
    public CollectiveArgs describe(final CollectiveArgs a)
    {
        final Collective collective = op.collective();
        if (collective == null)
        {
            return null;
        }
        a.clear().collective = collective;
        if (op == BenchOp.BARRIER)
        {
            return a;
        }
        final Buf s = send[0];
        final Buf r = recv[0];
        a.type = r.type();
        a.op = op.reducing() ? (reduceOp == ReduceOp.AVG ? ReduceOp.SUM : reduceOp) : null;
        a.root = op.rooted() ? root : 0;
        final boolean isRoot = rank == root;
        switch (op)
        {
            case BROADCAST -> setRecv(withCount(a, count), r);
            case REDUCE ->
            {
                setSend(withCount(a, count), s);
                if (isRoot)
                {
                    setRecv(a, r);
                }
            }
            case GATHER, GATHERV ->
            {
                setRootedCounts(a, isRoot);
                setSend(withCount(a, block), s);
                if (isRoot)
                {
                    setRecv(a, r);
                }
            }
            case SCATTER, SCATTERV ->
            {
                setRootedCounts(a, isRoot);
                if (isRoot)
                {
                    setSend(a, s);
                }
                setRecv(withCount(a, block), r);
            }
            case ALLGATHERV, REDUCE_SCATTERV ->
            {
                a.counts = counts;
                a.displs = packedDisplacements();
                setRecv(setSend(a, s), r);
            }
            case ALLTOALLV ->
            {
                a.sendCounts = counts;
                a.recvCounts = counts;
                a.sendDispls = packedDisplacements();
                a.recvDispls = packedDisplacements();
                setRecv(setSend(a, s), r);
            }
            default -> setRecv(setSend(withCount(a, op.blocked() ? block : count), s), r);
        }
        return a;
    }

    /** gatherv's and scatterv's counts, and their displacements at the root, as the communicator passes them. */
    private void setRootedCounts(final CollectiveArgs a, final boolean isRoot)
    {
        if (op == BenchOp.GATHERV || op == BenchOp.SCATTERV)
        {
            a.counts = counts;
            a.displs = isRoot ? packedDisplacements() : null;
        }
    }

    private int[] packedDisplacements()
    {
        final int[] displs = new int[ranks];
        for (int i = 1; i < ranks; i++)
        {
            displs[i] = displs[i - 1] + counts[i - 1];
        }
        return displs;
    }

    private static CollectiveArgs withCount(final CollectiveArgs a, final long elements)
    {
        a.count = elements;
        return a;
    }

    private static CollectiveArgs setSend(final CollectiveArgs a, final Buf buf)
    {
        a.sendBase = buf.base();
        a.sendOffset = buf.offset();
        a.sendSegmentOffset = buf.segmentOffset();
        return a;
    }

    private static CollectiveArgs setRecv(final CollectiveArgs a, final Buf buf)
    {
        a.recvBase = buf.base();
        a.recvOffset = buf.offset();
        a.recvSegmentOffset = buf.segmentOffset();
        return a;
    }

    /**
     * The two memory regions of a rank and their views: sends read from the first, results land in the second.
     *
     * @param sendRegion direct or shared memory, elements in native byte order.
     * @param recvRegion direct or shared memory, elements in native byte order.
     * @param sendBuf    all of {@code sendRegion} as elements of the run's type.
     * @param recvBuf    all of {@code recvRegion} as elements of the run's type.
     */
    public record Regions(MutableDirectBuffer sendRegion, MutableDirectBuffer recvRegion, Buf sendBuf, Buf recvBuf)
    {
    }

    /** Rank 0 sends, rank 1 sends back; one call is a round trip. */
    private static final class PingPong extends BenchCall
    {
        PingPong(final Communicator comm, final Regions regions, final long count, final int sets,
            final long stride)
        {
            super(BenchOp.PINGPONG, comm, regions, count, sets, stride, 0, ReduceOp.SUM);
        }

        @Override
        public void run(final int set)
        {
            if (rank == 0)
            {
                comm.send(send[set], 1, PING_TAG);
                comm.recv(recv[set], 1, PING_TAG);
            }
            else if (rank == 1)
            {
                comm.recv(recv[set], 0, PING_TAG);
                comm.send(send[set], 0, PING_TAG);
            }
        }

        @Override
        public CollectiveRequest start(final int set)
        {
            throw new UnsupportedOperationException("ping-pong has no non-blocking form");
        }

        @Override
        public boolean participates()
        {
            return rank < 2;
        }
    }

    private static final class Barrier extends BenchCall
    {
        Barrier(final Communicator comm, final Regions regions, final int sets)
        {
            super(BenchOp.BARRIER, comm, regions, 0, sets, 0, 0, ReduceOp.SUM);
        }

        @Override
        public void run(final int set)
        {
            comm.barrier();
        }

        @Override
        public CollectiveRequest start(final int set)
        {
            return comm.ibarrier();
        }
    }

    private static final class Broadcast extends BenchCall
    {
        Broadcast(final Communicator comm, final Regions regions, final long count, final int sets,
            final long stride, final int root)
        {
            super(BenchOp.BROADCAST, comm, regions, count, sets, stride, root, ReduceOp.SUM);
        }

        @Override
        public void run(final int set)
        {
            comm.broadcast(recv[set], root);
        }

        @Override
        public CollectiveRequest start(final int set)
        {
            return comm.ibroadcast(recv[set], root);
        }
    }

    private static final class Reduce extends BenchCall
    {
        Reduce(final Communicator comm, final Regions regions, final long count, final int sets, final long stride,
            final int root, final ReduceOp reduceOp)
        {
            super(BenchOp.REDUCE, comm, regions, count, sets, stride, root, reduceOp);
        }

        @Override
        public void run(final int set)
        {
            comm.reduce(send[set], recv[set], reduceOp, root);
        }

        @Override
        public CollectiveRequest start(final int set)
        {
            return comm.ireduce(send[set], recv[set], reduceOp, root);
        }
    }

    private static final class Allreduce extends BenchCall
    {
        Allreduce(final Communicator comm, final Regions regions, final long count, final int sets,
            final long stride, final ReduceOp reduceOp)
        {
            super(BenchOp.ALLREDUCE, comm, regions, count, sets, stride, 0, reduceOp);
        }

        @Override
        public void run(final int set)
        {
            comm.allreduce(send[set], recv[set], reduceOp);
        }

        @Override
        public CollectiveRequest start(final int set)
        {
            return comm.iallreduce(send[set], recv[set], reduceOp);
        }
    }

    /** Scan or exscan. */
    private static final class Prefix extends BenchCall
    {
        Prefix(final BenchOp op, final Communicator comm, final Regions regions, final long count, final int sets,
            final long stride, final ReduceOp reduceOp)
        {
            super(op, comm, regions, count, sets, stride, 0, reduceOp);
        }

        @Override
        public void run(final int set)
        {
            if (op == BenchOp.SCAN)
            {
                comm.scan(send[set], recv[set], reduceOp);
            }
            else
            {
                comm.exscan(send[set], recv[set], reduceOp);
            }
        }

        @Override
        public CollectiveRequest start(final int set)
        {
            return op == BenchOp.SCAN ? comm.iscan(send[set], recv[set], reduceOp) :
                comm.iexscan(send[set], recv[set], reduceOp);
        }
    }

    private static final class Gather extends BenchCall
    {
        Gather(final Communicator comm, final Regions regions, final long count, final int sets, final long stride,
            final int root)
        {
            super(BenchOp.GATHER, comm, regions, count, sets, stride, root, ReduceOp.SUM);
        }

        @Override
        public void run(final int set)
        {
            comm.gather(send[set], recv[set], root);
        }

        @Override
        public CollectiveRequest start(final int set)
        {
            return comm.igather(send[set], recv[set], root);
        }
    }

    private static final class Scatter extends BenchCall
    {
        Scatter(final Communicator comm, final Regions regions, final long count, final int sets,
            final long stride, final int root)
        {
            super(BenchOp.SCATTER, comm, regions, count, sets, stride, root, ReduceOp.SUM);
        }

        @Override
        public void run(final int set)
        {
            comm.scatter(send[set], recv[set], root);
        }

        @Override
        public CollectiveRequest start(final int set)
        {
            return comm.iscatter(send[set], recv[set], root);
        }
    }

    private static final class Allgather extends BenchCall
    {
        Allgather(final Communicator comm, final Regions regions, final long count, final int sets,
            final long stride)
        {
            super(BenchOp.ALLGATHER, comm, regions, count, sets, stride, 0, ReduceOp.SUM);
        }

        @Override
        public void run(final int set)
        {
            comm.allgather(send[set], recv[set]);
        }

        @Override
        public CollectiveRequest start(final int set)
        {
            return comm.iallgather(send[set], recv[set]);
        }
    }

    private static final class ReduceScatter extends BenchCall
    {
        ReduceScatter(final Communicator comm, final Regions regions, final long count, final int sets,
            final long stride, final ReduceOp reduceOp)
        {
            super(BenchOp.REDUCE_SCATTER, comm, regions, count, sets, stride, 0, reduceOp);
        }

        @Override
        public void run(final int set)
        {
            comm.reduceScatter(send[set], recv[set], reduceOp);
        }

        @Override
        public CollectiveRequest start(final int set)
        {
            return comm.ireduceScatter(send[set], recv[set], reduceOp);
        }
    }

    private static final class Alltoall extends BenchCall
    {
        Alltoall(final Communicator comm, final Regions regions, final long count, final int sets,
            final long stride)
        {
            super(BenchOp.ALLTOALL, comm, regions, count, sets, stride, 0, ReduceOp.SUM);
        }

        @Override
        public void run(final int set)
        {
            comm.alltoall(send[set], recv[set]);
        }

        @Override
        public CollectiveRequest start(final int set)
        {
            return comm.ialltoall(send[set], recv[set]);
        }
    }

    private static final class Allgatherv extends BenchCall
    {
        Allgatherv(final Communicator comm, final Regions regions, final long count, final int sets,
            final long stride)
        {
            super(BenchOp.ALLGATHERV, comm, regions, count, sets, stride, 0, ReduceOp.SUM);
        }

        @Override
        public void run(final int set)
        {
            comm.allgatherv(send[set], recv[set], counts, null);
        }

        @Override
        public CollectiveRequest start(final int set)
        {
            return comm.iallgatherv(send[set], recv[set], counts, null);
        }
    }

    private static final class ReduceScatterv extends BenchCall
    {
        ReduceScatterv(final Communicator comm, final Regions regions, final long count, final int sets,
            final long stride, final ReduceOp reduceOp)
        {
            super(BenchOp.REDUCE_SCATTERV, comm, regions, count, sets, stride, 0, reduceOp);
        }

        @Override
        public void run(final int set)
        {
            comm.reduceScatterv(send[set], recv[set], counts, reduceOp);
        }

        @Override
        public CollectiveRequest start(final int set)
        {
            return comm.ireduceScatterv(send[set], recv[set], counts, reduceOp);
        }
    }

    private static final class Gatherv extends BenchCall
    {
        Gatherv(final Communicator comm, final Regions regions, final long count, final int sets, final long stride,
            final int root)
        {
            super(BenchOp.GATHERV, comm, regions, count, sets, stride, root, ReduceOp.SUM);
        }

        @Override
        public void run(final int set)
        {
            comm.gatherv(send[set], recv[set], counts, null, root);
        }

        @Override
        public CollectiveRequest start(final int set)
        {
            return comm.igatherv(send[set], recv[set], counts, null, root);
        }
    }

    private static final class Scatterv extends BenchCall
    {
        Scatterv(final Communicator comm, final Regions regions, final long count, final int sets,
            final long stride, final int root)
        {
            super(BenchOp.SCATTERV, comm, regions, count, sets, stride, root, ReduceOp.SUM);
        }

        @Override
        public void run(final int set)
        {
            comm.scatterv(send[set], recv[set], counts, null, root);
        }

        @Override
        public CollectiveRequest start(final int set)
        {
            return comm.iscatterv(send[set], recv[set], counts, null, root);
        }
    }

    private static final class Alltoallv extends BenchCall
    {
        Alltoallv(final Communicator comm, final Regions regions, final long count, final int sets,
            final long stride)
        {
            super(BenchOp.ALLTOALLV, comm, regions, count, sets, stride, 0, ReduceOp.SUM);
        }

        @Override
        public void run(final int set)
        {
            comm.alltoallv(send[set], counts, null, recv[set], counts, null);
        }

        @Override
        public CollectiveRequest start(final int set)
        {
            return comm.ialltoallv(send[set], counts, null, recv[set], counts, null);
        }
    }
}
