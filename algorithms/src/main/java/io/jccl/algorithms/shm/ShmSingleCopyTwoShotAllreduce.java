package io.jccl.algorithms.shm;

import io.jccl.Collective;
import io.jccl.algorithms.pattern.VectorSplit;
import io.jccl.spi.CollectiveArgs;
import io.jccl.spi.CollectiveContext;
import io.jccl.spi.Memory;

import java.util.Set;

/**
 * Two-shot allreduce through the kernel: a single-copy reduce-scatter, then a single-copy allgather of the reduced
 * blocks ({@link SingleCopyReads} has the protocol). Rank r reads block r of every peer's send buffer and reduces it
 * into its block of recv, publishes that block, and reads every peer's reduced block into its place in recv.
 * <p>
 * Why: {@link ShmSingleCopyAllreduce} has every rank read and reduce the whole vector of every peer, (p − 1)·n bytes
 * per rank, which two ranks afford and four sharing two cores do not; the staged {@link ShmTwoShotAllreduce} hands
 * over freshly written lines twice, which is slow where cross-core handoffs are. Here each rank reads 2(p − 1)·n/p
 * bytes, the first half lines nobody has just written (the second half, the reduced blocks, are fresh: no design
 * avoids that). 4 ranks on 2 cores, 2026-11-27 (AMD VM), medians of three sweeps' rows at the slow pace, 512 KiB / 2
 * MiB / 8 MiB: 326 / 1228 / 5289 µs, against two-shot's 404 / 1758 / 6958 and shm_single_copy's 454 / 2054 / 10563;
 * at the fast pace two-shot stays ahead up to 2 MiB (86 / 446 against 264 / 726). Cost:
 * 3α_f + (p − 1)·(⌈n/(pR)⌉·α_k + (n/p)β_k) + n(p − 1)/p·γ + (p − 1)·(α_k + (n/p)β_k), R = 256 KiB, plus n·β_c when the
 * send buffer is copied first (a heap array, or in place).
 * <p>
 * Needs single copy on every rank ({@link CollectiveContext#singleCopyBytes()} above 0).
 */
public final class ShmSingleCopyTwoShotAllreduce extends SingleCopyAlgorithm
{
    /** Built once: the selector asks every call, and Set.of allocates. */
    private static final Set<Collective> COLLECTIVES = Set.of(Collective.ALLREDUCE);

    public ShmSingleCopyTwoShotAllreduce()
    {
        super("shm_single_copy_twoshot");
    }

    @Override
    public String description()
    {
        return "rank r reads block r of every peer's send buffer through the kernel and reduces it, then every rank " +
            "reads each peer's reduced block: a single-copy reduce-scatter and allgather, for large vectors";
    }

    @Override
    public Set<Collective> collectives()
    {
        return COLLECTIVES;
    }

    @Override
    public void run(final CollectiveContext context, final CollectiveArgs args)
    {
        final int elementSize = args.type.size();
        final long bytes = args.count * elementSize;
        if (context.size() == 1)
        {
            Memory.copy(args.sendBase, args.sendOffset, args.recvBase, args.recvOffset, bytes);
        }
        else if (bytes > 0)
        {
            final int rank = context.rank();
            final int size = context.size();
            final Object recvBase = args.recvBase;
            final long recvOffset = args.recvOffset;

            // round 1: publish the send buffer (a copy when it is on the heap or recv overlaps it), reduce
            // our block of every rank's into our block of recv
            final long own = SingleCopyReads.publish(context, args, bytes, bytes);
            if (own == SingleCopyReads.DECLINED)
            {
                return;
            }
            final long blockStart = VectorSplit.start(args.count, size, rank) * elementSize;
            final long blockBytes = VectorSplit.count(args.count, size, rank) * elementSize;
            SingleCopyReads.reduce(context, args, own, blockStart, blockStart, blockBytes);

            // round 2: publish the reduced block where it lies (a heap recv: a copy in scratch), read the peers'
            SingleCopyReads.publishSecond(context,
                SingleCopyReads.readableAddressInScratch(context, 3, recvBase, recvOffset + blockStart, blockBytes));
            for (int i = 1; i < size; i++)
            {
                final int r = (rank + i) % size;
                final long peerBytes = VectorSplit.count(args.count, size, r) * elementSize;
                final long remote = SingleCopyReads.awaitSecond(context, r);
                if (peerBytes > 0)
                {
                    SingleCopyReads.copyFrom(context, r, remote, recvBase,
                        recvOffset + VectorSplit.start(args.count, size, r) * elementSize, peerBytes);
                }
            }

            // done reading (release); return once no peer reads our send buffer or block any more (acquire)
            SingleCopyReads.finish(context);
        }
    }
}
