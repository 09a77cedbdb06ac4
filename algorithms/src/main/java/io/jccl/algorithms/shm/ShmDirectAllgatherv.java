package io.jccl.algorithms.shm;

import io.jccl.Collective;
import io.jccl.algorithms.pattern.VectorSplit;
import io.jccl.spi.CollectiveAlgorithm;
import io.jccl.spi.CollectiveArgs;
import io.jccl.spi.CollectiveContext;
import io.jccl.spi.Memory;

import java.util.Set;

import static io.jccl.algorithms.shm.ShmProtocol.SLOT_CONSUMED;
import static io.jccl.algorithms.shm.ShmProtocol.STEP_DIRECT;
import static io.jccl.algorithms.shm.ShmProtocol.WORD_BUFFER;

/**
 * Direct allgatherv: {@link ShmDirectAllgather} with a count per rank. Every rank publishes its block
 * ({@code counts[rank]} elements) and copies every peer's block, to {@code displs[peer]} of recv, straight out of
 * shared memory in one step, where the ring takes p − 1.
 * <p>
 * Staged (private buffers): chunks of up to S/2 bytes of the largest block, which every rank knows from the counts,
 * so all ranks run the same chunks; a rank whose block has ended stages nothing in the rest, and its peers copy
 * nothing from it, but every rank still waits for every peer's chunk, as the staging protocol needs
 * ({@link ShmDirectAllgather#runStaged}). Zero-copy
 * (symmetric buffers): each rank publishes where its block lies, its send buffer or its block of recv, and its peers
 * copy it in place; a rank's displacements are its own, so it publishes the block itself rather than its recv buffer,
 * and the step does not say which (ranks may answer differently: an empty block overlaps nothing).
 * <p>
 * Cost: that of {@link ShmDirectAllgather} with equal counts; else the chunks are those of the largest block.
 */
public final class ShmDirectAllgatherv implements CollectiveAlgorithm
{
    /** Built once: the selector asks every call, and Set.of allocates. */
    private static final Set<Collective> COLLECTIVES = Set.of(Collective.ALLGATHERV);

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

    /** The chunks follow the largest block, which every rank knows alike. */
    @Override
    public String unsupportedReason(final CollectiveArgs args, final int size, final CollectiveContext context)
    {
        final String reason = CollectiveAlgorithm.super.unsupportedReason(args, size, context);
        if (reason != null || size == 1 || args.sendSegmentOffset >= 0 || args.recvSegmentOffset >= 0)
        {
            return reason;
        }
        return ShmProtocol.stagingReason(name(), context, args, args.elementSize(),
            VectorSplit.maxCount(args.counts, 0, size));
    }

    @Override
    public void run(final CollectiveContext context, final CollectiveArgs args)
    {
        final int rank = context.rank();
        final int size = context.size();
        final long elementSize = args.type.size();
        final long ownBytes = args.counts[rank] * elementSize;
        final long ownBlock = args.recvOffset + args.displs[rank] * elementSize;
        if (size == 1)
        {
            Memory.copy(args.sendBase, args.sendOffset, args.recvBase, ownBlock, ownBytes);
            return;
        }
        final long maxBytes = VectorSplit.maxCount(args.counts, 0, size) * elementSize;
        if (maxBytes == 0)
        {
            return;
        }
        if (args.sendSegmentOffset >= 0 || args.recvSegmentOffset >= 0)
        {
            runDirect(context, args, ownBytes, ownBlock);
        }
        else
        {
            ShmDirectAllgather.runStaged(context, args, args.counts, args.displs, ownBytes, ownBlock, maxBytes);
        }
    }

    private static void runDirect(final CollectiveContext context, final CollectiveArgs args, final long ownBytes,
        final long ownBlock)
    {
        final int rank = context.rank();
        final int size = context.size();
        final long elementSize = args.type.size();
        final int[] counts = args.counts;
        final int[] displs = args.displs;
        final Object recvBase = args.recvBase;
        final long recvOffset = args.recvOffset;

        // as ShmDirectAllgather: peers read our symmetric send buffer when it lies apart from recv (lines this call
        // does not write), else our block of the symmetric recv buffer, put there first. Ranks may answer differently
        // (an empty block overlaps nothing), so each publishes its block's own offset under one step, and peers read
        // it alike
        final long recvBytes = VectorSplit.end(counts, displs, size) * elementSize;
        final boolean fromSend = args.sendSegmentOffset >= 0 &&
            !Memory.overlaps(args.sendBase, args.sendOffset, ownBytes, recvBase, recvOffset, recvBytes);
        final long published = fromSend ? args.sendSegmentOffset :
            args.recvSegmentOffset + displs[rank] * elementSize;

        // step 1: publish (release: the caller's writes, and our copy into recv, happen-before peers' reads)
        if (!fromSend)
        {
            Memory.copy(args.sendBase, args.sendOffset, recvBase, ownBlock, ownBytes);
        }
        ShmProtocol.publishDirect(context, STEP_DIRECT, published);

        // step 2: each peer's block, read in place once published (acquire); then, reading from send, our own
        for (int i = 1; i < size; i++)
        {
            final int r = (rank + i) % size;
            ShmProtocol.awaitDirect(context, r, STEP_DIRECT);
            Memory.copy(null, ShmProtocol.directAddress(context, r, WORD_BUFFER, 0),
                recvBase, recvOffset + displs[r] * elementSize, counts[r] * elementSize);
        }
        if (fromSend)
        {
            Memory.copy(args.sendBase, args.sendOffset, recvBase, ownBlock, ownBytes);
        }

        // step 3: report done reading (release), and return only when every peer is done with our buffers
        context.setFlag(SLOT_CONSUMED, context.token(STEP_DIRECT));
        ShmProtocol.awaitAllConsumedDirect(context);
    }
}
