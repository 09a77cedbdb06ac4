package io.jccl.algorithms.shm;

import io.jccl.DataType;
import io.jccl.ReduceOp;
import io.jccl.spi.CollectiveArgs;
import io.jccl.spi.CollectiveContext;
import io.jccl.spi.Memory;
import io.jccl.spi.Reductions;

import static io.jccl.algorithms.shm.ShmProtocol.SLOT_ADDRESS;
import static io.jccl.algorithms.shm.ShmProtocol.SLOT_CONSUMED;
import static io.jccl.algorithms.shm.ShmProtocol.SLOT_READY;
import static io.jccl.algorithms.shm.ShmProtocol.SLOT_REDUCED;
import static io.jccl.algorithms.shm.ShmProtocol.STEP_SINGLE_COPY;
import static io.jccl.algorithms.shm.ShmProtocol.STEP_SINGLE_COPY_DECLINED;
import static io.jccl.algorithms.shm.ShmProtocol.WORD_BUFFER;

/**
 * The single-copy protocol of the {@code shm_single_copy} algorithms: ranks read each other's buffers through the
 * kernel ({@link CollectiveContext#readPeer}, process_vm_readv), so no line crosses cores right after it was written,
 * and what a rank reads lands where it is used (its recv buffer, or a bounce buffer it reduces from).
 * <ol>
 *   <li>{@link #publish} (or {@link #publishAddress} for a buffer the caller has chosen): a send buffer that is
 *       off-heap and apart from recv is published in place; otherwise (a heap array, which the GC may move, or one
 *       that recv overlaps) a copy ({@link #copyForPeers}): in the rank's staging area up to 1 MiB, which peers
 *       read through the mapping, else in scratch. Its address goes to {@link ShmProtocol#SLOT_ADDRESS} (a copy in
 *       staging as {@link #STAGED} and its offset there, since the area lies elsewhere in each process), then
 *       {@code token(STEP_SINGLE_COPY)} to {@link ShmProtocol#SLOT_READY} (release); the rank waits for every peer's
 *       token (acquire). Where the call allows it, a rank whose copy would cost more than a staged algorithm
 *       declines instead ({@link #declinesCopy}), and every rank leaves the call unread: the
 *       communicator runs a staged algorithm next;</li>
 *   <li>{@link #reduce}: recv = x_0 op x_1 op ... op x_(p-1), in rank order so every rank computes the same bits,
 *       x_j being a range of rank j's published buffer, read in chunks of {@link CollectiveArgs#chunkBytes} (else
 *       {@link #READ_CHUNK_BYTES}) into one of two bounce buffers, so that x_0 is still there when x_1 arrives (a copy
 *       in a peer's staging area is reduced where it lies); or {@link #copy}: a range of a peer's published buffer
 *       straight into recv, in one kernel call when recv is off-heap (from a peer's staging area, one copy through
 *       the mapping);</li>
 *   <li>{@link #finish}: {@link ShmProtocol#SLOT_CONSUMED} = the token (release), then a wait until every peer has
 *       said the same (acquire), since a peer may still be reading this rank's buffer.</li>
 * </ol>
 * A rooted call whose root alone is read (broadcast) has the root {@link #offer} its buffer without waiting and
 * {@link #finish}, and every other rank await the root's token alone, read, and {@link #consumed} without waiting: a
 * reader waits for no other reader. A call of two rounds (two-shot allreduce) publishes the buffer of its second
 * round with {@link #publishSecond} in the payload of {@link ShmProtocol#SLOT_REDUCED}, so that the first round's
 * address stays put while peers may still read it, and peers find it with {@link #awaitSecond}.
 */
final class SingleCopyReads
{
    /** Bytes per kernel read: large enough to amortise the call and its page pinning, small enough to stay in L2. */
    static final long READ_CHUNK_BYTES = 256 * 1024;

    /**
     * Marks a published word as an offset into the publisher's staging area rather than an address (user-space
     * addresses are positive).
     */
    static final long STAGED = Long.MIN_VALUE;

    /**
     * The largest copy for peers that goes to the staging area ({@link #copyForPeers}): one core's L2 here. 2 ranks,
     * heap arrays, at the fast pace, against copies in scratch: copies of 32-512 KiB and the 1 MiB blocks of a 2 MiB
     * allgather took 0.48-0.79x the time, but copies of 2 MiB gained nothing, 1.02-1.18x, within the 0.86-1.22x by
     * which the unchanged 8 MiB rows moved (PERFORMANCE.md, session 46).
     */
    static final long STAGED_COPY_MAX_BYTES = 1 << 20;

    /** What {@link #publish} returns when the call is declined: no buffer lies at address 0. */
    static final long DECLINED = 0;

    private SingleCopyReads()
    {
    }

    static String unsupportedReason(final String name, final CollectiveContext context)
    {
        return context.singleCopyBytes() > 0 ? null :
            name + " needs single copy (process_vm_readv) between every pair of ranks, which is off";
    }

    /**
     * Step 1; returns the address of the buffer this rank published, which holds its send buffer's bytes, or
     * {@link #DECLINED} when this rank or a peer declined the call ({@link #declinesCopy}).
     */
    static long publish(final CollectiveContext context, final CollectiveArgs args, final long sendBytes,
        final long recvBytes)
    {
        final boolean copy = args.sendBase != null ||
            Memory.overlaps(args.sendBase, args.sendOffset, sendBytes, args.recvBase, args.recvOffset, recvBytes);
        if (declinesCopy(context, args, copy, sendBytes))
        {
            return DECLINED;
        }
        final long own = copy ? copyForPeers(context, 2, args.sendBase, args.sendOffset, sendBytes) : args.sendOffset;
        return publishAddress(context, args, own) ? own : DECLINED;
    }

    /**
     * Whether an allgather's rank publishes its send buffer itself ({@link #publishBlock}): when it is off-heap and
     * apart from recv, of {@code recvBytes}, or already in place at {@code ownBlock}, the block's place in recv. Its
     * bytes then still go to their place once the peers' blocks are read, while those are in their owners' caches.
     */
    static boolean publishesSend(final CollectiveArgs args, final long ownBlock, final long blockBytes,
        final long recvBytes)
    {
        return args.sendBase == null && (args.sendOffset == ownBlock && args.recvBase == null ||
            !Memory.overlaps(null, args.sendOffset, blockBytes, args.recvBase, args.recvOffset, recvBytes));
    }

    /**
     * Step 1 for an allgather's block of {@code blockBytes}: publishes it, unchanged until every peer has read it: the
     * send buffer itself where {@code publishSend} ({@link #publishesSend}); else its place in recv at
     * {@code ownBlock}, copied there first (a heap send buffer too, as the peers' blocks may land on it), or, recv on
     * the heap, a copy of that. Returns the address published, or {@link #DECLINED} when this rank or a peer declined
     * the call ({@link #declinesCopy}).
     */
    static long publishBlock(final CollectiveContext context, final CollectiveArgs args, final boolean publishSend,
        final long ownBlock, final long blockBytes)
    {
        final long published;
        if (publishSend)
        {
            published = args.sendOffset;
        }
        else if (declinesCopy(context, args, args.recvBase != null, blockBytes))
        {
            return DECLINED;
        }
        else
        {
            Memory.copy(args.sendBase, args.sendOffset, args.recvBase, ownBlock, blockBytes);
            published = readableAddress(context, 2, args.recvBase, ownBlock, blockBytes);
        }
        return publishAddress(context, args, published) ? published : DECLINED;
    }

    /**
     * In place of step 1, for a rank that would {@code copy} {@code copyBytes} for its peers: when the call allows it
     * and the copy lies in the window (from {@link CollectiveArgs#declinedCopyMinBytes} up to
     * {@link CollectiveArgs#declinedCopyMaxBytes}) or beyond the call's bound on copies
     * ({@link CollectiveArgs#maxCopyBytes}, which keeps scratch bounded), declines the call (release) and returns
     * true. This rank then leaves the call at once, and every peer when it sees this
     * ({@link ShmProtocol#awaitSingleCopy}); {@link CollectiveArgs#declined} tells the communicator.
     */
    static boolean declinesCopy(final CollectiveContext context, final CollectiveArgs args, final boolean copy,
        final long copyBytes)
    {
        if (!copy || args.declinedCopyMaxBytes == 0 || copyBytes < args.declinedCopyMinBytes ||
            copyBytes >= args.declinedCopyMaxBytes && copyBytes <= args.maxCopyBytes)
        {
            return false;
        }
        context.setFlag(SLOT_READY, context.token(STEP_SINGLE_COPY_DECLINED));
        args.declined = true;
        return true;
    }

    /**
     * A copy of the {@code bytes} at {@code (base, offset)} for peers to read until {@link #finish}; returns its
     * address. In this rank's staging area when they fit ({@link ShmProtocol#bulkStagingBytes}) and are at most
     * {@link #STAGED_COPY_MAX_BYTES}: the copy has just written those lines, so the kernel would gain nothing by
     * reading them, and a peer copies them through the mapping without a system call or a bounce buffer. Else in
     * scratch buffer {@code slot}. The staging area is free again when {@link #finish} returns (every peer has read),
     * so the call records no use of it with the staging ledger.
     */
    static long copyForPeers(final CollectiveContext context, final int slot, final Object base, final long offset,
        final long bytes)
    {
        if (bytes <= Math.min(STAGED_COPY_MAX_BYTES, ShmProtocol.bulkStagingBytes(context)))
        {
            context.acquireStaging();
            final long staging = context.stagingAddress(context.rank());
            Memory.copyToShared(base, offset, staging, bytes);
            return staging;
        }
        return copyToScratch(context, slot, base, offset, bytes);
    }

    /**
     * The address from which peers can read the {@code bytes} at {@code (base, offset)} until {@link #finish}: the
     * memory itself when it is off-heap, else {@link #copyForPeers} (the GC may move an array, and the kernel reads
     * addresses).
     */
    static long readableAddress(final CollectiveContext context, final int slot, final Object base, final long offset,
        final long bytes)
    {
        return base == null ? offset : copyForPeers(context, slot, base, offset, bytes);
    }

    /**
     * Like {@link #readableAddress}, but a copy goes to scratch buffer {@code slot}, never to staging: for a second
     * publication in a call whose first may lie in the staging area.
     */
    static long readableAddressInScratch(final CollectiveContext context, final int slot, final Object base,
        final long offset, final long bytes)
    {
        return base == null ? offset : copyToScratch(context, slot, base, offset, bytes);
    }

    private static long copyToScratch(final CollectiveContext context, final int slot, final Object base,
        final long offset, final long bytes)
    {
        final long copy = context.scratch(slot, bytes);
        Memory.copy(base, offset, null, copy, bytes);
        return copy;
    }

    /**
     * Step 1 for a buffer at {@code address} that stays put and unchanged until {@link #finish}: publishes it
     * (release) and waits until every peer has published its own (acquire); returns false, with
     * {@link CollectiveArgs#declined} set, when a peer declined the call instead.
     */
    static boolean publishAddress(final CollectiveContext context, final CollectiveArgs args, final long address)
    {
        final long token = offer(context, address);
        final int rank = context.rank();
        final int size = context.size();
        for (int i = 1; i < size; i++)
        {
            if (!ShmProtocol.awaitSingleCopy(context, (rank + i) % size, token))
            {
                args.declined = true;
                return false;
            }
        }
        return true;
    }

    /**
     * Publishes (release) the buffer at {@code address}, which stays put and unchanged until {@link #finish}, without
     * waiting for the peers; returns the call's token.
     */
    static long offer(final CollectiveContext context, final long address)
    {
        final long token = context.token(STEP_SINGLE_COPY);
        final long staging = context.stagingAddress(context.rank());
        final boolean staged = address >= staging && address < staging + context.stagingBytes();
        context.setFlag(SLOT_ADDRESS, staged ? STAGED | address - staging : address);
        context.setFlag(SLOT_READY, token);
        return token;
    }

    /**
     * The second round's publication: the buffer at {@code address} (stays put and unchanged until {@link #finish})
     * in the payload of {@link ShmProtocol#SLOT_REDUCED}, then the call's token there (release).
     */
    static void publishSecond(final CollectiveContext context, final long address)
    {
        context.setFlagPayload(SLOT_REDUCED, WORD_BUFFER, address);
        context.setFlag(SLOT_REDUCED, context.token(STEP_SINGLE_COPY));
    }

    /** Waits (acquire) for {@code peer}'s {@link #publishSecond} of this call; returns the address it published. */
    static long awaitSecond(final CollectiveContext context, final int peer)
    {
        context.waitFlag(peer, SLOT_REDUCED, context.token(STEP_SINGLE_COPY));
        return context.getFlagPayload(peer, SLOT_REDUCED, WORD_BUFFER);
    }

    /**
     * Step 2 of a copying collective: bytes {@code [from, from + bytes)} of {@code peer}'s published buffer into
     * {@code (base, offset)}; one kernel call into off-heap memory, else chunks through a bounce buffer (the kernel
     * needs an address the GC does not move).
     */
    static void copy(final CollectiveContext context, final int peer, final long from, final Object base,
        final long offset, final long bytes)
    {
        copyFrom(context, peer, context.getFlag(peer, SLOT_ADDRESS) + from, base, offset, bytes);
    }

    /** Like {@link #copy}, from {@code remote} in {@code peer}'s memory (or staging area, {@link #STAGED}). */
    static void copyFrom(final CollectiveContext context, final int peer, final long remote, final Object base,
        final long offset, final long bytes)
    {
        if (remote < 0)
        {
            Memory.copy(null, inStaging(context, peer, remote), base, offset, bytes);
        }
        else if (base == null)
        {
            context.readPeer(peer, remote, offset, bytes);
        }
        else
        {
            copyThroughBounce(context, peer, remote, base, offset, bytes);
        }
    }

    /** The address here of a {@link #STAGED} word (plus any offset added to it) that {@code peer} published. */
    private static long inStaging(final CollectiveContext context, final int peer, final long staged)
    {
        return context.stagingAddress(peer) + (staged & ~STAGED);
    }

    /** A kernel read into an address the GC may move: chunks through a bounce buffer. */
    private static void copyThroughBounce(final CollectiveContext context, final int peer, final long remote,
        final Object base, final long offset, final long bytes)
    {
        final long bounce = context.scratch(1, READ_CHUNK_BYTES);
        final int chunks = ShmProtocol.chunks(bytes, READ_CHUNK_BYTES);
        for (int chunk = 0; chunk < chunks; chunk++)
        {
            final long at = chunk * READ_CHUNK_BYTES;
            final long length = Math.min(READ_CHUNK_BYTES, bytes - at);
            context.readPeer(peer, remote + at, bounce, length);
            Memory.copy(null, bounce, base, offset + at, length);
        }
    }

    /**
     * Step 2: recv[to, to + bytes) = the reduction of bytes [from, from + bytes) of every rank's published buffer
     * ({@code own} this rank's).
     */
    static void reduce(final CollectiveContext context, final CollectiveArgs args, final long own, final long from,
        final long to, final long bytes)
    {
        final int rank = context.rank();
        final int size = context.size();
        final DataType type = args.type;
        final ReduceOp op = args.op;
        final int elementSize = type.size();
        final Object recvBase = args.recvBase;
        final long chunkBytes = Math.max(elementSize, (args.chunkBytes > 0 ? args.chunkBytes : READ_CHUNK_BYTES) /
            elementSize * elementSize);
        final long bounce = context.scratch(1, 2 * chunkBytes);
        final int chunks = ShmProtocol.chunks(bytes / elementSize, chunkBytes / elementSize);
        for (int chunk = 0; chunk < chunks; chunk++)
        {
            final long at = chunk * chunkBytes;
            final long chunkLength = Math.min(chunkBytes, bytes - at);
            final long elements = chunkLength / elementSize;
            final long dst = args.recvOffset + to + at;
            long first = 0;
            for (int r = 0; r < size; r++)
            {
                final long x;
                if (r == rank)
                {
                    x = own + from + at;
                }
                else
                {
                    final long remote = context.getFlag(r, SLOT_ADDRESS) + from + at;
                    if (remote < 0)
                    {
                        x = inStaging(context, r, remote);
                    }
                    else
                    {
                        x = bounce + (r & 1) * chunkBytes;
                        context.readPeer(r, remote, x, chunkLength);
                    }
                }
                if (r == 0)
                {
                    first = x;
                }
                else if (r == 1)
                {
                    Reductions.reduce(type, op, null, first, null, x, recvBase, dst, elements);
                }
                else
                {
                    Reductions.reduce(type, op, recvBase, dst, null, x, recvBase, dst, elements);
                }
            }
        }
    }

    /** Step 3. */
    static void finish(final CollectiveContext context)
    {
        final long token = consumed(context);
        final int rank = context.rank();
        final int size = context.size();
        for (int i = 1; i < size; i++)
        {
            context.waitFlag((rank + i) % size, SLOT_CONSUMED, token);
        }
    }

    /** This rank has read what it reads of this call (release); returns the call's token. */
    static long consumed(final CollectiveContext context)
    {
        final long token = context.token(STEP_SINGLE_COPY);
        context.setFlag(SLOT_CONSUMED, token);
        return token;
    }
}
