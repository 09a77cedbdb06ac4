package io.jccl.algorithms.shm;

import io.jccl.Collective;
import io.jccl.spi.CollectiveAlgorithm;
import io.jccl.spi.CollectiveArgs;
import io.jccl.spi.CollectiveContext;
import io.jccl.spi.Memory;
import io.jccl.spi.Reductions;

import java.util.EnumSet;
import java.util.Set;

/**
 * Scan and exscan on the low-latency protocol ({@link LowLatencyProtocol}): every rank but the last writes its input
 * into its LL slot, and rank r reads the slots of ranks 0 to r − 1 as their lines arrive and reduces them in rank
 * order, then (inclusive) its own input: one handoff, as the one-shot allreduce, each rank reading only the ranks
 * below it. An input that fits one line is reduced straight from the peers' lines. Small vectors only.
 * <p>
 * Cost on the last rank, λ = 8/7 (a 64-byte line carries 56 payload bytes): α_f + (1 + λ)n·β_c + λ(p − 1)n·β +
 * (p − 1)n·γ, (p − 2)n·γ for the exclusive form, for n ≤ {@link LowLatencyProtocol#MAX_BYTES} bytes; rank r reads r
 * inputs.
 */
public final class ShmLowLatencyScan implements CollectiveAlgorithm
{
    private static final Set<Collective> COLLECTIVES = EnumSet.of(Collective.SCAN, Collective.EXSCAN);

    @Override
    public String name()
    {
        return "shm_ll";
    }

    @Override
    public String description()
    {
        return "every rank publishes LL lines (flag inside the data), rank r reduces those of ranks 0..r-1: one " +
            "handoff, for vectors up to " + LowLatencyProtocol.MAX_BYTES + " bytes";
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

    /**
     * The selector asks on every oversubscribed scan whether this one serves it, and above 1 KiB hears no: building
     * that reason took 120 bytes a call.
     */
    @Override
    public boolean supports(final CollectiveArgs args, final int size, final CollectiveContext context)
    {
        return COLLECTIVES.contains(args.collective) &&
            (size == 1 || LowLatencyProtocol.carries(context, args.count * args.elementSize()));
    }

    @Override
    public void run(final CollectiveContext context, final CollectiveArgs args)
    {
        final long bytes = args.count * args.type.size();
        final int size = context.size();
        final int rank = context.rank();
        final boolean inclusive = args.collective == Collective.SCAN;
        if (size == 1 || bytes == 0)
        {
            if (inclusive)
            {
                Memory.copy(args.sendBase, args.sendOffset, args.recvBase, args.recvOffset, bytes);
            }
            return;
        }

        // step 1: publish the input for the ranks above, stamped with this operation's epoch (the last rank's input
        // is nobody's to read)
        if (rank < size - 1)
        {
            LowLatencyProtocol.publish(context, args.sendBase, args.sendOffset, bytes);
        }
        else
        {
            context.onlyReadsLeft();
        }
        if (rank == 0)
        {
            if (inclusive)
            {
                Memory.copy(args.sendBase, args.sendOffset, args.recvBase, args.recvOffset, bytes);
            }
            LowLatencyProtocol.finish(context);
            return;
        }

        // step 2: recv = x_0 op ... op x_(r-1) [op x_r], in rank order. The own input is read from a copy when recv
        // is the send buffer, which the prefix overwrites first.
        final boolean inPlace = args.sendBase == args.recvBase && args.sendOffset == args.recvOffset;
        final Object ownBase = inclusive && inPlace ? null : args.sendBase;
        final long ownOffset = inclusive && inPlace ? context.scratch(0, bytes) : args.sendOffset;
        if (inclusive && inPlace)
        {
            Memory.copy(args.sendBase, args.sendOffset, null, ownOffset, bytes);
        }
        final boolean inLines = bytes <= LowLatencyProtocol.LINE_PAYLOAD;
        final long first = inLines ? 0 : context.scratch(1, bytes);
        final long other = inLines ? 0 : context.scratch(2, bytes);
        final long x0 = input(context, 0, bytes, inLines, first);
        // the operands: ranks 0 to r - 1's inputs, then (inclusive) the own one
        final int operands = inclusive ? rank + 1 : rank;
        if (operands == 1)
        {
            Memory.copy(null, x0, args.recvBase, args.recvOffset, bytes);
        }
        for (int q = 1; q < operands; q++)
        {
            final boolean own = q == rank;
            final Object base = own ? ownBase : null;
            final long offset = own ? ownOffset : input(context, q, bytes, inLines, other);
            if (q == 1)
            {
                Reductions.reduce(args.type, args.op, null, x0, base, offset, args.recvBase, args.recvOffset,
                    args.count);
            }
            else
            {
                Reductions.reduce(args.type, args.op, args.recvBase, args.recvOffset, base, offset, args.recvBase,
                    args.recvOffset, args.count);
            }
        }
        // the lower ranks' lines have been read: they may be reused
        LowLatencyProtocol.finish(context);
    }

    /**
     * Address of rank {@code r}'s input: its line, once arrived, when the input fits one; else a copy of its lines
     * into {@code scratch}.
     */
    private static long input(final CollectiveContext context, final int r, final long bytes, final boolean inLines,
        final long scratch)
    {
        if (inLines)
        {
            return LowLatencyProtocol.awaitLine(context, r);
        }
        LowLatencyProtocol.read(context, r, bytes, 0, bytes, null, scratch);
        return scratch;
    }
}
