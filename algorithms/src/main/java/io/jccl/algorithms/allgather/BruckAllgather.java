package io.jccl.algorithms.allgather;

import io.jccl.Collective;
import io.jccl.algorithms.pattern.Bruck;
import io.jccl.spi.CollectiveAlgorithm;
import io.jccl.spi.CollectiveArgs;
import io.jccl.spi.CollectiveContext;
import io.jccl.spi.Memory;

import java.util.Set;

/**
 * Bruck allgather: blocks are kept rotated in scratch (index i holds rank {@code r + i}'s block); at step k every
 * rank sends its first {@code min(2^k, p - 2^k)} blocks to rank {@code r - 2^k} and appends as many from rank
 * {@code r + 2^k}; a final rotation puts every block at its place. Any p, power of two or not.
 * Cost {@code ceil(lg p)·α + n(p-1)/p·β} plus one local copy of n: latency-optimal, good for small blocks.
 */
public final class BruckAllgather implements CollectiveAlgorithm
{
    private static final int SCRATCH_ROTATED = 0;

    private static final Set<Collective> COLLECTIVES = Set.of(Collective.ALLGATHER);

    @Override
    public String name()
    {
        return "bruck";
    }

    @Override
    public String description()
    {
        return "Bruck: ceil(lg p) steps of doubling block runs, any p, then one local rotation; " +
            "best for small blocks";
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
        final int size = context.size();
        final int rank = context.rank();
        final long rotated = context.scratch(SCRATCH_ROTATED, size * blockBytes);

        // step 0: own block at rotated index 0 (reads send before recv is written, so in place is safe)
        Memory.copy(args.sendBase, args.sendOffset, null, rotated, blockBytes);

        // step k: send the first min(2^k, p - 2^k) blocks to r - 2^k, receive as many from r + 2^k behind ours
        for (int step = 0, steps = Bruck.steps(size); step < steps; step++)
        {
            final int distance = Bruck.distance(step);
            final long bytes = Bruck.allgatherBlocks(distance, size) * blockBytes;
            context.sendRecv(
                Bruck.behind(rank, distance, size), null, rotated, bytes,
                Bruck.ahead(rank, distance, size), null, rotated + distance * blockBytes, bytes);
        }

        // last step: undo the rotation, rotated index i is rank (r + i) mod p
        final long headBytes = (size - rank) * blockBytes;
        Memory.copy(null, rotated, args.recvBase, args.recvOffset + rank * blockBytes, headBytes);
        Memory.copy(null, rotated + headBytes, args.recvBase, args.recvOffset, rank * blockBytes);
    }
}
