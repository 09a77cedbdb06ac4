package io.jccl.algorithms.shm;

import io.jccl.Collective;
import io.jccl.spi.CollectiveAlgorithm;
import io.jccl.spi.CollectiveArgs;
import io.jccl.spi.CollectiveContext;
import io.jccl.spi.Memory;

import java.util.Set;

/**
 * Reduce-scatter on the low-latency protocol ({@link LowLatencyProtocol}): every rank writes its whole input (p
 * blocks) into its LL slot, takes block {@code rank} of every slot as the lines arrive, and reduces the p blocks in
 * rank order, so each block's bits do not depend on which rank computes it. One handoff.
 * <p>
 * Cost, n the whole input, λ = 8/7 (a 64-byte line carries 56 payload bytes):
 * α_f + (λn + n/p)·β_c + λn(p − 1)/p·β + n(p − 1)/p·γ, for n ≤ {@link LowLatencyProtocol#MAX_BYTES} bytes.
 */
public final class ShmLowLatencyReduceScatter implements CollectiveAlgorithm
{
    /** Built once: the selector asks every call, and Set.of allocates. */
    private static final Set<Collective> COLLECTIVES = Set.of(Collective.REDUCE_SCATTER);

    @Override
    public String name()
    {
        return "shm_ll";
    }

    @Override
    public String description()
    {
        return "every rank writes its input in LL lines (flag inside the data) and reduces its block from every " +
            "slot: one handoff, for inputs up to " + LowLatencyProtocol.MAX_BYTES + " bytes";
    }

    @Override
    public Set<Collective> collectives()
    {
        return COLLECTIVES;
    }

    @Override
    public String unsupportedReason(final CollectiveArgs args, final int size, final CollectiveContext context)
    {
        final String reason = CollectiveAlgorithm.super.unsupportedReason(args, size, context);
        return reason != null || size == 1 ? reason :
            LowLatencyProtocol.reason(name(), context, size * args.count * args.elementSize());
    }

    @Override
    public void run(final CollectiveContext context, final CollectiveArgs args)
    {
        final long blockBytes = args.count * args.type.size();
        final int rank = context.rank();
        final int size = context.size();
        if (size == 1 || blockBytes == 0)
        {
            Memory.copy(args.sendBase, args.sendOffset, args.recvBase, args.recvOffset, blockBytes);
            return;
        }

        // step 1: publish the whole input, stamped with this operation's epoch
        LowLatencyProtocol.publish(context, args.sendBase, args.sendOffset, size * blockBytes);

        // step 2: block `rank` of every rank's input into scratch (the own one copied: recv may be part of send)
        final long blocks = context.scratch(0, size * blockBytes);
        Memory.copy(args.sendBase, args.sendOffset + rank * blockBytes, null, blocks + rank * blockBytes, blockBytes);
        for (int i = 1; i < size; i++)
        {
            final int peer = (rank + i) % size;
            LowLatencyProtocol.read(context, peer, size * blockBytes, rank * blockBytes, blockBytes, null,
                blocks + peer * blockBytes);
        }
        LowLatencyProtocol.finishExchange(context);

        // step 3: recv = block of rank 0 op block of rank 1 op ..., in rank order
        LowLatencyProtocol.reduceInRankOrder(context, args, blocks, blockBytes);
    }
}
