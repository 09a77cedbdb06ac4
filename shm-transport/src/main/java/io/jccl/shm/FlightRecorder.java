package io.jccl.shm;

import java.util.Locale;

/**
 * The last operations of one rank, in a ring preallocated at connect: operation, sequence, count, datatype,
 * algorithm, state (started, waiting on a peer, done, failed) and times. Recording stores a few fields into arrays,
 * allocating nothing; the clock is read only where the waiter reads it anyway (a wait's first idle, a failure),
 * unless {@code timed} (JCCL_DEBUG at INFO or more), which adds a clock read at the start and end of each
 * operation. {@link #dump} prints the ring, oldest first, when a rank fails or times out, and on demand.
 */
final class FlightRecorder
{
    static final int STARTED = 0;
    static final int WAITING = 1;
    static final int DONE = 2;
    static final int FAILED = 3;
    /** A non-blocking operation handed to the engine; it completes inside later calls. */
    static final int POSTED = 4;

    // One record: eight longs (one cache line) and three references, so recording touches two lines.
    private static final int SEQUENCE = 0;
    private static final int COUNT = 1;
    private static final int STATE = 2;
    private static final int PEER = 3;
    private static final int START_NS = 4;
    private static final int WAIT_NS = 5;
    private static final int END_NS = 6;
    private static final int LONGS = 8;
    private static final int OPERATION = 0;
    private static final int TYPE = 1;
    private static final int ALGORITHM = 2;
    private static final int REFERENCES = 4;

    private final int mask;
    private final boolean timed;
    private final long[] numbers;
    private final String[] names;

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
        this.numbers = new long[capacity * LONGS];
        this.names = new String[capacity * REFERENCES];
    }

    int capacity()
    {
        return mask + 1;
    }

    /** A new operation starts ({@code type} a datatype label or null, {@code algorithm} null for point-to-point). */
    void begin(final String operation, final long sequence, final long count, final String type,
        final String algorithm, final int state)
    {
        final int slot = (int) (recorded++ & mask);
        final int n = slot * LONGS;
        final int r = slot * REFERENCES;
        final long[] numbers = this.numbers;
        final String[] names = this.names;
        // references are stored only when they change: in a steady loop they do not, which saves the GC barriers
        if (names[r + OPERATION] != operation)
        {
            names[r + OPERATION] = operation;
        }
        if (names[r + TYPE] != type)
        {
            names[r + TYPE] = type;
        }
        if (names[r + ALGORITHM] != algorithm)
        {
            names[r + ALGORITHM] = algorithm;
        }
        numbers[n + SEQUENCE] = sequence;
        numbers[n + COUNT] = count;
        numbers[n + STATE] = state;
        numbers[n + PEER] = -1;
        numbers[n + START_NS] = timed ? System.nanoTime() : 0;
        numbers[n + WAIT_NS] = 0;
        numbers[n + END_NS] = 0;
    }

    /** The current operation waits on {@code awaited} (a rank or -1) since {@code nowNs}. */
    void waiting(final int awaited, final long nowNs)
    {
        if (recorded > 0)
        {
            final int n = (int) ((recorded - 1) & mask) * LONGS;
            final long state = numbers[n + STATE];
            if (state == STARTED || state == WAITING)
            {
                numbers[n + STATE] = WAITING;
                numbers[n + PEER] = awaited;
                numbers[n + WAIT_NS] = nowNs;
            }
        }
    }

    void done()
    {
        end(DONE, timed ? System.nanoTime() : 0);
    }

    void failed()
    {
        end(FAILED, System.nanoTime());
    }

    private void end(final int newState, final long nowNs)
    {
        if (recorded > 0)
        {
            final int n = (int) ((recorded - 1) & mask) * LONGS;
            if (numbers[n + STATE] != FAILED)
            {
                numbers[n + STATE] = newState;
                numbers[n + END_NS] = nowNs;
            }
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
            final int n = slot * LONGS;
            final int r = slot * REFERENCES;
            final int state = (int) numbers[n + STATE];
            final long peer = numbers[n + PEER];
            sb.append('\n').append(prefix).append("  ").append(names[r + OPERATION]).append(" #")
                .append(numbers[n + SEQUENCE]);
            if (numbers[n + COUNT] >= 0)
            {
                sb.append(" count=").append(numbers[n + COUNT]);
            }
            if (names[r + TYPE] != null)
            {
                sb.append(' ').append(names[r + TYPE]);
            }
            if (names[r + ALGORITHM] != null)
            {
                sb.append(" algorithm=").append(names[r + ALGORITHM]);
            }
            sb.append(": ").append(stateName(state));
            if (peer >= 0 && (state == WAITING || state == FAILED))
            {
                sb.append(state == WAITING ? " on rank " : " waiting on rank ").append(peer);
            }
            if (numbers[n + START_NS] != 0)
            {
                sb.append(", started ").append(ago(now, numbers[n + START_NS]));
            }
            if (numbers[n + WAIT_NS] != 0)
            {
                sb.append(state == DONE ? ", last wait began " : ", waiting since ").append(ago(now,
                    numbers[n + WAIT_NS]));
            }
            if (numbers[n + END_NS] != 0)
            {
                sb.append(", ended ").append(ago(now, numbers[n + END_NS]));
            }
        }
        return sb.toString();
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
