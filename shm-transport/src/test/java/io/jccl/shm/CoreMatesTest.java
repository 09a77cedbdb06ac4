package io.jccl.shm;

import org.agrona.BufferUtil;
import org.agrona.UnsafeApi;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.nio.ByteBuffer;
import java.util.concurrent.atomic.AtomicInteger;

import static io.jccl.shm.SegmentDescriptor.RankRecordDescriptor.CPU_OFFSET;
import static io.jccl.shm.SegmentDescriptor.RankRecordDescriptor.FLAGS_OFFSET;
import static io.jccl.shm.SegmentDescriptor.RankRecordDescriptor.SIGNATURES_OFFSET;
import static io.jccl.shm.SegmentDescriptor.RankRecordDescriptor.SIGNATURE_LENGTH;
import static io.jccl.shm.SegmentDescriptor.RankRecordDescriptor.SIGNATURE_SLOTS;
import static io.jccl.shm.SegmentDescriptor.RankRecordDescriptor.WAIT_ADDRESS_OFFSET;
import static io.jccl.shm.SegmentDescriptor.RankRecordDescriptor.WAIT_SEQUENCE_OFFSET;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Which ranks share a CPU and whether one of them could go on: three ranks of one segment in this JVM, each told its
 * CPU, and the waits that spin beside CPU-mates that cannot go on.
 */
@Timeout(10)
class CoreMatesTest
{
    private final SegmentDescriptor layout = new SegmentDescriptor(3, 4096, 4096, 4096);
    private final ByteBuffer segment = BufferUtil.allocateDirectAligned((int) layout.totalLength(), 4096);
    private final long base = BufferUtil.address(segment);
    private final AtomicInteger[] cpus = {new AtomicInteger(0), new AtomicInteger(0), new AtomicInteger(1)};
    private final CoreMates[] ranks = new CoreMates[3];
    /** A word in rank 2's staging area, as a rank on the other CPU writes it. */
    private final long word = base + layout.stagingOffset(2);

    CoreMatesTest()
    {
        for (int r = 0; r < 3; r++)
        {
            final AtomicInteger cpu = cpus[r];
            ranks[r] = CoreMates.of(cpu::get, base, layout, r);
        }
    }

    @Test
    void theCpuAndTheWaitHaveTheirOwnLinesBetweenTheSignaturesAndTheFlags()
    {
        assertTrue(CPU_OFFSET >= SIGNATURES_OFFSET + SIGNATURE_SLOTS * SIGNATURE_LENGTH);
        assertEquals(0, CPU_OFFSET % 64);
        assertTrue(WAIT_ADDRESS_OFFSET - CPU_OFFSET >= 64, "the CPU's line is not written with each wait");
        assertEquals(0, WAIT_ADDRESS_OFFSET % 64);
        assertTrue(WAIT_SEQUENCE_OFFSET + Long.BYTES <= FLAGS_OFFSET);
    }

    @Test
    void eachRankPublishesItsCpuAndAgainWhenItMoves()
    {
        assertEquals(1, cpuWord(0), "CPU 0, stored as 1: 0 means not known");
        assertEquals(2, cpuWord(2));
        cpus[0].set(1);
        ranks[0].refreshCpu();
        assertEquals(2, cpuWord(0));
    }

    @Test
    void aMateNotWaitingCanGoOnAndRanksOnOtherCpusAreNoMates()
    {
        assertTrue(ranks[0].mateCanGoOn(1), "rank 1 shares CPU 0 and waits for nothing");
        assertFalse(ranks[2].mateCanGoOn(1), "rank 2 is alone on CPU 1");
        cpus[1].set(1);
        ranks[1].refreshCpu();
        assertFalse(ranks[0].mateCanGoOn(1), "rank 1 moved to CPU 1");
        assertTrue(ranks[2].mateCanGoOn(1));
    }

    @Test
    void aMateWaitingForAWordCanGoOnOnceTheWordComesTrue()
    {
        ranks[1].publishWait(word, 5, CoreMates.AT_LEAST, 1, false);
        UnsafeApi.putLong(null, word, 4);
        assertFalse(ranks[0].mateCanGoOn(1));
        UnsafeApi.putLong(null, word, 6);
        assertTrue(ranks[0].mateCanGoOn(1), "at least 5");

        ranks[1].publishWait(word, 5, CoreMates.EQUALS, 1, false);
        assertFalse(ranks[0].mateCanGoOn(1), "6 is not 5");
        UnsafeApi.putLong(null, word, 5);
        assertTrue(ranks[0].mateCanGoOn(1));

        UnsafeApi.putLong(null, word, 0);
        ranks[1].clearWait();
        assertTrue(ranks[0].mateCanGoOn(1), "the wait ended");
    }

    @Test
    void aMateWithOnlyReadsLeftGoesOnOnlyWhenThisRankIsInALaterCollective()
    {
        ranks[1].publishWait(word, 5, CoreMates.AT_LEAST, 7, true);
        UnsafeApi.putLong(null, word, 5);
        assertFalse(ranks[0].mateCanGoOn(7), "its word came true, but it would only read and wait for the next");
        assertTrue(ranks[0].mateCanGoOn(8), "it is behind: its collective is done for this rank");
        assertTrue(ranks[0].mateCanGoOn(Long.MAX_VALUE), "outside collectives: this rank cannot tell, so yields");
    }

    @Test
    void aWaitOnAWordOutsideTheSegmentPublishesNothing()
    {
        UnsafeApi.putLong(null, word, 0);
        final ByteBuffer elsewhere = BufferUtil.allocateDirectAligned(64, 64);
        ranks[1].publishWait(BufferUtil.address(elsewhere), 5, CoreMates.AT_LEAST, 1, false);
        assertEquals(0, UnsafeApi.getLong(null, record(1) + WAIT_ADDRESS_OFFSET));
        ranks[1].publishWait(word, 5, CoreMates.UNKNOWN, 1, false);
        assertEquals(0, UnsafeApi.getLong(null, record(1) + WAIT_ADDRESS_OFFSET));
        assertTrue(ranks[0].mateCanGoOn(1), "a wait not published counts as able to go on");
    }

    @Test
    void aWaitSpinsBesideBlockedMatesBetweenYieldsAndYieldsAtOnceWhenOneCanGoOn()
    {
        final SpinYieldParkIdleStrategy strategy =
            new SpinYieldParkIdleStrategy(0, 1_000, 1_000, 1_000, null, 0, ranks[0]);
        ranks[1].publishWait(word, 5, CoreMates.AT_LEAST, 1, false);
        UnsafeApi.putLong(null, word, 0);
        strategy.operation(1);
        strategy.awaiting(word + 8, 3, CoreMates.EQUALS);
        final long start = System.nanoTime();
        long calls = 0;
        while (strategy.yields() == 0 && System.nanoTime() - start < 1_000_000_000L)
        {
            strategy.idle();
            calls++;
        }
        final long spunNs = System.nanoTime() - start;
        assertEquals(1, strategy.yields(), "rank 1, its only CPU-mate, waits for a word not yet written");
        assertTrue(calls > 32 && spunNs >= SpinYieldParkIdleStrategy.BLOCKED_MATES_SPIN_NS,
            calls + " calls in " + spunNs + " ns before the yield");
        assertEquals(layout.stagingOffset(2) + 8, UnsafeApi.getLong(null, record(0) + WAIT_ADDRESS_OFFSET),
            "the wait published what it is for");
        strategy.idle();
        assertEquals(1, strategy.yields(), "after the yield it spins again");
        strategy.reset();
        assertEquals(0, UnsafeApi.getLong(null, record(0) + WAIT_ADDRESS_OFFSET), "the wait ended");

        UnsafeApi.putLong(null, word, 5);
        strategy.idle();
        assertEquals(1, strategy.yields(), "rank 1 can go on: yield at once");
        strategy.reset();
    }

    private long record(final int rank)
    {
        return base + layout.rankRecordOffset(rank);
    }

    private long cpuWord(final int rank)
    {
        return UnsafeApi.getLong(null, record(rank) + CPU_OFFSET);
    }
}
