package io.jccl.algorithms.scan;

import io.jccl.Collective;
import io.jccl.DataType;
import io.jccl.ReduceOp;
import io.jccl.algorithms.pattern.Exchange;
import io.jccl.spi.CollectiveAlgorithm;
import io.jccl.spi.CollectiveArgs;
import io.jccl.spi.CollectiveContext;
import io.jccl.spi.Memory;
import io.jccl.spi.Reductions;

import java.util.EnumSet;
import java.util.Set;

/**
 * Recursive doubling scan, inclusive (scan) and exclusive (exscan), as MPICH's MPI_Scan: every rank keeps a partial
 * reduction of the aligned block of ranks it belongs to, which doubles every step. At distance 1, 2, 4, ... each rank
 * swaps its partial with the partner {@code rank ^ distance}; both fold the partner's partial into their own (the
 * lower block's first), and the upper one also into its result, which so covers ranks {@code rank & ~(2·distance −
 * 1)} to {@code rank} (to {@code rank − 1}, exclusive). Works for any rank count: a partner past the last rank is
 * skipped. At the last step nobody needs the partials again, so only the lower rank sends. The vector moves chunk by
 * chunk, each chunk a scan of its own, so that scratch stays within two chunks.
 * <p>
 * Cost, n bytes, C = ⌈n/s⌉ chunks: lg p·(Cα + nβ) + (2 lg p − 1)·nγ on the last rank, which reduces twice a step but
 * the last (2 lg p − 2 for the exclusive form, whose first result is a copy): fewest steps, for small vectors.
 */
public final class RecursiveDoublingScan implements CollectiveAlgorithm
{
    private static final Set<Collective> COLLECTIVES = EnumSet.of(Collective.SCAN, Collective.EXSCAN);

    private final int chunkBytes;

    public RecursiveDoublingScan()
    {
        this(Exchange.CHUNK_BYTES_DEFAULT);
    }

    public RecursiveDoublingScan(final int chunkBytes)
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
        return "lg p steps swapping partial reductions with a partner at doubling distance: fewest steps, for small " +
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
        final DataType type = args.type;
        final boolean inclusive = args.collective == Collective.SCAN;
        final long bytes = args.count * type.size();
        if (size == 1 || bytes == 0)
        {
            if (inclusive)
            {
                Memory.copy(args.sendBase, args.sendOffset, args.recvBase, args.recvOffset, bytes);
            }
            return;
        }
        final long firstChunk = Math.min(chunkBytes, bytes);
        final long partial = context.scratch(0, firstChunk);
        final long received = context.scratch(1, firstChunk);
        for (long position = 0; position < bytes; position += chunkBytes)
        {
            scanChunk(context, args, inclusive, position, Math.min(chunkBytes, bytes - position), partial, received);
        }
    }

    private static void scanChunk(final CollectiveContext context, final CollectiveArgs args, final boolean inclusive,
        final long position, final long length, final long partial, final long received)
    {
        final int size = context.size();
        final int rank = context.rank();
        final DataType type = args.type;
        final ReduceOp op = args.op;
        final long elements = length / type.size();
        final Object sendBase = args.sendBase;
        final long sendOffset = args.sendOffset + position;
        final Object recvBase = args.recvBase;
        final long recvOffset = args.recvOffset + position;
        // The partial is the own input, read in place, until the first fold writes it into scratch; the inclusive
        // result is the own input until the first lower partial folds into it. In place, send is recv: every fold
        // into the partial reads it before the result is written, and a rank whose result was written without a fold
        // into the partial had its last step.
        Object partialBase = sendBase;
        long partialOffset = sendOffset;
        boolean resultWritten = false;
        final boolean inPlace = sendBase == recvBase && sendOffset == recvOffset;
        for (int distance = 1; distance < size; distance <<= 1)
        {
            final int partner = rank ^ distance;
            if (partner >= size)
            {
                continue;
            }
            // the partials are needed again only if a step follows; both partners see the same
            final boolean stepsFollow = distance << 1 < size;
            if (rank < partner)
            {
                // lower: send the partial; take the partner's only to fold it in for the steps that follow
                if (stepsFollow)
                {
                    context.sendRecv(partner, partialBase, partialOffset, length, partner, null, received, length);
                    Reductions.reduce(type, op, partialBase, partialOffset, null, received, null, partial, elements);
                    partialBase = null;
                    partialOffset = partial;
                }
                else
                {
                    context.send(partner, partialBase, partialOffset, length);
                }
                continue;
            }
            // upper: the partner's partial covers the ranks just below this one's block. An exclusive result's first
            // part lands in recv itself, unless recv is the send buffer, whose input a fold may still read.
            final boolean intoResult = !inclusive && !resultWritten && !inPlace;
            final Object landingBase = intoResult ? recvBase : null;
            final long landingOffset = intoResult ? recvOffset : received;
            if (stepsFollow)
            {
                context.sendRecv(partner, partialBase, partialOffset, length, partner, landingBase, landingOffset,
                    length);
                Reductions.reduce(type, op, landingBase, landingOffset, partialBase, partialOffset, null, partial,
                    elements);
                partialBase = null;
                partialOffset = partial;
            }
            else
            {
                context.recv(partner, landingBase, landingOffset, length);
            }
            if (resultWritten)
            {
                Reductions.reduce(type, op, null, received, recvBase, recvOffset, recvBase, recvOffset, elements);
            }
            else if (inclusive)
            {
                Reductions.reduce(type, op, null, received, sendBase, sendOffset, recvBase, recvOffset, elements);
            }
            else if (!intoResult)
            {
                Memory.copy(null, received, recvBase, recvOffset, length);
            }
            resultWritten = true;
        }
        if (inclusive && !resultWritten)
        {
            // rank 0, the only rank never upper (rank r is upper at the distance of its lowest set bit): its own input
            Memory.copy(sendBase, sendOffset, recvBase, recvOffset, length);
        }
    }
}
