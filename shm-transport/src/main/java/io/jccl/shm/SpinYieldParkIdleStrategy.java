package io.jccl.shm;

import org.agrona.concurrent.IdleStrategy;

import java.util.concurrent.locks.LockSupport;

/**
 * Spin, then yield, then park with a doubling period: Agrona's back-off shape, but the spin phase is a plain busy
 * loop without {@code Thread.onSpinWait()}. On a KVM guest with pause-loop exiting, PAUSE in a spin loop traps to
 * the hypervisor: measured here, a flag ping-pong between two JVMs takes 60 ns one-way with a plain spin and
 * 450-1070 ns with onSpinWait. When ranks outnumber cores the caller configures few spins, so a waiting rank
 * yields its core to the rank it waits for; given {@link IdleRanks}, a wait then counts itself idle from its
 * {@link IdleRanks#AFTER_YIELDS}th yield or its first park until it ends, and a wait of the application's
 * point-to-point messages ({@link #spinWithCoreEach}) spins as long as a rank with a core of its own when the ranks
 * not idle fit on the cores (read once per wait).
 */
final class SpinYieldParkIdleStrategy implements IdleStrategy
{
    private final long maxSpins;
    private final long maxYields;
    private final long minParkNs;
    private final long maxParkNs;
    /** Null: every wait spins {@code maxSpins} and is never counted idle. */
    private final IdleRanks idleRanks;
    private final long coreEachSpins;

    private long spins;
    private long yields;
    private long parkNs;
    /** Spins of the current wait, chosen at its first idle call. */
    private long spinLimit;
    private boolean waitStarted;
    private boolean spinWithCoreEach;
    private boolean countedIdle;

    /**
     * With {@code idleRanks} (else null): a long wait counts itself there until it ends, and a wait that starts while
     * the ranks not idle fit on the cores spins {@code coreEachSpins} times instead of {@code maxSpins}.
     */
    SpinYieldParkIdleStrategy(final long maxSpins, final long maxYields, final long minParkNs, final long maxParkNs,
        final IdleRanks idleRanks, final long coreEachSpins)
    {
        this.maxSpins = maxSpins;
        this.maxYields = maxYields;
        this.minParkNs = minParkNs;
        this.maxParkNs = maxParkNs;
        this.idleRanks = idleRanks;
        this.coreEachSpins = coreEachSpins;
        this.parkNs = minParkNs;
    }

    @Override
    public void idle(final int workCount)
    {
        if (workCount > 0)
        {
            reset();
        }
        else
        {
            idle();
        }
    }

    @Override
    public void idle()
    {
        if (!waitStarted)
        {
            waitStarted = true;
            spinLimit = spinWithCoreEach && idleRanks != null && idleRanks.coreEach() ? coreEachSpins : maxSpins;
        }
        if (spins < spinLimit)
        {
            spins++;
        }
        else if (yields < maxYields)
        {
            if (yields == IdleRanks.AFTER_YIELDS)
            {
                countIdle();
            }
            yields++;
            Thread.yield();
        }
        else
        {
            countIdle();
            LockSupport.parkNanos(parkNs);
            parkNs = Math.min(parkNs << 1, maxParkNs);
        }
    }

    /** Whether the waits from now on may spin as with a core each (given {@link IdleRanks}); the next wait on. */
    void spinWithCoreEach(final boolean allowed)
    {
        spinWithCoreEach = allowed;
    }

    @Override
    public void reset()
    {
        spins = 0;
        yields = 0;
        parkNs = minParkNs;
        waitStarted = false;
        if (countedIdle)
        {
            countedIdle = false;
            idleRanks.remove();
        }
    }

    private void countIdle()
    {
        if (idleRanks != null && !countedIdle)
        {
            countedIdle = true;
            idleRanks.add();
        }
    }

    /** Whether the current wait has counted itself idle (for tests). */
    boolean countedIdle()
    {
        return countedIdle;
    }

    @Override
    public String alias()
    {
        return "spin-yield-park";
    }
}
