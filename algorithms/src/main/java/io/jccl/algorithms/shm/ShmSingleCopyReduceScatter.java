package io.jccl.algorithms.shm;

import io.jccl.Collective;
import io.jccl.spi.CollectiveArgs;
import io.jccl.spi.CollectiveContext;
import io.jccl.spi.Memory;

import java.util.Set;

/**
 * Single-copy reduce-scatter: rank r reads block r of each peer's send buffer through the kernel and reduces the p
 * blocks into recv in rank order ({@link SingleCopyReads} has the protocol). Like {@link ShmDirectReduceScatter}
 * in one step, without staging the blocks first, and reading only lines nobody has just written (see
 * {@link ShmSingleCopyAllreduce} for why that matters). Cost (n = bytes of one rank's whole send buffer):
 * 2α_f + (p − 1)·(α + (n/p)β) + n(p − 1)/p·γ, plus n·β_c when the send buffer is copied first (a heap
 * array, or recv inside it).
 * <p>
 * Needs single copy on every rank ({@link CollectiveContext#singleCopyBytes()} above 0).
 */
public final class ShmSingleCopyReduceScatter extends SingleCopyAlgorithm
{
    /** Built once: the selector asks every call, and Set.of allocates. */
    private static final Set<Collective> COLLECTIVES = Set.of(Collective.REDUCE_SCATTER);

    @Override
    public String description()
    {
        return "rank r reads block r of every peer's send buffer through the kernel (one copy of lines nobody " +
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
        final long blockBytes = args.count * args.type.size();
        if (context.size() == 1)
        {
            Memory.copy(args.sendBase, args.sendOffset, args.recvBase, args.recvOffset, blockBytes);
        }
        else if (blockBytes > 0)
        {
            final long own = SingleCopyReads.publish(context, args, context.size() * blockBytes, blockBytes);
            if (own == SingleCopyReads.DECLINED)
            {
                return;
            }
            SingleCopyReads.reduce(context, args, own, context.rank() * blockBytes, 0, blockBytes);
            SingleCopyReads.finish(context);
        }
    }
}
