package io.jccl.algorithms.shm;

import io.jccl.Collective;
import io.jccl.spi.CollectiveAlgorithm;
import io.jccl.spi.CollectiveArgs;
import io.jccl.spi.CollectiveContext;
import io.jccl.spi.Memory;

import java.util.Set;

/**
 * Alltoall on the low-latency protocol ({@link LowLatencyProtocol}): every rank writes its whole send buffer (p
 * blocks) into its LL slot, and takes block {@code rank} of every peer's slot as the lines arrive. One handoff.
 * <p>
 * Cost, n one rank's send buffer, λ = 8/7 (a 64-byte line carries 56 payload bytes):
 * α_f + (λn + n/p)·β_c + λn(p − 1)/p·β, for n ≤ {@link LowLatencyProtocol#MAX_BYTES} bytes.
 */
public final class ShmLowLatencyAlltoall implements CollectiveAlgorithm
{
    /** Built once: the selector asks every call, and Set.of allocates. */
    private static final Set<Collective> COLLECTIVES = Set.of(Collective.ALLTOALL);

    @Override
    public String name()
    {
        return "shm_ll";
    }

    @Override
    public String description()
    {
        return "every rank writes all its blocks in LL lines (flag inside the data), each takes its own from " +
            "every slot: one handoff, for send buffers up to " + LowLatencyProtocol.MAX_BYTES + " bytes";
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

        // step 1: publish all p blocks; the own block goes straight across (the slot holds a copy, so in place works)
        LowLatencyProtocol.publish(context, args.sendBase, args.sendOffset, size * blockBytes);
        Memory.copy(args.sendBase, args.sendOffset + rank * blockBytes,
            args.recvBase, args.recvOffset + rank * blockBytes, blockBytes);

        // step 2: block `rank` of every peer's slot lands in block `peer` of recv
        for (int i = 1; i < size; i++)
        {
            final int peer = (rank + i) % size;
            LowLatencyProtocol.read(context, peer, size * blockBytes, rank * blockBytes, blockBytes,
                args.recvBase, args.recvOffset + peer * blockBytes);
        }
        LowLatencyProtocol.finishExchange(context);
    }
}
