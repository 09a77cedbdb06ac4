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
 * Van de Geijn broadcast: the vector is cut into p blocks of {@code ceil(count / p)} elements (block j belongs to
 * relative rank j), a binomial scatter hands every rank its block, then a ring allgather completes the vector on
 * every rank. All blocks stay at their place in the receive buffer, so nothing is copied locally.
 * Cost {@code (lg p + p - 1)·α + 2n(p-1)/p·β}: bandwidth-optimal for large vectors, at p - 1 extra latencies.
 */
public final class ScatterAllgatherBroadcast implements CollectiveAlgorithm
{
    private static final Set<Collective> COLLECTIVES = Set.of(Collective.BROADCAST);

    @Override
    public String name()
    {
        return "scatter_allgather";
    }

    @Override
    public String description()
    {
        return "van de Geijn: binomial scatter of p blocks then ring allgather, 2n(p-1)/p bytes moved, " +
            "best for large vectors";
    }

    @Override
    public Set<Collective> collectives()
    {
        return COLLECTIVES;
    }

    @Override
    public void run(final CollectiveContext context, final CollectiveArgs args)
    {
        final int size = context.size();
        final long count = args.count;
        if (count == 0 || size == 1)
        {
            return;
        }
        final BinomialTree tree = BinomialTree.BINOMIAL;
        final int root = args.root;
        final int relative = relativeRank(context.rank(), root, size);
        final long elementSize = args.elementSize();
        final long blockCount = (count + size - 1) / size;
        final Object base = args.recvBase;
        final long offset = args.recvOffset;

        // scatter, step 1: receive the blocks of this rank's subtree from the parent, in place
        final int subtreeEnd = tree.subtreeEnd(relative, size);
        if (relative != 0)
        {
            final long from = blockStart(relative, blockCount, count, elementSize);
            context.recv(absoluteRank(tree.parent(relative), root, size), base, offset + from,
                blockStart(subtreeEnd, blockCount, count, elementSize) - from);
        }

        // scatter, step 2: send each child the blocks of its subtree, largest subtree first
        final int children = tree.childCount(relative, size);
        for (int i = 0; i < children; i++)
        {
            final int child = tree.child(relative, size, i);
            final long from = blockStart(child, blockCount, count, elementSize);
            final long to = blockStart(tree.subtreeEnd(child, size), blockCount, count, elementSize);
            context.send(absoluteRank(child, root, size), base, offset + from, to - from);
        }

        // allgather, step s of p-1: pass block (r - s) to the next rank, receive block (r - s - 1) from the previous
        final int next = absoluteRank(relative + 1 == size ? 0 : relative + 1, root, size);
        final int previous = absoluteRank(relative == 0 ? size - 1 : relative - 1, root, size);
        int sendBlock = relative;
        for (int step = 0; step < size - 1; step++)
        {
            final int recvBlock = sendBlock == 0 ? size - 1 : sendBlock - 1;
            final long sendFrom = blockStart(sendBlock, blockCount, count, elementSize);
            final long sendTo = blockStart(sendBlock + 1, blockCount, count, elementSize);
            final long recvFrom = blockStart(recvBlock, blockCount, count, elementSize);
            final long recvTo = blockStart(recvBlock + 1, blockCount, count, elementSize);
            context.sendRecv(
                next, base, offset + sendFrom, sendTo - sendFrom,
                previous, base, offset + recvFrom, recvTo - recvFrom);
            sendBlock = recvBlock;
        }
    }

    /** Byte offset of block {@code block} in the vector; blocks past the end are empty. */
    private static long blockStart(final int block, final long blockCount, final long count, final long elementSize)
    {
        return Math.min(block * blockCount, count) * elementSize;
    }
}
