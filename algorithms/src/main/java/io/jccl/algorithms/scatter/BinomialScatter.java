package io.jccl.algorithms.scatter;

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
 * Binomial tree scatter: every rank receives the blocks of its subtree (contiguous in relative rank order) from its
 * parent in one message, keeps its own and passes each child its subtree's blocks, largest subtree first. The root
 * sends straight from its send buffer when it is rank 0, else from a rotated copy in scratch; leaves receive straight
 * into their receive buffer. Cost {@code lg p·α + n(p-1)/p·β} for n bytes scattered: good for small blocks.
 */
public final class BinomialScatter implements CollectiveAlgorithm
{
    private static final int SCRATCH_SUBTREE = 0;

    private static final Set<Collective> COLLECTIVES = Set.of(Collective.SCATTER);

    @Override
    public String name()
    {
        return "binomial";
    }

    @Override
    public String description()
    {
        return "binomial tree from the root, one message per subtree: lg p steps, best for small blocks";
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
            // leaf, one step: receive the own block from the parent
            context.recv(absoluteRank(tree.parent(relative), root, size), args.recvBase, args.recvOffset, blockBytes);
            return;
        }

        // the subtree's blocks in relative rank order: the send buffer on root 0, else scratch
        final Object blocksBase;
        final long blocks;
        if (relative == 0)
        {
            if (root == 0)
            {
                blocksBase = args.sendBase;
                blocks = args.sendOffset;
            }
            else
            {
                // root, step 0: rotate, relative block j := send block of rank (j + root) mod p
                blocksBase = null;
                blocks = context.scratch(SCRATCH_SUBTREE, size * blockBytes);
                final long headBytes = (size - root) * blockBytes;
                Memory.copy(args.sendBase, args.sendOffset + root * blockBytes, null, blocks, headBytes);
                Memory.copy(args.sendBase, args.sendOffset, null, blocks + headBytes, root * blockBytes);
            }
        }
        else
        {
            // inner rank, step 0: receive the subtree's blocks from the parent
            final int subtreeEnd = tree.subtreeEnd(relative, size);
            blocksBase = null;
            blocks = context.scratch(SCRATCH_SUBTREE, (subtreeEnd - relative) * blockBytes);
            context.recv(absoluteRank(tree.parent(relative), root, size), null, blocks,
                (subtreeEnd - relative) * blockBytes);
        }

        // step per child, largest subtree first: send it its subtree's blocks
        for (int i = 0; i < children; i++)
        {
            final int child = tree.child(relative, size, i);
            context.send(absoluteRank(child, root, size), blocksBase, blocks + (child - relative) * blockBytes,
                (tree.subtreeEnd(child, size) - child) * blockBytes);
        }

        // last step: own block, from send on the root (last, so recv may alias any block of send)
        if (relative == 0)
        {
            Memory.copy(args.sendBase, args.sendOffset + root * blockBytes, args.recvBase, args.recvOffset,
                blockBytes);
        }
        else
        {
            Memory.copy(null, blocks, args.recvBase, args.recvOffset, blockBytes);
        }
    }
}
