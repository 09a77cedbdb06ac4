package io.jccl.algorithms.barrier;

import io.jccl.Collective;
import io.jccl.algorithms.pattern.Bruck;
import io.jccl.spi.CollectiveAlgorithm;
import io.jccl.spi.CollectiveArgs;
import io.jccl.spi.CollectiveContext;

import java.util.Set;

/**
 * Dissemination barrier (Hensgen, Finkel, Manber): in round k every rank sends a one-byte token to rank
 * {@code r + 2^k} and waits for the token of rank {@code r - 2^k}. After {@code ceil(lg p)} rounds every rank has
 * heard, directly or not, from every other, for any p. Cost {@code ceil(lg p)·α}.
 */
public final class DisseminationBarrier implements CollectiveAlgorithm
{
    private static final int SCRATCH_TOKEN = 0;

    private static final Set<Collective> COLLECTIVES = Set.of(Collective.BARRIER);

    @Override
    public String name()
    {
        return "dissemination";
    }

    @Override
    public String description()
    {
        return "dissemination: ceil(lg p) rounds of one-byte tokens to rank r + 2^k, any p";
    }

    @Override
    public Set<Collective> collectives()
    {
        return COLLECTIVES;
    }

    @Override
    public void run(final CollectiveContext context, final CollectiveArgs args)
    {
        final int size = context.size();
        final int rank = context.rank();
        final int rounds = Bruck.steps(size);
        if (rounds == 0)
        {
            return;
        }
        // byte 0 holds the outgoing token, byte 1 the incoming one; their content does not matter
        final long token = context.scratch(SCRATCH_TOKEN, 2);

        // round k: token to r + 2^k, token from r - 2^k
        for (int round = 0; round < rounds; round++)
        {
            final int distance = Bruck.distance(round);
            context.sendRecv(
                Bruck.ahead(rank, distance, size), null, token, 1,
                Bruck.behind(rank, distance, size), null, token + 1, 1);
        }
    }
}
