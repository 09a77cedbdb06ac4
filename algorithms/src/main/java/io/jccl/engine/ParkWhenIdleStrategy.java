package io.jccl.engine;

import org.agrona.concurrent.IdleStrategy;

import java.util.concurrent.locks.LockSupport;

/**
 * The progress thread's idle strategy: a short busy poll (a new operation often follows the last at once, e.g. the
 * next gradient bucket), then parking without a time limit: the thread costs no CPU while nothing is in flight, and a
 * submission unparks it. No {@code Thread.onSpinWait()} in the poll: PAUSE traps to the hypervisor on these VMs.
 */
final class ParkWhenIdleStrategy implements IdleStrategy
{
    /** Empty polls before parking: a few microseconds. */
    private static final int SPINS = 2_000;

    private int spins;

    @Override
    public void idle(final int workCount)
    {
        if (workCount > 0)
        {
            spins = 0;
        }
        else
        {
            idle();
        }
    }

    @Override
    public void idle()
    {
        if (spins < SPINS)
        {
            spins++;
        }
        else
        {
            // unparked by the next submission, or by AgentRunner.close() interrupting the thread
            LockSupport.park(this);
        }
    }

    @Override
    public void reset()
    {
        spins = 0;
    }
}
