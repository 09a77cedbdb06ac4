package io.jccl.algorithms.shm;

import io.jccl.Collective;
import io.jccl.spi.CollectiveAlgorithm;
import io.jccl.spi.CollectiveArgs;
import io.jccl.spi.CollectiveContext;

import java.util.Set;

import static io.jccl.algorithms.shm.ShmProtocol.SLOT_ARRIVED;

/**
 * Flat flag barrier: every rank release-stores this operation's token into its own flag and waits until every
 * peer's flag has reached it. No counter is shared, so there is no contended read-modify-write, and the token grows
 * with every operation, so nothing is ever reset.
 * <p>
 * Cost: α_f + (p − 1)·α_l, where α_l is one more cache-line fetch of an already-set flag; the waits overlap, so in
 * practice about one handoff after the last rank arrives. A dissemination barrier (lg p rounds of α_f) only pays off
 * when p is large enough that p − 1 fetches cost more than lg p handoffs.
 */
public final class ShmFlagsBarrier implements CollectiveAlgorithm
{
    /** Built once: the selector asks every call, and Set.of allocates. */
    private static final Set<Collective> COLLECTIVES = Set.of(Collective.BARRIER);

    @Override
    public String name()
    {
        return "shm_flags";
    }

    @Override
    public String description()
    {
        return "every rank sets its flag to this operation's token and waits for all others' flags: one handoff";
    }

    @Override
    public Set<Collective> collectives()
    {
        return COLLECTIVES;
    }

    @Override
    public void run(final CollectiveContext context, final CollectiveArgs args)
    {
        final int rank = context.rank();
        final int size = context.size();
        final long arrived = context.token(0);

        // step 1: arrive (release: everything this rank wrote before the barrier is visible to whoever passes it)
        context.setFlag(SLOT_ARRIVED, arrived);
        context.onlyReadsLeft();

        // step 2: wait (acquire) until every peer has arrived; a peer already in a later barrier has a larger token
        for (int i = 1; i < size; i++)
        {
            context.waitFlag((rank + i) % size, SLOT_ARRIVED, arrived);
        }
    }
}
