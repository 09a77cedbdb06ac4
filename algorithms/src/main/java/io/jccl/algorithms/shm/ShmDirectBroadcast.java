package io.jccl.algorithms.shm;

import io.jccl.Collective;
import io.jccl.spi.CollectiveAlgorithm;
import io.jccl.spi.CollectiveArgs;
import io.jccl.spi.CollectiveContext;
import io.jccl.spi.Memory;

import java.util.Set;

import static io.jccl.algorithms.shm.ShmProtocol.SLOT_CONSUMED;
import static io.jccl.algorithms.shm.ShmProtocol.SLOT_READY;
import static io.jccl.algorithms.shm.ShmProtocol.SLOT_REDUCED;
import static io.jccl.algorithms.shm.ShmProtocol.STEP_DIRECT;
import static io.jccl.algorithms.shm.ShmProtocol.STEP_DIRECT_RECV;
import static io.jccl.algorithms.shm.ShmProtocol.WORD_BUFFER;

/**
 * Direct broadcast: the root publishes the vector and every other rank copies it straight out of shared memory,
 * all at once, instead of passing it down a tree.
 * <p>
 * Staged (private buffers), per chunk of up to {@link #CHUNK_BYTES} bytes (or the call's chunk size, at most S/2):
 * the root copies the chunk into its staging area and publishes it; the others copy it out and report it consumed.
 * The root stages chunk k + 1 while the others read chunk k. Cost: (2K + 1)·α_f + n·β_c + n·β_r, K chunks
 * (pipelined: about K·α_f + n·β_r + chunk·β_c).
 * <p>
 * Zero-copy (buffers in symmetric memory): every rank publishes its recv buffer; each other rank copies the head of
 * the vector, n − n/p bytes, from the root's buffer in place, while the root writes the tail, n/p bytes, into every
 * other rank's recv, so the root's core works too and every core moves n(p − 1)/p bytes. The root returns once all
 * are done. Cost: 3·α_f + n(p − 1)/p·β_r. Against the readers copying all of it (2 ranks, three alternating runs):
 * 4-32 KiB 0.5-0.9x the time, 512 KiB-32 MiB 0.35-0.6x (2 MiB 56-67 µs against 161-186, 32 MiB 1.2-1.3 ms against
 * 2.2-2.7); 4 ranks on 2 cores, 128 KiB-32 MiB, within the noise (0.75-1.4x, median 0.9x).
 */
public final class ShmDirectBroadcast implements CollectiveAlgorithm
{
    /** Built once: the selector asks every call, and Set.of allocates. */
    private static final Set<Collective> COLLECTIVES = Set.of(Collective.BROADCAST);

    /**
     * Default chunk of the staged broadcast, where the call sets none: small enough that the chunks pipeline and stay
     * in L2, where a whole staging half (about 2 MiB) left a vector of up to 2 MiB one chunk that the readers could
     * only start on once the root had staged all of it. Alternating runs, 2026-11-24: 4 ranks on 2 cores, 512 KiB
     * 87-102 µs against 110-115 and 2 MiB 394-412 against 489-681; 2 ranks (single copy off) 512 KiB-8 MiB
     * 0.65-0.8x the time (2 MiB 190-225 µs against 288-298). At 4 ranks 64 KiB and 1 MiB chunks did about as well.
     */
    public static final long CHUNK_BYTES = 256 * 1024;

    @Override
    public String name()
    {
        return "shm_direct";
    }

    @Override
    public String description()
    {
        return "the root publishes the vector in shared memory and all other ranks copy it out at once";
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
        if (reason != null || size == 1 || args.recvSegmentOffset >= 0)
        {
            return reason;
        }
        return ShmProtocol.stagingReason(name(), context, args, args.elementSize(), args.count);
    }

    @Override
    public void run(final CollectiveContext context, final CollectiveArgs args)
    {
        if (context.size() > 1 && args.count > 0)
        {
            if (args.recvSegmentOffset >= 0)
            {
                runDirect(context, args);
            }
            else
            {
                runStaged(context, args);
            }
        }
    }

    private static void runStaged(final CollectiveContext context, final CollectiveArgs args)
    {
        final int root = args.root;
        final boolean isRoot = context.rank() == root;
        final int elementSize = args.type.size();
        final long count = args.count;
        final Object base = args.recvBase;
        final long offset = args.recvOffset;
        final long halfBytes = args.chunkBytes > 0 ? ShmProtocol.halfStagingBytes(context, args) :
            Math.min(ShmProtocol.halfStagingBytes(context, args), CHUNK_BYTES);
        final long chunkElements = halfBytes / elementSize;
        final long rootStaging = context.stagingAddress(root);

        // only the root writes staging; the others only read the root's, after it has acquired it
        if (isRoot)
        {
            context.acquireStaging();
        }
        final int chunks = ShmProtocol.chunks(count, chunkElements);
        for (int chunk = 0; chunk < chunks; chunk++)
        {
            final long first = chunk * chunkElements;
            final long chunkBytes = Math.min(chunkElements, count - first) * elementSize;
            final long staging = rootStaging + (chunk & 1) * halfBytes;
            final long token = context.token(chunk);
            if (isRoot)
            {
                // root step 1: the half this chunk uses held chunk - 2: wait until every rank has consumed it
                ShmProtocol.awaitHalfFree(context, chunk);

                // root step 2: stage the chunk and publish it (release)
                Memory.copyToShared(base, offset + first * elementSize, staging, chunkBytes);
                context.setFlag(SLOT_READY, token);
            }
            else
            {
                // step 1: wait (acquire) for the root's chunk, copy it out, report it consumed (release)
                ShmProtocol.awaitStaged(context, root, SLOT_READY, token);
                Memory.copy(null, staging, base, offset + first * elementSize, chunkBytes);
                context.setFlag(SLOT_CONSUMED, token);
            }
        }
        context.releaseStaging();
    }

    private static void runDirect(final CollectiveContext context, final CollectiveArgs args)
    {
        final int root = args.root;
        final int rank = context.rank();
        final int size = context.size();
        final long bytes = args.count * args.type.size();
        final long head = (bytes - bytes / size) & ~(ShmProtocol.CACHE_LINE - 1);
        final long done = context.token(STEP_DIRECT);

        // step 1: every rank publishes its recv buffer as it is (release: the root's data happen-before the others'
        // reads, and each reader's arrival before the root's writes into its buffer)
        ShmProtocol.publishDirect(context, STEP_DIRECT_RECV, args.recvSegmentOffset);
        if (rank == root)
        {
            // root step 2: the tail of the vector into each other rank's recv, once it has arrived (acquire); then
            // report the tails written (release), and return once every rank has read its head (acquire)
            for (int i = 1; i < size; i++)
            {
                final int r = (rank + i) % size;
                ShmProtocol.awaitDirect(context, r, STEP_DIRECT_RECV);
                Memory.copy(args.recvBase, args.recvOffset + head,
                    null, ShmProtocol.directAddress(context, r, WORD_BUFFER, head), bytes - head);
            }
            context.setFlag(SLOT_REDUCED, done);
            ShmProtocol.awaitAllConsumedDirect(context);
        }
        else
        {
            // step 2: the head, copied in place from the root's buffer (acquire); wait (acquire) until the root has
            // written our tail, and report done (release)
            ShmProtocol.awaitDirect(context, root, STEP_DIRECT_RECV);
            Memory.copy(null, ShmProtocol.directAddress(context, root, WORD_BUFFER, 0),
                args.recvBase, args.recvOffset, head);
            context.waitFlag(root, SLOT_REDUCED, done);
            context.setFlag(SLOT_CONSUMED, done);
        }
    }
}
