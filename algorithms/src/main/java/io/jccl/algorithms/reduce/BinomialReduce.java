package io.jccl.algorithms.reduce;

import io.jccl.Collective;
import io.jccl.DataType;
import io.jccl.ReduceOp;
import io.jccl.algorithms.pattern.BinomialTree;
import io.jccl.spi.CollectiveAlgorithm;
import io.jccl.spi.CollectiveArgs;
import io.jccl.spi.CollectiveContext;
import io.jccl.spi.Memory;
import io.jccl.spi.Reductions;

import java.util.Set;

import static io.jccl.algorithms.pattern.BinomialTree.absoluteRank;
import static io.jccl.algorithms.pattern.BinomialTree.relativeRank;

/**
 * Binomial tree reduce: every rank folds the partial results of its children, nearest child first, into its own
 * vector and sends the sum of its subtree to its parent; the root ends with the full reduction. Leaves send their
 * input as it is. Cost {@code lg p·(α + nβ + nγ)}: good for small vectors.
 */
public final class BinomialReduce implements CollectiveAlgorithm
{
    /** Scratch area holding a non-root's partial result. */
    private static final int SCRATCH_PARTIAL = 0;
    /** Scratch area receiving a child's partial result. */
    private static final int SCRATCH_INCOMING = 1;

    private static final Set<Collective> COLLECTIVES = Set.of(Collective.REDUCE);

    @Override
    public String name()
    {
        return "binomial";
    }

    @Override
    public String description()
    {
        return "binomial tree towards the root, whole vector per message: lg p steps, best for small vectors";
    }

    @Override
    public Set<Collective> collectives()
    {
        return COLLECTIVES;
    }

    @Override
    public void run(final CollectiveContext context, final CollectiveArgs args)
    {
        reduce(context, args.type, args.op, args.count, args.root,
            args.sendBase, args.sendOffset, args.recvBase, args.recvOffset);
    }

    /**
     * Reduces {@code count} elements of every rank's {@code send} into {@code result} on {@code root} along a binomial
     * tree; {@code result} is touched on the root only and may be {@code send} itself. Uses scratch areas 0 and 1.
     * Also the first half of reduce-broadcast allreduce.
     */
    public static void reduce(
        final CollectiveContext context,
        final DataType type,
        final ReduceOp op,
        final long count,
        final int root,
        final Object sendBase,
        final long sendOffset,
        final Object resultBase,
        final long resultOffset)
    {
        final long bytes = count * type.size();
        if (bytes == 0)
        {
            return;
        }
        final BinomialTree tree = BinomialTree.BINOMIAL;
        final int size = context.size();
        final int relative = relativeRank(context.rank(), root, size);
        final int children = tree.childCount(relative, size);

        // the partial result starts as this rank's input and moves to the accumulator at the first child
        Object partialBase = sendBase;
        long partialOffset = sendOffset;
        if (children > 0)
        {
            final Object accumulatorBase = relative == 0 ? resultBase : null;
            final long accumulatorOffset = relative == 0 ? resultOffset : context.scratch(SCRATCH_PARTIAL, bytes);
            final long incoming = context.scratch(SCRATCH_INCOMING, bytes);

            // step per child, nearest (smallest subtree, ready first) to farthest: receive its partial and fold it in
            for (int i = children - 1; i >= 0; i--)
            {
                final int child = absoluteRank(tree.child(relative, size, i), root, size);
                context.recv(child, null, incoming, bytes);
                Reductions.reduce(type, op, partialBase, partialOffset, null, incoming,
                    accumulatorBase, accumulatorOffset, count);
                partialBase = accumulatorBase;
                partialOffset = accumulatorOffset;
            }
        }

        if (relative == 0)
        {
            // root: the result is in place unless there were no children (one rank)
            Memory.copy(partialBase, partialOffset, resultBase, resultOffset, bytes);
        }
        else
        {
            // last step: the subtree's partial result goes to the parent, which reduces it
            context.sendForReduction(absoluteRank(tree.parent(relative), root, size), partialBase, partialOffset,
                bytes);
        }
    }
}
