package io.jccl.algorithms.gather;

import io.jccl.Collective;
import io.jccl.spi.CollectiveAlgorithm;
import io.jccl.spi.CollectiveArgs;
import io.jccl.spi.CollectiveContext;
import io.jccl.spi.Memory;

import java.util.Set;

/**
 * Linear gatherv: every rank sends its {@code counts[rank]} elements straight to the root, which receives them in
 * rank order, each at its displacement; an empty block costs no message.
 * Cost {@code k·α + n_o·β} for n_o bytes of the other ranks' blocks in k non-empty messages, all serialised at the
 * root: the linear gather's, whose blocks need not be equal.
 */
public final class LinearGatherv implements CollectiveAlgorithm
{
    private static final Set<Collective> COLLECTIVES = Set.of(Collective.GATHERV);

    @Override
    public String name()
    {
        return "linear";
    }

    @Override
    public String description()
    {
        return "every rank sends its block of any size directly to the root: at most p-1 messages at the root";
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
            // non-root, one step: send the block to the root
            final long bytes = counts[rank] * elementSize;
            if (bytes > 0)
            {
                context.send(root, args.sendBase, args.sendOffset, bytes);
            }
            return;
        }

        // root, step 0: own block first (a no-op in place; reads send before any other write to recv)
        final int[] displs = args.displs;
        final Object recvBase = args.recvBase;
        final long recvOffset = args.recvOffset;
        Memory.copy(args.sendBase, args.sendOffset, recvBase, recvOffset + displs[root] * elementSize,
            counts[root] * elementSize);

        // root, step i: receive rank i's block at its displacement
        for (int i = 0, size = context.size(); i < size; i++)
        {
            final long bytes = counts[i] * elementSize;
            if (i != root && bytes > 0)
            {
                context.recv(i, recvBase, recvOffset + displs[i] * elementSize, bytes);
            }
        }
    }
}
