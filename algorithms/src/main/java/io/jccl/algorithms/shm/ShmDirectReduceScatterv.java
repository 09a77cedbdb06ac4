package io.jccl.algorithms.shm;

import io.jccl.Collective;
import io.jccl.DataType;
import io.jccl.ReduceOp;
import io.jccl.algorithms.pattern.VectorSplit;
import io.jccl.spi.ArgumentChecks;
import io.jccl.spi.CollectiveAlgorithm;
import io.jccl.spi.CollectiveArgs;
import io.jccl.spi.CollectiveContext;
import io.jccl.spi.Memory;
import io.jccl.spi.Reductions;

import java.util.Set;

import static io.jccl.algorithms.shm.ShmProtocol.SLOT_CONSUMED;
import static io.jccl.algorithms.shm.ShmProtocol.SLOT_READY;

/**
 * Direct reduce-scatterv: {@link ShmDirectReduceScatter} with a count per rank. Rank r reduces its block,
 * {@code counts[r]} elements at {@code displs[r]} of every rank's input, straight out of shared memory in rank order,
 * in one step where the ring takes p − 1.
 * <p>
 * Staged (private buffers): per chunk, the same column range of every block, p columns of as many elements as fill
 * S/2 bytes, the chunks those of the largest block, which every rank knows from the counts; a block that has ended
 * stages and reduces nothing, but every rank still waits for every peer's chunk, as the staging protocol needs.
 * Zero-copy (send buffers in symmetric memory): nothing is staged; every rank reduces its block straight out of every
 * rank's send buffer, whose layout the counts, the same everywhere, give ({@link ShmDirectReduceScatter#runDirect}).
 * <p>
 * Cost: that of {@link ShmDirectReduceScatter} with equal counts; else the chunks are those of the largest block.
 */
public final class ShmDirectReduceScatterv implements CollectiveAlgorithm
{
    /** Built once: the selector asks every call, and Set.of allocates. */
    private static final Set<Collective> COLLECTIVES = Set.of(Collective.REDUCE_SCATTERV);

    @Override
    public String name()
    {
        return "shm_direct";
    }

    @Override
    public String description()
    {
        return "every rank stages its send blocks in shared memory and reduces its own block from all peers at once";
    }

    @Override
    public Set<Collective> collectives()
    {
        return COLLECTIVES;
    }

    /** The chunks follow the largest block, which every rank knows alike. */
    @Override
    public String unsupportedReason(final CollectiveArgs args, final int size, final CollectiveContext context)
    {
        final String reason = CollectiveAlgorithm.super.unsupportedReason(args, size, context);
        if (reason != null || size == 1 || args.sendSegmentOffset >= 0)
        {
            return reason;
        }
        return ShmProtocol.stagingReason(name(), context, args, size * args.elementSize(),
            VectorSplit.maxCount(args.counts, 0, size));
    }

    @Override
    public void run(final CollectiveContext context, final CollectiveArgs args)
    {
        final long elementSize = args.type.size();
        final long blockStart = args.displs[context.rank()] * elementSize;
        if (context.size() == 1)
        {
            Memory.copy(args.sendBase, args.sendOffset + blockStart, args.recvBase, args.recvOffset,
                args.count * elementSize);
        }
        else if (VectorSplit.maxCount(args.counts, 0, context.size()) > 0)
        {
            if (args.sendSegmentOffset >= 0)
            {
                ShmDirectReduceScatter.runDirect(context, args, blockStart,
                    ArgumentChecks.sum(args.counts) * elementSize);
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
        final int[] counts = args.counts;
        final int[] displs = args.displs;
        final long count = args.count;
        final Object sendBase = args.sendBase;
        final long sendOffset = args.sendOffset;
        final Object recvBase = args.recvBase;
        final long recvOffset = args.recvOffset;
        final long ownSend = sendOffset + displs[rank] * (long) elementSize;
        final long halfBytes = ShmProtocol.halfStagingBytes(context, args);
        final long columnElements = halfBytes / ((long) size * elementSize);
        final long columnBytes = columnElements * elementSize;
        final long ownStaging = context.stagingAddress(rank);

        // writing recv could destroy our own block before its turn in rank order: then stage it like the others
        final boolean stageOwn = Memory.overlaps(sendBase, ownSend, count * elementSize, recvBase, recvOffset,
            count * elementSize);

        final int chunks = ShmProtocol.chunks(VectorSplit.maxCount(counts, 0, size), columnElements);
        ShmProtocol.acquireExchange(context, chunks);
        for (int chunk = 0; chunk < chunks; chunk++)
        {
            final long first = chunk * columnElements;
            final long half = ShmProtocol.halfOf(context, chunks, chunk) * halfBytes;

            // step 1: the half this chunk uses held chunk - 2: wait until every peer has consumed it
            ShmProtocol.awaitHalfFree(context, chunk);

            // step 2: stage this column range of every block a peer reduces (block j at column slot j; perhaps
            // nothing of it) and publish it (release)
            for (int j = 0; j < size; j++)
            {
                if (j != rank || stageOwn)
                {
                    Memory.copyToShared(sendBase, sendOffset + (displs[j] + first) * elementSize,
                        ownStaging + half + j * columnBytes, columnElements(counts[j], first, columnElements) *
                        elementSize);
                }
            }
            final long token = ShmProtocol.publishExchangeChunk(context, chunk, chunks);

            // step 3: recv = x_0 op ... op x_(p-1) over what this chunk holds of our block, waiting (acquire) for each
            // rank in turn even when it holds nothing
            final long elements = columnElements(count, first, columnElements);
            final long send = ownSend + first * elementSize;
            final long dst = recvOffset + first * elementSize;
            Object firstBase = null;
            long firstOffset = 0;
            for (int r = 0; r < size; r++)
            {
                final boolean own = r == rank && !stageOwn;
                ShmProtocol.awaitStaged(context, r, SLOT_READY, token);
                final Object xBase = own ? sendBase : null;
                final long x = own ? send : context.stagingAddress(r) + half + rank * columnBytes;
                if (r == 0)
                {
                    firstBase = xBase;
                    firstOffset = x;
                }
                else if (elements > 0)
                {
                    Reductions.reduce(type, op, r == 1 ? firstBase : recvBase, r == 1 ? firstOffset : dst, xBase, x,
                        recvBase, dst, elements);
                }
            }

            // step 4: done reading this chunk everywhere (release: our reads happen-before the owners' next writes)
            context.setFlag(SLOT_CONSUMED, token);
        }
        ShmProtocol.releaseExchange(context, chunks);
    }

    /** Elements of a block of {@code count} in the column range from {@code first} of at most {@code columns}. */
    private static long columnElements(final long count, final long first, final long columns)
    {
        return Math.max(0, Math.min(columns, count - first));
    }
}
