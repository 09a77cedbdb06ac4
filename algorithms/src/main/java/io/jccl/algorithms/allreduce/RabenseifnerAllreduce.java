package io.jccl.algorithms.allreduce;

import io.jccl.Collective;
import io.jccl.DataType;
import io.jccl.ReduceOp;
import io.jccl.algorithms.pattern.Exchange;
import io.jccl.algorithms.pattern.RecursiveDoubling;
import io.jccl.algorithms.pattern.VectorSplit;
import io.jccl.spi.CollectiveAlgorithm;
import io.jccl.spi.CollectiveArgs;
import io.jccl.spi.CollectiveContext;
import io.jccl.spi.Memory;

import java.util.EnumSet;
import java.util.Set;

/**
 * Rabenseifner allreduce: a recursive-halving reduce-scatter (at distance q/2, ..., 1 each rank keeps half of its
 * current window, sends the other half to its partner and reduces the half it keeps) leaves virtual rank v with
 * block v of q nearly-equal blocks fully reduced, then a recursive-doubling allgather hands the blocks round. Each
 * element is reduced once, on its owner, so every rank ends with the same bits. Rank counts that are not a power of
 * two fold first (see {@link RecursiveDoubling}).
 * <p>
 * Cost, n bytes, p a power of two: 2 lg p·α + 2n(p − 1)/p·β + n(p − 1)/p·γ. Otherwise, with q = 2^⌊lg p⌋ in place
 * of p, add the fold and unfold: 2α + 2n·β + n·γ. α is paid once per chunk of a message.
 */
public final class RabenseifnerAllreduce implements CollectiveAlgorithm
{
    private static final Set<Collective> COLLECTIVES = EnumSet.of(Collective.ALLREDUCE);

    private final int chunkBytes;

    public RabenseifnerAllreduce()
    {
        this(Exchange.CHUNK_BYTES_DEFAULT);
    }

    public RabenseifnerAllreduce(final int chunkBytes)
    {
        this.chunkBytes = Exchange.checkChunkBytes(chunkBytes);
    }

    @Override
    public String name()
    {
        return "rabenseifner";
    }

    @Override
    public String description()
    {
        return "recursive-halving reduce-scatter then recursive-doubling allgather: bandwidth-optimal in lg p " +
            "steps, for medium and large vectors";
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
        final long count = args.count;
        final long elementSize = type.size();
        final long bytes = count * elementSize;

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
        // This rank's vector stays in send until its first reduction writes the sum into recv (the fold's, else the
        // first halving step's, whose window the later steps keep within), and the allgather writes the rest of recv:
        // no copy of the vector into recv beforehand (in place, send is recv).
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

        // reduce-scatter, step mask = q/2, ..., 1: keep the half of the window on this rank's side of the mask,
        // send the other half to the partner, reduce the kept half with the partner's copy of it
        final int virtualSize = RecursiveDoubling.powerOfTwoBelow(size);
        final int virtual = RecursiveDoubling.virtualRank(rank, size);
        int windowStart = 0;
        for (int mask = virtualSize >> 1; mask > 0; mask >>= 1)
        {
            final int partner = RecursiveDoubling.realRank(RecursiveDoubling.partner(virtual, mask), size);
            final int keep = (virtual & mask) == 0 ? windowStart : windowStart + mask;
            final int give = (virtual & mask) == 0 ? windowStart + mask : windowStart;
            final long keepStart = VectorSplit.start(count, virtualSize, keep) * elementSize;
            final long giveStart = VectorSplit.start(count, virtualSize, give) * elementSize;
            Exchange.sendRecvReduce(context, type, op, chunkBytes,
                partner, vectorBase, vectorOffset + giveStart,
                VectorSplit.start(count, virtualSize, give + mask) * elementSize - giveStart,
                partner, VectorSplit.start(count, virtualSize, keep + mask) * elementSize - keepStart, landing,
                vectorBase, vectorOffset + keepStart, recvBase, recvOffset + keepStart, false);
            vectorBase = recvBase;
            vectorOffset = recvOffset;
            windowStart = keep;
        }

        // allgather, step mask = 1, ..., q/2: block v is final; swap the group of mask blocks held for the partner's
        for (int mask = 1; mask < virtualSize; mask <<= 1)
        {
            final int partnerVirtual = RecursiveDoubling.partner(virtual, mask);
            final int partner = RecursiveDoubling.realRank(partnerVirtual, size);
            final int mine = RecursiveDoubling.groupStart(virtual, mask);
            final int theirs = RecursiveDoubling.groupStart(partnerVirtual, mask);
            final long mineStart = VectorSplit.start(count, virtualSize, mine) * elementSize;
            final long theirsStart = VectorSplit.start(count, virtualSize, theirs) * elementSize;
            Exchange.sendRecv(context, chunkBytes,
                partner, recvBase, recvOffset + mineStart,
                VectorSplit.start(count, virtualSize, mine + mask) * elementSize - mineStart,
                partner, recvBase, recvOffset + theirsStart,
                VectorSplit.start(count, virtualSize, theirs + mask) * elementSize - theirsStart);
        }

        // unfold: send the result to the rank that sat out
        if (takesFold)
        {
            Exchange.send(context, chunkBytes, rank - 1, recvBase, recvOffset, bytes);
        }
    }
}
