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
 * message of pingpong. Every call is out of place, reduces with SUM, and uses root 0. The buffers are Java arrays
 * ({@link #HEAP}) or symmetric memory from {@link Communicator#allocateShared} ({@link #SHARED}), which the
 * shared-memory algorithms read in place.
 */
public final class Workload
{
    /** The operation name of the point-to-point benchmark. */
    public static final String PINGPONG = "pingpong";
    /** The algorithm value that lets jccl's selector choose. */
    public static final String DEFAULT_ALGORITHM = "default";
    /** Buffers in Java arrays, what applications pass most. */
    public static final String HEAP = "heap";
    /** Buffers from {@link Communicator#allocateShared}, in the job's segment. */
    public static final String SHARED = "shared";
    /** Tag of pingpong messages; the lockstep control messages use another. */
    static final int PINGPONG_TAG = 0;

    private final String operation;
    private final Collective collective;
    private final String algorithm;
    private final long bytes;
    private final int ranks;
    private final DataType type;
    private final boolean shared;

    private Workload(final String operation, final String algorithm, final long bytes, final int ranks,
        final DataType type, final boolean shared)
    {
        this.operation = operation;
        this.collective = PINGPONG.equals(operation) ? null : Collective.parse(operation);
        this.algorithm = algorithm;
        this.bytes = bytes;
        this.ranks = ranks;
        this.type = type;
        this.shared = shared;
    }

    /**
     * Checks the combination and describes it; throws {@link IllegalArgumentException} saying what is wrong with
     * it (an algorithm the collective does not have, a size that does not split into the collective's blocks).
     */
    public static Workload of(final String operation, final String algorithm, final long bytes, final int ranks,
        final String dtype)
    {
        return of(operation, algorithm, bytes, ranks, dtype, HEAP);
    }

    /** {@link #of(String, String, long, int, String)}, the buffers in {@link #HEAP} or {@link #SHARED} memory. */
    public static Workload of(final String operation, final String algorithm, final long bytes, final int ranks,
        final String dtype, final String memory)
    {
        if (!HEAP.equals(memory) && !SHARED.equals(memory))
        {
            throw new IllegalArgumentException("memory must be " + HEAP + " or " + SHARED + ", not '" + memory + "'");
        }
        final DataType type = DataType.parse(dtype);
        final Workload workload = new Workload(operation, algorithm, bytes, ranks, type, SHARED.equals(memory));
        workload.validate();
        return workload;
    }

    /** The workload a peer was started with: the arguments {@link #peerArgs()} made. */
    static Workload fromArgs(final String[] args)
    {
        if (args.length != 6)
        {
            throw new IllegalArgumentException("expected OPERATION ALGORITHM BYTES RANKS DTYPE MEMORY, got " +
                Arrays.toString(args));
        }
        return of(args[0], args[1], Long.parseLong(args[2]), Integer.parseInt(args[3]), args[4], args[5]);
    }

    /** The arguments that start a peer with this workload. */
    List<String> peerArgs()
    {
        return List.of(operation, algorithm, Long.toString(bytes), Integer.toString(ranks), type.label(),
            shared ? SHARED : HEAP);
    }

    /** Whether the buffers are symmetric memory ({@link #SHARED}). */
    public boolean shared()
    {
        return shared;
    }

    /** Symmetric memory a rank needs for its buffers: at most a send and a receive buffer of {@code bytes}. */
    long symmetricBytes()
    {
        return 2 * bytes + 2 * 64;
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
            case ALLGATHER, ALLGATHERV, REDUCE_SCATTER, REDUCE_SCATTERV, ALLTOALL, ALLTOALLV, GATHER, GATHERV, SCATTER,
                SCATTERV -> (p - 1) / p;
            case BROADCAST, REDUCE, SCAN, EXSCAN -> 1.0;
            case BARRIER -> 0.0;
        };
    }

    @Override
    public String toString()
    {
        return operation + " algorithm=" + algorithm + " bytes=" + bytes + " ranks=" + ranks + " dtype=" +
            type.label() + (shared ? " memory=" + SHARED : "");
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

    /**
     * A buffer only the root uses: null elsewhere, but allocated on every rank in symmetric memory, where every rank
     * must allocate the same sizes in the same order; the root's is the one passed.
     */
    private Buf rootOnly(final Communicator communicator, final int count)
    {
        final Buf buf = communicator.rank() == 0 || shared ? buffer(communicator, count) : null;
        return communicator.rank() == 0 ? buf : null;
    }

    /** {@code count} elements of ones, in a Java array or in symmetric memory. */
    private Buf buffer(final Communicator communicator, final int count)
    {
        return shared ? Buffers.allocateShared(communicator, type, count) : Buffers.allocate(type, count);
    }

    private boolean splitsIntoBlocks()
    {
        return collective != null && switch (collective)
        {
            case GATHER, GATHERV, SCATTER, SCATTERV, ALLGATHER, ALLGATHERV, REDUCE_SCATTER, REDUCE_SCATTERV,
                ALLTOALL, ALLTOALLV -> true;
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
            final Buf message = buffer(communicator, count);
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
        final int block = count / ranks;
        final int[] blockCounts = new int[ranks];
        Arrays.fill(blockCounts, block);
        return switch (collective)
        {
            case BARRIER -> c::barrier;
            case BROADCAST ->
            {
                final Buf buf = buffer(communicator, count);
                yield () -> c.broadcast(buf, 0);
            }
            case REDUCE ->
            {
                final Buf send = buffer(communicator, count);
                final Buf recv = rootOnly(communicator, count);
                yield () -> c.reduce(send, recv, ReduceOp.SUM, 0);
            }
            case ALLREDUCE ->
            {
                final Buf send = buffer(communicator, count);
                final Buf recv = buffer(communicator, count);
                yield () -> c.allreduce(send, recv, ReduceOp.SUM);
            }
            case GATHER ->
            {
                final Buf send = buffer(communicator, block);
                final Buf recv = rootOnly(communicator, count);
                yield () -> c.gather(send, recv, 0);
            }
            case GATHERV ->
            {
                final Buf send = buffer(communicator, block);
                final Buf recv = rootOnly(communicator, count);
                yield () -> c.gatherv(send, recv, blockCounts, null, 0);
            }
            case SCATTER ->
            {
                final Buf send = rootOnly(communicator, count);
                final Buf recv = buffer(communicator, block);
                yield () -> c.scatter(send, recv, 0);
            }
            case SCATTERV ->
            {
                final Buf send = rootOnly(communicator, count);
                final Buf recv = buffer(communicator, block);
                yield () -> c.scatterv(send, recv, blockCounts, null, 0);
            }
            case ALLGATHER ->
            {
                final Buf send = buffer(communicator, block);
                final Buf recv = buffer(communicator, count);
                yield () -> c.allgather(send, recv);
            }
            case ALLGATHERV ->
            {
                final Buf send = buffer(communicator, block);
                final Buf recv = buffer(communicator, count);
                yield () -> c.allgatherv(send, recv, blockCounts, null);
            }
            case REDUCE_SCATTER ->
            {
                final Buf send = buffer(communicator, count);
                final Buf recv = buffer(communicator, block);
                yield () -> c.reduceScatter(send, recv, ReduceOp.SUM);
            }
            case REDUCE_SCATTERV ->
            {
                final Buf send = buffer(communicator, count);
                final Buf recv = buffer(communicator, block);
                yield () -> c.reduceScatterv(send, recv, blockCounts, ReduceOp.SUM);
            }
            case ALLTOALL ->
            {
                final Buf send = buffer(communicator, count);
                final Buf recv = buffer(communicator, count);
                yield () -> c.alltoall(send, recv);
            }
            case ALLTOALLV ->
            {
                final Buf send = buffer(communicator, count);
                final Buf recv = buffer(communicator, count);
                yield () -> c.alltoallv(send, blockCounts, null, recv, blockCounts, null);
            }
            case SCAN, EXSCAN ->
            {
                final Buf send = buffer(communicator, count);
                final Buf recv = buffer(communicator, count);
                yield collective == Collective.SCAN ? () -> c.scan(send, recv, ReduceOp.SUM) :
                    () -> c.exscan(send, recv, ReduceOp.SUM);
            }
        };
    }
}
