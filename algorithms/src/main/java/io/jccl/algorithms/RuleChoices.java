package io.jccl.algorithms;

import io.jccl.Collective;
import io.jccl.DataType;
import io.jccl.ReduceOp;
import io.jccl.model.Pace;
import io.jccl.model.TuningTable;
import io.jccl.spi.CollectiveArgs;
import io.jccl.spi.CollectiveContext;
import io.jccl.spi.StagingLedger;

/**
 * What the engine's own rules choose without a tuning file ({@link AlgorithmSelector}: its measured rules, then the
 * shipped model), asked outside a job, at either pace, for the calls {@code ./jccl bench} makes by default: float32
 * sums on private off-heap buffers, rooted at rank 0, sized as the bench sizes them (the whole vector of a broadcast,
 * reduce or allreduce; an allgather's or gather's output, a reduce-scatter's or scatter's input, an alltoall's send
 * buffer). {@code ./jccl tune --check --rules} judges each pace's choices by the rows measured at that pace, which
 * runs of the engine itself cannot: each of their rows saw one pace, most often the other one.
 */
public final class RuleChoices
{
    private final AlgorithmSelector selector;
    private final CollectiveContext context;
    private final CollectiveArgs args = new CollectiveArgs();

    /**
     * @param ranks           the job's ranks.
     * @param cores           the cores they share.
     * @param singleCopyBytes the job's point-to-point single-copy threshold (0: off), as the transport sets it.
     * @param stagingBytes    each rank's staging area.
     */
    public RuleChoices(final int ranks, final int cores, final long singleCopyBytes, final long stagingBytes)
    {
        final AlgorithmRegistry registry = AlgorithmRegistry.instance();
        this.selector = new AlgorithmSelector(registry, null,
            TunedSelection.of(TuningTable.shipped(), ranks, registry, stagingBytes, cores), cores);
        this.context = new ChoosingContext(ranks, singleCopyBytes, stagingBytes);
    }

    /** The algorithm the rules choose for a call of {@code bytes} of {@code collective} at {@code pace}. */
    public String choose(final Collective collective, final long bytes, final Pace pace)
    {
        final int ranks = context.size();
        final long elements = bytes / DataType.FLOAT32.size();
        final CollectiveArgs a = args.clear();
        a.collective = collective;
        if (collective != Collective.BARRIER)
        {
            a.type = DataType.FLOAT32;
            a.op = switch (collective)
            {
                case REDUCE, ALLREDUCE, REDUCE_SCATTER -> ReduceOp.SUM;
                default -> null;
            };
            a.count = switch (collective)
            {
                case BROADCAST, REDUCE, ALLREDUCE -> elements;
                default -> elements / ranks;
            };
            // off-heap buffers somewhere in this rank's memory: nothing is read or written
            a.sendOffset = 1L << 32;
            a.recvOffset = 2L << 32;
        }
        return selector.select(a, context, bytes, pace).name();
    }

    /** Enough of a job's context for choosing: rank 0's view of its size and sizes; it moves nothing. */
    private record ChoosingContext(int size, long singleCopyBytes, long stagingBytes) implements CollectiveContext
    {
        @Override
        public int rank()
        {
            return 0;
        }

        private static UnsupportedOperationException choosingOnly()
        {
            return new UnsupportedOperationException("a context for choosing algorithms only");
        }

        @Override
        public void send(final int peer, final Object base, final long offset, final long bytes)
        {
            throw choosingOnly();
        }

        @Override
        public void recv(final int peer, final Object base, final long offset, final long bytes)
        {
            throw choosingOnly();
        }

        @Override
        public void sendRecv(final int dest, final Object sendBase, final long sendOffset, final long sendBytes,
            final int source, final Object recvBase, final long recvOffset, final long recvBytes)
        {
            throw choosingOnly();
        }

        @Override
        public long stagingAddress(final int rank)
        {
            throw choosingOnly();
        }

        @Override
        public long segmentAddress(final long segmentOffset)
        {
            throw choosingOnly();
        }

        @Override
        public void setFlag(final int slot, final long value)
        {
            throw choosingOnly();
        }

        @Override
        public long getFlag(final int peer, final int slot)
        {
            throw choosingOnly();
        }

        @Override
        public void setFlagPayload(final int slot, final int word, final long value)
        {
            throw choosingOnly();
        }

        @Override
        public long getFlagPayload(final int peer, final int slot, final int word)
        {
            throw choosingOnly();
        }

        @Override
        public long waitFlag(final int peer, final int slot, final long atLeast)
        {
            throw choosingOnly();
        }

        @Override
        public void waitWord(final int peer, final long address, final long expected)
        {
            throw choosingOnly();
        }

        @Override
        public long sequence()
        {
            throw choosingOnly();
        }

        @Override
        public StagingLedger stagingLedger()
        {
            throw choosingOnly();
        }

        @Override
        public long scratch(final int index, final long bytes)
        {
            throw choosingOnly();
        }
    }
}
