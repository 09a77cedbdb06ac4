package io.jccl.algorithms.shm;

import io.jccl.Collective;
import io.jccl.spi.CollectiveArgs;
import io.jccl.spi.CollectiveContext;
import io.jccl.spi.Memory;

import java.util.Set;

/**
 * Single-copy allgather: every rank publishes where its block lives and reads every peer's block through the kernel
 * straight into its place in recv ({@link SingleCopyReads} has the protocol). All ranks read at once, one kernel call
 * per block, and no line a peer reads was written during the call (see {@link ShmSingleCopyAllreduce} for why that
 * matters); a ring over single-copy messages instead pays a rendezvous and a system call per chunk of every step.
 * <p>
 * The block a rank publishes: its send buffer when that is off-heap and apart from the peers' blocks of recv (so the
 * peers read lines this call did not write), else its block of recv once copied there, else (both on the heap) a
 * copy, which peers copy out of the mapping when it lies in the rank's staging area. Cost (n = bytes of the whole
 * recv): 2α_f + (p − 1)(α + (n/p)β) + (n/p)β_c, β the point-to-point β of a single-copy message; a heap recv takes
 * every block read through the kernel through a bounce buffer, another n(p − 1)/p·β_c.
 * <p>
 * Needs single copy on every rank ({@link CollectiveContext#singleCopyBytes()} above 0).
 */
public final class ShmSingleCopyAllgather extends SingleCopyAlgorithm
{
    /** Built once: the selector asks every call, and Set.of allocates. */
    private static final Set<Collective> COLLECTIVES = Set.of(Collective.ALLGATHER);

    @Override
    public String description()
    {
        return "every rank reads each peer's block through the kernel straight into recv, all ranks at once " +
            "(one copy of lines nobody just wrote): for large blocks";
    }

    @Override
    public Set<Collective> collectives()
    {
        return COLLECTIVES;
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
            final int rank = context.rank();
            final int size = context.size();
            final Object recvBase = args.recvBase;
            final long recvOffset = args.recvOffset;
            final long ownBlock = recvOffset + rank * blockBytes;

            // step 1: publish our block (the send buffer itself, or its place in recv, or a copy)
            final boolean publishSend = SingleCopyReads.publishesSend(args, ownBlock, blockBytes, size * blockBytes);
            if (SingleCopyReads.publishBlock(context, args, publishSend, ownBlock, blockBytes) ==
                SingleCopyReads.DECLINED)
            {
                return;
            }

            // step 2: every peer's block into its place, starting after our rank so peers spread their reads; then
            // ours (a memmove, a no-op in place): reads first, while the peers' blocks are in their owners' caches
            for (int i = 1; i < size; i++)
            {
                final int r = (rank + i) % size;
                SingleCopyReads.copy(context, r, 0, recvBase, recvOffset + r * blockBytes, blockBytes);
            }
            if (publishSend)
            {
                Memory.copy(args.sendBase, args.sendOffset, recvBase, ownBlock, blockBytes);
            }

            // step 3: done reading (release); return once no peer reads our block any more (acquire)
            SingleCopyReads.finish(context);
        }
    }
}
