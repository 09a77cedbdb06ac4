package io.jccl.algorithms.shm;

import io.jccl.Collective;
import io.jccl.algorithms.pattern.VectorSplit;
import io.jccl.spi.CollectiveAlgorithm;
import io.jccl.spi.CollectiveArgs;
import io.jccl.spi.CollectiveContext;
import io.jccl.spi.Memory;

import java.util.Set;

/**
 * Allgatherv on the low-latency protocol ({@link LowLatencyProtocol}): {@link ShmLowLatencyAllgather} with a count per
 * rank. Every rank writes its block ({@code counts[rank]} elements) into its LL slot and copies every peer's out of
 * theirs, at {@code displs[peer]} of recv, as the lines arrive: one handoff, where the ring takes p − 1 steps. A
 * reader finds a peer's slot by the bytes that peer published, which the counts, the same on every rank, tell.
 * <p>
 * Cost, n the gathered output, λ = 8/7: that of {@link ShmLowLatencyAllgather} with equal counts; else each rank copies
 * λ times the blocks it reads, for blocks up to {@link LowLatencyProtocol#MAX_BYTES} bytes.
 */
public final class ShmLowLatencyAllgatherv implements CollectiveAlgorithm
{
    /** Built once: the selector asks every call, and Set.of allocates. */
    private static final Set<Collective> COLLECTIVES = Set.of(Collective.ALLGATHERV);

    @Override
    public String name()
    {
        return "shm_ll";
    }

    @Override
    public String description()
    {
        return "every rank writes its block in LL lines (flag inside the data) and reads the others': one " +
            "handoff, for blocks up to " + LowLatencyProtocol.MAX_BYTES + " bytes";
    }

    @Override
    public Set<Collective> collectives()
    {
        return COLLECTIVES;
    }

    /** The largest block decides, not this rank's: every rank must come to the same answer. */
    @Override
    public String unsupportedReason(final CollectiveArgs args, final int size, final CollectiveContext context)
    {
        final String reason = CollectiveAlgorithm.super.unsupportedReason(args, size, context);
        return reason != null || size == 1 ? reason :
            LowLatencyProtocol.reason(name(), context,
                VectorSplit.maxCount(args.counts, 0, size) * args.elementSize());
    }

    @Override
    public void run(final CollectiveContext context, final CollectiveArgs args)
    {
        final int rank = context.rank();
        final int size = context.size();
        final long elementSize = args.type.size();
        final int[] counts = args.counts;
        final long ownBytes = counts[rank] * elementSize;
        final long ownBlock = args.recvOffset + args.displs[rank] * elementSize;
        if (size == 1)
        {
            Memory.copy(args.sendBase, args.sendOffset, args.recvBase, ownBlock, ownBytes);
            return;
        }

        // step 1: publish the own block; step 2: place it (a no-op in place) and copy the peers' blocks in
        LowLatencyProtocol.publish(context, args.sendBase, args.sendOffset, ownBytes);
        Memory.copy(args.sendBase, args.sendOffset, args.recvBase, ownBlock, ownBytes);
        boolean readEvery = true;
        for (int i = 1; i < size; i++)
        {
            final int peer = (rank + i) % size;
            final long bytes = counts[peer] * elementSize;
            LowLatencyProtocol.read(context, peer, bytes, 0, bytes, args.recvBase,
                args.recvOffset + args.displs[peer] * elementSize);
            readEvery &= bytes > 0;
        }
        // a peer with an empty block published nothing this rank saw: it may not have finished the operation before
        LowLatencyProtocol.finish(context, readEvery);
    }
}
