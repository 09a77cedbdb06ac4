package io.jccl.algorithms.broadcast;

import io.jccl.Collective;
import io.jccl.spi.CollectiveAlgorithm;
import io.jccl.spi.CollectiveArgs;
import io.jccl.spi.CollectiveContext;

import java.util.Set;

import static io.jccl.algorithms.pattern.BinomialTree.absoluteRank;
import static io.jccl.algorithms.pattern.BinomialTree.relativeRank;

/**
 * Pipelined chain broadcast: root → root+1 → root+2 ... (mod p), the vector cut into chunks of {@code s} bytes so
 * that a rank forwards chunk k while its predecessor already sends chunk k+1. With {@code C = ceil(n / s)} chunks the
 * cost is {@code (p - 2 + C)·(α + sβ)}, about {@code nβ + (p - 2)·sβ} for long vectors: best for large vectors.
 */
public final class ChainBroadcast implements CollectiveAlgorithm
{
    /** Default chunk: large enough to amortise α, small enough to fill the chain quickly. */
    public static final int CHUNK_BYTES_DEFAULT = 256 * 1024;

    private static final Set<Collective> COLLECTIVES = Set.of(Collective.BROADCAST);

    private final long chunkBytes;

    public ChainBroadcast()
    {
        this(CHUNK_BYTES_DEFAULT);
    }

    /** A chain cutting the vector into chunks of {@code chunkBytes} (need not be a multiple of the element size). */
    public ChainBroadcast(final long chunkBytes)
    {
        if (chunkBytes <= 0)
        {
            throw new IllegalArgumentException("chunk bytes must be positive: " + chunkBytes);
        }
        this.chunkBytes = chunkBytes;
    }

    public long chunkBytes()
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
        return "pipelined chain root -> root+1 -> ... in chunks: about n·β + (p-2) chunks of latency, " +
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
        final long bytes = args.count * args.elementSize();
        if (bytes == 0 || size == 1)
        {
            return;
        }
        final int relative = relativeRank(context.rank(), args.root, size);
        final int previous = relative == 0 ? -1 : absoluteRank(relative - 1, args.root, size);
        final int next = relative == size - 1 ? -1 : absoluteRank(relative + 1, args.root, size);
        final Object base = args.recvBase;
        final long offset = args.recvOffset;
        final long chunk = chunkBytes;

        for (long position = 0; position < bytes; position += chunk)
        {
            final long length = Math.min(chunk, bytes - position);
            // chunk k, step 1: receive it from the predecessor (the root has it)
            if (previous >= 0)
            {
                context.recv(previous, base, offset + position, length);
            }
            // chunk k, step 2: pass it on while the predecessor moves chunk k+1
            if (next >= 0)
            {
                context.send(next, base, offset + position, length);
            }
        }
    }
}
