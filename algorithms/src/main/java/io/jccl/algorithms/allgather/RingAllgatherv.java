package io.jccl.algorithms.allgather;

import io.jccl.Collective;
import io.jccl.algorithms.pattern.Exchange;
import io.jccl.spi.CollectiveAlgorithm;
import io.jccl.spi.CollectiveArgs;
import io.jccl.spi.CollectiveContext;
import io.jccl.spi.Memory;

import java.util.EnumSet;
import java.util.Set;

/**
 * Ring allgatherv: the ring allgather with per-rank block sizes {@code counts[i]} at {@code displs[i]}; empty blocks
 * cost no message.
 * <p>
 * Cost, n bytes of output, largest block m bytes: (p − 1)α + (p − 1)·m·β (each step waits for its largest block),
 * which is n(p − 1)/p·β when the blocks are equal.
 */
public final class RingAllgatherv implements CollectiveAlgorithm
{
    private static final Set<Collective> COLLECTIVES = EnumSet.of(Collective.ALLGATHERV);

    private final int chunkBytes;

    public RingAllgatherv()
    {
        this(Exchange.CHUNK_BYTES_DEFAULT);
    }

    public RingAllgatherv(final int chunkBytes)
    {
        this.chunkBytes = Exchange.checkChunkBytes(chunkBytes);
    }

    @Override
    public String name()
    {
        return "ring";
    }

    @Override
    public String description()
    {
        return "p - 1 steps around the ring with per-rank block sizes: bandwidth-optimal for large, even blocks";
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
        final long elementSize = args.elementSize();
        final int[] counts = args.counts;
        final int[] displs = args.displs;

        // own block into place (skipped when the caller already put it there)
        Memory.copy(args.sendBase, args.sendOffset,
            args.recvBase, args.recvOffset + displs[rank] * elementSize, counts[rank] * elementSize);

        // step 0 sends the own block out of send, as RingAllgather does: lines this core has not just dirtied (2 ranks,
        // 128 KiB-8 MiB: 0.34-0.75x the time of sending its copy); out of the copy when send lies in recv, whose
        // blocks arriving in step 0 may overwrite it
        final boolean sendApart = !Memory.overlaps(args.sendBase, args.sendOffset, counts[rank] * elementSize,
            args.recvBase, args.recvOffset, CollectiveArgs.vectorExtent(counts, displs, counts.length) * elementSize);
        RingAllgather.circulate(context, chunkBytes, args.recvBase, args.recvOffset, elementSize, 0, counts, displs,
            sendApart ? args.sendBase : args.recvBase,
            sendApart ? args.sendOffset : args.recvOffset + displs[rank] * elementSize);
    }
}
