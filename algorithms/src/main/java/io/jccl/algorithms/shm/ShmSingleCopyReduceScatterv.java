package io.jccl.algorithms.shm;

import io.jccl.Collective;
import io.jccl.spi.ArgumentChecks;
import io.jccl.spi.CollectiveArgs;
import io.jccl.spi.CollectiveContext;
import io.jccl.spi.Memory;

import java.util.Set;

/**
 * Single-copy reduce-scatterv: {@link ShmSingleCopyReduceScatter} with a count per rank. Rank r reads its block,
 * {@code counts[r]} elements at {@code displs[r]}, of each peer's send buffer through the kernel and reduces the p
 * blocks into recv in rank order ({@link SingleCopyReads} has the protocol). A rank with an empty block publishes and
 * finishes like the others, since every peer reads from its buffer.
 * <p>
 * Cost: that of {@link ShmSingleCopyReduceScatter} with equal counts; else a rank reads and reduces its own block of
 * each input. Needs single copy on every rank ({@link CollectiveContext#singleCopyBytes()} above 0).
 */
public final class ShmSingleCopyReduceScatterv extends SingleCopyAlgorithm
{
    /** Built once: the selector asks every call, and Set.of allocates. */
    private static final Set<Collective> COLLECTIVES = Set.of(Collective.REDUCE_SCATTERV);

    @Override
    public String description()
    {
        return "rank r reads its block of every peer's send buffer through the kernel (one copy of lines nobody " +
            "just wrote) and reduces them: for large blocks where cross-core handoffs of fresh data are slow";
    }

    @Override
    public Set<Collective> collectives()
    {
        return COLLECTIVES;
    }

    @Override
    public void run(final CollectiveContext context, final CollectiveArgs args)
    {
        final long elementSize = args.type.size();
        final long blockBytes = args.count * elementSize;
        final long blockStart = args.displs[context.rank()] * elementSize;
        final long inputBytes = ArgumentChecks.sum(args.counts) * elementSize;
        if (context.size() == 1)
        {
            Memory.copy(args.sendBase, args.sendOffset + blockStart, args.recvBase, args.recvOffset, blockBytes);
        }
        else if (inputBytes > 0)
        {
            final long own = SingleCopyReads.publish(context, args, inputBytes, blockBytes);
            if (own == SingleCopyReads.DECLINED)
            {
                return;
            }
            if (blockBytes > 0)
            {
                SingleCopyReads.reduce(context, args, own, blockStart, 0, blockBytes);
            }
            SingleCopyReads.finish(context);
        }
    }
}
