package io.jccl.shm;

import io.jccl.CollectiveMismatchException;
import io.jccl.JcclException;
import io.jccl.PeerFailedException;

import java.util.concurrent.TimeUnit;

/**
 * Every blocking wait of a rank goes through here: spin, then yield, then park ({@link SpinYieldParkIdleStrategy};
 * few spins when ranks outnumber cores, unless enough of them are idle and the wait is the application's
 * point-to-point message), with the operation's deadline and a look at the peers every
 * {@code jccl.liveness.check.ms}. The clock of a wait starts at its {@link #CLOCK_START_IDLES}th
 * idle call, so a wait that ends sooner costs no clock read: most waits of a small collective between ranks that
 * each have a core end within a few idles, and a read of the clock (about 20 ns on this project's VMs) was a tenth
 * of a 2-rank 8-byte allreduce. The look at the peers also compares their call signatures ({@link CallSignatures}),
 * so a mismatched collective that would hang fails instead. Also holds what the rank is doing, for error messages.
 */
final class Waiter
{
    /** Idle calls of a wait before its clock starts: a few spins, well under a microsecond. */
    static final int CLOCK_START_IDLES = 16;
    /** The awaited "rank" of a wait for a message from any rank (a receive from ANY_SOURCE). */
    static final int ANY_SENDER = -2;

    private final int rank;
    private final PeerMonitor monitor;
    private final CallSignatures signatures;
    private final FlightRecorder recorder;
    private final long timeoutNs;
    private final long checkIntervalNs;
    /** A wait this long logs what it is stuck on, once ({@code jccl.slow.wait.ms}); 0: never. */
    private final long slowWaitNs;
    private final Log log;

    /** The back-off of the waits of the moment: {@link #callWaits} or {@link #threadWaits}. */
    private SpinYieldParkIdleStrategy idle;
    /** How a thread inside a call waits: the application's, or one that drives a progress thread's operations. */
    private SpinYieldParkIdleStrategy callWaits;
    /** How a progress thread waits, beside the computation it overlaps ({@link #progressThreadWaits}); else null. */
    private SpinYieldParkIdleStrategy threadWaits;
    private boolean started;
    private long deadline;
    /** When the current wait logs that it is slow, unless it {@link #warned} already. */
    private long slowAt;
    private boolean warned;
    private long nextCheck;
    private int idles;

    private String operation = "startup";
    private boolean pointToPoint;
    /** Whether the operation is a collective, whose sequence is its call signatures' ({@link #collective}). */
    private boolean collective;
    private long sequence;
    private int peer = -1;
    private int tag = Integer.MIN_VALUE;
    private long bytes = -1;
    private long count = -1;
    private String type;

    Waiter(final int rank, final PeerMonitor monitor, final CallSignatures signatures, final FlightRecorder recorder,
        final long timeoutMs, final long checkIntervalMs, final long slowWaitMs, final Log log)
    {
        this.rank = rank;
        this.monitor = monitor;
        this.signatures = signatures;
        this.recorder = recorder;
        this.timeoutNs = TimeUnit.MILLISECONDS.toNanos(timeoutMs);
        this.checkIntervalNs = TimeUnit.MILLISECONDS.toNanos(checkIntervalMs);
        this.slowWaitNs = TimeUnit.MILLISECONDS.toNanos(Math.max(0, slowWaitMs));
        this.log = log;
    }

    /**
     * How waits back off from now on. Set before the first wait, and again between waits when the job's ranks turn
     * out to share more cores than this JVM counted at its start ({@link JobCores}).
     */
    void waitWith(final long spins, final long yields, final long maxParkNs, final IdleRanks idleRanks,
        final long coreEachSpins, final CoreMates coreMates)
    {
        callWaits = new SpinYieldParkIdleStrategy(spins, yields, 1_000, Math.max(1_000, maxParkNs), idleRanks,
            coreEachSpins, coreMates);
        idle = threadWaits != null ? threadWaits : callWaits;
    }

    /**
     * From now on the waits are a progress thread's: {@code spins}, then {@code yields}, then parks of at most
     * {@code maxParkNs}, never counted idle; except while {@link #callerDrives} says a caller runs the operations.
     */
    void progressThreadWaits(final long spins, final long yields, final long maxParkNs)
    {
        threadWaits = new SpinYieldParkIdleStrategy(spins, yields, 1_000, Math.max(1_000, maxParkNs), null, spins,
            null);
        idle = threadWaits;
    }

    /**
     * Whether the waits from now on are of a caller that runs the progress thread's operations itself (it waits for
     * them, so it waits as inside a blocking call), or again the progress thread's. Between waits only.
     */
    void callerDrives(final boolean driving)
    {
        idle.reset();
        idle = driving || threadWaits == null ? callWaits : threadWaits;
    }

    /**
     * Names the operation the following waits belong to; {@code pointToPoint} for the application's own messages
     * (their waits may spin when the ranks not idle have a core each, a collective's keep to the configured spins).
     */
    void operation(final String name, final long sequence, final long count, final String type,
        final boolean pointToPoint)
    {
        this.pointToPoint = pointToPoint;
        this.collective = false;
        idle.spinWithCoreEach(pointToPoint);
        idle.operation(pointToPoint ? Long.MAX_VALUE : sequence);
        this.operation = name;
        this.sequence = sequence;
        this.count = count;
        this.type = type;
        this.peer = -1;
        this.tag = Integer.MIN_VALUE;
        this.bytes = -1;
    }

    /**
     * {@link #operation} for collective {@code sequence}: a wait in it that times out names the ranks that have not
     * called it yet, from their call signatures, and blames the first of them.
     */
    void collective(final String name, final long sequence, final long count, final String type)
    {
        operation(name, sequence, count, type, false);
        this.collective = true;
    }

    /** The rank has written all its part of the current collective: its waits from now on only read. */
    void onlyReads()
    {
        idle.onlyReads();
    }

    /** Names the peer ({@link #ANY_SENDER}: any) and message of the following waits (a point-to-point step). */
    void target(final int peer, final int tag, final long bytes)
    {
        this.peer = peer;
        this.tag = tag;
        this.bytes = bytes;
    }

    /** Whether the current operation is one of the application's point-to-point messages. */
    boolean pointToPoint()
    {
        return pointToPoint;
    }

    /** Ends a wait that succeeded. */
    void done()
    {
        if (idles != 0)
        {
            idles = 0;
            idle.reset();
            if (started)
            {
                started = false;
                monitor.resetStrikes();
            }
        }
    }

    /** A wait ended by a failure: the back-off starts over, and the wait no longer counts as idle. */
    void abandon()
    {
        idles = 0;
        started = false;
        idle.reset();
    }

    /** Work was done during a wait: start backing off from the beginning again. */
    void progressed()
    {
        if (idles != 0)
        {
            idle.reset();
        }
    }

    /**
     * One idle step of a wait on {@code awaited} (a rank, or -1 for any) for the word at {@code address} to reach (or
     * equal, by {@link CoreMates} {@code kind}) {@code value}, which ranks that share this one's CPU may look at; a
     * wait for anything else is of kind {@link CoreMates#UNKNOWN}.
     */
    void idle(final int awaited, final long address, final long value, final int kind)
    {
        idle.awaiting(address, value, kind);
        if (!started)
        {
            if (++idles < CLOCK_START_IDLES)
            {
                idle.idle();
                return;
            }
            started = true;
            final long now = System.nanoTime();
            deadline = now + timeoutNs;
            nextCheck = now + checkIntervalNs;
            slowAt = now + slowWaitNs;
            warned = slowWaitNs == 0;
            recorder.waiting(awaited, now);
        }
        else if ((++idles & 31) == 0)
        {
            final long now = System.nanoTime();
            if (now - nextCheck >= 0)
            {
                nextCheck = now + checkIntervalNs;
                // a mismatch first: a peer that found it has failed, and the mismatch is the cause to report
                final CollectiveMismatchException mismatch = signatures.findMismatch();
                if (mismatch != null)
                {
                    throw mismatch;
                }
                monitor.check(awaited, this);
                if (now - deadline > 0)
                {
                    throw timeout(awaited);
                }
                if (!warned && now - slowAt > 0)
                {
                    warned = true;
                    log.warn(pointToPoint ? Log.P2P : Log.COLL, "still waiting after " +
                        TimeUnit.NANOSECONDS.toMillis(slowWaitNs) + " ms (jccl.slow.wait.ms) " +
                        stuckOn(awaited, "on rank ") + "; the call fails at jccl.timeout.ms (" +
                        TimeUnit.NANOSECONDS.toMillis(timeoutNs) + " ms)");
                }
            }
        }
        idle.idle();
    }

    /** "while rank R was in OPERATION #SEQ (count, type, waiting on rank P, tag, bytes)". */
    String describe()
    {
        final StringBuilder sb = new StringBuilder("while rank ").append(rank).append(" was in ").append(operation)
            .append(" #").append(sequence);
        final String sep = " (";
        String next = sep;
        if (count >= 0)
        {
            sb.append(next).append("count ").append(count);
            next = ", ";
        }
        if (type != null)
        {
            sb.append(next).append(type);
            next = ", ";
        }
        if (peer >= 0 || peer == ANY_SENDER)
        {
            sb.append(next).append("waiting on ").append(awaitedName(peer));
            next = ", ";
        }
        if (tag >= 0)
        {
            sb.append(next).append("tag ").append(tag);
            next = ", ";
        }
        else if (tag == ShmTransport.ANY_TAG)
        {
            sb.append(next).append("any tag");
            next = ", ";
        }
        if (bytes >= 0)
        {
            sb.append(next).append(bytes).append(" bytes");
            next = ", ";
        }
        if (next != sep)
        {
            sb.append(')');
        }
        return sb.toString();
    }

    /** "rank 3", or "any rank" for {@link #ANY_SENDER}: what a wait on {@code awaited} waits for. */
    static String awaitedName(final long awaited)
    {
        return awaited == ANY_SENDER ? "any rank" : "rank " + awaited;
    }

    /**
     * "timed out after 2000 ms (jccl.timeout.ms) waiting on rank 2 while rank 0 was in allreduce #4 (...)", and in a
     * collective that some rank has not called yet ": rank 3 has not called it yet (its last collective: #3)", which
     * then takes the blame: the rank waited on may be waiting for it too. Outside a collective, a wait on a rank that
     * has started a collective this one has not says so: the two most likely wait on each other.
     */
    private JcclException timeout(final int awaited)
    {
        final String message = "timed out after " + TimeUnit.NANOSECONDS.toMillis(timeoutNs) +
            " ms (jccl.timeout.ms) " + stuckOn(awaited, "waiting on rank ");
        final int late = collective ? signatures.firstNotStarted(sequence) : -1;
        final int blamed = late >= 0 ? late : awaited;
        return blamed >= 0 ? new PeerFailedException(blamed, message) : new JcclException(message);
    }

    /**
     * "waiting on rank 2 while rank 0 was in allreduce #4 (...)" (the rank named by {@code awaitedPrefix} when
     * {@link #describe} does not name it), then what the call signatures tell: in a collective, the ranks that have
     * not called it; outside one, the collective the awaited rank has started and this one has not.
     */
    private String stuckOn(final int awaited, final String awaitedPrefix)
    {
        final StringBuilder sb = new StringBuilder();
        if (awaited >= 0 && awaited != peer)
        {
            sb.append(awaitedPrefix).append(awaited).append(' ');
        }
        sb.append(describe());
        if (collective)
        {
            if (signatures.firstNotStarted(sequence) >= 0)
            {
                sb.append(": ").append(signatures.describeNotStarted(sequence));
            }
        }
        else if (awaited >= 0)
        {
            final String ahead = signatures.describeAhead(awaited);
            if (ahead != null)
            {
                sb.append(": ").append(ahead);
            }
        }
        return sb.toString();
    }
}
