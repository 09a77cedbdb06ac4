package io.jccl.algorithms.shm;

import io.jccl.Collective;
import io.jccl.spi.CollectiveAlgorithm;
import io.jccl.spi.CollectiveArgs;
import io.jccl.spi.CollectiveContext;
import io.jccl.spi.Memory;

import java.util.Set;

import static io.jccl.algorithms.shm.ShmProtocol.SLOT_CONSUMED;
import static io.jccl.algorithms.shm.ShmProtocol.SLOT_READY;
import static io.jccl.algorithms.shm.ShmProtocol.STEP_DIRECT;
import static io.jccl.algorithms.shm.ShmProtocol.WORD_BUFFER;

/**
 * Direct alltoall: every rank publishes its send buffer and each peer copies the block addressed to it straight out
 * of shared memory, in one step instead of pairwise exchange's p − 1.
 * <p>
 * Staged (private buffers), per chunk (the same column range of every block, p columns filling at most S/2
 * bytes): stage the p − 1 blocks' columns that go to peers, publish, copy the p − 1 columns addressed to this rank
 * into recv, report the chunk consumed. The own block goes from send to recv once, first. Cost (n = bytes of one
 * rank's send buffer): K·α_f + (n/p)·β_c + n(p − 1)/p·β_c + n(p − 1)/p·β_r, K = ⌈n / (S/2)⌉.
 * <p>
 * Zero-copy (send buffers in symmetric memory): peers copy their block from the send buffer in place, and each
 * rank returns once every peer is done with its send buffer. Cost: 2·α_f + (n/p)·β_c + n(p − 1)/p·β_r; when recv
 * overlaps send (in place), the blocks are gathered in scratch first (another n·β_c).
 */
public final class ShmDirectAlltoall implements CollectiveAlgorithm
{
    /** Built once: the selector asks every call, and Set.of allocates. */
    private static final Set<Collective> COLLECTIVES = Set.of(Collective.ALLTOALL);

    @Override
    public String name()
    {
        return "shm_direct";
    }

    @Override
    public String description()
    {
        return "every rank publishes its send buffer in shared memory and each peer copies its block out at once";
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
        final long blockBytes = args.count * args.type.size();
        if (context.size() == 1)
        {
            Memory.copy(args.sendBase, args.sendOffset, args.recvBase, args.recvOffset, blockBytes);
        }
        else if (blockBytes > 0)
        {
            if (args.sendSegmentOffset >= 0)
            {
                runDirect(context, args, blockBytes);
            }
            else
            {
                runStaged(context, args, blockBytes);
            }
        }
    }

    private static void runStaged(final CollectiveContext context, final CollectiveArgs args, final long blockBytes)
    {
        final int rank = context.rank();
        final int size = context.size();
        final int elementSize = args.type.size();
        final Object sendBase = args.sendBase;
        final long sendOffset = args.sendOffset;
        final Object recvBase = args.recvBase;
        final long recvOffset = args.recvOffset;
        final long halfBytes = ShmProtocol.halfStagingBytes(context, args);
        final long columnBytes = halfBytes / ((long) size * elementSize) * elementSize;
        final long ownStaging = context.stagingAddress(rank);

        // step 0: our own block goes straight from send to recv (a no-op in place)
        Memory.copy(sendBase, sendOffset + rank * blockBytes, recvBase, recvOffset + rank * blockBytes, blockBytes);

        final int chunks = ShmProtocol.chunks(blockBytes, columnBytes);
        ShmProtocol.acquireExchange(context, chunks);
        for (int chunk = 0; chunk < chunks; chunk++)
        {
            final long first = chunk * columnBytes;
            final long bytes = Math.min(columnBytes, blockBytes - first);
            final long half = ShmProtocol.halfOf(context, chunks, chunk) * halfBytes;

            // step 1: the half this chunk uses held chunk - 2: wait until every peer has consumed it
            ShmProtocol.awaitHalfFree(context, chunk);

            // step 2: stage this column range of every block addressed to a peer (block j at column slot j) and
            // publish it (release); in place, these columns of recv are overwritten only in step 3
            for (int j = 0; j < size; j++)
            {
                if (j != rank)
                {
                    Memory.copyToShared(sendBase, sendOffset + j * blockBytes + first,
                        ownStaging + half + j * columnBytes, bytes);
                }
            }
            final long token = ShmProtocol.publishExchangeChunk(context, chunk, chunks);

            // step 3: copy the columns each peer addressed to us into its block of recv, once published (acquire)
            for (int i = 1; i < size; i++)
            {
                final int r = (rank + i) % size;
                ShmProtocol.awaitStaged(context, r, SLOT_READY, token);
                Memory.copy(null, context.stagingAddress(r) + half + rank * columnBytes,
                    recvBase, recvOffset + r * blockBytes + first, bytes);
            }

            // step 4: done reading this chunk everywhere (release: our reads happen-before the owners' next writes)
            context.setFlag(SLOT_CONSUMED, token);
        }
        ShmProtocol.releaseExchange(context, chunks);
    }

    private static void runDirect(final CollectiveContext context, final CollectiveArgs args, final long blockBytes)
    {
        final int rank = context.rank();
        final int size = context.size();
        final Object sendBase = args.sendBase;
        final long sendOffset = args.sendOffset;
        final Object recvBase = args.recvBase;
        final long recvOffset = args.recvOffset;
        final long ourBlock = rank * blockBytes;
        final long bytes = size * blockBytes;

        // peers read our send buffer until they all report done: if recv overlaps it, the blocks wait in scratch
        final boolean viaScratch = Memory.overlaps(sendBase, sendOffset, bytes, recvBase, recvOffset, bytes);
        final Object dstBase = viaScratch ? null : recvBase;
        final long dst = viaScratch ? context.scratch(0, bytes) : recvOffset;

        // step 1: publish our send buffer as it is (release: the caller's writes happen-before peers' reads)
        ShmProtocol.publishDirect(context, STEP_DIRECT, args.sendSegmentOffset);

        // step 2: our own block, then the block each peer addresses to us, read in place once published (acquire)
        Memory.copy(sendBase, sendOffset + ourBlock, dstBase, dst + ourBlock, blockBytes);
        for (int i = 1; i < size; i++)
        {
            final int r = (rank + i) % size;
            ShmProtocol.awaitDirect(context, r, STEP_DIRECT);
            Memory.copy(null, ShmProtocol.directAddress(context, r, WORD_BUFFER, ourBlock), dstBase,
                dst + r * blockBytes, blockBytes);
        }

        // step 3: report done reading (release), and return only when every peer is done with our send buffer
        context.setFlag(SLOT_CONSUMED, context.token(STEP_DIRECT));
        ShmProtocol.awaitAllConsumedDirect(context);

        // step 4: nobody reads our send buffer any more: the blocks may overwrite it
        if (viaScratch)
        {
            Memory.copy(null, dst, recvBase, recvOffset, bytes);
        }
    }
}
