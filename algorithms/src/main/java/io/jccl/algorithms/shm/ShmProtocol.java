package io.jccl.algorithms.shm;

import io.jccl.DataType;
import io.jccl.JcclException;
import io.jccl.ReduceOp;
import io.jccl.spi.CollectiveArgs;
import io.jccl.spi.CollectiveContext;
import io.jccl.spi.Reductions;

/**
 * What the shared-memory algorithms agree on: the flag slots, what their tokens mean, the split of each staging
 * area into two halves that alternate between chunks (and, at its end, the region of the low-latency protocol,
 * {@link LowLatencyProtocol}), and the waits of the chunk handshake.
 * <p>
 * A flag says how far its owner has got in the current operation: chunk {@code k} publishes
 * {@code token(k)}, and a zero-copy rank publishes {@code token(STEP_DIRECT)}, above every chunk step. A waiter only
 * asks "has the owner got at least this far", so a value from a later operation (always larger) is a correct answer
 * too, and no flag is ever reset.
 * <p>
 * Chunk handshake for chunk {@code k}, which uses half {@code k % 2} of the writer's staging area:
 * <ol>
 *   <li>the writer waits until every reader has set {@link #SLOT_CONSUMED} to {@code token(k - 2)}, the last chunk
 *       that used the same half ("done reading" direction);</li>
 *   <li>the writer copies chunk {@code k} in and release-stores {@link #SLOT_READY} = {@code token(k)}
 *       ("data ready" direction);</li>
 *   <li>a reader acquire-loads {@link #SLOT_READY} until it is at least {@code token(k)}, reads, then release-stores
 *       {@link #SLOT_CONSUMED} = {@code token(k)}.</li>
 * </ol>
 * Between two operations, {@link CollectiveContext#acquireStaging()} and {@link CollectiveContext#releaseStaging()}
 * stand in for the handshake, so chunk 0 and 1 of an operation need no wait; an operation of one chunk uses the half
 * of its sequence's parity alone ({@link #halfOf}, {@link #acquireExchange}), which in a stream of exchanges needs no
 * wait at all.
 * <p>
 * Zero-copy: a rank whose buffer lies in symmetric memory publishes {@code token(STEP_DIRECT)} (peers read its send
 * buffer), {@code token(STEP_DIRECT_RECV)} (its recv buffer) or {@code token(STEP_DIRECT_SEND_RECV)} (peers read its
 * send buffer and write their reduced blocks into its recv) in {@link #SLOT_READY}, and peers use the buffers in
 * place; when done, they set {@link #SLOT_CONSUMED} to {@code token(STEP_DIRECT)} (two-shot with a private recv
 * instead stages its reduced blocks and hands them over with the chunk handshake). Readers check the kind of the
 * value they see, so ranks that disagree about symmetric memory fail with a message instead of reading stale staging
 * data. A zero-copy rank publishes the segment offset of the buffer it shares in the payload of {@link #SLOT_READY}
 * (in the flag's own cache line, so it costs readers no transfer: {@link #publishDirect}, {@link #directAddress}):
 * views may lie at different places on different ranks (an in-place reduce root passes its recv buffer, an
 * allgather its block of recv), and peers use each rank's own.
 * <p>
 * Single copy ({@link SingleCopyReads}): the owner writes the address of its buffer to {@link #SLOT_ADDRESS},
 * the one slot that holds a value rather than a step (it need not grow: nobody waits on it, and peers read it only
 * after {@link #SLOT_READY} shows {@code token(STEP_SINGLE_COPY)}), then publishes that token; peers read the buffer
 * through the kernel and set {@link #SLOT_CONSUMED} to the same token when done. A rank that declines the call
 * publishes {@code token(STEP_SINGLE_COPY_DECLINED)} instead, and every rank leaves the call unread, the decliner at
 * once and the others when they see it ({@link #awaitSingleCopy}): the engine then runs a staged algorithm as the
 * next operation, whose tokens are all above this one's.
 */
final class ShmProtocol
{
    /** Chunk {@code k} of the owner's data is in its staging area, or its buffer is readable in place. */
    static final int SLOT_READY = 1;

    /** The owner has finished reading chunk {@code k} of its peers (or, zero-copy, everything it reads). */
    static final int SLOT_CONSUMED = 2;

    /**
     * Two-shot: the owner's reduced block of chunk {@code k} is in its staging area; zero-copy broadcast
     * ({@code token(STEP_DIRECT)}): the root has written its share into every other rank's recv; single-copy two-shot
     * ({@code token(STEP_SINGLE_COPY)}): the owner's reduced block is readable through the kernel at the address in
     * payload word {@link #WORD_BUFFER}.
     */
    static final int SLOT_REDUCED = 3;

    /** Barrier: the owner has arrived. */
    static final int SLOT_ARRIVED = 4;

    /** Single copy: the address of the owner's buffer that peers read; written before {@link #SLOT_READY}. */
    static final int SLOT_ADDRESS = 7;

    /** Step published by a rank whose buffer its peers read in place; above every chunk step. */
    static final int STEP_DIRECT = CollectiveContext.MAX_STEPS - 1;

    /** Like {@link #STEP_DIRECT}, but peers read the owner's recv buffer (its own block of an allgather). */
    static final int STEP_DIRECT_RECV = CollectiveContext.MAX_STEPS - 2;

    /**
     * Published instead of {@link #STEP_SINGLE_COPY} by a rank that declines a single-copy call
     * ({@link SingleCopyReads#declinesCopy}); above it, so that a peer's wait for that step ends on it too.
     */
    static final int STEP_SINGLE_COPY_DECLINED = CollectiveContext.MAX_STEPS - 3;

    /**
     * Like {@link #STEP_DIRECT}, but peers also write the owner's recv buffer in place (two-shot allreduce whose send
     * and recv buffers are both symmetric: each rank writes its reduced block into every rank's recv).
     */
    static final int STEP_DIRECT_SEND_RECV = CollectiveContext.MAX_STEPS - 4;

    /**
     * Published by a rank whose peers read its send buffer through the kernel ({@link SingleCopyReads}),
     * with the buffer's address in {@link #SLOT_ADDRESS}.
     */
    static final int STEP_SINGLE_COPY = CollectiveContext.MAX_STEPS - 5;

    /** Payload word of {@link #SLOT_READY}: the segment offset of the buffer a zero-copy rank shares. */
    static final int WORD_BUFFER = 0;

    /** Payload word of {@link #SLOT_READY}: with {@link #STEP_DIRECT_SEND_RECV}, the segment offset of recv. */
    static final int WORD_RECV = 1;

    /** Chunk steps run from 0 to {@code MAX_CHUNKS - 1}, below every zero-copy and single-copy step. */
    static final long MAX_CHUNKS = STEP_SINGLE_COPY;

    /** Staging halves start on cache lines, so each half is a whole number of lines. */
    static final long CACHE_LINE = 64;

    private ShmProtocol()
    {
    }

    /**
     * Bytes of one staging half, which is also the most one chunk carries: half the staging area without its
     * low-latency and eager regions ({@link LowLatencyProtocol}, {@link EagerProtocol}), or the call's smaller chunk
     * size ({@link CollectiveArgs#chunkBytes}), in whole cache lines.
     */
    static long halfStagingBytes(final CollectiveContext context, final CollectiveArgs args)
    {
        final long physical = bulkStagingBytes(context) >> 1;
        return args.chunkBytes > 0 ? Math.min(physical, args.chunkBytes & ~(CACHE_LINE - 1)) : physical;
    }

    /**
     * Bytes at the start of each staging area that the bulk algorithms use under the staging protocol: the area
     * without its low-latency and eager regions, two halves of whole cache lines.
     */
    static long bulkStagingBytes(final CollectiveContext context)
    {
        return ((context.stagingBytes() - LowLatencyProtocol.regionBytes(context) -
            EagerProtocol.regionBytes(context)) >> 1 & ~(CACHE_LINE - 1)) << 1;
    }

    /**
     * Null when {@code units} units of {@code unitBytes} each (what one chunk carries per element column) fit in
     * at most {@link #MAX_CHUNKS} chunks of one staging half, else why not.
     */
    static String stagingReason(final String name, final CollectiveContext context, final CollectiveArgs args,
        final long unitBytes, final long units)
    {
        final long half = halfStagingBytes(context, args);
        if (half < unitBytes)
        {
            final long needed = 2 * Math.max(CACHE_LINE, (unitBytes + CACHE_LINE - 1) & ~(CACHE_LINE - 1));
            return name + " needs a staging area of at least " + needed + " bytes per rank, this job has " +
                context.stagingBytes();
        }
        final long unitsPerChunk = half / unitBytes;
        if (units / unitsPerChunk >= MAX_CHUNKS)
        {
            return name + " would need more than " + MAX_CHUNKS + " chunks of " + unitsPerChunk * unitBytes +
                " bytes: use a larger staging area than " + context.stagingBytes() + " bytes";
        }
        return null;
    }

    /**
     * Number of chunks of {@code perChunk} units that carry {@code total} units; fits an int once
     * {@link #stagingReason} has accepted the call. (Counting chunk loops with an int does not by itself keep C2
     * from using a moved array's old address, as was once thought here: see {@link io.jccl.spi.Elements}. The
     * chunk loops run under a GC-making thread in ShmAlgorithmsTest.)
     */
    static int chunks(final long total, final long perChunk)
    {
        return (int) ((total + perChunk - 1) / perChunk);
    }

    /** First element of {@code block} when {@code elements} are split into {@code blocks} near-equal blocks. */
    static long blockStart(final long elements, final int blocks, final int block)
    {
        return block * (elements / blocks) + Math.min(block, elements % blocks);
    }

    /**
     * Before chunk {@code chunk} overwrites half {@code chunk % 2} of this rank's staging area: waits until every
     * peer has consumed chunk {@code chunk - 2}, the previous user of that half (acquire: their reads happen-before
     * our writes). Chunks 0 and 1 follow {@link CollectiveContext#acquireStaging()} and need no wait.
     */
    static void awaitHalfFree(final CollectiveContext context, final int chunk)
    {
        if (chunk >= 2)
        {
            final int rank = context.rank();
            final int size = context.size();
            final long consumed = context.token(chunk - 2);
            for (int i = 1; i < size; i++)
            {
                awaitStaged(context, (rank + i) % size, SLOT_CONSUMED, consumed);
            }
        }
    }

    /**
     * The staging half (0 or 1) that chunk {@code chunk} of an operation of {@code chunks} chunks uses: chunks take
     * turns; an operation of one chunk takes the half of its sequence's parity, so that back-to-back exchanges of one
     * chunk alternate halves and need no handshake between calls ({@link #acquireExchange}).
     */
    static int halfOf(final CollectiveContext context, final int chunks, final int chunk)
    {
        return chunks == 1 ? (int) (context.sequence() & 1) : chunk & 1;
    }

    /**
     * {@link CollectiveContext#acquireStaging()} for an exchange (every rank reads every peer's staged chunks) of
     * {@code chunks} chunks: its one half alone ({@link CollectiveContext#acquireStagingPart}), or both.
     */
    static void acquireExchange(final CollectiveContext context, final int chunks)
    {
        if (chunks == 1)
        {
            context.acquireStagingPart(halfOf(context, 1, 0));
        }
        else
        {
            context.acquireStaging();
        }
    }

    /**
     * {@link CollectiveContext#releaseStaging()} for an exchange that acquired with {@link #acquireExchange}. This
     * rank has seen every peer's tokens of the operation by now, so it also says
     * {@link CollectiveContext#peersStarted()}: in a stream of one-chunk exchanges the half's last user, two calls
     * back, is then known to be finished everywhere.
     */
    static void releaseExchange(final CollectiveContext context, final int chunks)
    {
        context.peersStarted();
        if (chunks == 1)
        {
            context.releaseStagingPart(halfOf(context, 1, 0));
        }
        else
        {
            context.releaseStaging();
        }
    }

    /**
     * Publishes (release) that this rank has staged chunk {@code chunk} of {@code chunks} of an exchange, and returns
     * the chunk's token. After the last chunk this rank's part of the exchange is written: its waits only read
     * ({@link CollectiveContext#onlyReadsLeft}).
     */
    static long publishExchangeChunk(final CollectiveContext context, final int chunk, final int chunks)
    {
        final long token = context.token(chunk);
        context.setFlag(SLOT_READY, token);
        if (chunk == chunks - 1)
        {
            context.onlyReadsLeft();
        }
        return token;
    }

    /**
     * Waits (acquire) until {@code peer}'s {@code slot} reaches {@code token} of the staging protocol; fails when the
     * peer runs the zero-copy protocol instead.
     */
    static void awaitStaged(final CollectiveContext context, final int peer, final int slot, final long token)
    {
        final long seen = context.waitFlag(peer, slot, token);
        if (seen >= context.token((int) MAX_CHUNKS) && seen <= context.token(STEP_DIRECT))
        {
            throw mismatch(context, peer, seen, token);
        }
    }

    /**
     * Waits (acquire) until {@code peer} publishes that its buffer is readable in place, placed as {@code step}
     * ({@link #STEP_DIRECT} or {@link #STEP_DIRECT_RECV}) says; fails when the peer placed it otherwise or
     * runs the staging protocol.
     */
    static void awaitDirect(final CollectiveContext context, final int peer, final int step)
    {
        final long expected = context.token(step);
        final long seen = context.waitFlag(peer, SLOT_READY, context.token(0));
        if (seen != expected)
        {
            throw mismatch(context, peer, seen, expected);
        }
    }

    /**
     * Waits (acquire) until {@code peer} publishes its buffer for single-copy reads ({@link #STEP_SINGLE_COPY}) and
     * returns true, or returns false when the call is declined: the peer published
     * {@link #STEP_SINGLE_COPY_DECLINED}, or a step of a later operation, which it can reach before this rank has
     * read its buffer only by leaving a call that some rank declined. Fails when the peer published another kind of
     * step.
     */
    static boolean awaitSingleCopy(final CollectiveContext context, final int peer, final long token)
    {
        final long seen = context.waitFlag(peer, SLOT_READY, token);
        if (seen == token)
        {
            return true;
        }
        if (seen == context.token(STEP_SINGLE_COPY_DECLINED) || seen >= context.token(0) + CollectiveContext.MAX_STEPS)
        {
            return false;
        }
        throw mismatch(context, peer, seen, token);
    }

    /**
     * Publishes (release) that this rank's buffer at {@code segmentOffset} may be used in place, placed as {@code step}
     * says: the offset goes into the payload of {@link #SLOT_READY} (any other payload word the caller has set goes
     * with it), then the step (release: the caller's writes and the payload happen-before the peers' reads).
     */
    static void publishDirect(final CollectiveContext context, final int step, final long segmentOffset)
    {
        context.setFlagPayload(SLOT_READY, WORD_BUFFER, segmentOffset);
        context.setFlag(SLOT_READY, context.token(step));
    }

    /**
     * The address, in this rank's mapping, of byte {@code at} of the buffer whose segment offset {@code peer}
     * published in payload {@code word} ({@link #publishDirect}); only after {@link #awaitDirect} for that peer.
     */
    static long directAddress(final CollectiveContext context, final int peer, final int word, final long at)
    {
        return context.segmentAddress(context.getFlagPayload(peer, SLOT_READY, word) + at);
    }

    /**
     * dst = x_0 op x_1 op ... op x_(p-1) over {@code count} elements from byte {@code at} of the buffer every rank
     * published as {@code step} ({@link #publishDirect}), in rank order, so whichever rank reduces gets the same bits;
     * waits (acquire) for each rank's buffer in turn (at once for a rank already seen).
     */
    static void reduceInRankOrder(
        final CollectiveContext context, final int step, final DataType type, final ReduceOp op, final long at,
        final Object dstBase, final long dst, final long count)
    {
        awaitDirect(context, 0, step);
        awaitDirect(context, 1, step);
        Reductions.reduce(type, op, null, directAddress(context, 0, WORD_BUFFER, at),
            null, directAddress(context, 1, WORD_BUFFER, at), dstBase, dst, count);
        final int size = context.size();
        for (int r = 2; r < size; r++)
        {
            awaitDirect(context, r, step);
            Reductions.reduce(type, op, dstBase, dst, null, directAddress(context, r, WORD_BUFFER, at),
                dstBase, dst, count);
        }
    }

    /** Zero-copy end of operation: every peer has set {@link #SLOT_CONSUMED} to {@code token(STEP_DIRECT)}. */
    static void awaitAllConsumedDirect(final CollectiveContext context)
    {
        final int rank = context.rank();
        final int size = context.size();
        final long done = context.token(STEP_DIRECT);
        for (int i = 1; i < size; i++)
        {
            context.waitFlag((rank + i) % size, SLOT_CONSUMED, done);
        }
    }

    private static JcclException mismatch(
        final CollectiveContext context, final int peer, final long peerToken, final long ownToken)
    {
        return new JcclException("operation " + context.sequence() + ": rank " + peer + " passed " +
            placement(context, peerToken) + " but rank " + context.rank() + " passed " +
            placement(context, ownToken) + ": every rank must pass buffers from allocateShared, or none");
    }

    private static String placement(final CollectiveContext context, final long token)
    {
        if (token == context.token(STEP_DIRECT))
        {
            return "a symmetric send buffer";
        }
        if (token == context.token(STEP_DIRECT_SEND_RECV))
        {
            return "symmetric send and recv buffers";
        }
        if (token == context.token(STEP_SINGLE_COPY))
        {
            return "a buffer read through the kernel (shm_single_copy)";
        }
        if (token == context.token(STEP_SINGLE_COPY_DECLINED))
        {
            return "a buffer it declined to copy for shm_single_copy";
        }
        return token == context.token(STEP_DIRECT_RECV) ? "a symmetric recv buffer" : "private memory";
    }
}
