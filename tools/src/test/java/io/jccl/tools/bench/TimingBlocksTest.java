package io.jccl.tools.bench;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

@Timeout(10)
class TimingBlocksTest
{
    @Test
    void blocksSplitTheCallsAsEvenlyAsWholeCallsAllow()
    {
        final TimingBlocks blocks = new TimingBlocks();
        blocks.reset(20000);
        assertEquals(5, blocks.count());
        assertEquals(4000, blocks.end(0));
        assertEquals(20000, blocks.end(4));
        blocks.reset(7);
        assertEquals(5, blocks.count());
        int previous = 0;
        for (int b = 0; b < blocks.count(); b++)
        {
            final int calls = blocks.end(b) - previous;
            assertTrue(calls == 1 || calls == 2, "block " + b + ": " + calls + " calls");
            previous = blocks.end(b);
        }
        assertEquals(7, previous);
        blocks.reset(2);
        assertEquals(2, blocks.count());
        assertEquals(1, blocks.end(0));
        assertEquals(2, blocks.end(1));
    }

    @Test
    void aSteadyLoopIsUndisturbedAndAStalledBlockIsNot()
    {
        final TimingBlocks blocks = new TimingBlocks();
        blocks.reset(20000);
        final long[] steady = {2_000_000, 2_100_000, 1_950_000, 2_050_000, 2_000_000};
        for (int b = 0; b < steady.length; b++)
        {
            blocks.record(b, steady[b]);
        }
        assertEquals(2_100_000 / 2_000_000.0, blocks.disturbance(), 1e-9);
        assertTrue(blocks.disturbance() <= BenchSweep.DISTURBED);

        // a 40 ms pause in the fourth block of a 10 ms loop
        blocks.record(3, 42_000_000);
        assertEquals(42_000_000 / 2_000_000.0, blocks.disturbance(), 1e-9);
        assertTrue(blocks.disturbance() > BenchSweep.DISTURBED);
    }

    @Test
    void aLoopIsTimedAgainOnlyWhenTheJitCompiledForATenthOfIt()
    {
        assertFalse(BenchSweep.compiledEnough(0, 0), "no compiling during a loop too short to time");
        assertFalse(BenchSweep.compiledEnough(0, 5));
        assertFalse(BenchSweep.compiledEnough(1, 200), "1 ms of compiling in a 200 ms loop stands");
        assertFalse(BenchSweep.compiledEnough(19, 200));
        assertTrue(BenchSweep.compiledEnough(20, 200));
        assertTrue(BenchSweep.compiledEnough(1, 3), "1 ms in a 3 ms loop of small calls");
    }

    @Test
    void blocksOfUnequalSizeCompareTimePerCall()
    {
        final TimingBlocks blocks = new TimingBlocks();
        blocks.reset(7); // blocks of 1, 1, 2, 1, 2 calls
        final long[] nanos = {100, 100, 200, 100, 200};
        for (int b = 0; b < nanos.length; b++)
        {
            blocks.record(b, nanos[b]);
        }
        assertEquals(1.0, blocks.disturbance(), 1e-9);
    }

    @Test
    void twoBlocksCannotSayWhichIsTheOddOne()
    {
        final TimingBlocks blocks = new TimingBlocks();
        blocks.reset(2);
        blocks.record(0, 100);
        blocks.record(1, 10_000);
        assertEquals(1.0, blocks.disturbance());
    }
}
