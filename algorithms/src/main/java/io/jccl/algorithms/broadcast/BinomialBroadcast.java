package io.jccl.algorithms.broadcast;

import io.jccl.Collective;
import io.jccl.algorithms.pattern.BinomialTree;
import io.jccl.spi.CollectiveAlgorithm;
import io.jccl.spi.CollectiveArgs;
import io.jccl.spi.CollectiveContext;

import java.util.Set;

import static io.jccl.algorithms.pattern.BinomialTree.absoluteRank;
import static io.jccl.algorithms.pattern.BinomialTree.relativeRank;

/**
 * Binomial tree broadcast: every rank receives the whole vector from its parent, then forwards it to its children,
 * largest subtree first. Cost {@code lg p·(α + nβ)}: good for small vectors, where the lg p latency terms dominate.
 */
public final class BinomialBroadcast implements CollectiveAlgorithm
{
    private static final Set<Collective> COLLECTIVES = Set.of(Collective.BROADCAST);

    @Override
    public String name()
    {
        return "binomial";
    }

    @Override
    public String description()
    {
        return "binomial tree from the root, whole vector per message: lg p steps, best for small vectors";
    }

    @Override
    public Set<Collective> collectives()
    {
        return COLLECTIVES;
    }

    @Override
    public void run(final CollectiveContext context, final CollectiveArgs args)
    {
        broadcast(context, args.root, args.recvBase, args.recvOffset, args.count * args.elementSize());
    }

    /**
     * Broadcasts {@code bytes} at {@code (base, offset)} from {@code root} down a binomial tree; the memory holds the
     * data on the root and receives it everywhere else. Also the second half of reduce-broadcast allreduce.
     */
    public static void broadcast(
        final CollectiveContext context, final int root, final Object base, final long offset, final long bytes)
    {
        final int size = context.size();
        if (bytes == 0 || size == 1)
        {
            return;
        }
        final BinomialTree tree = BinomialTree.BINOMIAL;
        final int relative = relativeRank(context.rank(), root, size);

        // step 1: receive the vector from the parent (the root has it already)
        if (relative != 0)
        {
            context.recv(absoluteRank(tree.parent(relative), root, size), base, offset, bytes);
        }

        // step 2: forward it to each child, largest subtree first so the deepest branch starts soonest
        final int children = tree.childCount(relative, size);
        for (int i = 0; i < children; i++)
        {
            context.send(absoluteRank(tree.child(relative, size, i), root, size), base, offset, bytes);
        }
    }
}
