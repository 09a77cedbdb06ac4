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
 * not idle fit on the cores (read once per wait). Given {@link CoreMates}, a wait of fewer than
 * {@link IdleRanks#AFTER_YIELDS} yields spins instead of yielding while no rank that shares its CPU could go on, for
 * up to {@link #BLOCKED_MATES_SPIN_NS} before each yield.
 */
final class SpinYieldParkIdleStrategy implements IdleStrategy
{
    /**
     * How long a wait spins while the ranks that share its CPU all wait for others, before it yields anyway: a few
     * of the yield's switches (1.4 µs each on this project's VMs), as a small collective's ranks on the other core may
     * need a switch of their own before they write. A wait that a stale CPU or wait misled loses no more than this per
     * yield. 4 ranks on 2 cores, 8-512 B: windows of 3 and 6 µs measured alike; 256 and 1024 polls fell back more often
     * to the times of yielding at once.
     */
    static final long BLOCKED_MATES_SPIN_NS = 5_000;
    /** A spin beside blocked CPU-mates looks at them, and at the clock, every this many idle calls. */
    private static final int MATES_LOOK_MASK = 31;

    private final long maxSpins;
    private final long maxYields;
    private final long minParkNs;
    private final long maxParkNs;
    /** Null: every wait spins {@code maxSpins} and is never counted idle. */
    private final IdleRanks idleRanks;
    private final long coreEachSpins;
    /** Null: every wait yields after its spins, whatever its CPU-mates do. */
    private final CoreMates coreMates;

    private long spins;
    private long yields;
    private long parkNs;
    /** Spins of the current wait, chosen at its first idle call. */
    private long spinLimit;
    private boolean waitStarted;
    private boolean spinWithCoreEach;
    private boolean countedIdle;
    /** What the current wait is for ({@link CoreMates}), set before each idle call. */
    private long awaitedAddress;
    private long awaitedValue;
    private int awaitedKind;
    /** The collective the waits are in ({@link Long#MAX_VALUE} outside one), and whether only reads are left of it. */
    private long sequence = Long.MAX_VALUE;
    private boolean onlyReads;
    /** Idle calls spent beside blocked CPU-mates since the wait's last yield, and when the first was. */
    private int matesSpins;
    private long windowStart;

    /**
     * With {@code idleRanks} (else null): a long wait counts itself there until it ends, and a wait that starts while
     * the ranks not idle fit on the cores spins {@code coreEachSpins} times instead of {@code maxSpins}. With
     * {@code coreMates} (else null): a wait yields only when a rank that shares its CPU could go on.
     */
    SpinYieldParkIdleStrategy(final long maxSpins, final long maxYields, final long minParkNs, final long maxParkNs,
        final IdleRanks idleRanks, final long coreEachSpins, final CoreMates coreMates)
    {
        this.maxSpins = maxSpins;
        this.maxYields = maxYields;
        this.minParkNs = minParkNs;
        this.maxParkNs = maxParkNs;
        this.idleRanks = idleRanks;
        this.coreEachSpins = coreEachSpins;
        this.coreMates = coreMates;
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
            if (coreMates != null && yields < IdleRanks.AFTER_YIELDS && spinBesideBlockedMates())
            {
                return;
            }
            if (yields == IdleRanks.AFTER_YIELDS)
            {
                countIdle();
            }
            yields++;
            matesSpins = 0;
            Thread.yield();
        }
        else
        {
            countIdle();
            LockSupport.parkNanos(parkNs);
            parkNs = Math.min(parkNs << 1, maxParkNs);
        }
    }

    /**
     * What the next idle calls wait for: the word at {@code address} reaching (or equalling) {@code value}, of
     * {@link CoreMates} kind {@code kind} ({@link CoreMates#UNKNOWN} for a wait on anything else).
     */
    void awaiting(final long address, final long value, final int kind)
    {
        awaitedAddress = address;
        awaitedValue = value;
        awaitedKind = kind;
    }

    /** The waits from now on are of collective {@code sequence}, or ({@link Long#MAX_VALUE}) of no collective. */
    void operation(final long sequence)
    {
        this.sequence = sequence;
        this.onlyReads = false;
    }

    /** This rank has written all its part of the current collective: its waits from now on only read. */
    void onlyReads()
    {
        onlyReads = true;
    }

    /**
     * Whether to spin this idle call rather than yield: for up to {@link #BLOCKED_MATES_SPIN_NS} since the last
     * yield, while no rank that shares this CPU could go on. The first look after a yield reads this thread's CPU
     * again (the scheduler may have moved it), and the wait's first look, before any yield, publishes what it is for.
     */
    private boolean spinBesideBlockedMates()
    {
        if ((matesSpins++ & MATES_LOOK_MASK) != 0)
        {
            return true;
        }
        final long now = System.nanoTime();
        if (matesSpins == 1)
        {
            windowStart = now;
            coreMates.refreshCpu();
            if (yields == 0)
            {
                coreMates.publishWait(awaitedAddress, awaitedValue, awaitedKind, sequence, onlyReads);
            }
        }
        else if (now - windowStart > BLOCKED_MATES_SPIN_NS)
        {
            return false;
        }
        return !coreMates.mateCanGoOn(sequence);
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
        matesSpins = 0;
        if (coreMates != null)
        {
            coreMates.clearWait();
        }
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

    /** Yields of the current wait (for tests). */
    long yields()
    {
        return yields;
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
