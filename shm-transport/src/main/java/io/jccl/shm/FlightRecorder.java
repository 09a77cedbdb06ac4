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

    private final int mask;
    private final boolean timed;
    private final String[] operation;
    private final long[] sequence;
    private final long[] count;
    private final String[] type;
    private final String[] algorithm;
    private final int[] state;
    private final int[] peer;
    private final long[] startNs;
    private final long[] waitNs;
    private final long[] endNs;

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
        this.operation = new String[capacity];
        this.sequence = new long[capacity];
        this.count = new long[capacity];
        this.type = new String[capacity];
        this.algorithm = new String[capacity];
        this.state = new int[capacity];
        this.peer = new int[capacity];
        this.startNs = new long[capacity];
        this.waitNs = new long[capacity];
        this.endNs = new long[capacity];
    }

    int capacity()
    {
        return mask + 1;
    }

    /** A new operation starts ({@code type} a datatype label or null, {@code algorithm} null for point-to-point). */
    void begin(final String operation, final long sequence, final long count, final String type,
        final String algorithm, final int state)
    {
        final int i = (int) (recorded++ & mask);
        this.operation[i] = operation;
        this.sequence[i] = sequence;
        this.count[i] = count;
        this.type[i] = type;
        this.algorithm[i] = algorithm;
        this.state[i] = state;
        this.peer[i] = -1;
        this.startNs[i] = timed ? System.nanoTime() : 0;
        this.waitNs[i] = 0;
        this.endNs[i] = 0;
    }

    /** The current operation waits on {@code awaited} (a rank or -1) since {@code nowNs}. */
    void waiting(final int awaited, final long nowNs)
    {
        if (recorded > 0)
        {
            final int i = (int) ((recorded - 1) & mask);
            if (state[i] == STARTED || state[i] == WAITING)
            {
                state[i] = WAITING;
                peer[i] = awaited;
                waitNs[i] = nowNs;
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
            final int i = (int) ((recorded - 1) & mask);
            if (state[i] != FAILED)
            {
                state[i] = newState;
                endNs[i] = nowNs;
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
        for (long n = first; n < recorded; n++)
        {
            final int i = (int) (n & mask);
            sb.append('\n').append(prefix).append("  ").append(operation[i]).append(" #").append(sequence[i]);
            if (count[i] >= 0)
            {
                sb.append(" count=").append(count[i]);
            }
            if (type[i] != null)
            {
                sb.append(' ').append(type[i]);
            }
            if (algorithm[i] != null)
            {
                sb.append(" algorithm=").append(algorithm[i]);
            }
            sb.append(": ").append(stateName(state[i]));
            if (peer[i] >= 0 && (state[i] == WAITING || state[i] == FAILED))
            {
                sb.append(state[i] == WAITING ? " on rank " : " waiting on rank ").append(peer[i]);
            }
            if (startNs[i] != 0)
            {
                sb.append(", started ").append(ago(now, startNs[i]));
            }
            if (waitNs[i] != 0)
            {
                sb.append(state[i] == DONE ? ", last wait began " : ", waiting since ").append(ago(now, waitNs[i]));
            }
            if (endNs[i] != 0)
            {
                sb.append(", ended ").append(ago(now, endNs[i]));
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
