package io.jccl.algorithms;

import io.jccl.Collective;
import io.jccl.DataType;
import io.jccl.ReduceOp;
import io.jccl.model.Pace;
import io.jccl.spi.CollectiveAlgorithm;
import io.jccl.spi.CollectiveArgs;
import io.jccl.spi.CollectiveContext;

/**
 * {@link AlgorithmSelector#select} with the choice for the last small call remembered, so that a loop of identical
 * small calls walks the selector's rules and the tuned table once. The walk was a third of the path a call takes
 * without a peer: a 1-rank 8-byte allreduce took 0.063 µs before and 0.042 after, at the median of ten alternating
 * pairs; 4 ranks on 2 cores, 8 bytes, eight pairs: broadcasts 0.79x the time, allreduces 0.92x (AMD EPYC VM,
 * PERFORMANCE.md, session 70). A 2-rank 8-byte allreduce, whose ranks wait for each other's line every call, moved
 * less than its spread.
 * <p>
 * A call repeats the last one when everything the selector and the algorithms' {@code unsupportedReason} read of it is
 * the same: the collective, datatype, operator, root, count and bytes; whether each buffer is a heap array and whether
 * the call is in place; the pace and {@link CollectiveArgs#betweenPaces}; the chunk and copy bounds the communicator
 * set; and the context's {@link CollectiveContext#copiesStream()} and {@link CollectiveContext#singleCopyBytes()}.
 * The choice is then the selector's for that call on every rank, as before. Only calls of private memory up to
 * {@link #MAX_BYTES} are remembered: the selector's rules for buffers in the shared segment change the call's
 * arguments, and beyond a few KiB a call takes microseconds, against which the walk does not count. The v forms are
 * not, since their algorithms may read the per-rank counts. One instance serves one communicator, which one thread
 * uses at a time.
 */
public final class LastSmallCallChoice
{
    /** Largest call remembered: 4 KiB calls take about a microsecond or less on this project's VMs. */
    public static final long MAX_BYTES = 4096;

    private final AlgorithmSelector selector;

    /** Null: nothing remembered. */
    private CollectiveAlgorithm algorithm;
    private Collective collective;
    private DataType type;
    private ReduceOp op;
    private int root;
    private long count;
    private long bytes;
    private boolean sendHeap;
    private boolean recvHeap;
    private boolean inPlace;
    private Pace pace;
    private boolean betweenPaces;
    private long chunkBytesIn;
    private long maxCopyBytes;
    private boolean copiesStream;
    private long singleCopyBytes;

    /** What the selector set in the call's arguments. */
    private long chunkBytesOut;
    private long declinedCopyMaxBytes;
    private long declinedCopyMinBytes;

    public LastSmallCallChoice(final AlgorithmSelector selector)
    {
        this.selector = selector;
    }

    /** {@link AlgorithmSelector#select(CollectiveArgs, CollectiveContext, long, Pace)}, remembered for small calls. */
    public CollectiveAlgorithm select(
        final CollectiveArgs args, final CollectiveContext context, final long bytes, final Pace pace)
    {
        if (!remembered(args, bytes))
        {
            return selector.select(args, context, bytes, pace);
        }
        if (repeats(args, context, bytes, pace))
        {
            args.chunkBytes = chunkBytesOut;
            args.declinedCopyMaxBytes = declinedCopyMaxBytes;
            args.declinedCopyMinBytes = declinedCopyMinBytes;
            return algorithm;
        }
        // a refusal (a forced algorithm that cannot serve the call) leaves nothing remembered
        algorithm = null;
        final long chunkBytesIn = args.chunkBytes;
        final CollectiveAlgorithm chosen = selector.select(args, context, bytes, pace);
        this.collective = args.collective;
        this.type = args.type;
        this.op = args.op;
        this.root = args.root;
        this.count = args.count;
        this.bytes = bytes;
        this.sendHeap = args.sendBase != null;
        this.recvHeap = args.recvBase != null;
        this.inPlace = args.inPlace();
        this.pace = pace;
        this.betweenPaces = args.betweenPaces;
        this.chunkBytesIn = chunkBytesIn;
        this.maxCopyBytes = args.maxCopyBytes;
        this.copiesStream = context.copiesStream();
        this.singleCopyBytes = context.singleCopyBytes();
        this.chunkBytesOut = args.chunkBytes;
        this.declinedCopyMaxBytes = args.declinedCopyMaxBytes;
        this.declinedCopyMinBytes = args.declinedCopyMinBytes;
        this.algorithm = chosen;
        return chosen;
    }

    /** Whether a call of these arguments is one this class remembers. */
    static boolean remembered(final CollectiveArgs args, final long bytes)
    {
        return bytes <= MAX_BYTES && args.sendSegmentOffset < 0 && args.recvSegmentOffset < 0 &&
            !isVectorForm(args.collective);
    }

    private boolean repeats(final CollectiveArgs args, final CollectiveContext context, final long bytes,
        final Pace pace)
    {
        return algorithm != null && args.collective == collective && args.count == count && this.bytes == bytes &&
            args.type == type && args.op == op && args.root == root && this.pace == pace &&
            args.betweenPaces == betweenPaces && (args.sendBase != null) == sendHeap &&
            (args.recvBase != null) == recvHeap && args.inPlace() == inPlace && args.chunkBytes == chunkBytesIn &&
            args.maxCopyBytes == maxCopyBytes && context.copiesStream() == copiesStream &&
            context.singleCopyBytes() == singleCopyBytes;
    }

    private static boolean isVectorForm(final Collective collective)
    {
        return switch (collective)
        {
            case GATHERV, SCATTERV, ALLGATHERV, REDUCE_SCATTERV, ALLTOALLV -> true;
            case BARRIER, BROADCAST, REDUCE, ALLREDUCE, GATHER, SCATTER, ALLGATHER, REDUCE_SCATTER, ALLTOALL, SCAN,
                EXSCAN -> false;
        };
    }
}
