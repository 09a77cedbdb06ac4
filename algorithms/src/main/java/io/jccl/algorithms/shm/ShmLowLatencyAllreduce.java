package io.jccl.algorithms.shm;

import io.jccl.Collective;
import io.jccl.spi.CollectiveAlgorithm;
import io.jccl.spi.CollectiveArgs;
import io.jccl.spi.CollectiveContext;
import io.jccl.spi.Memory;
import io.jccl.spi.Reductions;

import java.util.Set;

/**
 * One-shot allreduce on the low-latency protocol ({@link LowLatencyProtocol}): every rank writes its input into its
 * LL slot, reads every peer's slot as the lines arrive, and reduces the p inputs in rank order, so every rank
 * computes identical bits. The flag travels with the data: one cache-line handoff per line of input instead of the
 * staged one-shot's data line, flag line and staging release. Small vectors only. An input that fits one line is
 * reduced straight from the peers' lines, without gathering them into scratch first.
 * <p>
 * Cost, λ = 8/7 (a 64-byte line carries 56 payload bytes): α_f + (1 + λ)n·β_c + λ(p − 1)n·β + (p − 1)n·γ, for
 * n ≤ {@link LowLatencyProtocol#MAX_BYTES} bytes.
 */
public final class ShmLowLatencyAllreduce implements CollectiveAlgorithm
{
    /** Built once: the selector asks every call, and Set.of allocates. */
    private static final Set<Collective> COLLECTIVES = Set.of(Collective.ALLREDUCE);

    @Override
    public String name()
    {
        return "shm_ll";
    }

    @Override
    public String description()
    {
        return "one-shot allreduce with the flag inside the data (LL lines): one handoff, for vectors up to " +
            LowLatencyProtocol.MAX_BYTES + " bytes";
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
        return reason != null || size == 1 ? reason :
            LowLatencyProtocol.reason(name(), context, args.count * args.elementSize());
    }

    @Override
    public void run(final CollectiveContext context, final CollectiveArgs args)
    {
        final long bytes = args.count * args.type.size();
        final int size = context.size();
        if (size == 1)
        {
            Memory.copy(args.sendBase, args.sendOffset, args.recvBase, args.recvOffset, bytes);
            return;
        }
        if (bytes == 0)
        {
            return;
        }

        // step 1: publish the input, stamped with this operation's epoch
        LowLatencyProtocol.publish(context, args.sendBase, args.sendOffset, bytes);
        if (bytes <= LowLatencyProtocol.LINE_PAYLOAD)
        {
            reduceFromLines(context, args, bytes);
            return;
        }

        // step 2: gather every rank's input into scratch (the own one too, copied: recv may be the send buffer)
        final int rank = context.rank();
        final long inputs = context.scratch(0, size * bytes);
        Memory.copy(args.sendBase, args.sendOffset, null, inputs + rank * bytes, bytes);
        for (int i = 1; i < size; i++)
        {
            final int peer = (rank + i) % size;
            LowLatencyProtocol.read(context, peer, bytes, 0, bytes, null, inputs + peer * bytes);
        }
        LowLatencyProtocol.finishExchange(context);

        // step 3: recv = x_0 op x_1 op ... op x_(p-1), in rank order on every rank
        LowLatencyProtocol.reduceInRankOrder(context, args, inputs, bytes);
    }

    /**
     * Steps 2 and 3 for an input that fits one line: recv = x_0 op ... op x_(p-1), reading each peer's input in its
     * line and the own one from a copy in scratch (recv may be the send buffer). While ranks share cores, the ranks
     * of a core run their paths between waits one after the other, so every step saved there counts several times:
     * at 4 ranks on 2 cores this halved an 8-byte allreduce's time above the barrier. Reading the own line instead of
     * the copy, while the peers fetch it, cost 2 ranks 0.02-0.12 µs a call (PERFORMANCE.md, session 30).
     */
    private static void reduceFromLines(final CollectiveContext context, final CollectiveArgs args, final long bytes)
    {
        final long own = context.scratch(0, bytes);
        Memory.copy(args.sendBase, args.sendOffset, null, own, bytes);
        Reductions.reduce(args.type, args.op, null, input(context, 0, own), null, input(context, 1, own),
            args.recvBase, args.recvOffset, args.count);
        for (int r = 2; r < context.size(); r++)
        {
            Reductions.reduce(args.type, args.op, args.recvBase, args.recvOffset, null, input(context, r, own),
                args.recvBase, args.recvOffset, args.count);
        }
        // the peers' lines have been read: they may be reused
        LowLatencyProtocol.finishExchange(context);
    }

    /** Address of rank {@code r}'s input: the own copy, or r's line once it has arrived. */
    private static long input(final CollectiveContext context, final int r, final long own)
    {
        return r == context.rank() ? own : LowLatencyProtocol.awaitLine(context, r);
    }
}
