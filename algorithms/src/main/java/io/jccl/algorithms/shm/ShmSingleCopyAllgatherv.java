package io.jccl.algorithms.shm;

import io.jccl.Collective;
import io.jccl.algorithms.pattern.VectorSplit;
import io.jccl.spi.CollectiveArgs;
import io.jccl.spi.CollectiveContext;
import io.jccl.spi.Memory;

import java.util.Set;

/**
 * Single-copy allgatherv: {@link ShmSingleCopyAllgather} with a count per rank. Every rank publishes where its block
 * ({@code counts[rank]} elements) lives and reads every peer's block through the kernel straight to
 * {@code displs[peer]} of recv ({@link SingleCopyReads} has the protocol). A rank with an empty block publishes and
 * finishes like the others, since every peer waits for its word.
 * <p>
 * Cost: that of {@link ShmSingleCopyAllgather} with equal counts; else a rank reads the blocks of its peers.
 * Needs single copy on every rank ({@link CollectiveContext#singleCopyBytes()} above 0).
 */
public final class ShmSingleCopyAllgatherv extends SingleCopyAlgorithm
{
    /** Built once: the selector asks every call, and Set.of allocates. */
    private static final Set<Collective> COLLECTIVES = Set.of(Collective.ALLGATHERV);

    @Override
    public String description()
    {
        return "every rank reads each peer's block through the kernel straight into recv, all ranks at once " +
            "(one copy of lines nobody just wrote): for large blocks";
    }

    @Override
    public Set<Collective> collectives()
    {
        return COLLECTIVES;
    }

    @Override
    public void run(final CollectiveContext context, final CollectiveArgs args)
    {
        final int rank = context.rank();
        final int size = context.size();
        final long elementSize = args.type.size();
        final int[] counts = args.counts;
        final int[] displs = args.displs;
        final Object recvBase = args.recvBase;
        final long recvOffset = args.recvOffset;
        final long ownBytes = counts[rank] * elementSize;
        final long ownBlock = recvOffset + displs[rank] * elementSize;
        if (size == 1)
        {
            Memory.copy(args.sendBase, args.sendOffset, recvBase, ownBlock, ownBytes);
            return;
        }

        // step 1: publish our block as ShmSingleCopyAllgather does
        final boolean publishSend = SingleCopyReads.publishesSend(args, ownBlock, ownBytes,
            VectorSplit.end(counts, displs, size) * elementSize);
        if (SingleCopyReads.publishBlock(context, args, publishSend, ownBlock, ownBytes) == SingleCopyReads.DECLINED)
        {
            return;
        }

        // step 2: every peer's block into its place, starting after our rank; then ours (a no-op in place)
        for (int i = 1; i < size; i++)
        {
            final int r = (rank + i) % size;
            if (counts[r] > 0)
            {
                SingleCopyReads.copy(context, r, 0, recvBase, recvOffset + displs[r] * elementSize,
                    counts[r] * elementSize);
            }
        }
        if (publishSend)
        {
            Memory.copy(args.sendBase, args.sendOffset, recvBase, ownBlock, ownBytes);
        }

        // step 3: done reading (release); return once no peer reads our block any more (acquire)
        SingleCopyReads.finish(context);
    }
}
