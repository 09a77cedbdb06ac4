package io.jccl.algorithms.shm;

import io.jccl.Collective;
import io.jccl.spi.CollectiveArgs;
import io.jccl.spi.CollectiveContext;
import io.jccl.spi.Memory;

import java.util.Set;

/**
 * Single-copy allreduce: every rank reads each peer's whole send buffer through the kernel and reduces the whole
 * vector itself, in rank order, so every rank computes identical bits ({@link SingleCopyReads} has the protocol).
 * <p>
 * Why: no line a peer reads was written during the call. The staged algorithms hand over lines another core has
 * just written, which costs a cross-core transfer of each dirty line; on machines where that is slow (a VM whose
 * vCPUs land on distant cores, two sockets) this reads the peers' clean lines instead, as Open MPI's CMA path does.
 * The price is one kernel copy of (p − 1)·n bytes per rank instead of two-shot's shared 2n(p − 1)/p. Cost:
 * 2α_f + (p − 1)·n·(β + γ), β the point-to-point β of n's regime (a single-copy message), plus n·β_c when the send
 * buffer is copied first (a heap array, or in place).
 * <p>
 * Needs single copy on every rank ({@link CollectiveContext#singleCopyBytes()} above 0), which is the same answer on
 * every rank, so every rank takes this algorithm or none.
 */
public final class ShmSingleCopyAllreduce extends SingleCopyAlgorithm
{
    /** Built once: the selector asks every call, and Set.of allocates. */
    private static final Set<Collective> COLLECTIVES = Set.of(Collective.ALLREDUCE);

    @Override
    public String description()
    {
        return "every rank reads all peers' send buffers through the kernel (one copy of lines nobody just wrote) " +
            "and reduces the whole vector: for large vectors where cross-core handoffs of fresh data are slow";
    }

    @Override
    public Set<Collective> collectives()
    {
        return COLLECTIVES;
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
            final long own = SingleCopyReads.publish(context, args, bytes, bytes);
            if (own == SingleCopyReads.DECLINED)
            {
                return;
            }
            SingleCopyReads.reduce(context, args, own, 0, 0, bytes);
            SingleCopyReads.finish(context);
        }
    }
}
