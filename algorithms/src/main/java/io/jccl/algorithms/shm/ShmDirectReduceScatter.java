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
 * Direct reduce-scatter: every rank stages the blocks its peers reduce, and rank r reduces block r of every rank
 * straight out of shared memory, in rank order, in one step instead of a ring's p − 1.
 * <p>
 * Per chunk (the same column range of every block, p columns filling at most S/2 bytes): stage the p − 1 peer
 * blocks' columns and publish; reduce the p contributions to the own block into recv (the own one read from send,
 * or staged too when recv overlaps it); report the chunk consumed. Cost (n = bytes of one rank's whole send
 * buffer): K·α_f + n(p − 1)/p·β_c + n(p − 1)/p·(β_r + γ), K = ⌈n / (S/2)⌉.
 * <p>
 * Zero-copy (send buffers in symmetric memory): nothing is staged; rank r reduces block r straight out of every
 * rank's send buffer into recv, and returns once every peer has read its blocks of our send buffer. Cost:
 * 2·α_f + n(p − 1)/p·(β_r + γ).
 */
public final class ShmDirectReduceScatter implements CollectiveAlgorithm
{
    /** Built once: the selector asks every call, and Set.of allocates. */
    private static final Set<Collective> COLLECTIVES = Set.of(Collective.REDUCE_SCATTER);

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

    @Override
    public String unsupportedReason(final CollectiveArgs args, final int size, final CollectiveContext context)
    {
        final String reason = CollectiveAlgorithm.super.unsupportedReason(args, size, context);
        if (reason != null || size == 1 || args.sendSegmentOffset >= 0)
        {
            return reason;
        }
        return ShmProtocol.stagingReason(name(), context, args, size * args.elementSize(), args.count);
    }

    @Override
    public void run(final CollectiveContext context, final CollectiveArgs args)
    {
        if (context.size() == 1)
        {
            Memory.copy(args.sendBase, args.sendOffset, args.recvBase, args.recvOffset,
                args.count * args.type.size());
        }
        else if (args.count > 0 && args.sendSegmentOffset >= 0)
        {
            final long blockBytes = args.count * args.type.size();
            runDirect(context, args, context.rank() * blockBytes, context.size() * blockBytes);
        }
        else if (args.count > 0)
        {
            runStaged(context, args, null, null, args.count);
        }
    }

    /**
     * The zero-copy path, for the block form and the v form ({@link ShmDirectReduceScatterv}) alike: this rank's block
     * ({@code args.count} elements) starts {@code blockStart} bytes into each rank's send buffer of
     * {@code sendBytes}.
     */
    static void runDirect(final CollectiveContext context, final CollectiveArgs args, final long blockStart,
        final long sendBytes)
    {
        final int rank = context.rank();
        final long count = args.count;
        final long blockBytes = count * args.type.size();
        final Object recvBase = args.recvBase;
        final long recvOffset = args.recvOffset;

        // peers read our send buffer until they all report done, but our block of it only we do: recv may be that
        // block (in place) as long as the reduction in rank order reads it before it writes it, that is on ranks 0
        // and 1; any other overlap lands in scratch until the peers are done
        final boolean ownBlockInPlace = recvBase == args.sendBase && recvOffset == args.sendOffset + blockStart;
        final boolean viaScratch = (!ownBlockInPlace || rank >= 2) && Memory.overlaps(
            args.sendBase, args.sendOffset, sendBytes, recvBase, recvOffset, blockBytes);
        final Object dstBase = viaScratch ? null : recvBase;
        final long dst = viaScratch ? context.scratch(0, blockBytes) : recvOffset;

        // step 1: publish our send buffer as it is (release: the caller's writes happen-before peers' reads)
        ShmProtocol.publishDirect(context, STEP_DIRECT, args.sendSegmentOffset);

        // step 2: dst = x_0 op x_1 op ... op x_(p-1) over our block, read in place from every rank's send buffer
        // (acquire each)
        ShmProtocol.reduceInRankOrder(context, STEP_DIRECT, args.type, args.op, blockStart, dstBase, dst, count);

        // step 3: report done reading (release), and return only when every peer is done with our send buffer
        context.setFlag(SLOT_CONSUMED, context.token(STEP_DIRECT));
        ShmProtocol.awaitAllConsumedDirect(context);

        // step 4: nobody reads our send buffer any more: the result may overwrite it
        if (viaScratch)
        {
            Memory.copy(null, dst, recvBase, recvOffset, blockBytes);
        }
    }

    /**
     * The staged path, for the block form ({@code counts} and {@code displs} null: blocks of {@code args.count}) and
     * the v form ({@link ShmDirectReduceScatterv}: block r {@code counts[r]} elements at {@code displs[r]}) alike; the
     * chunks are those of the largest block, {@code largest} elements, which every rank knows.
     */
    static void runStaged(final CollectiveContext context, final CollectiveArgs args, final int[] counts,
        final int[] displs, final long largest)
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
        final long ownSend = sendOffset + blockStart(counts, displs, count, rank) * elementSize;
        final long halfBytes = ShmProtocol.halfStagingBytes(context, args);
        final long columnElements = halfBytes / ((long) size * elementSize);
        final long columnBytes = columnElements * elementSize;
        final long ownStaging = context.stagingAddress(rank);

        // writing recv could destroy our own block before its turn in rank order: then stage it like the others
        final boolean stageOwn = Memory.overlaps(sendBase, ownSend, count * elementSize, recvBase, recvOffset,
            count * elementSize);

        final int chunks = ShmProtocol.chunks(largest, columnElements);
        ShmProtocol.acquireExchange(context, chunks);
        for (int chunk = 0; chunk < chunks; chunk++)
        {
            final long first = chunk * columnElements;
            final long half = ShmProtocol.halfOf(context, chunks, chunk) * halfBytes;

            // step 1: the half this chunk uses held chunk - 2: wait until every peer has consumed it
            ShmProtocol.awaitHalfFree(context, chunk);

            // step 2: stage this column range of every block a peer reduces (block j at column slot j; in the v form
            // perhaps nothing of it) and publish it (release)
            for (int j = 0; j < size; j++)
            {
                if (j != rank || stageOwn)
                {
                    Memory.copyToShared(sendBase, sendOffset + (blockStart(counts, displs, count, j) + first) *
                        elementSize, ownStaging + half + j * columnBytes,
                        columnElements(counts == null ? count : counts[j], first, columnElements) * elementSize);
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

    /** First element of block {@code j}: {@code displs[j]}, or {@code j} blocks of {@code count} (no displs). */
    private static long blockStart(final int[] counts, final int[] displs, final long count, final int j)
    {
        return counts == null ? j * count : displs[j];
    }

    /** Elements of a block of {@code count} in the column range from {@code first} of at most {@code columns}. */
    private static long columnElements(final long count, final long first, final long columns)
    {
        return Math.max(0, Math.min(columns, count - first));
    }
}
