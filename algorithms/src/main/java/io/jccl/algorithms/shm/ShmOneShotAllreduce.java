package io.jccl.algorithms.shm;

import io.jccl.Collective;
import io.jccl.DataType;
import io.jccl.ReduceOp;
import io.jccl.spi.CollectiveAlgorithm;
import io.jccl.spi.CollectiveArgs;
import io.jccl.spi.CollectiveContext;
import io.jccl.spi.Memory;
import io.jccl.spi.Reductions;

import java.util.Set;

import static io.jccl.algorithms.shm.ShmProtocol.SLOT_CONSUMED;
import static io.jccl.algorithms.shm.ShmProtocol.SLOT_READY;
import static io.jccl.algorithms.shm.ShmProtocol.STEP_DIRECT;

/**
 * One-shot allreduce: every rank publishes its whole input, then reads all p inputs and reduces the whole vector
 * itself, in rank order, so every rank computes identical bits. One handoff of latency: best for small vectors.
 * <p>
 * Staged (private buffers), per chunk of up to S/2 bytes: copy the input chunk to the own staging area, publish it,
 * reduce the p staged chunks into recv, report the chunk consumed. Cost:
 * K·α_f + n·β_c + (p − 1)·n·(β_r + γ), K = ⌈n / (S/2)⌉. A vector of one chunk uses the staging half of the
 * operation's parity alone ({@link ShmProtocol#halfOf}), so a stream of them needs no handshake between calls.
 * <p>
 * Zero-copy (send buffers in symmetric memory): publish the send buffer itself, reduce the p send buffers in place,
 * then wait until every peer has finished reading before returning (the caller may overwrite its send buffer).
 * Cost: 2·α_f + (p − 1)·n·(β_r + γ), plus n·β_c when recv overlaps send (the result goes through scratch until the
 * peers are done).
 */
public final class ShmOneShotAllreduce implements CollectiveAlgorithm
{
    /** Built once: the selector asks every call, and Set.of allocates. */
    private static final Set<Collective> COLLECTIVES = Set.of(Collective.ALLREDUCE);

    @Override
    public String name()
    {
        return "shm_oneshot";
    }

    @Override
    public String description()
    {
        return "every rank reads all peers' inputs from shared memory and reduces the whole vector: one handoff, " +
            "best for small vectors";
    }

    @Override
    public Set<Collective> collectives()
    {
        return COLLECTIVES;
    }

    @Override
    public String unsupportedReason(final CollectiveArgs args, final int size, final CollectiveContext context)
    {
        final String reason = CollectiveAlgorithm.super.unsupportedReason(args, size, context);
        if (reason != null || size == 1 || args.sendSegmentOffset >= 0)
        {
            return reason;
        }
        return ShmProtocol.stagingReason(name(), context, args, args.elementSize(), args.count);
    }

    @Override
    public void run(final CollectiveContext context, final CollectiveArgs args)
    {
        final long bytes = args.count * args.type.size();
        if (context.size() == 1)
        {
            Memory.copy(args.sendBase, args.sendOffset, args.recvBase, args.recvOffset, bytes);
        }
        else if (bytes > 0)
        {
            if (args.sendSegmentOffset >= 0)
            {
                runDirect(context, args, bytes);
            }
            else
            {
                runStaged(context, args);
            }
        }
    }

    private static void runStaged(final CollectiveContext context, final CollectiveArgs args)
    {
        final int rank = context.rank();
        final int size = context.size();
        final DataType type = args.type;
        final ReduceOp op = args.op;
        final int elementSize = type.size();
        final long count = args.count;
        final Object sendBase = args.sendBase;
        final long sendOffset = args.sendOffset;
        final Object recvBase = args.recvBase;
        final long recvOffset = args.recvOffset;
        final long halfBytes = ShmProtocol.halfStagingBytes(context, args);
        final long chunkElements = halfBytes / elementSize;

        final int chunks = ShmProtocol.chunks(count, chunkElements);
        ShmProtocol.acquireExchange(context, chunks);
        for (int chunk = 0; chunk < chunks; chunk++)
        {
            final long first = chunk * chunkElements;
            final long elements = Math.min(chunkElements, count - first);
            final long half = ShmProtocol.halfOf(context, chunks, chunk) * halfBytes;
            final long dst = recvOffset + first * elementSize;

            // step 1: the half this chunk uses held chunk - 2: wait until every peer has consumed it
            ShmProtocol.awaitHalfFree(context, chunk);

            // step 2: stage the input chunk and publish it (release: the copy happens-before a peer's acquire)
            Memory.copyToShared(sendBase, sendOffset + first * elementSize,
                context.stagingAddress(rank) + half, elements * elementSize);
            final long ready = ShmProtocol.publishExchangeChunk(context, chunk, chunks);

            // step 3: recv = x_0 op x_1 op ... op x_(p-1), waiting (acquire) for each staged chunk in turn; the own
            // input is read from staging too, since recv may be the send buffer
            ShmProtocol.awaitStaged(context, 0, SLOT_READY, ready);
            ShmProtocol.awaitStaged(context, 1, SLOT_READY, ready);
            Reductions.reduce(type, op, null, context.stagingAddress(0) + half,
                null, context.stagingAddress(1) + half, recvBase, dst, elements);
            for (int r = 2; r < size; r++)
            {
                ShmProtocol.awaitStaged(context, r, SLOT_READY, ready);
                Reductions.reduce(type, op, recvBase, dst, null, context.stagingAddress(r) + half,
                    recvBase, dst, elements);
            }

            // step 4: done reading this chunk everywhere (release: our reads happen-before the owners' next writes)
            context.setFlag(SLOT_CONSUMED, ready);
        }
        ShmProtocol.releaseExchange(context, chunks);
    }

    private static void runDirect(final CollectiveContext context, final CollectiveArgs args, final long bytes)
    {
        final DataType type = args.type;
        final ReduceOp op = args.op;
        final long count = args.count;
        final long segmentOffset = args.sendSegmentOffset;
        final Object recvBase = args.recvBase;
        final long recvOffset = args.recvOffset;

        // peers read our send buffer until they all report done: a result that would land on it waits in scratch
        final boolean viaScratch =
            Memory.overlaps(args.sendBase, args.sendOffset, bytes, recvBase, recvOffset, bytes);
        final Object dstBase = viaScratch ? null : recvBase;
        final long dst = viaScratch ? context.scratch(0, bytes) : recvOffset;

        // step 1: publish our send buffer as it is (release: the caller's writes happen-before peers' reads)
        ShmProtocol.publishDirect(context, STEP_DIRECT, segmentOffset);

        // step 2: dst = x_0 op x_1 op ... op x_(p-1), read in place from every rank's send buffer (acquire each)
        ShmProtocol.reduceInRankOrder(context, STEP_DIRECT, type, op, 0, dstBase, dst, count);

        // step 3: report done reading (release), and return only when every peer is done with our send buffer
        context.setFlag(SLOT_CONSUMED, context.token(STEP_DIRECT));
        ShmProtocol.awaitAllConsumedDirect(context);

        // step 4: nobody reads our send buffer any more: the result may overwrite it
        if (viaScratch)
        {
            Memory.copy(null, dst, recvBase, recvOffset, bytes);
        }
    }
}
