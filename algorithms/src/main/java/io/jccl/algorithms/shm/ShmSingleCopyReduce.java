package io.jccl.algorithms.shm;

import io.jccl.Collective;
import io.jccl.spi.CollectiveArgs;
import io.jccl.spi.CollectiveContext;
import io.jccl.spi.Memory;

import java.util.Set;

/**
 * Single-copy reduce: the root reads every peer's send buffer through the kernel, a chunk at a time into a bounce
 * buffer that stays in its cache, and reduces it into recv in rank order; the other ranks publish their send buffers
 * and wait until the root has read them ({@link SingleCopyReads} has the protocol).
 * <p>
 * Why: binomial hands the peer's vector to the root as a message, through the ring (two copies of freshly written
 * lines) below the rendezvous threshold for reductions and by rendezvous above it, where the sender copies half of
 * it into the root's buffer and so into its own cache, across cores from the root's reduction. Here the kernel
 * copies clean lines straight into the root's cache, where the reduction reads them next. Cost:
 * 2α_f + (p − 1)·(⌈n/R⌉·α_k + nβ_k) + (p − 1)n·γ, R = 256 KiB (the root reads and reduces everything, so it is
 * a 2-rank algorithm: binomial spreads the work over lg p steps), plus n·β_c when a send buffer is copied
 * first (a heap array, or the root's in place).
 * <p>
 * Needs single copy on every rank ({@link CollectiveContext#singleCopyBytes()} above 0), which is the same answer on
 * every rank, so every rank takes this algorithm or none.
 */
public final class ShmSingleCopyReduce extends SingleCopyAlgorithm
{
    /** Built once: the selector asks every call, and Set.of allocates. */
    private static final Set<Collective> COLLECTIVES = Set.of(Collective.REDUCE);

    @Override
    public String description()
    {
        return "the root reads every peer's send buffer through the kernel (one copy of lines nobody just wrote) " +
            "and reduces it chunk by chunk: for large vectors at 2 ranks";
    }

    @Override
    public Set<Collective> collectives()
    {
        return COLLECTIVES;
    }

    @Override
    public void run(final CollectiveContext context, final CollectiveArgs args)
    {
        final long bytes = args.count * args.type.size();
        final boolean root = context.rank() == args.root;
        if (context.size() == 1)
        {
            Memory.copy(args.sendBase, args.sendOffset, args.recvBase, args.recvOffset, bytes);
        }
        else if (bytes > 0)
        {
            // only the root's recv matters (and may overlap its send); the others' stays untouched
            final long own = SingleCopyReads.publish(context, args, bytes, root ? bytes : 0);
            if (own == SingleCopyReads.DECLINED)
            {
                return;
            }
            if (root)
            {
                SingleCopyReads.reduce(context, args, own, 0, 0, bytes);
            }
            SingleCopyReads.finish(context);
        }
    }
}
