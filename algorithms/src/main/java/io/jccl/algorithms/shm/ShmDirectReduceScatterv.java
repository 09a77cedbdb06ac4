package io.jccl.algorithms.shm;

import io.jccl.Collective;
import io.jccl.algorithms.pattern.VectorSplit;
import io.jccl.spi.ArgumentChecks;
import io.jccl.spi.CollectiveAlgorithm;
import io.jccl.spi.CollectiveArgs;
import io.jccl.spi.CollectiveContext;
import io.jccl.spi.Memory;

import java.util.Set;

/**
 * Direct reduce-scatterv: {@link ShmDirectReduceScatter} with a count per rank. Rank r reduces its block,
 * {@code counts[r]} elements at {@code displs[r]} of every rank's input, straight out of shared memory in rank order,
 * in one step where the ring takes p − 1.
 * <p>
 * Staged (private buffers): per chunk, the same column range of every block, p columns of as many elements as fill
 * S/2 bytes, the chunks those of the largest block, which every rank knows from the counts; a block that has ended
 * stages and reduces nothing, but every rank still waits for every peer's chunk, as the staging protocol needs
 * ({@link ShmDirectReduceScatter#runStaged}).
 * Zero-copy (send buffers in symmetric memory): nothing is staged; every rank reduces its block straight out of every
 * rank's send buffer, whose layout the counts, the same everywhere, give ({@link ShmDirectReduceScatter#runDirect}).
 * <p>
 * Cost: that of {@link ShmDirectReduceScatter} with equal counts; else the chunks are those of the largest block.
 */
public final class ShmDirectReduceScatterv implements CollectiveAlgorithm
{
    /** Built once: the selector asks every call, and Set.of allocates. */
    private static final Set<Collective> COLLECTIVES = Set.of(Collective.REDUCE_SCATTERV);

    @Override
    public String name()
    {
        return "shm_direct";
    }

    @Override
    public String description()
    {
        return "every rank stages its send blocks in shared memory and reduces its own block from all peers at once";
    }

    @Override
    public Set<Collective> collectives()
    {
        return COLLECTIVES;
    }

    /** The chunks follow the largest block, which every rank knows alike. */
    @Override
    public String unsupportedReason(final CollectiveArgs args, final int size, final CollectiveContext context)
    {
        final String reason = CollectiveAlgorithm.super.unsupportedReason(args, size, context);
        if (reason != null || size == 1 || args.sendSegmentOffset >= 0)
        {
            return reason;
        }
        return ShmProtocol.stagingReason(name(), context, args, size * args.elementSize(),
            VectorSplit.maxCount(args.counts, 0, size));
    }

    @Override
    public void run(final CollectiveContext context, final CollectiveArgs args)
    {
        final long elementSize = args.type.size();
        final long blockStart = args.displs[context.rank()] * elementSize;
        if (context.size() == 1)
        {
            Memory.copy(args.sendBase, args.sendOffset + blockStart, args.recvBase, args.recvOffset,
                args.count * elementSize);
        }
        else
        {
            final long largest = VectorSplit.maxCount(args.counts, 0, context.size());
            if (largest > 0 && args.sendSegmentOffset >= 0)
            {
                ShmDirectReduceScatter.runDirect(context, args, blockStart,
                    ArgumentChecks.sum(args.counts) * elementSize);
            }
            else if (largest > 0)
            {
                ShmDirectReduceScatter.runStaged(context, args, args.counts, args.displs, largest);
            }
        }
    }
}
