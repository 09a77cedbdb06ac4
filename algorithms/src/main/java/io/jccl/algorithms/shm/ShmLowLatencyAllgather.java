package io.jccl.algorithms.shm;

import io.jccl.Collective;
import io.jccl.spi.CollectiveAlgorithm;
import io.jccl.spi.CollectiveArgs;
import io.jccl.spi.CollectiveContext;
import io.jccl.spi.Memory;

import java.util.Set;

/**
 * Allgather on the low-latency protocol ({@link LowLatencyProtocol}): every rank writes its block into its LL slot
 * and copies every peer's block out of theirs as the lines arrive. One handoff.
 * <p>
 * Cost, n the gathered output, λ = 8/7 (a 64-byte line carries 56 payload bytes):
 * α_f + (1 + λ)(n/p)·β_c + λn(p − 1)/p·β, for blocks n/p ≤ {@link LowLatencyProtocol#MAX_BYTES} bytes.
 */
public final class ShmLowLatencyAllgather implements CollectiveAlgorithm
{
    /** Built once: the selector asks every call, and Set.of allocates. */
    private static final Set<Collective> COLLECTIVES = Set.of(Collective.ALLGATHER);

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

    @Override
    public String unsupportedReason(final CollectiveArgs args, final int size, final CollectiveContext context)
    {
        final String reason = CollectiveAlgorithm.super.unsupportedReason(args, size, context);
        return reason != null || size == 1 ? reason :
            LowLatencyProtocol.reason(name(), context, args.count * args.elementSize());
    }

    @Override
    public void run(final CollectiveContext context, final CollectiveArgs args)
    {
        final long blockBytes = args.count * args.type.size();
        final int rank = context.rank();
        final int size = context.size();
        final long ownBlock = args.recvOffset + rank * blockBytes;
        if (size == 1 || blockBytes == 0)
        {
            Memory.copy(args.sendBase, args.sendOffset, args.recvBase, args.recvOffset, blockBytes);
            return;
        }

        // step 1: publish the own block; step 2: place it (a no-op in place) and copy the peers' blocks in
        LowLatencyProtocol.publish(context, args.sendBase, args.sendOffset, blockBytes);
        Memory.copy(args.sendBase, args.sendOffset, args.recvBase, ownBlock, blockBytes);
        for (int i = 1; i < size; i++)
        {
            final int peer = (rank + i) % size;
            LowLatencyProtocol.read(context, peer, blockBytes, 0, blockBytes, args.recvBase,
                args.recvOffset + peer * blockBytes);
        }
        LowLatencyProtocol.finishExchange(context);
    }
}
