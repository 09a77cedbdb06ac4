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
 * Direct reduce: every rank stages its input and the root reads all of them from shared memory and reduces in rank
 * order (the same bits as the one-shot allreduce). Good while the root's p·n of reading beats a tree's lg p steps.
 * <p>
 * Per chunk of up to S/2 bytes: the others stage their chunk and publish it; the root reduces the p chunks into
 * recv (its own from send, or from its own staging area when recv overlaps send) and reports the chunk consumed.
 * Cost: K·α_f + n·β_c + (p − 1)·n·(β_r + γ), K = ⌈n / (S/2)⌉.
 * <p>
 * Zero-copy (send buffers in symmetric memory): nothing is staged; the root reduces straight out of every rank's send
 * buffer into recv, and the others return once the root reports it has read them. Cost: 2·α_f + (p − 1)·n·(β_r + γ).
 */
public final class ShmDirectReduce implements CollectiveAlgorithm
{
    /** Built once: the selector asks every call, and Set.of allocates. */
    private static final Set<Collective> COLLECTIVES = Set.of(Collective.REDUCE);

    @Override
    public String name()
    {
        return "shm_direct";
    }

    @Override
    public String description()
    {
        return "every rank stages its input in shared memory and the root reduces them all: one handoff, " +
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
        else if (bytes > 0 && args.sendSegmentOffset >= 0)
        {
            runDirect(context, args, bytes);
        }
        else if (bytes > 0)
        {
            if (context.rank() == args.root)
            {
                runRoot(context, args, bytes);
            }
            else
            {
                runContributor(context, args);
            }
        }
    }

    private static void runDirect(final CollectiveContext context, final CollectiveArgs args, final long bytes)
    {
        final int rank = context.rank();
        final int root = args.root;
        final long done = context.token(STEP_DIRECT);

        // step 1: publish our send buffer as it is (release: the caller's writes happen-before the root's reads); its
        // segment offset goes with it, as an in-place root's lies elsewhere than the contributors'
        ShmProtocol.publishDirect(context, STEP_DIRECT, args.sendSegmentOffset);
        if (rank != root)
        {
            // step 2 (contributors): return only when the root has read our send buffer (acquire)
            context.waitFlag(root, SLOT_CONSUMED, done);
            return;
        }

        final DataType type = args.type;
        final ReduceOp op = args.op;
        final long count = args.count;
        final Object recvBase = args.recvBase;
        final long recvOffset = args.recvOffset;
        // only we read our own send buffer: recv may be it (in place) as long as the reduction in rank order reads
        // each element before it writes it, that is on roots 0 and 1; otherwise an overlap goes through scratch
        final boolean viaScratch = (!args.inPlace() || rank >= 2) &&
            Memory.overlaps(args.sendBase, args.sendOffset, bytes, recvBase, recvOffset, bytes);
        final Object dstBase = viaScratch ? null : recvBase;
        final long dst = viaScratch ? context.scratch(0, bytes) : recvOffset;

        // step 2 (root): dst = x_0 op x_1 op ... op x_(p-1), read in place from every send buffer (acquire each)
        ShmProtocol.reduceInRankOrder(context, STEP_DIRECT, type, op, 0, dstBase, dst, count);

        // step 3 (root): report done reading (release: our reads happen-before the contributors' next writes)
        context.setFlag(SLOT_CONSUMED, done);
        if (viaScratch)
        {
            Memory.copy(null, dst, recvBase, recvOffset, bytes);
        }
    }

    private static void runContributor(final CollectiveContext context, final CollectiveArgs args)
    {
        final int root = args.root;
        final int elementSize = args.type.size();
        final long count = args.count;
        final Object sendBase = args.sendBase;
        final long sendOffset = args.sendOffset;
        final long halfBytes = ShmProtocol.halfStagingBytes(context, args);
        final long chunkElements = halfBytes / elementSize;
        final long ownStaging = context.stagingAddress(context.rank());

        context.acquireStaging();
        final int chunks = ShmProtocol.chunks(count, chunkElements);
        for (int chunk = 0; chunk < chunks; chunk++)
        {
            final long first = chunk * chunkElements;
            // step 1: the half this chunk uses held chunk - 2: wait (acquire) until the root has consumed it
            if (chunk >= 2)
            {
                ShmProtocol.awaitStaged(context, root, SLOT_CONSUMED, context.token(chunk - 2));
            }

            // step 2: stage the chunk and publish it (release)
            Memory.copyToShared(sendBase, sendOffset + first * elementSize, ownStaging + (chunk & 1) * halfBytes,
                Math.min(chunkElements, count - first) * elementSize);
            context.setFlag(SLOT_READY, context.token(chunk));
        }
        context.releaseStaging();
    }

    private static void runRoot(final CollectiveContext context, final CollectiveArgs args, final long bytes)
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
        final long ownStaging = context.stagingAddress(rank);

        // writing recv could destroy our own input before its turn in rank order: then stage it like the others
        final boolean stageOwn = Memory.overlaps(sendBase, sendOffset, bytes, recvBase, recvOffset, bytes);
        if (stageOwn)
        {
            context.acquireStaging();
        }
        final int chunks = ShmProtocol.chunks(count, chunkElements);
        for (int chunk = 0; chunk < chunks; chunk++)
        {
            final long first = chunk * chunkElements;
            final long elements = Math.min(chunkElements, count - first);
            final long half = (chunk & 1) * halfBytes;
            final long token = context.token(chunk);
            final long dst = recvOffset + first * elementSize;

            // step 1: our own chunk, staged if recv overlaps send (only we read it, so no handshake)
            if (stageOwn)
            {
                Memory.copyToShared(sendBase, sendOffset + first * elementSize, ownStaging + half,
                    elements * elementSize);
            }

            // step 2: recv = x_0 op ... op x_(p-1), waiting (acquire) for each contributor's chunk in turn
            Object firstBase = null;
            long firstOffset = 0;
            for (int r = 0; r < size; r++)
            {
                final boolean own = r == rank && !stageOwn;
                if (r != rank)
                {
                    ShmProtocol.awaitStaged(context, r, SLOT_READY, token);
                }
                final Object xBase = own ? sendBase : null;
                final long x = own ? sendOffset + first * elementSize : context.stagingAddress(r) + half;
                if (r == 0)
                {
                    firstBase = xBase;
                    firstOffset = x;
                }
                else if (r == 1)
                {
                    Reductions.reduce(type, op, firstBase, firstOffset, xBase, x, recvBase, dst, elements);
                }
                else
                {
                    Reductions.reduce(type, op, recvBase, dst, xBase, x, recvBase, dst, elements);
                }
            }

            // step 3: done reading this chunk (release: our reads happen-before the contributors' next writes)
            context.setFlag(SLOT_CONSUMED, token);
        }
        context.releaseStaging();
    }
}
