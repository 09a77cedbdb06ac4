package io.jccl.algorithms.allgather;

import io.jccl.Collective;
import io.jccl.algorithms.pattern.Exchange;
import io.jccl.algorithms.pattern.Ring;
import io.jccl.algorithms.pattern.VectorSplit;
import io.jccl.spi.CollectiveAlgorithm;
import io.jccl.spi.CollectiveArgs;
import io.jccl.spi.CollectiveContext;
import io.jccl.spi.Memory;

import java.util.EnumSet;
import java.util.Set;

/**
 * Ring allgather: each rank puts its block in place, then for p - 1 steps forwards to next the block it received
 * last (its own at step 0). Every link carries one block per step, so bandwidth is optimal and latency linear in p.
 * <p>
 * Cost, n bytes of output: (p − 1)α + n(p − 1)/p·β; α is paid once per chunk of a block.
 */
public final class RingAllgather implements CollectiveAlgorithm
{
    private static final Set<Collective> COLLECTIVES = EnumSet.of(Collective.ALLGATHER);

    private final int chunkBytes;

    public RingAllgather()
    {
        this(Exchange.CHUNK_BYTES_DEFAULT);
    }

    public RingAllgather(final int chunkBytes)
    {
        this.chunkBytes = Exchange.checkChunkBytes(chunkBytes);
    }

    @Override
    public String name()
    {
        return "ring";
    }

    @Override
    public String description()
    {
        return "p - 1 steps around the ring, one block per link per step: bandwidth-optimal, for large vectors";
    }

    @Override
    public Set<Collective> collectives()
    {
        return COLLECTIVES;
    }

    @Override
    public void run(final CollectiveContext context, final CollectiveArgs args)
    {
        final int size = context.size();
        final long elementSize = args.elementSize();
        final long blockBytes = args.count * elementSize;

        // own block into place (skipped when the caller already put it there)
        Memory.copy(args.sendBase, args.sendOffset,
            args.recvBase, args.recvOffset + context.rank() * blockBytes, blockBytes);

        // Step 0 sends the own block out of the send buffer, not out of its copy just written: a peer reading it
        // single-copy then reads lines this core has not dirtied, which is what a slow cross-core transfer punishes.
        circulate(context, chunkBytes, args.recvBase, args.recvOffset, elementSize, args.count * size, null, null,
            args.sendBase, args.sendOffset);
    }

    /** The ring steps below, step 0 sending this rank's block from its place in the vector. */
    public static void circulate(
        final CollectiveContext context, final int chunkBytes,
        final Object base, final long offset, final long elementSize,
        final long total, final int[] counts, final int[] displs)
    {
        circulate(context, chunkBytes, base, offset, elementSize, total, counts, displs, base,
            offset + VectorSplit.start(displs, total, context.size(), context.rank()) * elementSize);
    }

    /**
     * The p - 1 steps of a ring allgather over a vector whose block r already sits in place on rank r; blocks are
     * {@code counts}/{@code displs} (elements) when given, else {@code total} elements split nearly equally.
     * Also the second half of ring allreduce. Step 0 sends this rank's block from {@code (ownBase, ownOffset)}.
     */
    public static void circulate(
        final CollectiveContext context, final int chunkBytes,
        final Object base, final long offset, final long elementSize,
        final long total, final int[] counts, final int[] displs, final Object ownBase, final long ownOffset)
    {
        final int size = context.size();
        final int rank = context.rank();
        final int next = Ring.next(rank, size);
        final int previous = Ring.previous(rank, size);

        for (int step = 0; step < size - 1; step++)
        {
            // step k: send block (r - k) to next, receive block (r - k - 1) from previous
            final int sendBlock = Ring.allgatherSendBlock(rank, step, size);
            final int recvBlock = Ring.allgatherRecvBlock(rank, step, size);
            Exchange.sendRecv(context, chunkBytes,
                next, step == 0 ? ownBase : base,
                step == 0 ? ownOffset : offset + VectorSplit.start(displs, total, size, sendBlock) * elementSize,
                VectorSplit.count(counts, total, size, sendBlock) * elementSize,
                previous, base, offset + VectorSplit.start(displs, total, size, recvBlock) * elementSize,
                VectorSplit.count(counts, total, size, recvBlock) * elementSize);
        }
    }
}
