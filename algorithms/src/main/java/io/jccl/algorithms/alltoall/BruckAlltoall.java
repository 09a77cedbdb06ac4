package io.jccl.algorithms.alltoall;

import io.jccl.Collective;
import io.jccl.algorithms.pattern.Bruck;
import io.jccl.spi.CollectiveAlgorithm;
import io.jccl.spi.CollectiveArgs;
import io.jccl.spi.CollectiveContext;
import io.jccl.spi.Memory;

import java.util.Set;

/**
 * Bruck alltoall: blocks are rotated so that index i holds the block for rank {@code r + i}; at step k every rank
 * packs the blocks whose index has bit k set, sends them to rank {@code r + 2^k} and unpacks the same indices from
 * rank {@code r - 2^k}; after {@code ceil(lg p)} steps index i holds the block from rank {@code r - i}, and an
 * inverse rotation puts it in place. Any p. Cost {@code ceil(lg p)·α + (n/2)·lg p·β} plus local packing copies:
 * fewer messages than pairwise, more bytes, so best for small blocks.
 */
public final class BruckAlltoall implements CollectiveAlgorithm
{
    private static final int SCRATCH_ROTATED = 0;
    private static final int SCRATCH_PACKED_OUT = 1;
    private static final int SCRATCH_PACKED_IN = 2;

    private static final Set<Collective> COLLECTIVES = Set.of(Collective.ALLTOALL);

    @Override
    public String name()
    {
        return "bruck";
    }

    @Override
    public String description()
    {
        return "Bruck: ceil(lg p) steps moving the blocks whose index has bit k set, any p; " +
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

        // phase 1: rotate, index i := send block for rank (r + i) mod p (reads all of send first: in place is safe)
        final long headBytes = (size - rank) * blockBytes;
        Memory.copy(args.sendBase, args.sendOffset + rank * blockBytes, null, rotated, headBytes);
        Memory.copy(args.sendBase, args.sendOffset, null, rotated + headBytes, rank * blockBytes);

        // phase 2, step k: pack indices with bit k set, send them to r + 2^k, unpack the same indices from r - 2^k
        final int steps = Bruck.steps(size);
        if (steps > 0)
        {
            // at most p/2 indices below p have a given bit set
            final long packBytes = (size / 2) * blockBytes;
            final long packedOut = context.scratch(SCRATCH_PACKED_OUT, packBytes);
            final long packedIn = context.scratch(SCRATCH_PACKED_IN, packBytes);
            for (int step = 0; step < steps; step++)
            {
                long packed = 0;
                for (int index = 1; index < size; index++)
                {
                    if (Bruck.movesAt(index, step))
                    {
                        Memory.copy(null, rotated + index * blockBytes, null, packedOut + packed, blockBytes);
                        packed += blockBytes;
                    }
                }

                final int distance = Bruck.distance(step);
                context.sendRecv(
                    Bruck.ahead(rank, distance, size), null, packedOut, packed,
                    Bruck.behind(rank, distance, size), null, packedIn, packed);

                long unpacked = 0;
                for (int index = 1; index < size; index++)
                {
                    if (Bruck.movesAt(index, step))
                    {
                        Memory.copy(null, packedIn + unpacked, null, rotated + index * blockBytes, blockBytes);
                        unpacked += blockBytes;
                    }
                }
            }
        }

        // phase 3: inverse rotation, index i holds the block from rank (r - i) mod p
        for (int index = 0; index < size; index++)
        {
            final int source = index <= rank ? rank - index : rank - index + size;
            Memory.copy(null, rotated + index * blockBytes, args.recvBase, args.recvOffset + source * blockBytes,
                blockBytes);
        }
    }
}
