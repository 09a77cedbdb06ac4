package io.jccl.algorithms.allgather;

import io.jccl.Collective;
import io.jccl.algorithms.pattern.Exchange;
import io.jccl.algorithms.pattern.RecursiveDoubling;
import io.jccl.spi.CollectiveAlgorithm;
import io.jccl.spi.CollectiveArgs;
import io.jccl.spi.CollectiveContext;
import io.jccl.spi.Memory;

import java.util.EnumSet;
import java.util.Set;

/**
 * Recursive doubling allgather: at distance 1, 2, 4, ... each rank swaps everything it holds with its partner, so
 * the data held doubles every step. Rank counts that are not a power of two fold first (see
 * {@link RecursiveDoubling}): each even rank of a folded pair gives its block to the odd one, and is sent the whole
 * result at the end.
 * <p>
 * Cost, n bytes of output, p a power of two: lg p·α + n(p − 1)/p·β. Otherwise, with q = 2^⌊lg p⌋, add the fold and
 * unfold: 2α + (n/p + n)·β. α is paid once per chunk of a message.
 */
public final class RecursiveDoublingAllgather implements CollectiveAlgorithm
{
    private static final Set<Collective> COLLECTIVES = EnumSet.of(Collective.ALLGATHER);

    private final int chunkBytes;

    public RecursiveDoublingAllgather()
    {
        this(Exchange.CHUNK_BYTES_DEFAULT);
    }

    public RecursiveDoublingAllgather(final int chunkBytes)
    {
        this.chunkBytes = Exchange.checkChunkBytes(chunkBytes);
    }

    @Override
    public String name()
    {
        return "recursive_doubling";
    }

    @Override
    public String description()
    {
        return "lg p steps swapping all data held with a partner at doubling distance: few steps, for small blocks";
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
        final int rank = context.rank();
        final int chunkBytes = this.chunkBytes;
        final Object recvBase = args.recvBase;
        final long recvOffset = args.recvOffset;
        final long blockBytes = args.count * args.elementSize();

        // own block into place (skipped when the caller already put it there)
        Memory.copy(args.sendBase, args.sendOffset, recvBase, recvOffset + rank * blockBytes, blockBytes);
        if (size == 1 || blockBytes == 0)
        {
            return;
        }

        // fold: the even rank of a pair hands its block to the odd one and waits for the whole vector
        if (RecursiveDoubling.sitsOut(rank, size))
        {
            Exchange.send(context, chunkBytes, rank + 1, recvBase, recvOffset + rank * blockBytes, blockBytes);
            Exchange.recv(context, chunkBytes, rank + 1, recvBase, recvOffset, size * blockBytes);
            return;
        }
        final boolean takesFold = RecursiveDoubling.takesFold(rank, size);
        if (takesFold)
        {
            Exchange.recv(context, chunkBytes, rank - 1, recvBase, recvOffset + (rank - 1) * blockBytes, blockBytes);
        }

        // step mask = 1, 2, 4, ...: swap the group of mask virtual ranks held for the partner's group
        final int virtualSize = RecursiveDoubling.powerOfTwoBelow(size);
        final int virtual = RecursiveDoubling.virtualRank(rank, size);
        for (int mask = 1; mask < virtualSize; mask <<= 1)
        {
            final int partnerVirtual = RecursiveDoubling.partner(virtual, mask);
            final int partner = RecursiveDoubling.realRank(partnerVirtual, size);
            final int mine = RecursiveDoubling.groupStart(virtual, mask);
            final int theirs = RecursiveDoubling.groupStart(partnerVirtual, mask);
            final long mineStart = RecursiveDoubling.firstRealBlock(mine, size) * blockBytes;
            final long theirsStart = RecursiveDoubling.firstRealBlock(theirs, size) * blockBytes;
            Exchange.sendRecv(context, chunkBytes,
                partner, recvBase, recvOffset + mineStart,
                RecursiveDoubling.firstRealBlock(mine + mask, size) * blockBytes - mineStart,
                partner, recvBase, recvOffset + theirsStart,
                RecursiveDoubling.firstRealBlock(theirs + mask, size) * blockBytes - theirsStart);
        }

        // unfold: send the whole vector to the rank that sat out
        if (takesFold)
        {
            Exchange.send(context, chunkBytes, rank - 1, recvBase, recvOffset, size * blockBytes);
        }
    }
}
