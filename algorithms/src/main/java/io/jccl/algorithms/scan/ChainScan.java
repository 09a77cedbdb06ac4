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
 * Pipelined chain scan, inclusive (scan) and exclusive (exscan): the running prefix moves 0 → 1 → ... → p − 1, the
 * vector cut into chunks of {@code s} bytes, so that rank r reduces chunk k of the prefix of ranks 0..r − 1 with its
 * own chunk k and passes the result on while its predecessor already sends chunk k + 1. Operands in rank order.
 * <p>
 * Cost, C = ⌈n/s⌉ chunks: (p − 2 + C)·(α + (n/C)·β + (n/C)·γ), about n(β + γ) + (p − 2)·s(β + γ) for long vectors:
 * every byte crosses each link once, but p − 1 steps of latency. The exclusive form's last rank only receives: one
 * stage of reductions less, (p − 3 + C)·(n/C)·γ, and none at 2 ranks. Each rank waits only for the one below it, so
 * back-to-back calls flow through the chain, which the selector takes while ranks outnumber cores.
 */
public final class ChainScan implements CollectiveAlgorithm
{
    /** Default chunk: small enough to fill the chain quickly, large enough to amortise α. */
    public static final int CHUNK_BYTES_DEFAULT = 256 * 1024;

    private static final Set<Collective> COLLECTIVES = EnumSet.of(Collective.SCAN, Collective.EXSCAN);

    private final int chunkBytes;

    public ChainScan()
    {
        this(CHUNK_BYTES_DEFAULT);
    }

    /** A chain cutting the vector into chunks of {@code chunkBytes}, a positive multiple of 8. */
    public ChainScan(final int chunkBytes)
    {
        this.chunkBytes = Exchange.checkChunkBytes(chunkBytes);
    }

    public int chunkBytes()
    {
        return chunkBytes;
    }

    @Override
    public String name()
    {
        return "chain";
    }

    @Override
    public String description()
    {
        return "the running prefix passed rank to rank in pipelined chunks: every byte crosses each link once, " +
            "p - 1 steps of latency; for large vectors";
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
        final DataType type = args.type;
        final ReduceOp op = args.op;
        final boolean inclusive = args.collective == Collective.SCAN;
        final Object sendBase = args.sendBase;
        final long sendOffset = args.sendOffset;
        final Object recvBase = args.recvBase;
        final long recvOffset = args.recvOffset;
        final long bytes = args.count * type.size();
        if (size == 1 || bytes == 0)
        {
            if (inclusive)
            {
                Memory.copy(sendBase, sendOffset, recvBase, recvOffset, bytes);
            }
            return;
        }
        final int next = rank + 1 < size ? rank + 1 : -1;
        final long chunk = chunkBytes;
        final long firstChunk = Math.min(chunk, bytes);
        // In place, the prefix lands beside recv (it is the own input until the reduction); else in recv itself,
        // where the inclusive result is reduced in place and the exclusive one is already final.
        final boolean inPlace = sendBase == recvBase && sendOffset == recvOffset;
        final long landing = rank > 0 && inPlace ? context.scratch(0, firstChunk) : 0;
        final long outgoing = !inclusive && rank > 0 && next >= 0 ? context.scratch(1, firstChunk) : 0;

        for (long position = 0; position < bytes; position += chunk)
        {
            final long length = Math.min(chunk, bytes - position);
            if (rank == 0)
            {
                // rank 0: its input is the prefix; pass chunk k on
                if (inclusive)
                {
                    Memory.copy(sendBase, sendOffset + position, recvBase, recvOffset + position, length);
                }
                context.send(next, sendBase, sendOffset + position, length);
                continue;
            }
            final long elements = length / type.size();
            final Object prefixBase = inPlace ? null : recvBase;
            final long prefixOffset = inPlace ? landing : recvOffset + position;
            // chunk k, step 1: the prefix of ranks 0..r-1 from the predecessor
            context.recv(rank - 1, prefixBase, prefixOffset, length);
            if (inclusive)
            {
                // step 2: recv = prefix op own, passed on while the predecessor moves chunk k+1
                Reductions.reduce(type, op, prefixBase, prefixOffset, sendBase, sendOffset + position,
                    recvBase, recvOffset + position, elements);
                if (next >= 0)
                {
                    context.send(next, recvBase, recvOffset + position, length);
                }
                continue;
            }
            // exclusive, step 2: the successor's prefix is this one op own (read before an in-place recv is written)
            if (next >= 0)
            {
                Reductions.reduce(type, op, prefixBase, prefixOffset, sendBase, sendOffset + position,
                    null, outgoing, elements);
                context.send(next, null, outgoing, length);
            }
            if (inPlace)
            {
                Memory.copy(null, landing, recvBase, recvOffset + position, length);
            }
        }
    }
}
