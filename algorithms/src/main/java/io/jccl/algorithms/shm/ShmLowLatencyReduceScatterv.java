package io.jccl.algorithms.shm;

import io.jccl.Collective;
import io.jccl.spi.ArgumentChecks;
import io.jccl.spi.CollectiveAlgorithm;
import io.jccl.spi.CollectiveArgs;
import io.jccl.spi.CollectiveContext;
import io.jccl.spi.Memory;

import java.util.Set;

/**
 * Reduce-scatterv on the low-latency protocol ({@link LowLatencyProtocol}): {@link ShmLowLatencyReduceScatter} with a
 * count per rank. Every rank writes its whole input (the sum of the counts) into its LL slot, takes its own block,
 * {@code counts[rank]} elements at {@code displs[rank]}, of every slot as the lines arrive, and reduces the blocks in
 * rank order: one handoff, where the ring takes p − 1 steps.
 * <p>
 * Cost, n the whole input, λ = 8/7: that of {@link ShmLowLatencyReduceScatter} with equal counts; else a rank copies
 * and reduces its own block of each input, for inputs up to {@link LowLatencyProtocol#MAX_BYTES} bytes.
 */
public final class ShmLowLatencyReduceScatterv implements CollectiveAlgorithm
{
    /** Built once: the selector asks every call, and Set.of allocates. */
    private static final Set<Collective> COLLECTIVES = Set.of(Collective.REDUCE_SCATTERV);

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
            LowLatencyProtocol.reason(name(), context, ArgumentChecks.sum(args.counts) * args.elementSize());
    }

    @Override
    public void run(final CollectiveContext context, final CollectiveArgs args)
    {
        final int rank = context.rank();
        final int size = context.size();
        final long elementSize = args.type.size();
        final long blockBytes = args.count * elementSize;
        final long blockStart = args.displs[rank] * elementSize;
        if (size == 1)
        {
            Memory.copy(args.sendBase, args.sendOffset + blockStart, args.recvBase, args.recvOffset, blockBytes);
            return;
        }

        // step 1: publish the whole input, stamped with this operation's epoch
        final long inputBytes = ArgumentChecks.sum(args.counts) * elementSize;
        LowLatencyProtocol.publish(context, args.sendBase, args.sendOffset, inputBytes);

        // step 2: this rank's block of every rank's input into scratch (the own one copied: recv may be send)
        final long blocks = context.scratch(0, size * blockBytes);
        Memory.copy(args.sendBase, args.sendOffset + blockStart, null, blocks + rank * blockBytes, blockBytes);
        for (int i = 1; i < size; i++)
        {
            final int peer = (rank + i) % size;
            LowLatencyProtocol.read(context, peer, inputBytes, blockStart, blockBytes, null,
                blocks + peer * blockBytes);
        }
        // a rank with an empty block read nothing, and cannot tell that every peer finished the operation before
        LowLatencyProtocol.finish(context, blockBytes > 0);

        // step 3: recv = block of rank 0 op block of rank 1 op ..., in rank order
        LowLatencyProtocol.reduceInRankOrder(context, args, blocks, blockBytes);
    }
}
