package io.jccl.algorithms.shm;

import io.jccl.Collective;
import io.jccl.spi.CollectiveAlgorithm;
import io.jccl.spi.CollectiveArgs;
import io.jccl.spi.CollectiveContext;

import java.util.Set;

/**
 * Broadcast on the eager protocol ({@link EagerProtocol}): the root copies the vector into its slots of the operation
 * (256 KiB each), stamping each, and every other rank copies each slot out once it sees the stamp. One handoff, and the
 * root does not wait for its readers except when it comes back to a slot they have not finished, so a stream of
 * broadcasts flows at the pace of the slower of one copy in and one copy out, where {@link ShmDirectBroadcast} adds two
 * handoffs per call. Cost: 2α_f + nβ_c + nβ_r, for n ≤ {@link EagerProtocol#MAX_BYTES} bytes.
 */
public final class ShmEagerBroadcast implements CollectiveAlgorithm
{
    /** Built once: the selector asks every call, and Set.of allocates. */
    private static final Set<Collective> COLLECTIVES = Set.of(Collective.BROADCAST);

    @Override
    public String name()
    {
        return "shm_eager";
    }

    @Override
    public String description()
    {
        return "the root copies the vector into its eager slots and stamps each, the others copy each out: " +
            "one handoff, the root runs ahead, for vectors up to " + EagerProtocol.MAX_BYTES + " bytes";
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
            EagerProtocol.reason(name(), context, args.count * args.elementSize());
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
            // root: copy the vector into this operation's slots, stamping each (release)
            EagerProtocol.publish(context, args.recvBase, args.recvOffset, bytes);
        }
        else
        {
            // others: copy each slot out once stamped (acquire)
            EagerProtocol.read(context, args.root, args.recvBase, args.recvOffset, bytes);
        }
        // done reading (release): the root may reuse the slot once every reader has said so
        LowLatencyProtocol.finish(context);
    }
}
