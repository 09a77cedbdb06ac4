package io.jccl.algorithms.shm;

import io.jccl.Collective;
import io.jccl.spi.CollectiveArgs;
import io.jccl.spi.CollectiveContext;

import java.util.Set;

/**
 * Single-copy broadcast: the root publishes its buffer and every other rank reads it through the kernel straight
 * into its own, all at once ({@link SingleCopyReads} has the protocol, rooted: a reader waits for the root alone and
 * leaves as soon as it has read; the root waits until every reader is done).
 * <p>
 * Why: binomial hands the vector down lg p levels of point-to-point messages, a rendezvous each, so a reader waits
 * for its parent to have been scheduled and to have read it first; staged algorithms copy it twice, handing over
 * freshly written lines. Here every reader copies clean lines of the root's buffer once, in one step. 4 ranks on 2
 * cores, 2026-11-27 (AMD VM), medians of three sweeps' rows at the slow pace, 128 KiB / 512 KiB / 2 MiB: 39 / 161 /
 * 603 µs, against the next fastest's 62 (shm_eager) / 222 (binomial) / 608 (binomial), about Open MPI's time at
 * 128-512 KiB; at the fast pace others are faster (13 / 109 / 220 µs: shm_eager, binomial, shm_direct). Cost:
 * 2α_f + α_k + nβ_k, the p − 1 readers at once, plus n·β_c when the root's buffer is a heap array.
 * <p>
 * Needs single copy on every rank ({@link CollectiveContext#singleCopyBytes()} above 0).
 */
public final class ShmSingleCopyBroadcast extends SingleCopyAlgorithm
{
    /** Built once: the selector asks every call, and Set.of allocates. */
    private static final Set<Collective> COLLECTIVES = Set.of(Collective.BROADCAST);

    @Override
    public String description()
    {
        return "every rank reads the root's buffer through the kernel straight into its own, all at once " +
            "(one copy of lines nobody just wrote): for large vectors on ranks that share cores";
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
        if (context.size() == 1 || bytes == 0)
        {
            return;
        }
        final int root = args.root;
        if (context.rank() == root)
        {
            if (SingleCopyReads.declinesCopy(context, args, args.recvBase != null, bytes))
            {
                return;
            }
            SingleCopyReads.offer(context,
                SingleCopyReads.readableAddress(context, 2, args.recvBase, args.recvOffset, bytes));
            SingleCopyReads.finish(context);
        }
        else
        {
            if (!ShmProtocol.awaitSingleCopy(context, root, context.token(ShmProtocol.STEP_SINGLE_COPY)))
            {
                args.declined = true;
                return;
            }
            SingleCopyReads.copy(context, root, 0, args.recvBase, args.recvOffset, bytes);
            SingleCopyReads.consumed(context);
        }
    }
}
