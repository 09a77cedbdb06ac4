package io.jccl.algorithms.allreduce;

import io.jccl.Collective;
import io.jccl.algorithms.broadcast.BinomialBroadcast;
import io.jccl.algorithms.reduce.BinomialReduce;
import io.jccl.spi.CollectiveAlgorithm;
import io.jccl.spi.CollectiveArgs;
import io.jccl.spi.CollectiveContext;

import java.util.Set;

/**
 * Allreduce as a binomial reduce to rank 0 followed by a binomial broadcast from rank 0. Every rank ends with the
 * root's bytes, so the result is bitwise identical everywhere. Cost {@code 2 lg p·(α + nβ) + lg p·nγ}: simple and
 * latency-bound, a baseline for small vectors.
 */
public final class ReduceBroadcastAllreduce implements CollectiveAlgorithm
{
    private static final int ROOT = 0;

    private static final Set<Collective> COLLECTIVES = Set.of(Collective.ALLREDUCE);

    @Override
    public String name()
    {
        return "reduce_broadcast";
    }

    @Override
    public String description()
    {
        return "binomial reduce to rank 0 then binomial broadcast: 2 lg p steps, a baseline for small vectors";
    }

    @Override
    public Set<Collective> collectives()
    {
        return COLLECTIVES;
    }

    @Override
    public void run(final CollectiveContext context, final CollectiveArgs args)
    {
        // phase 1: reduce every rank's send into rank 0's recv
        BinomialReduce.reduce(context, args.type, args.op, args.count, ROOT,
            args.sendBase, args.sendOffset, args.recvBase, args.recvOffset);

        // phase 2: broadcast rank 0's result into every rank's recv
        BinomialBroadcast.broadcast(context, ROOT, args.recvBase, args.recvOffset, args.count * args.elementSize());
    }
}
