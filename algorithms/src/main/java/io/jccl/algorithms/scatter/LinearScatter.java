package io.jccl.algorithms.scatter;

import io.jccl.Collective;
import io.jccl.spi.CollectiveAlgorithm;
import io.jccl.spi.CollectiveArgs;
import io.jccl.spi.CollectiveContext;
import io.jccl.spi.Memory;

import java.util.Set;

/**
 * Linear scatter: the root sends every rank its block directly, in rank order.
 * Cost {@code (p-1)·α + n(p-1)/p·β} for n bytes scattered, all serialised at the root: fine for few ranks or large
 * blocks.
 */
public final class LinearScatter implements CollectiveAlgorithm
{
    private static final Set<Collective> COLLECTIVES = Set.of(Collective.SCATTER);

    @Override
    public String name()
    {
        return "linear";
    }

    @Override
    public String description()
    {
        return "the root sends each rank its block directly: p-1 messages at the root, no forwarding";
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
            // non-root, one step: receive the block from the root
            context.recv(root, args.recvBase, args.recvOffset, blockBytes);
            return;
        }

        // root, step i: send rank i its block
        final Object sendBase = args.sendBase;
        final long sendOffset = args.sendOffset;
        for (int i = 0, size = context.size(); i < size; i++)
        {
            if (i != root)
            {
                context.send(i, sendBase, sendOffset + i * blockBytes, blockBytes);
            }
        }

        // root, last step: own block (a no-op in place; last, so recv may alias any block of send)
        Memory.copy(sendBase, sendOffset + root * blockBytes, args.recvBase, args.recvOffset, blockBytes);
    }
}
