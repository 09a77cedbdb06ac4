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

import static io.jccl.algorithms.shm.ShmProtocol.SLOT_ADDRESS;
import static io.jccl.algorithms.shm.ShmProtocol.SLOT_CONSUMED;
import static io.jccl.algorithms.shm.ShmProtocol.SLOT_READY;
import static io.jccl.algorithms.shm.ShmProtocol.STEP_SINGLE_COPY;

/**
 * Single-copy allreduce: every rank publishes the address of its send buffer, reads each peer's whole buffer
 * through the kernel ({@link CollectiveContext#readPeer}, process_vm_readv) into a local bounce buffer, chunk by
 * chunk, and reduces the whole vector itself, in rank order, so every rank computes identical bits.
 * <p>
 * Why: no line a peer reads was written during the call. The staged algorithms hand over lines another core has
 * just written, which costs a cross-core transfer of each dirty line; on machines where that is slow (a VM whose
 * vCPUs land on distant cores, two sockets) this reads the peers' clean lines instead, as Open MPI's CMA path does.
 * The price is one kernel copy of (p − 1)·n bytes per rank instead of two-shot's shared 2n(p − 1)/p.
 * <p>
 * Protocol: a rank whose send buffer is off-heap and apart from recv publishes it in place; otherwise (a heap
 * array, which the GC may move, or in place) it first copies it to scratch and publishes that. Then
 * {@link ShmProtocol#SLOT_ADDRESS} = address and {@link ShmProtocol#SLOT_READY} = {@code token(STEP_SINGLE_COPY)}
 * (release); peers wait for that token (acquire) and read the address. Per chunk of c bytes
 * ({@link CollectiveArgs#chunkBytes}, else {@link #READ_CHUNK_BYTES}): recv = x_0 op x_1 op ... op x_(p-1), each
 * peer's chunk read into one of two bounce buffers. Finally {@link ShmProtocol#SLOT_CONSUMED} =
 * {@code token(STEP_SINGLE_COPY)}, and the rank returns once every peer has said the same, since a peer may still be
 * reading its buffer. Cost: 2α_f + (p − 1)·n·(β + γ), β the point-to-point β of n's regime (a single-copy message),
 * plus n·β_c for the scratch copy.
 * <p>
 * Needs single copy on every rank ({@link CollectiveContext#singleCopyBytes()} above 0), which is the same answer on
 * every rank, so every rank takes this algorithm or none.
 */
public final class ShmSingleCopyAllreduce implements CollectiveAlgorithm
{
    /** Bytes per kernel read: large enough to amortise the call and its page pinning, small enough to stay in L2. */
    static final long READ_CHUNK_BYTES = 256 * 1024;

    @Override
    public String name()
    {
        return "shm_single_copy";
    }

    @Override
    public String description()
    {
        return "every rank reads all peers' send buffers through the kernel (one copy of lines nobody just wrote) " +
            "and reduces the whole vector: for large vectors where cross-core handoffs of fresh data are slow";
    }

    @Override
    public Set<Collective> collectives()
    {
        return Set.of(Collective.ALLREDUCE);
    }

    @Override
    public String unsupportedReason(final CollectiveArgs args, final int size, final CollectiveContext context)
    {
        final String reason = CollectiveAlgorithm.super.unsupportedReason(args, size, context);
        if (reason != null || size == 1 || context.singleCopyBytes() > 0)
        {
            return reason;
        }
        return name() + " needs single copy (process_vm_readv) between every pair of ranks, which is off";
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
            runReads(context, args, bytes);
        }
    }

    private static void runReads(final CollectiveContext context, final CollectiveArgs args, final long bytes)
    {
        final int rank = context.rank();
        final int size = context.size();
        final DataType type = args.type;
        final ReduceOp op = args.op;
        final int elementSize = type.size();
        final Object recvBase = args.recvBase;
        final long recvOffset = args.recvOffset;
        final long chunkBytes = Math.max(elementSize, (args.chunkBytes > 0 ? args.chunkBytes : READ_CHUNK_BYTES) /
            elementSize * elementSize);
        final long token = context.token(STEP_SINGLE_COPY);

        // step 1: publish a send buffer that stays put and unchanged until every peer has read it (release)
        final boolean copySend = args.sendBase != null ||
            ShmProtocol.overlaps(args.sendBase, args.sendOffset, bytes, recvBase, recvOffset, bytes);
        final long own = copySend ? context.scratch(2, bytes) : args.sendOffset;
        if (copySend)
        {
            Memory.copy(args.sendBase, args.sendOffset, null, own, bytes);
        }
        context.setFlag(SLOT_ADDRESS, own);
        context.setFlag(SLOT_READY, token);

        // step 2: wait for every peer's address (acquire: its address and buffer are published before the token)
        final long bounce = context.scratch(1, 2 * chunkBytes);
        for (int i = 1; i < size; i++)
        {
            ShmProtocol.awaitSingleCopy(context, (rank + i) % size, token);
        }

        // step 3: recv = x_0 op ... op x_(p-1), chunk by chunk; peers' chunks land in alternating bounce halves, so
        // x_0 is still there when x_1 arrives
        final int chunks = ShmProtocol.chunks(args.count, chunkBytes / elementSize);
        for (int chunk = 0; chunk < chunks; chunk++)
        {
            final long at = chunk * chunkBytes;
            final long chunkLength = Math.min(chunkBytes, bytes - at);
            final long elements = chunkLength / elementSize;
            final long dst = recvOffset + at;
            long first = 0;
            for (int r = 0; r < size; r++)
            {
                final long x;
                if (r == rank)
                {
                    x = own + at;
                }
                else
                {
                    x = bounce + (r & 1) * chunkBytes;
                    context.readPeer(r, context.getFlag(r, SLOT_ADDRESS) + at, x, chunkLength);
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

        // step 4: done reading (release); return once no peer reads our buffer any more (acquire)
        context.setFlag(SLOT_CONSUMED, token);
        for (int i = 1; i < size; i++)
        {
            context.waitFlag((rank + i) % size, SLOT_CONSUMED, token);
        }
    }
}
