package io.jccl.algorithms.allreduce;

import io.jccl.Collective;
import io.jccl.DataType;
import io.jccl.ReduceOp;
import io.jccl.algorithms.allgather.RingAllgather;
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
 * Ring allreduce: the vector is split into p nearly-equal blocks; a ring reduce-scatter (p − 1 steps, each rank
 * reduces the block arriving from previous into its own copy and forwards it) leaves block r fully reduced on rank
 * r, and a ring allgather (p − 1 steps) hands every finished block round. Each element is reduced once, on the rank
 * that owns its block, so every rank ends with the same bits. Blocks move in chunks of at most the chunk size, so
 * scratch is one chunk and the reduction of a chunk follows its arrival.
 * <p>
 * Cost, n bytes: 2(p − 1)α + 2n(p − 1)/p·β + n(p − 1)/p·γ; α is paid once per chunk of a block.
 */
public final class RingAllreduce implements CollectiveAlgorithm
{
    private static final Set<Collective> COLLECTIVES = EnumSet.of(Collective.ALLREDUCE);

    private final int chunkBytes;

    public RingAllreduce()
    {
        this(Exchange.CHUNK_BYTES_DEFAULT);
    }

    public RingAllreduce(final int chunkBytes)
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
        return "ring reduce-scatter then ring allgather, in chunks: bandwidth-optimal, for large vectors";
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
        final int rank = context.rank();
        final int chunkBytes = this.chunkBytes;
        final DataType type = args.type;
        final ReduceOp op = args.op;
        final long count = args.count;
        final long elementSize = type.size();
        final Object recvBase = args.recvBase;
        final long recvOffset = args.recvOffset;

        if (size == 1 || count == 0)
        {
            Memory.copy(args.sendBase, args.sendOffset, recvBase, recvOffset, count * elementSize);
            return;
        }

        final int next = Ring.next(rank, size);
        final int previous = Ring.previous(rank, size);
        final long landing = context.scratch(0, Math.min(chunkBytes, VectorSplit.count(count, size, 0) * elementSize));

        // Each block is reduced once on each rank, with this rank's own block from send into recv, so the vector is
        // never copied into recv first: step 0 sends its block from send, later steps the block reduced at the step
        // before (in place, send is recv).
        final Object sendBase = args.sendBase;
        final long sendOffset = args.sendOffset;
        for (int step = 0; step < size - 1; step++)
        {
            // reduce-scatter step k: send partial block (r - k - 1) to next, reduce block (r - k - 2) from previous
            final int sendBlock = Ring.reduceScatterSendBlock(rank, step, size);
            final int recvBlock = Ring.reduceScatterRecvBlock(rank, step, size);
            final long sendBlockStart = VectorSplit.start(count, size, sendBlock) * elementSize;
            final long recvBlockStart = VectorSplit.start(count, size, recvBlock) * elementSize;
            Exchange.sendRecvReduce(context, type, op, chunkBytes,
                next, step == 0 ? sendBase : recvBase, (step == 0 ? sendOffset : recvOffset) + sendBlockStart,
                VectorSplit.count(count, size, sendBlock) * elementSize,
                previous, VectorSplit.count(count, size, recvBlock) * elementSize, landing,
                sendBase, sendOffset + recvBlockStart, recvBase, recvOffset + recvBlockStart, false);
        }

        // allgather: block r is final on rank r; p - 1 steps pass every final block round
        RingAllgather.circulate(context, chunkBytes, recvBase, recvOffset, elementSize, count, null, null);
    }
}
