package io.jccl.algorithms.allreduce;

import io.jccl.Collective;
import io.jccl.DataType;
import io.jccl.ReduceOp;
import io.jccl.algorithms.pattern.Exchange;
import io.jccl.algorithms.pattern.RecursiveDoubling;
import io.jccl.spi.CollectiveAlgorithm;
import io.jccl.spi.CollectiveArgs;
import io.jccl.spi.CollectiveContext;
import io.jccl.spi.Memory;

import java.util.EnumSet;
import java.util.Set;

/**
 * Recursive doubling allreduce: at distance 1, 2, 4, ... each rank swaps its whole vector with its partner and both
 * reduce the pair. Both apply the operator to the same operands in the same order (lower virtual rank's vector
 * first), so partners hold the same bits after every step and all ranks end identical. Rank counts that are not a
 * power of two fold first (see {@link RecursiveDoubling}): each even rank of a folded pair gives its vector to the
 * odd one, and is sent the result at the end.
 * <p>
 * Cost, n bytes, p a power of two: lg p·α + n·lg p·β + n·lg p·γ. Otherwise, with lg q steps for q = 2^⌊lg p⌋,
 * add the fold and unfold: 2α + 2n·β + n·γ. α is paid once per chunk of a message.
 */
public final class RecursiveDoublingAllreduce implements CollectiveAlgorithm
{
    private static final Set<Collective> COLLECTIVES = EnumSet.of(Collective.ALLREDUCE);

    private final int chunkBytes;

    public RecursiveDoublingAllreduce()
    {
        this(Exchange.CHUNK_BYTES_DEFAULT);
    }

    public RecursiveDoublingAllreduce(final int chunkBytes)
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
        return "lg p steps swapping the whole vector with a partner at doubling distance: fewest steps, for small " +
            "vectors";
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
        final DataType type = args.type;
        final ReduceOp op = args.op;
        final Object recvBase = args.recvBase;
        final long recvOffset = args.recvOffset;
        final long bytes = args.count * type.size();

        if (size == 1 || bytes == 0)
        {
            Memory.copy(args.sendBase, args.sendOffset, recvBase, recvOffset, bytes);
            return;
        }

        // fold: the even rank of a pair hands its vector to the odd one and waits for the result
        if (RecursiveDoubling.sitsOut(rank, size))
        {
            Exchange.send(context, chunkBytes, rank + 1, args.sendBase, args.sendOffset, bytes);
            Exchange.recv(context, chunkBytes, rank + 1, recvBase, recvOffset, bytes);
            return;
        }
        // This rank's vector stays in send until its first reduction writes the sum into recv: no copy of the vector
        // into recv beforehand (in place, send is recv).
        Object vectorBase = args.sendBase;
        long vectorOffset = args.sendOffset;
        final long landing = context.scratch(0, Math.min(chunkBytes, bytes));
        final boolean takesFold = RecursiveDoubling.takesFold(rank, size);
        if (takesFold)
        {
            Exchange.sendRecvReduce(context, type, op, chunkBytes,
                rank - 1, null, 0, 0,
                rank - 1, bytes, landing,
                vectorBase, vectorOffset, recvBase, recvOffset, false);
            vectorBase = recvBase;
            vectorOffset = recvOffset;
        }

        // step mask = 1, 2, 4, ...: swap vectors with the partner; both reduce lower virtual rank's first
        final int virtualSize = RecursiveDoubling.powerOfTwoBelow(size);
        final int virtual = RecursiveDoubling.virtualRank(rank, size);
        for (int mask = 1; mask < virtualSize; mask <<= 1)
        {
            final int partnerVirtual = RecursiveDoubling.partner(virtual, mask);
            final int partner = RecursiveDoubling.realRank(partnerVirtual, size);
            Exchange.sendRecvReduce(context, type, op, chunkBytes,
                partner, vectorBase, vectorOffset, bytes,
                partner, bytes, landing,
                vectorBase, vectorOffset, recvBase, recvOffset, virtual < partnerVirtual);
            vectorBase = recvBase;
            vectorOffset = recvOffset;
        }

        // unfold: send the result to the rank that sat out
        if (takesFold)
        {
            Exchange.send(context, chunkBytes, rank - 1, recvBase, recvOffset, bytes);
        }
    }
}
