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
import static io.jccl.algorithms.shm.ShmProtocol.STEP_DIRECT_RECV;
import static io.jccl.algorithms.shm.ShmProtocol.WORD_BUFFER;

/**
 * Direct allgather: every rank publishes its block and copies every peer's block straight out of shared memory,
 * in one step instead of a ring's p − 1.
 * <p>
 * Staged (private buffers): first the own block is copied into its place in recv (a no-op in place); then, per chunk
 * of up to S/2 bytes of the block, it is staged and published, and the p − 1 peer chunks are copied into recv.
 * Cost (n = bytes of the whole recv): K·α_f + 2(n/p)·β_c + n(p − 1)/p·β_r, K = ⌈(n/p) / (S/2)⌉.
 * <p>
 * Zero-copy (buffers in symmetric memory): each rank publishes its block and peers copy it in place: from its send
 * buffer when that is symmetric and apart from recv, else from its block of the symmetric recv buffer, put there
 * first (a no-op in place). Each rank returns once every peer is done reading. Cost: 2·α_f + (n/p)·β_c +
 * n(p − 1)/p·β_r.
 */
public final class ShmDirectAllgather implements CollectiveAlgorithm
{
    /** Built once: the selector asks every call, and Set.of allocates. */
    private static final Set<Collective> COLLECTIVES = Set.of(Collective.ALLGATHER);

    @Override
    public String name()
    {
        return "shm_direct";
    }

    @Override
    public String description()
    {
        return "every rank publishes its block in shared memory and copies all peers' blocks at once";
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
        if (reason != null || size == 1 || args.sendSegmentOffset >= 0 || args.recvSegmentOffset >= 0)
        {
            return reason;
        }
        return ShmProtocol.stagingReason(name(), context, args, args.elementSize(), args.count);
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
            if (args.sendSegmentOffset >= 0 || args.recvSegmentOffset >= 0)
            {
                runDirect(context, args, blockBytes);
            }
            else
            {
                runStaged(context, args, null, null, blockBytes, args.recvOffset + context.rank() * blockBytes,
                    blockBytes);
            }
        }
    }

    /**
     * The staged path, for the block form ({@code counts} and {@code displs} null: blocks of {@code args.count}) and
     * the v form ({@link ShmDirectAllgatherv}: block r {@code counts[r]} elements at {@code displs[r]} of recv) alike;
     * this rank's block is {@code ownBytes} at {@code ownBlock} of recv, and the chunks are those of the largest block,
     * {@code largestBytes}, which every rank knows.
     */
    static void runStaged(final CollectiveContext context, final CollectiveArgs args, final int[] counts,
        final int[] displs, final long ownBytes, final long ownBlock, final long largestBytes)
    {
        final int rank = context.rank();
        final int size = context.size();
        final long elementSize = args.type.size();
        final Object recvBase = args.recvBase;
        final long recvOffset = args.recvOffset;
        final long halfBytes = ShmProtocol.halfStagingBytes(context, args);

        // step 0: our block into its place (a memmove, a no-op in place); from here on recv is our only input, so
        // writing peers' blocks cannot destroy it even when send lies elsewhere in recv
        Memory.copy(args.sendBase, args.sendOffset, recvBase, ownBlock, ownBytes);

        final int chunks = ShmProtocol.chunks(largestBytes, halfBytes);
        ShmProtocol.acquireExchange(context, chunks);
        for (int chunk = 0; chunk < chunks; chunk++)
        {
            final long first = chunk * halfBytes;
            final long half = ShmProtocol.halfOf(context, chunks, chunk) * halfBytes;

            // step 1: the half this chunk uses held chunk - 2: wait until every peer has consumed it
            ShmProtocol.awaitHalfFree(context, chunk);

            // step 2: stage what this chunk holds of our block (in the v form perhaps nothing) and publish it
            // (release)
            Memory.copyToShared(recvBase, ownBlock + first, context.stagingAddress(rank) + half,
                chunkBytes(ownBytes, first, halfBytes));
            final long token = ShmProtocol.publishExchangeChunk(context, chunk, chunks);

            // step 3: copy what each peer's chunk holds into its block once published (acquire), starting after our
            // rank so the peers do not all read the same staging area at once
            for (int i = 1; i < size; i++)
            {
                final int r = (rank + i) % size;
                final long place = counts == null ? r * args.count : displs[r];
                final long bytes = (counts == null ? args.count : counts[r]) * elementSize;
                ShmProtocol.awaitStaged(context, r, SLOT_READY, token);
                Memory.copy(null, context.stagingAddress(r) + half, recvBase, recvOffset + place * elementSize + first,
                    chunkBytes(bytes, first, halfBytes));
            }

            // step 4: done reading this chunk everywhere (release: our reads happen-before the owners' next writes)
            context.setFlag(SLOT_CONSUMED, token);
        }
        ShmProtocol.releaseExchange(context, chunks);
    }

    /** Bytes of a block of {@code blockBytes} in the chunk from byte {@code first} of at most {@code halfBytes}. */
    private static long chunkBytes(final long blockBytes, final long first, final long halfBytes)
    {
        return Math.max(0, Math.min(halfBytes, blockBytes - first));
    }

    private static void runDirect(final CollectiveContext context, final CollectiveArgs args, final long blockBytes)
    {
        final int rank = context.rank();
        final int size = context.size();
        final Object recvBase = args.recvBase;
        final long recvOffset = args.recvOffset;
        final long ownBlock = recvOffset + rank * blockBytes;

        // Peers read our symmetric send buffer when it lies apart from recv: lines this call does not write, which a
        // peer's core reads at cache speed, where lines we had just copied into our block of recv would each cross
        // from our core (2 ranks, 32 KiB-32 MiB, one run each: 0.4-0.9x the time). Else they read our block of the
        // symmetric recv buffer, put there first (in place: nothing to put). Every rank decides alike from its
        // symmetric arguments; the flag value says which, so callers that differ fail cleanly.
        final boolean fromSend = args.sendSegmentOffset >= 0 &&
            !Memory.overlaps(args.sendBase, args.sendOffset, blockBytes, recvBase, recvOffset, size * blockBytes);
        final int placement = fromSend ? STEP_DIRECT : STEP_DIRECT_RECV;
        final long peerBlocks = fromSend ? args.sendSegmentOffset : args.recvSegmentOffset;
        final long peerStride = fromSend ? 0 : blockBytes;

        // step 1: publish (release: the caller's writes, and our copy into recv, happen-before peers' reads)
        if (!fromSend)
        {
            Memory.copy(args.sendBase, args.sendOffset, recvBase, ownBlock, blockBytes);
        }
        ShmProtocol.publishDirect(context, placement, peerBlocks);

        // step 2: each peer's block, read in place once published (acquire); then, reading from send, our own block:
        // the peers' blocks first, while they are in their owners' caches
        for (int i = 1; i < size; i++)
        {
            final int r = (rank + i) % size;
            ShmProtocol.awaitDirect(context, r, placement);
            Memory.copy(null, ShmProtocol.directAddress(context, r, WORD_BUFFER, r * peerStride),
                recvBase, recvOffset + r * blockBytes, blockBytes);
        }
        if (fromSend)
        {
            Memory.copy(args.sendBase, args.sendOffset, recvBase, ownBlock, blockBytes);
        }

        // step 3: report done reading (release), and return only when every peer is done with our buffers
        context.setFlag(SLOT_CONSUMED, context.token(STEP_DIRECT));
        ShmProtocol.awaitAllConsumedDirect(context);
    }
}
