package io.jccl.algorithms.alltoall;

import io.jccl.Collective;
import io.jccl.spi.CollectiveAlgorithm;
import io.jccl.spi.CollectiveArgs;
import io.jccl.spi.CollectiveContext;
import io.jccl.spi.Memory;

import java.util.Set;

/**
 * Pairwise exchange alltoall and alltoallv: p - 1 steps, at step k a rank sends its block for rank {@code r + k}
 * and receives the block of rank {@code r - k} (for p a power of two both are {@code r XOR k}, so pairs swap).
 * One message per pair, no forwarding. In place, the send buffer is first staged in scratch.
 * Cost {@code (p-1)·α + nβ} for n bytes sent per rank: best for large blocks.
 */
public final class PairwiseAlltoall implements CollectiveAlgorithm
{
    private static final int SCRATCH_STAGED_SEND = 0;

    private static final Set<Collective> COLLECTIVES = Set.of(Collective.ALLTOALL, Collective.ALLTOALLV);

    @Override
    public String name()
    {
        return "pairwise";
    }

    @Override
    public String description()
    {
        return "pairwise exchange: p-1 steps, one direct message per pair of ranks, best for large blocks";
    }

    @Override
    public Set<Collective> collectives()
    {
        return COLLECTIVES;
    }

    @Override
    public void run(final CollectiveContext context, final CollectiveArgs args)
    {
        final boolean vector = args.collective == Collective.ALLTOALLV;
        final long elementSize = args.elementSize();
        final long count = args.count;
        if (!vector && count == 0)
        {
            return;
        }
        final int size = context.size();
        final int rank = context.rank();
        final int[] sendCounts = args.sendCounts;
        final int[] sendDispls = args.sendDispls;
        final int[] recvCounts = args.recvCounts;
        final int[] recvDispls = args.recvDispls;
        final Object recvBase = args.recvBase;
        final long recvOffset = args.recvOffset;

        // in place: first stage the whole send buffer so that received blocks cannot overwrite unsent ones
        Object sendBase = args.sendBase;
        long sendOffset = args.sendOffset;
        if (args.inPlace())
        {
            final long sendBytes = vector ? CollectiveArgs.vectorExtent(sendCounts, sendDispls, size) * elementSize :
                size * count * elementSize;
            final long staged = context.scratch(SCRATCH_STAGED_SEND, Math.max(1, sendBytes));
            Memory.copy(sendBase, sendOffset, null, staged, sendBytes);
            sendBase = null;
            sendOffset = staged;
        }

        // step 0: own block
        Memory.copy(
            sendBase, sendOffset + blockOffset(vector, sendDispls, rank, count, elementSize),
            recvBase, recvOffset + blockOffset(vector, recvDispls, rank, count, elementSize),
            blockBytes(vector, sendCounts, rank, count, elementSize));

        // step k of p-1: send the block for rank dest = r + k (r ^ k), receive the block of rank source = r - k
        final boolean powerOfTwo = (size & (size - 1)) == 0;
        for (int step = 1; step < size; step++)
        {
            final int dest = powerOfTwo ? rank ^ step : (rank + step) % size;
            final int source = powerOfTwo ? rank ^ step : (rank - step + size) % size;
            context.sendRecv(
                dest, sendBase, sendOffset + blockOffset(vector, sendDispls, dest, count, elementSize),
                blockBytes(vector, sendCounts, dest, count, elementSize),
                source, recvBase, recvOffset + blockOffset(vector, recvDispls, source, count, elementSize),
                blockBytes(vector, recvCounts, source, count, elementSize));
        }
    }

    private static long blockOffset(
        final boolean vector, final int[] displs, final int peer, final long count, final long elementSize)
    {
        return (vector ? displs[peer] : peer * count) * elementSize;
    }

    private static long blockBytes(
        final boolean vector, final int[] counts, final int peer, final long count, final long elementSize)
    {
        return (vector ? counts[peer] : count) * elementSize;
    }
}
