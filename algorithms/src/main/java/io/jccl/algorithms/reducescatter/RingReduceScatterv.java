package io.jccl.algorithms.reducescatter;

import io.jccl.Collective;
import io.jccl.algorithms.pattern.Exchange;
import io.jccl.spi.CollectiveAlgorithm;
import io.jccl.spi.CollectiveArgs;
import io.jccl.spi.CollectiveContext;

import java.util.EnumSet;
import java.util.Set;

/**
 * Ring reduce-scatterv: the ring reduce-scatter with per-rank block sizes {@code counts[i]} read at
 * {@code displs[i]} of send; empty blocks cost no message. Send is only read, recv written once at the end.
 * <p>
 * Cost, largest block m bytes: (p − 1)α + (p − 1)·m·(β + γ), which is n(p − 1)/p·(β + γ) for n bytes of input
 * when the blocks are equal.
 */
public final class RingReduceScatterv implements CollectiveAlgorithm
{
    private static final Set<Collective> COLLECTIVES = EnumSet.of(Collective.REDUCE_SCATTERV);

    private final int chunkBytes;

    public RingReduceScatterv()
    {
        this(Exchange.CHUNK_BYTES_DEFAULT);
    }

    public RingReduceScatterv(final int chunkBytes)
    {
        this.chunkBytes = Exchange.checkChunkBytes(chunkBytes);
    }

    @Override
    public String name()
    {
        return "ring";
    }

    @Override
    public String description()
    {
        return "p - 1 steps around the ring with per-rank block sizes: bandwidth-optimal for large, even blocks";
    }

    @Override
    public Set<Collective> collectives()
    {
        return COLLECTIVES;
    }

    @Override
    public void run(final CollectiveContext context, final CollectiveArgs args)
    {
        RingReduceScatter.reduceScatter(context, args, chunkBytes, 0, args.counts, args.displs);
    }
}
