package io.jccl.algorithms.scatter;

import io.jccl.Collective;
import io.jccl.spi.CollectiveAlgorithm;
import io.jccl.spi.CollectiveArgs;
import io.jccl.spi.CollectiveContext;
import io.jccl.spi.Memory;

import java.util.Set;

/**
 * Linear scatterv: the root sends every rank its {@code counts[i]} elements from their displacement directly, in
 * rank order; an empty block costs no message.
 * Cost {@code k·α + n_o·β} for n_o bytes of the other ranks' blocks in k non-empty messages, all serialised at the
 * root: the linear scatter's, whose blocks need not be equal.
 */
public final class LinearScatterv implements CollectiveAlgorithm
{
    private static final Set<Collective> COLLECTIVES = Set.of(Collective.SCATTERV);

    @Override
    public String name()
    {
        return "linear";
    }

    @Override
    public String description()
    {
        return "the root sends each rank its block of any size directly: at most p-1 messages at the root";
    }

    @Override
    public Set<Collective> collectives()
    {
        return COLLECTIVES;
    }

    @Override
    public void run(final CollectiveContext context, final CollectiveArgs args)
    {
        final long elementSize = args.elementSize();
        final int[] counts = args.counts;
        final int root = args.root;
        final int rank = context.rank();
        if (rank != root)
        {
            // non-root, one step: receive the block from the root
            final long bytes = counts[rank] * elementSize;
            if (bytes > 0)
            {
                context.recv(root, args.recvBase, args.recvOffset, bytes);
            }
            return;
        }

        // root, step i: send rank i its block from its displacement
        final int[] displs = args.displs;
        final Object sendBase = args.sendBase;
        final long sendOffset = args.sendOffset;
        for (int i = 0, size = context.size(); i < size; i++)
        {
            final long bytes = counts[i] * elementSize;
            if (i != root && bytes > 0)
            {
                context.send(i, sendBase, sendOffset + displs[i] * elementSize, bytes);
            }
        }

        // root, last step: own block (a no-op in place; last, so recv may alias any block of send)
        Memory.copy(sendBase, sendOffset + displs[root] * elementSize, args.recvBase, args.recvOffset,
            counts[root] * elementSize);
    }
}
