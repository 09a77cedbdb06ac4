package io.jccl.shm;

import io.jccl.Configuration;
import io.jccl.PeerFailedException;
import org.agrona.UnsafeApi;

import java.util.concurrent.TimeUnit;

import static io.jccl.shm.SegmentDescriptor.RankRecordDescriptor.*;

/**
 * Liveness: this rank's record (pid, state, heartbeat stamped by a daemon thread) and the checks of every peer's.
 * A peer is dead when its process is gone without having closed; failed when it says so; stopped when its heartbeat
 * is late and the kernel says the process is stopped (SIGSTOP); stuck when its heartbeat is older than
 * {@code jccl.peer.timeout.ms}. The heartbeat is {@link System#nanoTime()}, one
 * monotonic clock for all processes of the machine; the thread keeps stamping while the application computes, and
 * the peer timeout is set above ordinary GC pauses.
 */
final class PeerMonitor implements AutoCloseable
{
    /** A heartbeat this old makes the process state worth a look (a read of /proc/PID/stat). */
    private static final long SUSPECT_NS = TimeUnit.MILLISECONDS.toNanos(500);

    private final long segment;
    private final SegmentDescriptor layout;
    private final int rank;
    private final long peerTimeoutNs;
    private final long heartbeatIntervalMs;
    private final ProcessHandle[] peers;
    /** Each peer's process state, opened with its handle: read only when its heartbeat is late. */
    private final ProcessStates.Watch[] watches;
    private final int[] closedStrikes;
    private boolean struck;
    private Thread heartbeat;
    private volatile boolean running;

    PeerMonitor(final JobSegment segment, final int rank, final Configuration configuration)
    {
        this.segment = segment.address();
        this.layout = segment.layout();
        this.rank = rank;
        this.peerTimeoutNs = TimeUnit.MILLISECONDS.toNanos(configuration.getLong(
            Configuration.PEER_TIMEOUT_MS_PROP_NAME, Configuration.PEER_TIMEOUT_MS_DEFAULT));
        this.heartbeatIntervalMs = configuration.getLong(Configuration.HEARTBEAT_INTERVAL_MS_PROP_NAME,
            Configuration.HEARTBEAT_INTERVAL_MS_DEFAULT);
        this.peers = new ProcessHandle[layout.worldSize()];
        this.watches = new ProcessStates.Watch[layout.worldSize()];
        this.closedStrikes = new int[layout.worldSize()];
    }

    /** Publishes pid and heartbeat, then the ATTACHED state (release: the others read pid after state). */
    void register()
    {
        final long record = record(rank);
        UnsafeApi.putLong(null, record + PID_OFFSET, ProcessHandle.current().pid());
        UnsafeApi.putLong(null, record + FAILED_PEER_OFFSET, -1);
        UnsafeApi.putLong(null, record + SEGMENT_ADDRESS_OFFSET, segment);
        UnsafeApi.putLongRelease(null, record + HEARTBEAT_OFFSET, System.nanoTime());
        UnsafeApi.putLongRelease(null, record + STATE_OFFSET, STATE_ATTACHED);
        running = true;
        heartbeat = new Thread(this::stampHeartbeat, "jccl-heartbeat-" + rank);
        heartbeat.setDaemon(true);
        heartbeat.start();
    }

    long state(final int r)
    {
        return UnsafeApi.getLongAcquire(null, record(r) + STATE_OFFSET);
    }

    long pid(final int r)
    {
        return UnsafeApi.getLong(null, record(r) + PID_OFFSET);
    }

    /** Records how this rank ends; {@code blamed} is the peer that caused a failure, or -1. */
    void setState(final long state, final int blamed)
    {
        UnsafeApi.putLong(null, record(rank) + FAILED_PEER_OFFSET, blamed);
        UnsafeApi.putLongRelease(null, record(rank) + STATE_OFFSET, state);
    }

    /**
     * Opens every peer's process handle and state file, and makes the first call of each, once all ranks have
     * attached: else the first look at a peer, inside some later call, opens them and links the JDK's native
     * {@code isAlive0}, allocating a few hundred bytes there.
     */
    void watchPeers()
    {
        for (int r = 0; r < peers.length; r++)
        {
            if (r != rank && isAlive(r))
            {
                isStopped(r);
            }
        }
    }

    /** Number of ranks whose state is ATTACHED or later. */
    int attachedCount()
    {
        int count = 0;
        for (int r = 0; r < peers.length; r++)
        {
            if (state(r) != STATE_EMPTY)
            {
                count++;
            }
        }
        return count;
    }

    /**
     * Throws {@link PeerFailedException} when a peer is dead, failed or stuck, or when {@code awaited} (a rank, or
     * -1 for every rank) has closed; a wait for a message from any rank ({@link Waiter#ANY_SENDER}) fails once every
     * other rank has closed. Dead processes are reported before failures they caused elsewhere.
     */
    void check(final int awaited, final Waiter waiter)
    {
        final long now = System.nanoTime();
        int closed = 0;
        // root causes first: a dead or stopped process, before the failures it caused on other ranks
        for (int r = 0; r < peers.length; r++)
        {
            if (r != rank && state(r) == STATE_ATTACHED)
            {
                if (!isAlive(r))
                {
                    throw new PeerFailedException(r, "rank " + r + " (pid " + pid(r) + ") died without closing " +
                        "(killed or crashed) " + waiter.describe());
                }
                final long age = now - UnsafeApi.getLongAcquire(null, record(r) + HEARTBEAT_OFFSET);
                if (age > SUSPECT_NS && isStopped(r))
                {
                    throw new PeerFailedException(r, "rank " + r + " (pid " + pid(r) + ") is stopped (SIGSTOP, " +
                        "or held by a debugger) " + waiter.describe());
                }
            }
        }
        for (int r = 0; r < peers.length; r++)
        {
            if (r == rank)
            {
                continue;
            }
            final long state = state(r);
            if (state == STATE_FAILED)
            {
                final long blamed = UnsafeApi.getLong(null, record(r) + FAILED_PEER_OFFSET);
                if (blamed == rank)
                {
                    // r blamed this rank, which is alive: r gave up waiting on it (its call's or heartbeat's timeout)
                    throw new PeerFailedException(r, "rank " + r + " gave up waiting on this rank " +
                        waiter.describe());
                }
                final int culprit = blamed >= 0 ? (int) blamed : r;
                throw new PeerFailedException(culprit, culprit == r ?
                    "rank " + r + " failed (error or exit during an operation) " + waiter.describe() :
                    blamedBy(culprit, r) + ", " + waiter.describe());
            }
            if (state == STATE_CLOSED && (awaited == r || awaited < 0) && strike(r) > 1)
            {
                if (awaited != Waiter.ANY_SENDER)
                {
                    throw new PeerFailedException(r, "rank " + r + " closed its communicator " + waiter.describe());
                }
                if (++closed == peers.length - 1)
                {
                    throw new PeerFailedException(r, "every other rank closed its communicator (the last: rank " + r +
                        ") " + waiter.describe());
                }
            }
            if (state == STATE_ATTACHED)
            {
                final long age = now - UnsafeApi.getLongAcquire(null, record(r) + HEARTBEAT_OFFSET);
                if (age > peerTimeoutNs)
                {
                    throw new PeerFailedException(r, "rank " + r + " (pid " + pid(r) + ") has not responded for " +
                        TimeUnit.NANOSECONDS.toMillis(age) + " ms (" + (ProcessStates.runsJavaDebugger(pid(r)) ?
                        "it runs a Java debugger's agent: suspended at a breakpoint? While debugging, raise " +
                        "jccl.peer.timeout.ms (JCCL_PEER_TIMEOUT_MS) and jccl.timeout.ms; " : "stopped or hung; ") +
                        "jccl.peer.timeout.ms = " + TimeUnit.NANOSECONDS.toMillis(peerTimeoutNs) + ") " +
                        waiter.describe());
                }
            }
        }
    }

    /** Clears the "closed" strikes once a wait completes. */
    void resetStrikes()
    {
        if (struck)
        {
            struck = false;
            java.util.Arrays.fill(closedStrikes, 0);
        }
    }

    @Override
    public void close()
    {
        running = false;
        if (heartbeat != null)
        {
            heartbeat.interrupt();
        }
        for (final ProcessStates.Watch watch : watches)
        {
            if (watch != null)
            {
                watch.close();
            }
        }
    }

    private int strike(final int r)
    {
        struck = true;
        return ++closedStrikes[r];
    }

    private boolean isAlive(final int r)
    {
        ProcessHandle handle = peers[r];
        if (handle == null)
        {
            handle = ProcessHandle.of(pid(r)).orElse(null);
            if (handle == null)
            {
                return false;
            }
            peers[r] = handle;
            watches[r] = ProcessStates.Watch.open(handle.pid());
        }
        return handle.isAlive();
    }

    /** Whether a peer found alive is stopped (SIGSTOP) or traced. */
    private boolean isStopped(final int r)
    {
        final ProcessStates.Watch watch = watches[r];
        return watch != null && ProcessStates.isStopped(watch.state());
    }

    /**
     * What is wrong with rank {@code culprit}, which rank {@code reporter} blamed for its failure, as far as this rank
     * can tell. A culprit alive, running and attached has done nothing wrong but be late: the reporter gave up waiting
     * on it.
     */
    private String blamedBy(final int culprit, final int reporter)
    {
        final String who = "rank " + culprit + " (pid " + pid(culprit) + ")";
        final String reported = ", as reported by rank " + reporter;
        if (!isAlive(culprit))
        {
            return who + " died without closing (killed or crashed)" + reported;
        }
        if (isStopped(culprit))
        {
            return who + " is stopped (SIGSTOP, or held by a debugger)" + reported;
        }
        final long state = state(culprit);
        if (state == STATE_FAILED)
        {
            return who + " failed" + reported;
        }
        if (state == STATE_CLOSED)
        {
            return who + " closed its communicator" + reported;
        }
        return "rank " + reporter + " gave up waiting on " + who + ", which is alive and running (late, or busy " +
            "outside jccl)";
    }

    private void stampHeartbeat()
    {
        final long stampAddress = record(rank) + HEARTBEAT_OFFSET;
        while (running)
        {
            UnsafeApi.putLongRelease(null, stampAddress, System.nanoTime());
            try
            {
                Thread.sleep(heartbeatIntervalMs);
            }
            catch (final InterruptedException ex)
            {
                return;
            }
        }
    }

    private long record(final int r)
    {
        return segment + layout.rankRecordOffset(r);
    }
}
