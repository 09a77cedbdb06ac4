package io.jccl.algorithms.reducescatter;

import io.jccl.Collective;
import io.jccl.DataType;
import io.jccl.ReduceOp;
import io.jccl.algorithms.pattern.Exchange;
import io.jccl.algorithms.pattern.RecursiveDoubling;
import io.jccl.spi.CollectiveAlgorithm;
import io.jccl.spi.CollectiveArgs;
import io.jccl.spi.CollectiveContext;
import io.jccl.spi.Memory;

import java.util.EnumSet;
import java.util.Set;

/**
 * Recursive halving reduce-scatter: at distance q/2, ..., 1 each rank keeps half of its current window of blocks,
 * sends the other half to its partner and reduces the half it keeps with the partner's copy, until each virtual rank
 * holds its own blocks reduced. Rank counts that are not a power of two fold first (see {@link RecursiveDoubling}):
 * the even rank of a folded pair gives its whole input to the odd one and is sent its block at the end. The input
 * is only read (partial sums live in scratch) and recv is written once at the end, so recv may share memory with
 * any part of send.
 * <p>
 * Cost, n bytes of input, p a power of two: lg p·α + n(p − 1)/p·(β + γ). Otherwise, with q = 2^⌊lg p⌋, add the fold
 * and unfold: 2α + n·(β + γ) + (n/p)·β. α is paid once per chunk of a message.
 */
public final class RecursiveHalvingReduceScatter implements CollectiveAlgorithm
{
    private static final Set<Collective> COLLECTIVES = EnumSet.of(Collective.REDUCE_SCATTER);

    private final int chunkBytes;

    public RecursiveHalvingReduceScatter()
    {
        this(Exchange.CHUNK_BYTES_DEFAULT);
    }

    public RecursiveHalvingReduceScatter(final int chunkBytes)
    {
        this.chunkBytes = Exchange.checkChunkBytes(chunkBytes);
    }

    @Override
    public String name()
    {
        return "recursive_halving";
    }

    @Override
    public String description()
    {
        return "lg p steps, each halving the blocks held and reducing them with a partner's: few steps, " +
            "bandwidth-optimal for powers of two";
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
        final Object sendBase = args.sendBase;
        final long sendOffset = args.sendOffset;
        final long blockBytes = args.count * type.size();
        final long bytes = size * blockBytes;

        if (size == 1)
        {
            Memory.copy(sendBase, sendOffset, args.recvBase, args.recvOffset, blockBytes);
            return;
        }
        if (blockBytes == 0)
        {
            return;
        }

        // fold: the even rank of a pair hands its input to the odd one and waits for its block
        if (RecursiveDoubling.sitsOut(rank, size))
        {
            Exchange.send(context, chunkBytes, rank + 1, sendBase, sendOffset, bytes);
            Exchange.recv(context, chunkBytes, rank + 1, args.recvBase, args.recvOffset, blockBytes);
            return;
        }
        final long landing = context.scratch(0, Math.min(chunkBytes, bytes));
        final long partial = context.scratch(1, bytes);
        // the window's current values: the input until this rank has reduced anything, then the partial
        Object currentBase = sendBase;
        long currentOffset = sendOffset;
        final boolean takesFold = RecursiveDoubling.takesFold(rank, size);
        if (takesFold)
        {
            Exchange.sendRecvReduce(context, type, op, chunkBytes,
                rank - 1, null, 0, 0,
                rank - 1, bytes, landing,
                sendBase, sendOffset, null, partial, false);
            currentBase = null;
            currentOffset = partial;
        }

        // step mask = q/2, ..., 1: keep the half of the window on this rank's side of the mask, send the other half
        // to the partner, reduce the kept half with the partner's copy of it into the partial
        final int virtualSize = RecursiveDoubling.powerOfTwoBelow(size);
        final int virtual = RecursiveDoubling.virtualRank(rank, size);
        int windowStart = 0;
        for (int mask = virtualSize >> 1; mask > 0; mask >>= 1)
        {
            final int partner = RecursiveDoubling.realRank(RecursiveDoubling.partner(virtual, mask), size);
            final int keep = (virtual & mask) == 0 ? windowStart : windowStart + mask;
            final int give = (virtual & mask) == 0 ? windowStart + mask : windowStart;
            final long keepStart = RecursiveDoubling.firstRealBlock(keep, size) * blockBytes;
            final long giveStart = RecursiveDoubling.firstRealBlock(give, size) * blockBytes;
            Exchange.sendRecvReduce(context, type, op, chunkBytes,
                partner, currentBase, currentOffset + giveStart,
                RecursiveDoubling.firstRealBlock(give + mask, size) * blockBytes - giveStart,
                partner, RecursiveDoubling.firstRealBlock(keep + mask, size) * blockBytes - keepStart, landing,
                currentBase, currentOffset + keepStart, null, partial + keepStart, false);
            currentBase = null;
            currentOffset = partial;
            windowStart = keep;
        }

        // the partial holds this virtual rank's real blocks reduced: unfold, then this rank's block into recv
        if (takesFold)
        {
            Exchange.send(context, chunkBytes, rank - 1, null, partial + (rank - 1) * blockBytes, blockBytes);
        }
        Memory.copy(null, partial + rank * blockBytes, args.recvBase, args.recvOffset, blockBytes);
    }
}
