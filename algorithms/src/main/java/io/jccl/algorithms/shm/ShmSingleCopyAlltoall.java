package io.jccl.algorithms.shm;

import io.jccl.Collective;
import io.jccl.spi.CollectiveArgs;
import io.jccl.spi.CollectiveContext;
import io.jccl.spi.Memory;

import java.util.Set;

/**
 * Single-copy alltoall: every rank publishes its send buffer and reads the block each peer addressed to it through
 * the kernel straight into recv ({@link SingleCopyReads} has the protocol). All ranks read at once, one kernel call
 * per block, and no line a peer reads was written during the call (see {@link ShmSingleCopyAllreduce} for why that
 * matters); pairwise exchange over single-copy messages instead pays a rendezvous and a system call per chunk.
 * <p>
 * Cost (n = bytes of one rank's send buffer): 2α_f + (p − 1)(α + (n/p)β) + (n/p)β_c, β the point-to-point β of a
 * single-copy message; plus n·β_c when the send buffer is copied first (a heap array, or recv overlaps
 * it), and another n(p − 1)/p·β_c through a bounce buffer for a heap recv.
 * <p>
 * Needs single copy on every rank ({@link CollectiveContext#singleCopyBytes()} above 0).
 */
public final class ShmSingleCopyAlltoall extends SingleCopyAlgorithm
{
    /** Built once: the selector asks every call, and Set.of allocates. */
    private static final Set<Collective> COLLECTIVES = Set.of(Collective.ALLTOALL);

    @Override
    public String description()
    {
        return "every rank reads the block each peer addressed to it through the kernel straight into recv, all " +
            "ranks at once (one copy of lines nobody just wrote): for large blocks";
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
            final long bytes = size * blockBytes;

            // step 1: publish a send buffer that stays put and unchanged until every peer has read it
            final long own = SingleCopyReads.publish(context, args, bytes, bytes);
            if (own == SingleCopyReads.DECLINED)
            {
                return;
            }

            // step 2: the block each peer addressed to us, starting after our rank, then our own: reads first,
            // while the peers' buffers are still in their owners' caches as they left them
            for (int i = 1; i < size; i++)
            {
                final int r = (rank + i) % size;
                SingleCopyReads.copy(context, r, rank * blockBytes, args.recvBase, args.recvOffset + r * blockBytes,
                    blockBytes);
            }
            Memory.copy(null, own + rank * blockBytes, args.recvBase, args.recvOffset + rank * blockBytes,
                blockBytes);

            // step 3: done reading (release); return once no peer reads our send buffer any more (acquire)
            SingleCopyReads.finish(context);
        }
    }
}
