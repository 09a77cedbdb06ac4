package io.jccl.shm;

import io.jccl.Collective;
import io.jccl.DataType;
import io.jccl.ReduceOp;

import java.util.Locale;

/**
 * The last operations of one rank, in a ring preallocated at connect: operation, sequence, count, datatype, op,
 * root, algorithm, state (started, waiting on a peer, done, failed) and times. Recording an operation is four
 * stores into one cache line (and a reference store when the algorithm changes), allocating nothing; what the
 * operation is travels as the packed kind of {@link CallSignatures#kind}. The clock is read only where the waiter
 * reads it anyway (a wait's first idle, a failure), unless {@code timed} (JCCL_DEBUG at INFO or more), which adds a
 * clock read at the start and end of each operation. {@link #dump} prints the ring, oldest first.
 */
final class FlightRecorder
{
    static final int STARTED = 0;
    static final int WAITING = 1;
    static final int DONE = 2;
    static final int FAILED = 3;
    /** A non-blocking operation handed to the engine; it completes inside later calls. */
    static final int POSTED = 4;

    /** Point-to-point operations, coded in the low byte of a kind from {@link #P2P_BASE} on. */
    static final int SEND = 0;
    static final int RECV = 1;
    static final int SEND_RECV = 2;
    static final int ISEND = 3;
    static final int IRECV = 4;
    private static final int P2P_BASE = 100;
    private static final String[] P2P_NAMES = {"send", "recv", "sendRecv", "isend", "irecv"};

    // One record: eight longs, one cache line. STATE packs the state (bits 0-7), WAITED (bit 8: WAIT_NS is this
    // operation's) and the awaited peer + 1 (bits 32-63), so that starting a record is one store.
    private static final int SEQUENCE = 0;
    private static final int KIND = 1;
    private static final int COUNT = 2;
    private static final int STATE = 3;
    private static final int START_NS = 4;
    private static final int WAIT_NS = 5;
    private static final int END_NS = 6;
    private static final int LONGS_SHIFT = 3;
    private static final long STATE_MASK = 0xFF;
    private static final long WAITED = 1 << 8;

    private final int mask;
    private final boolean timed;
    private final long[] numbers;
    private final String[] algorithms;

    /** Operations recorded so far; the current one is at {@code (recorded - 1) & mask}. */
    private long recorded;

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
        this.algorithms = new String[capacity];
    }

    int capacity()
    {
        return mask + 1;
    }

    /** The kind of a point-to-point operation ({@link #SEND} ...) on {@code type}. */
    static long pointToPoint(final int operation, final DataType type)
    {
        return P2P_BASE + operation | (type.ordinal() + 1L) << 8;
    }

    /** A new operation starts: {@code kind} from {@link CallSignatures#kind} or {@link #pointToPoint}. */
    void begin(final long sequence, final long kind, final long count, final String algorithm, final int state)
    {
        final int slot = (int) (recorded++ & mask);
        final int n = slot << LONGS_SHIFT;
        final long[] numbers = this.numbers;
        numbers[n + SEQUENCE] = sequence;
        numbers[n + KIND] = kind;
        numbers[n + COUNT] = count;
        numbers[n + STATE] = state;
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

    /** The current operation waits on {@code awaited} (a rank or -1) since {@code nowNs}. */
    void waiting(final int awaited, final long nowNs)
    {
        if (recorded > 0)
        {
            final int n = (int) ((recorded - 1) & mask) << LONGS_SHIFT;
            final long state = numbers[n + STATE] & STATE_MASK;
            if (state == STARTED || state == WAITING)
            {
                numbers[n + STATE] = WAITING | WAITED | (awaited + 1L) << 32;
                numbers[n + WAIT_NS] = nowNs;
            }
        }
    }

    void done()
    {
        if (recorded > 0)
        {
            final int n = (int) ((recorded - 1) & mask) << LONGS_SHIFT;
            final long state = numbers[n + STATE];
            if ((state & STATE_MASK) != FAILED)
            {
                numbers[n + STATE] = state & ~STATE_MASK | DONE;
                if (timed)
                {
                    numbers[n + END_NS] = System.nanoTime();
                }
            }
        }
    }

    void failed()
    {
        if (recorded > 0)
        {
            final int n = (int) ((recorded - 1) & mask) << LONGS_SHIFT;
            numbers[n + STATE] = numbers[n + STATE] & ~STATE_MASK | FAILED;
            numbers[n + END_NS] = System.nanoTime();
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
            final long packed = numbers[n + STATE];
            final int state = (int) (packed & STATE_MASK);
            final long peer = (packed >>> 32) - 1;
            sb.append('\n').append(prefix).append("  ");
            describe(sb, numbers[n + KIND], numbers[n + SEQUENCE], numbers[n + COUNT]);
            if (algorithms[slot] != null)
            {
                sb.append(" algorithm=").append(algorithms[slot]);
            }
            sb.append(": ").append(stateName(state));
            if (peer >= 0 && (state == WAITING || state == FAILED))
            {
                sb.append(state == WAITING ? " on rank " : " waiting on rank ").append(peer);
            }
            if (timed)
            {
                sb.append(", started ").append(ago(now, numbers[n + START_NS]));
            }
            if ((packed & WAITED) != 0)
            {
                sb.append(state == DONE ? ", last wait began " : ", waiting since ").append(ago(now,
                    numbers[n + WAIT_NS]));
            }
            if (state == FAILED || (timed && state == DONE))
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

    private static String stateName(final int state)
    {
        return switch (state)
        {
            case STARTED -> "started";
            case WAITING -> "waiting";
            case DONE -> "done";
            case FAILED -> "FAILED";
            default -> "posted";
        };
    }
}
