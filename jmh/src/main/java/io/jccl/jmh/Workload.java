package io.jccl.jmh;

import io.jccl.Buf;
import io.jccl.Collective;
import io.jccl.Communicator;
import io.jccl.DataType;
import io.jccl.ReduceOp;
import io.jccl.algorithms.AlgorithmRegistry;

import java.util.Arrays;
import java.util.List;

/**
 * One benchmarked operation as every rank of a job runs it: a collective (or pingpong), the algorithm, the size and
 * the element type. Rank 0 (the JMH fork) and its peers build the same workload from the same values, so they
 * allocate the same buffers and call the same operation in lockstep.
 * <p>
 * {@code bytes} follows nccl-tests (DESIGN.md section 7): the whole vector of allreduce, broadcast and reduce; the
 * output of gather and allgather; the input of scatter and reduce_scatter; one rank's send buffer of alltoall; the
 * message of pingpong. Every call is out of place, reduces with SUM, and uses root 0.
 */
public final class Workload
{
    /** The operation name of the point-to-point benchmark. */
    public static final String PINGPONG = "pingpong";
    /** The algorithm value that lets jccl's selector choose. */
    public static final String DEFAULT_ALGORITHM = "default";
    /** Tag of pingpong messages; the lockstep control messages use another. */
    static final int PINGPONG_TAG = 0;

    private final String operation;
    private final Collective collective;
    private final String algorithm;
    private final long bytes;
    private final int ranks;
    private final DataType type;

    private Workload(final String operation, final String algorithm, final long bytes, final int ranks,
        final DataType type)
    {
        this.operation = operation;
        this.collective = PINGPONG.equals(operation) ? null : Collective.parse(operation);
        this.algorithm = algorithm;
        this.bytes = bytes;
        this.ranks = ranks;
        this.type = type;
    }

    /**
     * Checks the combination and describes it; throws {@link IllegalArgumentException} saying what is wrong with
     * it (an algorithm the collective does not have, a size that does not split into the collective's blocks).
     */
    public static Workload of(final String operation, final String algorithm, final long bytes, final int ranks,
        final String dtype)
    {
        final DataType type = DataType.parse(dtype);
        final Workload workload = new Workload(operation, algorithm, bytes, ranks, type);
        workload.validate();
        return workload;
    }

    /** The workload a peer was started with: the arguments {@link #peerArgs()} made. */
    static Workload fromArgs(final String[] args)
    {
        if (args.length != 5)
        {
            throw new IllegalArgumentException("expected OPERATION ALGORITHM BYTES RANKS DTYPE, got " +
                Arrays.toString(args));
        }
        return of(args[0], args[1], Long.parseLong(args[2]), Integer.parseInt(args[3]), args[4]);
    }

    /** The arguments that start a peer with this workload. */
    List<String> peerArgs()
    {
        return List.of(operation, algorithm, Long.toString(bytes), Integer.toString(ranks), type.label());
    }

    public String operation()
    {
        return operation;
    }

    public int ranks()
    {
        return ranks;
    }

    public long bytes()
    {
        return bytes;
    }

    /**
     * nccl-tests' bus bandwidth factor: busbw = algbw × factor, the share of the data that crosses each rank's link
     * under the optimal algorithm. 0 for barrier, which moves no data.
     */
    public static double busFactor(final String operation, final int ranks)
    {
        if (PINGPONG.equals(operation))
        {
            return 1.0;
        }
        final double p = ranks;
        return switch (Collective.parse(operation))
        {
            case ALLREDUCE -> 2.0 * (p - 1) / p;
            case ALLGATHER, ALLGATHERV, REDUCE_SCATTER, REDUCE_SCATTERV, ALLTOALL, ALLTOALLV, GATHER, SCATTER ->
                (p - 1) / p;
            case BROADCAST, REDUCE -> 1.0;
            case BARRIER -> 0.0;
        };
    }

    @Override
    public String toString()
    {
        return operation + " algorithm=" + algorithm + " bytes=" + bytes + " ranks=" + ranks + " dtype=" +
            type.label();
    }

    private void validate()
    {
        if (ranks < 2)
        {
            throw new IllegalArgumentException(this + ": a job needs at least 2 ranks");
        }
        if (collective == null)
        {
            if (ranks != 2)
            {
                throw new IllegalArgumentException(this + ": pingpong runs between 2 ranks, not " + ranks);
            }
            if (!DEFAULT_ALGORITHM.equals(algorithm))
            {
                throw new IllegalArgumentException(this + ": pingpong has no algorithms, only '" +
                    DEFAULT_ALGORITHM + "'");
            }
        }
        else if (!DEFAULT_ALGORITHM.equals(algorithm))
        {
            // throws naming the collective's algorithms
            AlgorithmRegistry.instance().find(collective, algorithm);
        }
        if (collective == Collective.BARRIER)
        {
            if (bytes != 0)
            {
                throw new IllegalArgumentException(this + ": barrier moves no data, bytes must be 0 (select the " +
                    "other benchmarks by name when sweeping -p bytes)");
            }
            return;
        }
        final long unit = splitsIntoBlocks() ? (long)ranks * type.size() : type.size();
        if (bytes <= 0 || bytes % unit != 0)
        {
            throw new IllegalArgumentException(this + ": bytes must be a positive multiple of " + unit +
                (splitsIntoBlocks() ? " (ranks × " + type.size() + " bytes of " + type.label() + ", one block per " +
                "rank)" : " (one " + type.label() + " element)"));
        }
        if (bytes / type.size() > Integer.MAX_VALUE - 8)
        {
            throw new IllegalArgumentException(this + ": more elements than a Java array holds");
        }
    }

    private boolean splitsIntoBlocks()
    {
        return collective != null && switch (collective)
        {
            case GATHER, SCATTER, ALLGATHER, ALLGATHERV, REDUCE_SCATTER, REDUCE_SCATTERV, ALLTOALL, ALLTOALLV -> true;
            default -> false;
        };
    }

    /**
     * Allocates this rank's buffers and returns one call of the operation on them, allocation-free. Pingpong is one
     * round trip between ranks 0 and 1.
     */
    Runnable operation(final Communicator communicator)
    {
        final int rank = communicator.rank();
        if (communicator.size() != ranks)
        {
            throw new IllegalStateException(this + " joined a job of " + communicator.size() + " ranks");
        }
        final int count = (int)(bytes / type.size());
        if (collective == null)
        {
            final Buf message = Buffers.allocate(type, count);
            final int peer = 1 - rank;
            return rank == 0 ?
                () ->
                {
                    communicator.send(message, peer, PINGPONG_TAG);
                    communicator.recv(message, peer, PINGPONG_TAG);
                } :
                () ->
                {
                    communicator.recv(message, peer, PINGPONG_TAG);
                    communicator.send(message, peer, PINGPONG_TAG);
                };
        }

        final Communicator c = DEFAULT_ALGORITHM.equals(algorithm) ? communicator :
            communicator.withAlgorithm(collective.label() + ":" + algorithm);
        final boolean root = rank == 0;
        final int block = count / ranks;
        final int[] blockCounts = new int[ranks];
        Arrays.fill(blockCounts, block);
        return switch (collective)
        {
            case BARRIER -> c::barrier;
            case BROADCAST ->
            {
                final Buf buf = Buffers.allocate(type, count);
                yield () -> c.broadcast(buf, 0);
            }
            case REDUCE ->
            {
                final Buf send = Buffers.allocate(type, count);
                final Buf recv = root ? Buffers.allocate(type, count) : null;
                yield () -> c.reduce(send, recv, ReduceOp.SUM, 0);
            }
            case ALLREDUCE ->
            {
                final Buf send = Buffers.allocate(type, count);
                final Buf recv = Buffers.allocate(type, count);
                yield () -> c.allreduce(send, recv, ReduceOp.SUM);
            }
            case GATHER ->
            {
                final Buf send = Buffers.allocate(type, block);
                final Buf recv = root ? Buffers.allocate(type, count) : null;
                yield () -> c.gather(send, recv, 0);
            }
            case SCATTER ->
            {
                final Buf send = root ? Buffers.allocate(type, count) : null;
                final Buf recv = Buffers.allocate(type, block);
                yield () -> c.scatter(send, recv, 0);
            }
            case ALLGATHER ->
            {
                final Buf send = Buffers.allocate(type, block);
                final Buf recv = Buffers.allocate(type, count);
                yield () -> c.allgather(send, recv);
            }
            case ALLGATHERV ->
            {
                final Buf send = Buffers.allocate(type, block);
                final Buf recv = Buffers.allocate(type, count);
                yield () -> c.allgatherv(send, recv, blockCounts, null);
            }
            case REDUCE_SCATTER ->
            {
                final Buf send = Buffers.allocate(type, count);
                final Buf recv = Buffers.allocate(type, block);
                yield () -> c.reduceScatter(send, recv, ReduceOp.SUM);
            }
            case REDUCE_SCATTERV ->
            {
                final Buf send = Buffers.allocate(type, count);
                final Buf recv = Buffers.allocate(type, block);
                yield () -> c.reduceScatterv(send, recv, blockCounts, ReduceOp.SUM);
            }
            case ALLTOALL ->
            {
                final Buf send = Buffers.allocate(type, count);
                final Buf recv = Buffers.allocate(type, count);
                yield () -> c.alltoall(send, recv);
            }
            case ALLTOALLV ->
            {
                final Buf send = Buffers.allocate(type, count);
                final Buf recv = Buffers.allocate(type, count);
                yield () -> c.alltoallv(send, blockCounts, null, recv, blockCounts, null);
            }
        };
    }
}
