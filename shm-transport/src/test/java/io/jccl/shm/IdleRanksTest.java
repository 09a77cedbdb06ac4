package io.jccl.shm;

import org.agrona.BufferUtil;
import org.agrona.UnsafeApi;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.nio.ByteBuffer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The idle-ranks word and the waits that keep it: a wait counts itself idle from its {@link IdleRanks#AFTER_YIELDS}th
 * yield or its first park, once, and uncounts itself when it ends; a wait of the application's point-to-point
 * messages spins as a rank with its own core only while the ranks not idle fit on the cores.
 */
@Timeout(10)
class IdleRanksTest
{
    private final ByteBuffer header = BufferUtil.allocateDirectAligned(SegmentDescriptor.HEADER_LENGTH, 64);
    private final long base = BufferUtil.address(header);

    @Test
    void theWordSitsTwoLinesFromTheAbortWordInsideTheHeader()
    {
        assertTrue(SegmentDescriptor.IDLE_RANKS_OFFSET - SegmentDescriptor.ABORT_OFFSET >= 128);
        assertTrue(SegmentDescriptor.IDLE_RANKS_OFFSET + 128 <= SegmentDescriptor.HEADER_LENGTH);
    }

    @Test
    void ranksNotIdleFitTheCoresOnceEnoughAreIdle()
    {
        final IdleRanks four = new IdleRanks(base, 4, 2);
        assertFalse(four.coreEach());
        four.add();
        assertFalse(four.coreEach(), "3 ranks at work on 2 cores");
        four.add();
        assertTrue(four.coreEach(), "2 ranks at work on 2 cores");
        four.remove();
        assertFalse(four.coreEach());
        four.remove();
        assertEquals(0, idle());
    }

    @Test
    void aLongWaitCountsItselfOnceAndSpinsWhileTheOthersAreIdle()
    {
        final IdleRanks idleRanks = new IdleRanks(base, 3, 2);
        final long yields = IdleRanks.AFTER_YIELDS + 10;
        // no spins while 3 ranks share 2 cores, 5 with a core each; then the yields, then parks of 1 µs
        final SpinYieldParkIdleStrategy strategy =
            new SpinYieldParkIdleStrategy(0, yields, 1_000, 1_000, idleRanks, 5, null);

        idleFor(strategy, IdleRanks.AFTER_YIELDS);
        assertFalse(strategy.countedIdle(), "yields 1 to " + IdleRanks.AFTER_YIELDS);
        assertEquals(0, idle());
        strategy.idle();
        assertTrue(strategy.countedIdle());
        assertEquals(1, idle());
        idleFor(strategy, 20);
        assertEquals(1, idle(), "counted once per wait, yielding or parked");
        strategy.reset();
        assertFalse(strategy.countedIdle());
        assertEquals(0, idle(), "the wait ended");

        // another rank is idle: a collective's wait still yields at once, an application's message's spins 5 times
        idleRanks.add();
        idleFor(strategy, IdleRanks.AFTER_YIELDS);
        strategy.idle();
        assertEquals(2, idle(), "a collective's wait: no spins");
        strategy.reset();
        strategy.spinWithCoreEach(true);
        idleFor(strategy, 5 + IdleRanks.AFTER_YIELDS);
        assertEquals(1, idle(), "5 spins and the yields before the count");
        strategy.idle();
        assertEquals(2, idle());
        strategy.reset();
        idleRanks.remove();
        assertEquals(0, idle());
    }

    @Test
    void aWaitThatParksBeforeItsCountingYieldCountsItselfThen()
    {
        final IdleRanks idleRanks = new IdleRanks(base, 3, 2);
        final SpinYieldParkIdleStrategy strategy =
            new SpinYieldParkIdleStrategy(0, 3, 1_000, 1_000, idleRanks, 0, null);
        idleFor(strategy, 3);
        assertEquals(0, idle());
        strategy.idle();
        assertEquals(1, idle(), "the first park");
        strategy.reset();
        assertEquals(0, idle());
    }

    @Test
    void withoutIdleRanksNothingIsCounted()
    {
        final SpinYieldParkIdleStrategy strategy = new SpinYieldParkIdleStrategy(1, 1, 1_000, 1_000, null, 1, null);
        idleFor(strategy, 4);
        assertFalse(strategy.countedIdle());
        strategy.reset();
    }

    private static void idleFor(final SpinYieldParkIdleStrategy strategy, final long calls)
    {
        for (long i = 0; i < calls; i++)
        {
            strategy.idle();
        }
    }

    private long idle()
    {
        return UnsafeApi.getLongVolatile(null, base + SegmentDescriptor.IDLE_RANKS_OFFSET);
    }
}
