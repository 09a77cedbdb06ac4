package io.jccl.algorithms.shm;

import io.jccl.Collective;
import io.jccl.spi.CollectiveAlgorithm;
import io.jccl.spi.CollectiveArgs;
import io.jccl.spi.CollectiveContext;
import io.jccl.spi.Memory;
import io.jccl.spi.Reductions;

import java.util.Set;

/**
 * Reduce-scatter on the low-latency protocol ({@link LowLatencyProtocol}): every rank writes its whole input (p
 * blocks) into its LL slot, takes block {@code rank} of every slot as the words arrive, and reduces the p blocks in
 * rank order, so each block's bits do not depend on which rank computes it. One handoff.
 * <p>
 * Cost: α_LL + p·(n/4)·8·(β_w + β_r) + (p − 1)·n·γ, for p·n ≤ {@link LowLatencyProtocol#MAX_BYTES} bytes.
 */
public final class ShmLowLatencyReduceScatter implements CollectiveAlgorithm
{
    @Override
    public String name()
    {
        return "shm_ll";
    }

    @Override
    public String description()
    {
        return "every rank writes its input as LL words (flag inside the data) and reduces its block from every " +
            "slot: one handoff, for inputs up to " + LowLatencyProtocol.MAX_BYTES + " bytes";
    }

    @Override
    public Set<Collective> collectives()
    {
        return Set.of(Collective.REDUCE_SCATTER);
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

        // step 2: block `rank` of every slot (the own one too: recv may be part of send) into scratch
        final long blocks = context.scratch(0, size * blockBytes);
        for (int r = 0; r < size; r++)
        {
            LowLatencyProtocol.read(context, r, rank * blockBytes, blockBytes, null, blocks + r * blockBytes);
        }
        LowLatencyProtocol.finish(context);

        // step 3: recv = block of rank 0 op block of rank 1 op ..., in rank order
        Reductions.reduce(args.type, args.op, null, blocks, null, blocks + blockBytes,
            args.recvBase, args.recvOffset, args.count);
        for (int r = 2; r < size; r++)
        {
            Reductions.reduce(args.type, args.op, args.recvBase, args.recvOffset, null, blocks + r * blockBytes,
                args.recvBase, args.recvOffset, args.count);
        }
    }
}
