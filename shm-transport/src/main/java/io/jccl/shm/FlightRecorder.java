package io.jccl.shm;

import io.jccl.Collective;
import io.jccl.DataType;
import io.jccl.ReduceOp;
import io.jccl.spi.CollectiveAlgorithm;

import java.util.Locale;

/**
 * The last operations of one rank, in a ring preallocated at connect: operation, sequence, count, datatype, op,
 * root, algorithm, the peer it last waited on, and times. Recording an operation is three stores into one cache
 * line (and a reference store when the algorithm changes), allocating nothing; what the operation is travels as the
 * packed kind of {@link CallSignatures#kind}. No state is stored per operation: a dump runs between calls of the
 * owning thread, so every recorded operation has ended, done, except the one that broke the communicator
 * ({@link #failed}), single-copy calls a rank declined ({@link #declined}, one store more) and non-blocking ones,
 * which are shown as posted. The clock is read only where the waiter reads it
 * anyway (a wait's first idle, a failure), unless {@code timed} (JCCL_DEBUG at INFO or more), which adds a clock read
 * at the start and end of each operation. {@link #dump} prints the ring, oldest first.
 */
final class FlightRecorder
{
    /** Point-to-point operations, coded in the low byte of a kind from {@link #P2P_BASE} on. */
    static final int SEND = 0;
    static final int RECV = 1;
    static final int SEND_RECV = 2;
    static final int ISEND = 3;
    static final int IRECV = 4;
    static final int PROBE = 5;
    private static final int P2P_BASE = 100;
    private static final String[] P2P_NAMES = {"send", "recv", "sendRecv", "isend", "irecv", "probe"};

    // One record: eight longs, one cache line. WAIT_TAG and END_TAG hold the index of the record that wrote
    // WAIT_NS/PEER and END_NS, so that starting a record needs no reset of them.
    private static final int SEQUENCE = 0;
    private static final int KIND = 1;
    private static final int COUNT = 2;
    private static final int START_NS = 3;
    private static final int WAIT_TAG = 4;
    private static final int PEER = 5;
    private static final int WAIT_NS = 6;
    private static final int END_NS = 7;
    private static final int LONGS_SHIFT = 3;

    private final int mask;
    private final boolean timed;
    private final long[] numbers;
    private final long[] endTags;
    /** Per slot, the record whose single-copy call was declined there (it ran again as the next operation), or -1. */
    private final long[] declinedTags;
    private final CollectiveAlgorithm[] algorithms;

    /** Operations recorded so far; the current one is at {@code (recorded - 1) & mask}. */
    private long recorded;
    private long failedRecord = -1;

    FlightRecorder(final long records, final boolean timed)
    {
        if (records < 1 || records > 1 << 20)
        {
            throw new IllegalArgumentException("jccl.flight.records must be 1 to 1048576, not " + records);
        }
        final int capacity = 1 << (32 - Integer.numberOfLeadingZeros((int) records - 1));
        this.mask = capacity - 1;
        this.timed = timed;
        this.numbers = new long[capacity << LONGS_SHIFT];
        this.endTags = new long[capacity];
        this.declinedTags = new long[capacity];
        this.algorithms = new CollectiveAlgorithm[capacity];
        for (int slot = 0; slot < capacity; slot++)
        {
            numbers[(slot << LONGS_SHIFT) + WAIT_TAG] = -1;
            endTags[slot] = -1;
            declinedTags[slot] = -1;
        }
    }

    int capacity()
    {
        return mask + 1;
    }

    /** The kind of a point-to-point operation ({@link #SEND} ...) on {@code type} (null: none, as a probe's). */
    static long pointToPoint(final int operation, final DataType type)
    {
        return P2P_BASE + operation | (type == null ? 0 : type.ordinal() + 1L) << 8;
    }

    /**
     * A new operation starts: {@code kind} from {@link CallSignatures#kind} or {@link #pointToPoint}; the algorithm
     * (null for point-to-point) is kept as an object and named only in a dump, which spares a megamorphic call.
     */
    void begin(final long sequence, final long kind, final long count, final CollectiveAlgorithm algorithm)
    {
        final int slot = (int) (recorded++ & mask);
        final int n = slot << LONGS_SHIFT;
        final long[] numbers = this.numbers;
        numbers[n + SEQUENCE] = sequence;
        numbers[n + KIND] = kind;
        numbers[n + COUNT] = count;
        if (timed)
        {
            numbers[n + START_NS] = System.nanoTime();
        }
        // stored only when it changes: in a steady loop it does not, which saves the GC barrier
        if (algorithms[slot] != algorithm)
        {
            algorithms[slot] = algorithm;
        }
    }

    /** The current operation waits on {@code awaited} (a rank, -1 or {@link Waiter#ANY_SENDER}) since {@code nowNs}. */
    void waiting(final int awaited, final long nowNs)
    {
        if (recorded > 0)
        {
            final long record = recorded - 1;
            final int n = (int) (record & mask) << LONGS_SHIFT;
            numbers[n + WAIT_TAG] = record;
            numbers[n + PEER] = awaited;
            numbers[n + WAIT_NS] = nowNs;
        }
    }

    /** The current operation has ended; only timed recorders note when. */
    void done()
    {
        if (timed && recorded > 0)
        {
            final long record = recorded - 1;
            final int slot = (int) (record & mask);
            numbers[(slot << LONGS_SHIFT) + END_NS] = System.nanoTime();
            endTags[slot] = record;
        }
    }

    /** The current operation has ended unrun: a rank declined its single-copy algorithm, and it runs again. */
    void declined()
    {
        if (recorded > 0)
        {
            declinedTags[(int) ((recorded - 1) & mask)] = recorded - 1;
        }
        done();
    }

    /** The current operation broke the communicator: nothing is recorded after it. */
    void failed()
    {
        if (recorded > 0 && failedRecord < 0)
        {
            final long record = recorded - 1;
            final int slot = (int) (record & mask);
            failedRecord = record;
            numbers[(slot << LONGS_SHIFT) + END_NS] = System.nanoTime();
            endTags[slot] = record;
        }
    }

    /** The recorded operations, oldest first, one per line, each line starting with {@code prefix}. */
    String dump(final String prefix)
    {
        final long now = System.nanoTime();
        final long first = Math.max(0, recorded - capacity());
        final StringBuilder sb = new StringBuilder(prefix).append("flight recorder: last ").append(recorded - first)
            .append(" of ").append(recorded).append(" operations, oldest first")
            .append(timed ? "" : " (start and end times with JCCL_DEBUG=INFO)");
        for (long k = first; k < recorded; k++)
        {
            final int slot = (int) (k & mask);
            final int n = slot << LONGS_SHIFT;
            final long kind = numbers[n + KIND];
            final boolean failed = k == failedRecord;
            final boolean waited = numbers[n + WAIT_TAG] == k;
            sb.append('\n').append(prefix).append("  ");
            describe(sb, kind, numbers[n + SEQUENCE], numbers[n + COUNT]);
            if (algorithms[slot] != null)
            {
                sb.append(" algorithm=").append(algorithms[slot].name());
            }
            final int code = (int) (kind & 0xFF);
            if (failed)
            {
                sb.append(": FAILED");
                if (waited)
                {
                    sb.append(" waiting on ").append(Waiter.awaitedName(numbers[n + PEER])).append(", waiting since ")
                        .append(ago(now, numbers[n + WAIT_NS]));
                }
            }
            else
            {
                sb.append(code == P2P_BASE + ISEND || code == P2P_BASE + IRECV ? ": posted" :
                    declinedTags[slot] == k ? ": declined, run again as the next operation" : ": done");
                if (waited)
                {
                    sb.append(", last waited on ").append(Waiter.awaitedName(numbers[n + PEER])).append(", ")
                        .append(ago(now, numbers[n + WAIT_NS]));
                }
            }
            if (timed)
            {
                sb.append(", started ").append(ago(now, numbers[n + START_NS]));
            }
            if (endTags[slot] == k)
            {
                sb.append(", ended ").append(ago(now, numbers[n + END_NS]));
            }
        }
        return sb.toString();
    }

    /** "allreduce #4 count=256 float32 sum", "broadcast #2 count=8 int8 root=1", "send #7 count=1 int32". */
    private static void describe(final StringBuilder sb, final long kind, final long sequence, final long count)
    {
        final int code = (int) (kind & 0xFF);
        sb.append(code >= P2P_BASE ? P2P_NAMES[code - P2P_BASE] : Collective.values()[code - 1].label())
            .append(" #").append(sequence);
        if (count >= 0)
        {
            sb.append(" count=").append(count);
        }
        final int type = (int) (kind >>> 8 & 0xFF);
        final int op = (int) (kind >>> 16 & 0xFF);
        final long root = (kind >>> 32) - 1;
        if (type > 0)
        {
            sb.append(' ').append(DataType.values()[type - 1].label());
        }
        if (op > 0)
        {
            sb.append(' ').append(ReduceOp.values()[op - 1].label());
        }
        if (root >= 0)
        {
            sb.append(" root=").append(root);
        }
    }

    private static String ago(final long now, final long then)
    {
        return String.format(Locale.ROOT, "%.3f ms ago", (now - then) / 1e6);
    }

}
