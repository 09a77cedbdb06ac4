package io.jccl.shm;

import org.agrona.UnsafeApi;

import static io.jccl.shm.SegmentDescriptor.RankRecordDescriptor.CPU_OFFSET;
import static io.jccl.shm.SegmentDescriptor.RankRecordDescriptor.WAIT_ADDRESS_OFFSET;
import static io.jccl.shm.SegmentDescriptor.RankRecordDescriptor.WAIT_KIND_OFFSET;
import static io.jccl.shm.SegmentDescriptor.RankRecordDescriptor.WAIT_SEQUENCE_OFFSET;
import static io.jccl.shm.SegmentDescriptor.RankRecordDescriptor.WAIT_VALUE_OFFSET;

/**
 * While ranks outnumber cores, whether a waiting rank should give its CPU away: only when a rank that shares the CPU
 * could go on with it. Each rank publishes in its record the CPU it last ran on and, once a wait of its idles, the word
 * the wait is for. A waiting rank whose CPU-mates all wait for words not yet written (by ranks on other CPUs) spins
 * instead of yielding: a yield would hand the CPU to a rank that looks and yields it back, a switch of some 1.4 µs each
 * way on this project's VMs.
 * <p>
 * A CPU-mate that has written all its part of the collective this rank is in (its waits only read, as after a
 * barrier's arrival or a one-shot exchange's publish) does not count as able to go on when one of its words comes
 * true: it would read one peer and wait for the next. It gets the CPU when this rank's own wait ends, or when this
 * rank waits in a later collective; until then the ranks on other CPUs complete the collective.
 * <p>
 * 4 processes on 2 cores in C ({@code perf/oversubscribed-barrier.c}, mode 1 against mode 0): a barrier round in
 * 1.5-2.4 µs (a median of 2.0) against 2.1-3.1 (2.2) with every waiter yielding at once, and in most runs half a
 * yield per process and round against 0.75: one switch per core, the least a round of every process running once
 * can take.
 * <p>
 * Everything here is a hint: a rank that reads a stale CPU or wait spins a bounded while or yields once too often,
 * never waits forever. The CPU word holds the CPU + 1 (0: not known); the wait's address is an offset in the segment
 * (0: no wait published, as the segment's first word, its magic, is never awaited). Opaque stores and loads order
 * nothing else; the wait's address is release-stored after its value and kind, and read with acquire before them.
 */
final class CoreMates
{
    /** Kind of a published wait: the word reaches at least the value (a flag). */
    static final int AT_LEAST = 1;
    /** Kind of a published wait: the word equals the value (a low-latency line's sequence). */
    static final int EQUALS = 2;
    /** A wait whose word is not known (a point-to-point message): CPU-mates take the rank as able to go on. */
    static final int UNKNOWN = 0;
    /** Added to a kind: the rank has written all its part of the collective; its waits only read. */
    private static final long ONLY_READS = 4;
    private static final long KIND_MASK = 3;

    private static final long NO_WAIT = 0;

    private final CurrentCpu currentCpu;
    private final long base;
    private final long segmentLength;
    private final int rank;
    /** Each rank's record. */
    private final long[] records;
    private final long ownRecord;
    /** This rank's CPU + 1 as last published. */
    private long cpu;
    private boolean waitPublished;

    private CoreMates(final CurrentCpu currentCpu, final long base, final SegmentDescriptor layout, final int rank)
    {
        this.currentCpu = currentCpu;
        this.base = base;
        this.segmentLength = layout.totalLength();
        this.rank = rank;
        this.records = new long[layout.worldSize()];
        for (int r = 0; r < records.length; r++)
        {
            records[r] = base + layout.rankRecordOffset(r);
        }
        this.ownRecord = records[rank];
        refreshCpu();
    }

    /** For the segment mapped at {@code base}: null when this JVM cannot tell its CPU ({@link CurrentCpu}). */
    static CoreMates of(final long base, final SegmentDescriptor layout, final int rank)
    {
        final CurrentCpu currentCpu = CurrentCpu.load();
        return currentCpu == null ? null : of(currentCpu, base, layout, rank);
    }

    /** With the CPUs that {@code currentCpu} tells (tests choose them). */
    static CoreMates of(final CurrentCpu currentCpu, final long base, final SegmentDescriptor layout, final int rank)
    {
        return new CoreMates(currentCpu, base, layout, rank);
    }

    /** Reads this thread's CPU and publishes it if it moved. */
    void refreshCpu()
    {
        final long now = currentCpu.cpu() + 1L;
        if (now != cpu)
        {
            cpu = now;
            UnsafeApi.putLongOpaque(null, ownRecord + CPU_OFFSET, now);
        }
    }

    /**
     * Publishes that this rank waits in collective {@code sequence} for the word at {@code address} to reach (or
     * equal) {@code value}, and whether only reads are left of its part; a word outside the segment, or an
     * {@link #UNKNOWN} kind, publishes nothing.
     */
    void publishWait(final long address, final long value, final int kind, final long sequence,
        final boolean onlyReads)
    {
        final long offset = address - base;
        if (kind == UNKNOWN || !inSegment(offset))
        {
            return;
        }
        UnsafeApi.putLong(null, ownRecord + WAIT_VALUE_OFFSET, value);
        UnsafeApi.putLong(null, ownRecord + WAIT_KIND_OFFSET, onlyReads ? kind | ONLY_READS : kind);
        UnsafeApi.putLong(null, ownRecord + WAIT_SEQUENCE_OFFSET, sequence);
        // Release: a rank that reads the address reads the value and kind stored with it.
        UnsafeApi.putLongRelease(null, ownRecord + WAIT_ADDRESS_OFFSET, offset);
        waitPublished = true;
    }

    /** The wait has ended: CPU-mates take this rank as able to go on again. */
    void clearWait()
    {
        if (waitPublished)
        {
            waitPublished = false;
            UnsafeApi.putLongOpaque(null, ownRecord + WAIT_ADDRESS_OFFSET, NO_WAIT);
        }
    }

    /**
     * Whether a rank last seen on this rank's CPU could go on if given it, while this rank waits in collective
     * {@code sequence}: one not in a published wait, one in an earlier collective whose word has come true, or one in
     * this collective or a later one whose word has come true and who has more to write. False when no rank shares
     * the CPU, or every one that does waits for a word still short of its value or only reads. Outside collectives
     * ({@link Long#MAX_VALUE}) a rank whose word has come true can go on, whatever is left of its collective.
     */
    boolean mateCanGoOn(final long sequence)
    {
        for (int r = 0; r < records.length; r++)
        {
            if (r == rank || UnsafeApi.getLongOpaque(null, records[r] + CPU_OFFSET) != cpu)
            {
                continue;
            }
            // Acquire: pairs with publishWait's release store, so the value and kind are the wait's own.
            final long offset = UnsafeApi.getLongAcquire(null, records[r] + WAIT_ADDRESS_OFFSET);
            if (!inSegment(offset))
            {
                return true;
            }
            final long value = UnsafeApi.getLong(null, records[r] + WAIT_VALUE_OFFSET);
            final long kind = UnsafeApi.getLong(null, records[r] + WAIT_KIND_OFFSET);
            if ((kind & ONLY_READS) != 0 && UnsafeApi.getLong(null, records[r] + WAIT_SEQUENCE_OFFSET) >= sequence)
            {
                continue;
            }
            final long word = UnsafeApi.getLongOpaque(null, base + offset);
            if ((kind & KIND_MASK) == EQUALS ? word == value : word >= value)
            {
                return true;
            }
        }
        return false;
    }

    /** Whether a word at {@code offset} lies in the segment, past its first word (never awaited; 0 means no wait). */
    private boolean inSegment(final long offset)
    {
        return offset > 0 && offset <= segmentLength - Long.BYTES;
    }
}
