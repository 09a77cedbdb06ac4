package io.jccl.algorithms.shm;

import io.jccl.Collective;
import io.jccl.spi.CollectiveAlgorithm;
import io.jccl.spi.CollectiveArgs;
import io.jccl.spi.CollectiveContext;

import java.util.Set;

/**
 * Broadcast on the low-latency protocol ({@link LowLatencyProtocol}): the root writes the vector into its LL slot,
 * every other rank copies it out as the lines arrive. One handoff; the root never waits in the common case.
 * <p>
 * Cost, λ = 8/7 (a 64-byte line carries 56 payload bytes): α_f + λn·β_c + λn·β, for
 * n ≤ {@link LowLatencyProtocol#MAX_BYTES} bytes.
 */
public final class ShmLowLatencyBroadcast implements CollectiveAlgorithm
{
    /** Built once: the selector asks every call, and Set.of allocates. */
    private static final Set<Collective> COLLECTIVES = Set.of(Collective.BROADCAST);

    @Override
    public String name()
    {
        return "shm_ll";
    }

    @Override
    public String description()
    {
        return "the root writes LL lines (flag inside the data), the others read them: one handoff, for vectors " +
            "up to " + LowLatencyProtocol.MAX_BYTES + " bytes";
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
        final long bytes = args.count * args.type.size();
        if (context.size() == 1 || bytes == 0)
        {
            return;
        }
        if (context.rank() == args.root)
        {
            // root: publish the vector, stamped with this operation's epoch
            LowLatencyProtocol.publish(context, args.recvBase, args.recvOffset, bytes);
        }
        else
        {
            // others: copy the root's lines out as they arrive
            LowLatencyProtocol.read(context, args.root, bytes, 0, bytes, args.recvBase, args.recvOffset);
        }
        LowLatencyProtocol.finish(context);
    }
}
