package io.jccl.algorithms.gather;

import io.jccl.Collective;
import io.jccl.algorithms.pattern.BinomialTree;
import io.jccl.spi.CollectiveAlgorithm;
import io.jccl.spi.CollectiveArgs;
import io.jccl.spi.CollectiveContext;
import io.jccl.spi.Memory;

import java.util.Set;

import static io.jccl.algorithms.pattern.BinomialTree.absoluteRank;
import static io.jccl.algorithms.pattern.BinomialTree.relativeRank;

/**
 * Binomial tree gather: every rank collects the blocks of its subtree (contiguous in relative rank order) and sends
 * them to its parent in one message. Leaves send their input as it is; the root gathers straight into its receive
 * buffer when it is rank 0, else into scratch followed by one rotation.
 * Cost {@code lg p·α + n(p-1)/p·β} for n bytes gathered: good for small blocks.
 */
public final class BinomialGather implements CollectiveAlgorithm
{
    private static final int SCRATCH_SUBTREE = 0;

    private static final Set<Collective> COLLECTIVES = Set.of(Collective.GATHER);

    @Override
    public String name()
    {
        return "binomial";
    }

    @Override
    public String description()
    {
        return "binomial tree towards the root, one message per subtree: lg p steps, best for small blocks";
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
        final BinomialTree tree = BinomialTree.BINOMIAL;
        final int size = context.size();
        final int root = args.root;
        final int relative = relativeRank(context.rank(), root, size);
        final int children = tree.childCount(relative, size);
        if (relative != 0 && children == 0)
        {
            // leaf, one step: send the own block to the parent
            context.send(absoluteRank(tree.parent(relative), root, size), args.sendBase, args.sendOffset, blockBytes);
            return;
        }

        // the subtree's blocks in relative rank order: straight into recv on root 0, else in scratch
        final int subtreeEnd = tree.subtreeEnd(relative, size);
        final boolean direct = relative == 0 && root == 0;
        final Object gatheredBase = direct ? args.recvBase : null;
        final long gathered = direct ? args.recvOffset :
            context.scratch(SCRATCH_SUBTREE, (subtreeEnd - relative) * blockBytes);

        // step 0: own block first (reads send before recv is written, so in place is safe)
        Memory.copy(args.sendBase, args.sendOffset, gatheredBase, gathered, blockBytes);

        // step per child, nearest (smallest subtree, ready first) to farthest: receive its subtree's blocks
        for (int i = children - 1; i >= 0; i--)
        {
            final int child = tree.child(relative, size, i);
            context.recv(absoluteRank(child, root, size), gatheredBase, gathered + (child - relative) * blockBytes,
                (tree.subtreeEnd(child, size) - child) * blockBytes);
        }

        if (relative != 0)
        {
            // last step: the whole subtree goes to the parent in one message
            context.send(absoluteRank(tree.parent(relative), root, size), gatheredBase, gathered,
                (subtreeEnd - relative) * blockBytes);
        }
        else if (!direct)
        {
            // root: undo the rotation, relative block j belongs to rank (j + root) mod p
            final long headBytes = (size - root) * blockBytes;
            Memory.copy(null, gathered, args.recvBase, args.recvOffset + root * blockBytes, headBytes);
            Memory.copy(null, gathered + headBytes, args.recvBase, args.recvOffset, root * blockBytes);
        }
    }
}
