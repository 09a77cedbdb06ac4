package io.jccl.algorithms.reducescatter;

import io.jccl.Collective;
import io.jccl.DataType;
import io.jccl.ReduceOp;
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
 * Ring reduce-scatter: for p − 1 steps each rank reduces the partial block arriving from previous with its own
 * input for that block and forwards the sum to next; after the last step rank r holds block r reduced over all
 * ranks. The input is only read: partial sums live in one block of scratch, and recv is written once at the end, so
 * recv may share memory with any part of send (in place at the start of send, or at the rank's own block).
 * <p>
 * Cost, n bytes of input: (p − 1)α + n(p − 1)/p·(β + γ); α is paid once per chunk of a block.
 */
public final class RingReduceScatter implements CollectiveAlgorithm
{
    private static final Set<Collective> COLLECTIVES = EnumSet.of(Collective.REDUCE_SCATTER);

    private final int chunkBytes;

    public RingReduceScatter()
    {
        this(Exchange.CHUNK_BYTES_DEFAULT);
    }

    public RingReduceScatter(final int chunkBytes)
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
        return "p - 1 steps around the ring, reducing one block per step: bandwidth-optimal, for large vectors";
    }

    @Override
    public Set<Collective> collectives()
    {
        return COLLECTIVES;
    }

    @Override
    public void run(final CollectiveContext context, final CollectiveArgs args)
    {
        reduceScatter(context, args, chunkBytes, args.count * context.size(), null, null);
    }

    /**
     * The ring reduce-scatter over blocks given by {@code counts}/{@code displs} (elements) when not null, else
     * {@code total} elements split nearly equally; rank r receives block r.
     */
    static void reduceScatter(
        final CollectiveContext context, final CollectiveArgs args, final int chunkBytes,
        final long total, final int[] counts, final int[] displs)
    {
        final int size = context.size();
        final int rank = context.rank();
        final DataType type = args.type;
        final ReduceOp op = args.op;
        final long elementSize = type.size();
        final Object sendBase = args.sendBase;
        final long sendOffset = args.sendOffset;
        final long ownBytes = VectorSplit.count(counts, total, size, rank) * elementSize;

        if (size == 1)
        {
            Memory.copy(sendBase, sendOffset + VectorSplit.start(displs, total, size, 0) * elementSize,
                args.recvBase, args.recvOffset, ownBytes);
            return;
        }

        final int next = Ring.next(rank, size);
        final int previous = Ring.previous(rank, size);
        final long maxBlockBytes = VectorSplit.maxCount(counts, total, size) * elementSize;
        final long landing = context.scratch(0, Math.min(chunkBytes, maxBlockBytes));
        final long partial = context.scratch(1, maxBlockBytes);

        for (int step = 0; step < size - 1; step++)
        {
            // step k: send partial block (r - k - 1) to next (at step 0 straight from the input), and reduce block
            // (r - k - 2) from previous with this rank's input into the partial; chunk i is sent before it is
            // overwritten, so one block of scratch serves both
            final int sendBlock = Ring.reduceScatterSendBlock(rank, step, size);
            final int recvBlock = Ring.reduceScatterRecvBlock(rank, step, size);
            Exchange.sendRecvReduce(context, type, op, chunkBytes,
                next, step == 0 ? sendBase : null,
                step == 0 ? sendOffset + VectorSplit.start(displs, total, size, sendBlock) * elementSize : partial,
                VectorSplit.count(counts, total, size, sendBlock) * elementSize,
                previous, VectorSplit.count(counts, total, size, recvBlock) * elementSize, landing,
                sendBase, sendOffset + VectorSplit.start(displs, total, size, recvBlock) * elementSize,
                null, partial, false);
        }

        // the partial now holds block r reduced over all ranks
        Memory.copy(null, partial, args.recvBase, args.recvOffset, ownBytes);
    }
}
