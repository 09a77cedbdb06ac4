package io.jccl.algorithms.gather;

import io.jccl.Collective;
import io.jccl.spi.CollectiveAlgorithm;
import io.jccl.spi.CollectiveArgs;
import io.jccl.spi.CollectiveContext;
import io.jccl.spi.Memory;

import java.util.Set;

/**
 * Linear gather: every rank sends its block straight to the root, which receives them in rank order.
 * Cost {@code (p-1)·α + n(p-1)/p·β} for n bytes gathered, all serialised at the root: fine for few ranks or large
 * blocks, where the root's bandwidth is the limit anyway.
 */
public final class LinearGather implements CollectiveAlgorithm
{
    private static final Set<Collective> COLLECTIVES = Set.of(Collective.GATHER);

    @Override
    public String name()
    {
        return "linear";
    }

    @Override
    public String description()
    {
        return "every rank sends its block directly to the root: p-1 messages at the root, no forwarding";
    }

    @Override
    public Set<Collective> collectives()
    {
        return COLLECTIVES;
    }

    @Override
    public void run(final CollectiveContext context, final CollectiveArgs args)
    {
        final long blockBytes = args.count * args.elementSize();
        if (blockBytes == 0)
        {
            return;
        }
        final int root = args.root;
        final int rank = context.rank();
        if (rank != root)
        {
            // non-root, one step: send the block to the root
            context.send(root, args.sendBase, args.sendOffset, blockBytes);
            return;
        }

        // root, step 0: own block first (a no-op in place; reads send before any other write to recv)
        final Object recvBase = args.recvBase;
        final long recvOffset = args.recvOffset;
        Memory.copy(args.sendBase, args.sendOffset, recvBase, recvOffset + root * blockBytes, blockBytes);

        // root, step i: receive rank i's block into its place
        for (int i = 0, size = context.size(); i < size; i++)
        {
            if (i != root)
            {
                context.recv(i, recvBase, recvOffset + i * blockBytes, blockBytes);
            }
        }
    }
}
