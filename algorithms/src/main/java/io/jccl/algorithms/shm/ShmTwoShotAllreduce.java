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
import static io.jccl.algorithms.shm.ShmProtocol.SLOT_REDUCED;
import static io.jccl.algorithms.shm.ShmProtocol.STEP_DIRECT;
import static io.jccl.algorithms.shm.ShmProtocol.STEP_DIRECT_SEND_RECV;
import static io.jccl.algorithms.shm.ShmProtocol.WORD_RECV;

/**
 * Two-shot allreduce: a reduce-scatter and an allgather through shared memory without extra copies. Each chunk is
 * split into p blocks; rank r reduces block r of every rank's input (in rank order, so the bits do not depend on who
 * reduces) into its staging area, and then every rank copies all p reduced blocks into its recv.
 * <p>
 * Staged (private buffers), per chunk of up to S/2 bytes: stage the p − 1 blocks that peers reduce (the own block
 * is read from send), publish; reduce the own block into the own staging area, where the own input was not staged,
 * publish; copy the p reduced blocks out; report the chunk consumed. Cost:
 * 2K·α_f + n(p − 1)/p·β_c + n(p − 1)/p·(β_r + γ) + n(p − 1)/p·β_r + n/p·β_c, K = ⌈n / (S/2)⌉:
 * about 2K·α_f + (3 − 2/p)·n·β + (p − 1)/p·n·γ, against one-shot's p·n·β + (p − 1)·n·γ.
 * <p>
 * Zero-copy (send buffers in symmetric memory): blocks are reduced straight from the peers' send buffers and only
 * the reduced blocks are staged, so a chunk carries p·S/2 bytes. Cost:
 * (2K' + 1)·α_f + n(p − 1)/p·(β_r + γ) + n(p − 1)/p·β_r + n/p·β_c, K' = ⌈n / (p·S/2)⌉. Once a rank holds
 * every reduced block of the last chunk, every peer has finished reading its send buffer, so no closing wait is
 * needed; recv may be the send buffer (a peer's block of our send buffer is overwritten only after that peer has
 * published its reduction of it).
 * <p>
 * Zero-copy into recv (send and recv buffers both symmetric, in place or apart): rank r reduces its block straight
 * from the peers' send buffers and writes it straight into every rank's recv, piece by piece so that each reduced
 * piece is copied out of the cache; nothing is staged, and nobody but rank r touches block r of any buffer, so in
 * place needs no ordering between ranks. Per rank it reads n bytes and writes n, against the staged blocks' 2n and
 * 1.5n. Cost: 2·α_f + n(p − 1)/p·(β_r + γ) + n(p − 1)/p·β_w (the reads of the peers' blocks and the writes into
 * their recv).
 */
public final class ShmTwoShotAllreduce implements CollectiveAlgorithm
{
    /** Built once: the selector asks every call, and Set.of allocates. */
    private static final Set<Collective> COLLECTIVES = Set.of(Collective.ALLREDUCE);

    /**
     * Default piece of the zero-copy path into recv: 2 ranks, 128 KiB-32 MiB, pieces of 16 KiB to 256 KiB took the
     * same time within the noise, 1 MiB up to 2.5x as long at 512 KiB-2 MiB (the piece no longer stays in L2).
     */
    static final long INTO_RECV_PIECE_BYTES = 64 * 1024;

    @Override
    public String name()
    {
        return "shm_twoshot";
    }

    @Override
    public String description()
    {
        return "each rank reduces 1/p of the vector from all peers' shared memory, then all copy the reduced " +
            "blocks: reduce-scatter plus allgather without extra copies, for large vectors";
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
        if (reason != null || size == 1)
        {
            return reason;
        }
        final long stagedPerRank = args.sendSegmentOffset >= 0 ? (args.count + size - 1) / size : args.count;
        return ShmProtocol.stagingReason(name(), context, args, args.elementSize(), stagedPerRank);
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
            if (args.sendSegmentOffset >= 0 && args.recvSegmentOffset >= 0 &&
                (args.inPlace() || !Memory.overlaps(args.sendBase, args.sendOffset, bytes, args.recvBase,
                    args.recvOffset, bytes)))
            {
                runIntoRecv(context, args);
            }
            else if (args.sendSegmentOffset >= 0)
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
            final long staging = context.stagingAddress(rank) + half;
            final long from = ShmProtocol.blockStart(elements, size, rank);
            final long to = ShmProtocol.blockStart(elements, size, rank + 1);
            final long send = sendOffset + first * elementSize;

            // step 1: the half this chunk uses held chunk - 2: wait until every peer has consumed it
            ShmProtocol.awaitHalfFree(context, chunk);

            // step 2: stage every block but ours (the peers reduce them) and publish (release)
            Memory.copyToShared(sendBase, send, staging, from * elementSize);
            Memory.copyToShared(sendBase, send + to * elementSize, staging + to * elementSize,
                (elements - to) * elementSize);
            final long token = context.token(chunk);
            context.setFlag(SLOT_READY, token);

            // step 3: our block = x_0 op ... op x_(p-1) into our staging area, where our own input was not staged;
            // wait (acquire) for each peer's staged chunk in turn; our own block is read from send
            final long dst = staging + from * elementSize;
            Object firstBase = null;
            long firstOffset = 0;
            for (int r = 0; r < size; r++)
            {
                ShmProtocol.awaitStaged(context, r, SLOT_READY, token);
                final Object xBase = r == rank ? sendBase : null;
                final long x = r == rank ? send + from * elementSize :
                    context.stagingAddress(r) + half + from * elementSize;
                if (r == 0)
                {
                    firstBase = xBase;
                    firstOffset = x;
                }
                else if (r == 1)
                {
                    Reductions.reduce(type, op, firstBase, firstOffset, xBase, x, null, dst, to - from);
                }
                else
                {
                    Reductions.reduce(type, op, null, dst, xBase, x, null, dst, to - from);
                }
            }
            // publish the reduced block (release)
            context.setFlag(SLOT_REDUCED, token);

            // step 4: copy every reduced block into recv, each once its owner has published it (acquire); our own
            // input was consumed in steps 2 and 3, so recv may be the send buffer
            final long recv = recvOffset + first * elementSize;
            for (int i = 0; i < size; i++)
            {
                final int r = (rank + i) % size;
                final long blockFrom = ShmProtocol.blockStart(elements, size, r);
                final long blockTo = ShmProtocol.blockStart(elements, size, r + 1);
                ShmProtocol.awaitStaged(context, r, SLOT_REDUCED, token);
                Memory.copy(null, context.stagingAddress(r) + half + blockFrom * elementSize,
                    recvBase, recv + blockFrom * elementSize, (blockTo - blockFrom) * elementSize);
            }

            // step 5: done reading this chunk everywhere (release: our reads happen-before the owners' next writes)
            context.setFlag(SLOT_CONSUMED, token);
        }
        ShmProtocol.releaseExchange(context, chunks);
    }

    private static void runIntoRecv(final CollectiveContext context, final CollectiveArgs args)
    {
        final int rank = context.rank();
        final int size = context.size();
        final DataType type = args.type;
        final ReduceOp op = args.op;
        final int elementSize = type.size();
        final long from = ShmProtocol.blockStart(args.count, size, rank);
        final long to = ShmProtocol.blockStart(args.count, size, rank + 1);
        final long pieceElements = Math.max(1, intoRecvPieceBytes(args) / elementSize);
        // in place, rank 0 and 1 accumulate over inputs already read (x_0 op x_1 into x_1's place), but rank r >= 2
        // would overwrite its own input x_r before reading it: it reduces into private scratch instead
        final boolean viaScratch = args.inPlace() && rank >= 2;
        final long scratch = viaScratch ? context.scratch(0, pieceElements * elementSize) : 0;

        // step 1: publish (release) that our send buffer may be read and our recv buffer written in place (the
        // caller's writes happen-before the peers' reads), and wait (acquire) until every peer has published its own
        context.setFlagPayload(SLOT_READY, WORD_RECV, args.recvSegmentOffset);
        ShmProtocol.publishDirect(context, STEP_DIRECT_SEND_RECV, args.sendSegmentOffset);
        for (int i = 1; i < size; i++)
        {
            ShmProtocol.awaitDirect(context, (rank + i) % size, STEP_DIRECT_SEND_RECV);
        }

        // step 2: our block, piece by piece: x_0 op ... op x_(p-1) in rank order, read in place from every send
        // buffer, into our recv (or scratch); then the piece, still in this core's cache, into every other recv
        for (long first = from; first < to; first += pieceElements)
        {
            final long elements = Math.min(pieceElements, to - first);
            final long pieceBytes = elements * elementSize;
            final long at = first * elementSize;
            final long dst = viaScratch ? scratch : ShmProtocol.directAddress(context, rank, WORD_RECV, at);
            ShmProtocol.reduceInRankOrder(context, STEP_DIRECT_SEND_RECV, type, op, at, null, dst, elements);
            for (int i = viaScratch ? 0 : 1; i < size; i++)
            {
                Memory.copy(null, dst, null, ShmProtocol.directAddress(context, (rank + i) % size, WORD_RECV, at),
                    pieceBytes);
            }
        }

        // step 3: report done (release: our reads and writes happen-before the peers' return), and return only when
        // every peer has written its block into our recv and read its last byte of our send (acquire)
        context.setFlag(SLOT_CONSUMED, context.token(STEP_DIRECT));
        ShmProtocol.awaitAllConsumedDirect(context);
    }

    /**
     * Bytes of one reduced piece that {@link #runIntoRecv} copies out while it is in cache: the call's chunk size, or
     * {@link #INTO_RECV_PIECE_BYTES}.
     */
    private static long intoRecvPieceBytes(final CollectiveArgs args)
    {
        return args.chunkBytes > 0 ? args.chunkBytes : INTO_RECV_PIECE_BYTES;
    }

    private static void runDirect(final CollectiveContext context, final CollectiveArgs args, final long bytes)
    {
        final int rank = context.rank();
        final int size = context.size();
        final DataType type = args.type;
        final ReduceOp op = args.op;
        final int elementSize = type.size();
        final long count = args.count;
        final long segmentOffset = args.sendSegmentOffset;
        final Object recvBase = args.recvBase;
        final long recvOffset = args.recvOffset;
        final long halfBytes = ShmProtocol.halfStagingBytes(context, args);
        final long chunkElements = size * (halfBytes / elementSize);

        // recv equal to send is safe (see the class comment); a partial overlap could hit input still to be read
        final boolean viaScratch = !args.inPlace() &&
            Memory.overlaps(args.sendBase, args.sendOffset, bytes, recvBase, recvOffset, bytes);
        final Object dstBase = viaScratch ? null : recvBase;
        final long dstOffset = viaScratch ? context.scratch(0, bytes) : recvOffset;

        // step 1: publish our send buffer as it is (release: the caller's writes happen-before peers' reads), and
        // wait (acquire) until every peer has published its own
        context.acquireStaging();
        ShmProtocol.publishDirect(context, STEP_DIRECT, segmentOffset);
        for (int i = 1; i < size; i++)
        {
            ShmProtocol.awaitDirect(context, (rank + i) % size, STEP_DIRECT);
        }

        final int chunks = ShmProtocol.chunks(count, chunkElements);
        for (int chunk = 0; chunk < chunks; chunk++)
        {
            final long first = chunk * chunkElements;
            final long elements = Math.min(chunkElements, count - first);
            final long staging = context.stagingAddress(rank) + (chunk & 1) * halfBytes;
            final long from = ShmProtocol.blockStart(elements, size, rank);
            final long blockElements = ShmProtocol.blockStart(elements, size, rank + 1) - from;
            final long at = (first + from) * elementSize;

            // step 2: the half this chunk uses held chunk - 2: wait until every peer has consumed it
            ShmProtocol.awaitHalfFree(context, chunk);

            // step 3: our block = x_0 op ... op x_(p-1), read in place from every send buffer, into staging;
            // publish it (release)
            ShmProtocol.reduceInRankOrder(context, STEP_DIRECT, type, op, at, null, staging, blockElements);
            final long token = context.token(chunk);
            context.setFlag(SLOT_REDUCED, token);

            // step 4: copy every reduced block, each once its owner has published it (acquire); the owner of block r
            // has finished reading block r of our send buffer, so writing it is safe even in place
            final long dst = dstOffset + first * elementSize;
            for (int i = 0; i < size; i++)
            {
                final int r = (rank + i) % size;
                final long blockFrom = ShmProtocol.blockStart(elements, size, r);
                final long blockTo = ShmProtocol.blockStart(elements, size, r + 1);
                ShmProtocol.awaitStaged(context, r, SLOT_REDUCED, token);
                Memory.copy(null, context.stagingAddress(r) + (chunk & 1) * halfBytes,
                    dstBase, dst + blockFrom * elementSize, (blockTo - blockFrom) * elementSize);
            }

            // step 5: done reading this chunk everywhere (release: our reads happen-before the owners' next writes)
            context.setFlag(SLOT_CONSUMED, token);
        }
        context.releaseStaging();

        // step 6: every peer has published every reduced block, so nobody reads our send buffer any more
        if (viaScratch)
        {
            Memory.copy(null, dstOffset, recvBase, recvOffset, bytes);
        }
    }
}
