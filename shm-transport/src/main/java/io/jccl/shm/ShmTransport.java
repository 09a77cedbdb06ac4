package io.jccl.shm;

import io.jccl.Buf;
import io.jccl.Collective;
import io.jccl.CollectiveMismatchException;
import io.jccl.Configuration;
import io.jccl.DataType;
import io.jccl.JcclException;
import io.jccl.PeerFailedException;
import io.jccl.PersistentReceiveRequest;
import io.jccl.PersistentRequest;
import io.jccl.ReceiveRequest;
import io.jccl.ReduceOp;
import io.jccl.Request;
import io.jccl.model.Pace;
import io.jccl.spi.CollectiveAlgorithm;
import io.jccl.spi.CollectiveContext;
import io.jccl.spi.Memory;
import io.jccl.spi.StagingLedger;
import io.jccl.spi.StreamingCopy;
import org.agrona.BufferUtil;
import org.agrona.UnsafeApi;

import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

import static io.jccl.shm.ChannelDescriptor.FLAG_FIRST;
import static io.jccl.shm.ChannelDescriptor.FLAG_LAST;
import static io.jccl.shm.SegmentDescriptor.ABORT_OFFSET;
import static io.jccl.shm.SegmentDescriptor.BOOTSTRAP_OFFSET;
import static io.jccl.shm.SegmentDescriptor.BOOTSTRAP_READY;
import static io.jccl.shm.SegmentDescriptor.RankRecordDescriptor.*;
import static io.jccl.spi.ArgumentChecks.*;

/**
 * One rank's end of the shared-memory transport: bootstrap through the job segment, point-to-point messages with
 * tags over the per-pair channels, and the {@link CollectiveContext} that algorithms run on (collective messages,
 * staging areas, flags, scratch).
 * <p>
 * Matching: a message from a source goes to the receive posted first among those with its tag (or {@link #ANY_TAG})
 * for that source or for {@link #ANY_SOURCE}, else it is buffered as unexpected; a receive takes the first unexpected
 * message it matches before it posts (from any source: the one buffered first). Messages on one channel arrive in
 * send order, so order per (source, tag) holds. Collective messages use {@link #COLLECTIVE_TAG}, which neither user
 * tags (>= 0) nor {@link #ANY_TAG} can match. Progress happens inside the calls of this rank (MPI style): a request
 * advances when it, or any other operation of the transport, is tested or awaited.
 * <p>
 * Not thread-safe: one thread at a time (the communicator checks).
 */
public final class ShmTransport implements CollectiveContext, AutoCloseable
{
    /** Tag of collective traffic; user tags are >= 0, and {@link #ANY_TAG} matches those alone. */
    public static final int COLLECTIVE_TAG = -2;
    /** The source of a receive from any rank. */
    public static final int ANY_SOURCE = io.jccl.Communicator.ANY_SOURCE;
    /** The tag of a receive that takes any user tag. */
    public static final int ANY_TAG = io.jccl.Communicator.ANY_TAG;
    /** What {@link #completeAny} returns when no request of its array is pending. */
    public static final int NONE_LEFT = -2;
    /** Largest unexpected message buffered in a pooled array ({@link #unexpectedPool}). */
    private static final int POOLED_UNEXPECTED_BYTES = 4096;
    /** Most buffers {@link #unexpectedPool} keeps: 256 KiB. */
    private static final int POOLED_UNEXPECTED_MAX = 64;
    /** {@link #completeAny}'s awaited rank before it has found a request still pending. */
    private static final int NO_REQUEST = Integer.MIN_VALUE;

    private final Log log;
    private final int rank;
    private final int size;
    private final JobSegment segment;
    private final SegmentDescriptor layout;
    private final long base;
    private final PeerMonitor monitor;
    private final CallSignatures signatures;
    private final FlightRecorder recorder;
    private final boolean checkMode;
    private final Waiter waiter;
    private final ChannelWriter[] writers;
    private final ChannelReader[] readers;
    private final ArrayDeque<SendOp>[] sendQueues;
    private final ArrayList<RecvOp>[] posted;
    /** Receives posted for {@link #ANY_SOURCE}, in the order they were posted. */
    private final ArrayList<RecvOp> postedAny = new ArrayList<>();
    private final ArrayList<RecvOp>[] unexpected;
    /** Unexpected messages buffered so far: each one's {@link RecvOp#arrival}. */
    private long unexpectedArrivals;
    /**
     * Unexpected messages of at most {@link #POOLED_UNEXPECTED_BYTES} whose receive has taken them, for the next ones:
     * a loop whose peer sends a step ahead of its receives (a halo exchange) buffers every message, and would
     * otherwise allocate for each. At most {@link #POOLED_UNEXPECTED_MAX} kept.
     */
    private final ArrayDeque<RecvOp> unexpectedPool = new ArrayDeque<>();
    /** The source whose channel a blocking receive from any rank polls first; moves on every poll, for fairness. */
    private int anySourceStart;
    /** {@link #lastSource()}. */
    private int lastSource = ANY_SOURCE;
    /** {@link #lastTag()}. */
    private int lastTag = ANY_TAG;
    private final RecvOp[] current;
    private final Configuration configuration;
    private final SendOp blockingSend;
    private final RecvOp blockingRecv;
    private final ByteBuffer[] scratch = new ByteBuffer[4];
    private final Thread exitHook;

    /** Cores the job's ranks share: this JVM's count until every rank has registered, then the job's. */
    private int cores;
    /** While ranks outnumber cores (and the spins are not configured): the count of ranks idle in a long wait. */
    private IdleRanks idleRanks;
    /** While ranks outnumber cores (and the spins are not configured), on a JVM that can tell its CPU. */
    private CoreMates coreMates;
    /** Made once the job's cores are known: its thresholds depend on them. */
    private SingleCopy singleCopy;
    /** The pace large sends read from the ring, for the application's heap arrays'; made with singleCopy. */
    private RingPace ringPace;
    private int activeSendQueues;
    private long singleCopyBytes;
    /** {@link #copiesStream()}, from the engine's last pace probe ({@link #pace}). */
    private boolean copiesStream;
    private long operationSequence;
    private long collectiveSequence;
    private final StagingLedger staging = new StagingLedger();
    private long symmetricUsed;
    private JcclException broken;
    private boolean closed;

    @SuppressWarnings("unchecked")
    private ShmTransport(final Configuration configuration, final Log log, final int rank, final JobSegment segment)
    {
        this.log = log;
        this.rank = rank;
        this.segment = segment;
        this.layout = segment.layout();
        this.size = layout.worldSize();
        this.base = segment.address();
        this.monitor = new PeerMonitor(segment, rank, configuration);
        this.signatures = new CallSignatures(base, layout, rank);
        this.recorder = new FlightRecorder(configuration.getLong(Configuration.FLIGHT_RECORDS_PROP_NAME,
            Configuration.FLIGHT_RECORDS_DEFAULT), log.enabled(Log.INFO, Log.COLL | Log.P2P));
        this.checkMode = configuration.getBoolean(Configuration.CHECK_PROP_NAME, Configuration.CHECK_DEFAULT);
        this.configuration = configuration;
        this.waiter = new Waiter(rank, monitor, signatures, recorder, configuration.timeoutMs(),
            configuration.getLong(Configuration.LIVENESS_CHECK_MS_PROP_NAME, Configuration.LIVENESS_CHECK_MS_DEFAULT),
            configuration.getLong(Configuration.SLOW_WAIT_MS_PROP_NAME, Configuration.SLOW_WAIT_MS_DEFAULT), log);
        waitFor(Runtime.getRuntime().availableProcessors(), true);
        this.writers = new ChannelWriter[size];
        this.readers = new ChannelReader[size];
        this.sendQueues = new ArrayDeque[size];
        this.posted = new ArrayList[size];
        this.unexpected = new ArrayList[size];
        this.current = new RecvOp[size];
        for (int r = 0; r < size; r++)
        {
            if (r != rank)
            {
                writers[r] = new ChannelWriter(base + layout.channelOffset(rank, r), layout.ringCapacity());
                readers[r] = new ChannelReader(base + layout.channelOffset(r, rank), layout.ringCapacity());
            }
            sendQueues[r] = new ArrayDeque<>();
            posted[r] = new ArrayList<>();
            unexpected[r] = new ArrayList<>();
        }
        this.blockingSend = new SendOp(this);
        this.blockingRecv = new RecvOp(this);
        this.exitHook = new Thread(this::exitWithoutClose, "jccl-exit-" + rank);
        if (checkMode)
        {
            log.info(Log.COLL, "check mode: every collective compares the call signatures of all ranks first");
        }
    }

    /**
     * Joins the job: rank 0 creates the segment, the others attach; returns when every rank has arrived, and throws
     * when they do not within {@code jccl.bootstrap.timeout.ms}, or when a rank's {@code agreed} settings differ from
     * another's.
     */
    public static ShmTransport connect(final Configuration configuration, final AgreedSettings agreed)
    {
        final int size = configuration.worldSize();
        final int rank = configuration.rank();
        if (size < 1)
        {
            throw new IllegalArgumentException("world size must be at least 1, not " + size);
        }
        if (rank < 0 || rank >= size)
        {
            throw new IllegalArgumentException("rank " + rank + " is outside a world of " + size + " ranks");
        }
        final String jobId = configuration.jobId();
        final Log log = new Log(configuration, rank);
        final Path path = SegmentFiles.path(configuration, jobId);
        final long timeoutNs = TimeUnit.MILLISECONDS.toNanos(configuration.getLong(
            Configuration.BOOTSTRAP_TIMEOUT_MS_PROP_NAME, Configuration.BOOTSTRAP_TIMEOUT_MS_DEFAULT));
        final long deadline = System.nanoTime() + timeoutNs;

        JobSegment segment;
        if (rank == 0)
        {
            segment = JobSegment.create(path, JobSegment.layout(configuration, size), jobId, log);
        }
        else
        {
            boolean staleSeen = false;
            JobSegment attached = null;
            while (attached == null)
            {
                if (SegmentFiles.isLeftByEarlierJob(path))
                {
                    // a file left by an earlier job with this id: rank 0 of this job replaces it
                    staleSeen = true;
                }
                else if ((attached = JobSegment.tryAttach(path, size, jobId)) != null)
                {
                    break;
                }
                if (System.nanoTime() - deadline > 0)
                {
                    throw new PeerFailedException(0, "rank " + rank + ": the job segment " + path +
                        " did not appear within " + TimeUnit.NANOSECONDS.toMillis(timeoutNs) +
                        " ms (jccl.bootstrap.timeout.ms)" +
                        (staleSeen ? ", only a stale one left by a dead process of an earlier job" : "") +
                        ": is rank 0 of job " + jobId + " running, with the same JCCL_SHM_DIR?");
                }
                LockSupport.parkNanos(200_000);
            }
            segment = attached;
        }
        final ShmTransport transport = new ShmTransport(configuration, log, rank, segment);
        try
        {
            transport.bootstrap(deadline, timeoutNs, agreed);
        }
        catch (final RuntimeException ex)
        {
            transport.monitor.setState(STATE_FAILED, blamed(ex));
            transport.monitor.close();
            transport.removeExitHook();
            if (rank == 0)
            {
                segment.unlink();
            }
            throw ex;
        }
        return transport;
    }

    private void bootstrap(final long deadline, final long timeoutNs, final AgreedSettings agreed)
    {
        // The hook first: once peers see this rank attached, an exit must mark it failed. Registered the other
        // way round, a System.exit between the two left a rank attached with no hook (and addShutdownHook threw).
        Runtime.getRuntime().addShutdownHook(exitHook);
        agreed.publish(base + layout.rankRecordOffset(rank));
        monitor.register();
        waiter.operation("bootstrap", 0, -1, null, false);
        PeerFailedException failedAfterReady = null;
        if (rank == 0)
        {
            while (monitor.attachedCount() < size)
            {
                bootstrapIdle(deadline, timeoutNs);
            }
            // Release: all attach-time writes are ordered before READY.
            UnsafeApi.putLongRelease(null, base + BOOTSTRAP_OFFSET, BOOTSTRAP_READY);
            // Every rank has mapped the file: remove it, so nothing of the job is left behind whatever happens.
            segment.unlink();
        }
        else
        {
            while (UnsafeApi.getLongAcquire(null, base + BOOTSTRAP_OFFSET) != BOOTSTRAP_READY)
            {
                try
                {
                    bootstrapIdle(deadline, timeoutNs);
                }
                catch (final PeerFailedException ex)
                {
                    // rank 0 says ready, then compares, and a rank that finds other settings fails at once: this
                    // rank may see that failure before ready, and then compares too, to name the difference
                    if (UnsafeApi.getLongAcquire(null, base + BOOTSTRAP_OFFSET) != BOOTSTRAP_READY)
                    {
                        throw ex;
                    }
                    failedAfterReady = ex;
                }
            }
        }
        // every rank compares, so every rank fails alike
        agreed.check(base, layout, rank);
        if (failedAfterReady != null)
        {
            throw failedAfterReady;
        }
        monitor.watchPeers();
        final long[] pids = new long[size];
        for (int r = 0; r < size; r++)
        {
            pids[r] = monitor.pid(r);
        }
        final JobCores job = JobCores.of(pids);
        if (job.count() != cores && log.enabled(Log.INFO, Log.INIT))
        {
            log.info(Log.INIT, "this JVM may use " + cores + " of the " + job.count() + " CPUs the job's ranks " +
                "may use together: waits and choices count " + job.count());
        }
        if (job.count() != cores || !job.everyRankOnEveryCore())
        {
            waitFor(job.count(), job.everyRankOnEveryCore());
        }
        if (size > cores && log.enabled(Log.INFO, Log.INIT))
        {
            log.info(Log.INIT, size + " ranks on " + cores + " cores: oversubscribed, waiting ranks yield " +
                (coreMates != null ? "only to a rank on their CPU that can go on " : "at once ") + "and park sooner" +
                (idleRanks != null ? ", and wait and send as with a core each while the ranks not idle in a long " +
                "wait have one" : ""));
        }
        singleCopy = new SingleCopy(configuration, rank, base, layout, cores, idleRanks);
        ringPace = new RingPace(configuration, log, size, layout.ringCapacity(),
            StreamingCopy.available() ? singleCopy.stagedHeapSendMinBytes() : 0);
        final String singleCopyOff = singleCopy.probe();
        // Algorithm choices depend on whether every rank takes single-copy messages: all must see the same answer.
        while (!singleCopy.allDecided())
        {
            bootstrapIdle(deadline, timeoutNs);
        }
        singleCopyBytes = singleCopy.everyRank() ? singleCopy.threshold() : 0;
        waiter.done();
        if (log.enabled(Log.INFO, Log.INIT))
        {
            log.info(Log.INIT, "joined job: rank " + rank + " of " + size + ", segment " + segment.path() +
                ", single copy " + (singleCopyOff == null ? "on from " + sizeText(singleCopy.threshold()) +
                heapSendsText() : singleCopyOff) +
                (singleCopyOff == null && singleCopyBytes == 0 ? " here, off on another rank" : ""));
        }
    }

    /**
     * The INIT log's word on heap arrays' large sends: from what size they go out of an off-heap copy at the slow
     * pace ({@link SingleCopy#offerStaged}), or why they keep the ring; nothing in a job where they never would.
     */
    private String heapSendsText()
    {
        if (singleCopy.stagedHeapSendMinBytes() == 0)
        {
            return "";
        }
        return StreamingCopy.available() ? " (heap arrays' blocking sends from " +
            sizeText(singleCopy.stagedHeapSendMinBytes()) + " out of an off-heap copy at the slow pace: the " +
            "collectives' as the pace probe reads it, the application's as their own ring's chunks do)" :
            " (heap arrays' sends keep the ring: this JVM's large copies do not stream past the caches, " +
            StreamingCopy.whyNot() + ")";
    }

    /**
     * Sets how waits back off for a job on {@code cores} cores. While ranks outnumber them a waiting rank yields at
     * once and parks sooner, and long waits count themselves idle, so that the ranks left can wait and send as ranks
     * with a core each do when the idle ones leave them one. That needs the scheduler free to run the ranks left on
     * cores of their own ({@code everyRankOnEveryCore}): ranks bound to one CPU share it whatever the others do, and a
     * rank spinning there holds the CPU its partner needs (4 ranks bound two to a CPU: a pingpong up to 40x slower). A
     * spin count set fixes how every wait spins, and nothing is counted.
     */
    private void waitFor(final int cores, final boolean everyRankOnEveryCore)
    {
        this.cores = cores;
        final boolean oversubscribed = size > cores;
        final boolean spinsSet = configuration.get(Configuration.IDLE_SPINS_PROP_NAME) != null;
        final boolean waitsAdapt = oversubscribed && !spinsSet;
        idleRanks = waitsAdapt && everyRankOnEveryCore ? new IdleRanks(base, size, cores) : null;
        if (waitsAdapt && coreMates == null)
        {
            coreMates = CoreMates.of(base, layout, rank);
        }
        waiter.waitWith(
            configuration.getLong(Configuration.IDLE_SPINS_PROP_NAME,
                oversubscribed ? Configuration.IDLE_SPINS_OVERSUBSCRIBED_DEFAULT : Configuration.IDLE_SPINS_DEFAULT),
            configuration.getLong(Configuration.IDLE_YIELDS_PROP_NAME,
                oversubscribed ? Configuration.IDLE_YIELDS_OVERSUBSCRIBED_DEFAULT : Configuration.IDLE_YIELDS_DEFAULT),
            TimeUnit.MICROSECONDS.toNanos(configuration.getLong(Configuration.IDLE_MAX_PARK_US_PROP_NAME,
                Configuration.IDLE_MAX_PARK_US_DEFAULT)),
            idleRanks, Configuration.IDLE_SPINS_DEFAULT, waitsAdapt ? coreMates : null);
    }

    /**
     * Makes this transport a progress thread's (non-blocking collectives): from now on its waits spin
     * {@code spins} times, yield {@code yields} times, then park for at most {@code maxParkUs} µs, and never count
     * themselves idle, so that they leave the cores to the computation they overlap; except while a caller drives it
     * ({@link #callerDrives}).
     */
    public void progressThreadWaits(final long spins, final long yields, final long maxParkUs)
    {
        waiter.progressThreadWaits(spins, yields, TimeUnit.MICROSECONDS.toNanos(maxParkUs));
    }

    /**
     * Whether a caller waiting for a progress thread's operations runs them itself from now on, waiting as inside a
     * blocking call, or the progress thread again. Between operations, by the thread about to run the next.
     */
    public void callerDrives(final boolean driving)
    {
        waiter.callerDrives(driving);
    }

    /** The cores the job's ranks share, as they decide whether ranks outnumber cores ({@link JobCores}). */
    public int cores()
    {
        return cores;
    }

    private static String sizeText(final long bytes)
    {
        return bytes % 1024 == 0 ? bytes / 1024 + " KiB" : bytes + " B";
    }

    private void bootstrapIdle(final long deadline, final long timeoutNs)
    {
        if (System.nanoTime() - deadline > 0)
        {
            throw bootstrapTimeout(timeoutNs);
        }
        monitor.check(-1, waiter);
        if (rank != 0 && monitor.state(0) == STATE_EMPTY)
        {
            checkCreator();
        }
        LockSupport.parkNanos(100_000);
    }

    /** Rank 0 published the segment but has not registered yet: it must still be alive and running to do so. */
    private void checkCreator()
    {
        final long creator = UnsafeApi.getLong(null, base + SegmentDescriptor.CREATOR_PID_OFFSET);
        final boolean dead = !ProcessHandle.of(creator).map(ProcessHandle::isAlive).orElse(false);
        if (dead || ProcessStates.isStopped(creator))
        {
            throw new PeerFailedException(0, "rank 0 (pid " + creator + ") created the job segment and " +
                (dead ? "died" : "is stopped (SIGSTOP, or held by a debugger)") + " before registering " +
                waiter.describe());
        }
    }

    /** Names the ranks that never arrived (they died or hung before attaching), or rank 0 when it never said ready. */
    private JcclException bootstrapTimeout(final long timeoutNs)
    {
        final String prefix = "rank " + rank + ": bootstrap timed out after " +
            TimeUnit.NANOSECONDS.toMillis(timeoutNs) + " ms (jccl.bootstrap.timeout.ms): ";
        final StringBuilder missing = new StringBuilder();
        int firstMissing = -1;
        for (int r = 0; r < size; r++)
        {
            if (monitor.state(r) == STATE_EMPTY)
            {
                missing.append(firstMissing < 0 ? "" : ", ").append(r);
                firstMissing = firstMissing < 0 ? r : firstMissing;
            }
        }
        if (firstMissing >= 0)
        {
            return new PeerFailedException(firstMissing, prefix + "rank" + (missing.indexOf(",") > 0 ? "s " : " ") +
                missing + " of job never attached (did not start, or died or hung before connecting)");
        }
        return new PeerFailedException(0, prefix + "rank 0 did not declare the job ready");
    }

    @Override
    public int rank()
    {
        return rank;
    }

    @Override
    public int size()
    {
        return size;
    }

    /** The segment's mapped address (for symmetric buffers). */
    public long segmentAddress()
    {
        return base;
    }

    // ======================================================================================== point-to-point API

    public void send(final Buf buf, final int dest, final int tag)
    {
        checkUsable();
        checkRank(dest, size, "destination rank");
        checkTag(tag);
        checkBuffer(buf, "send buffer", false);
        beginPointToPoint("send", FlightRecorder.SEND, buf);
        waiter.target(dest, tag, buf.bytes());
        sendBlocking(dest, tag, buf.base(), buf.offset(), buf.bytes(), false);
        recorder.done();
    }

    public long recv(final Buf buf, final int source, final int tag)
    {
        checkUsable();
        checkSource(source);
        checkReceiveTag(tag);
        checkBuffer(buf, "receive buffer", true);
        beginPointToPoint("recv", FlightRecorder.RECV, buf);
        waiter.target(awaited(source), tag, buf.bytes());
        final long received;
        try
        {
            received = recvBlocking(source, tag, buf.base(), buf.offset(), buf.bytes());
        }
        finally
        {
            lastSource = blockingRecv.source;
            lastTag = blockingRecv.tag;
        }
        recorder.done();
        return received;
    }

    public long sendRecv(final Buf sendBuf, final int dest, final int sendTag,
        final Buf recvBuf, final int source, final int recvTag)
    {
        checkUsable();
        checkRank(dest, size, "destination rank");
        checkSource(source);
        checkTag(sendTag);
        checkReceiveTag(recvTag);
        checkBuffer(sendBuf, "send buffer", false);
        checkBuffer(recvBuf, "receive buffer", true);
        beginPointToPoint("sendRecv", FlightRecorder.SEND_RECV, sendBuf);
        waiter.target(awaited(source), recvTag, recvBuf.bytes());
        final long received;
        try
        {
            received = exchange(dest, sendTag, sendBuf.base(), sendBuf.offset(), sendBuf.bytes(),
                source, recvTag, recvBuf.base(), recvBuf.offset(), recvBuf.bytes());
        }
        finally
        {
            lastSource = blockingRecv.source;
            lastTag = blockingRecv.tag;
        }
        recorder.done();
        return received;
    }

    /**
     * The source of the message the last {@link #recv} or {@link #sendRecv} took, or the last {@link #probe} or
     * {@link #iprobe} found ({@link #ANY_SOURCE}: none).
     */
    public int lastSource()
    {
        return lastSource;
    }

    /** The tag of the message {@link #lastSource()} tells the sender of ({@link #ANY_TAG}: none). */
    public int lastTag()
    {
        return lastTag;
    }

    /**
     * Waits for a message with {@code tag} (or any) from {@code source} (or any) that a receive would take; its length.
     */
    public long probe(final int source, final int tag)
    {
        checkUsable();
        checkSource(source);
        checkReceiveTag(tag);
        final long sequence = ++operationSequence;
        final int awaited = awaited(source);
        waiter.operation("probe", sequence, -1, null, true);
        recorder.begin(sequence, FlightRecorder.pointToPoint(FlightRecorder.PROBE, null), -1, null);
        waiter.target(awaited, tag, -1);
        long length;
        while ((length = findMessage(source, tag)) < 0)
        {
            idleUnless(progressFor(source), awaited);
        }
        waiter.done();
        recorder.done();
        return length;
    }

    /** As {@link #probe}, without waiting: -1 when no such message has arrived. */
    public long iprobe(final int source, final int tag)
    {
        checkUsable();
        checkSource(source);
        checkReceiveTag(tag);
        final long length = findMessage(source, tag);
        if (length >= 0 || progressFor(source) == 0)
        {
            return length;
        }
        return findMessage(source, tag);
    }

    /**
     * The length of the message with {@code tag} (or any) from {@code source} (or any) that a receive would take next,
     * without taking it, and its sender and tag into {@link #lastSource} and {@link #lastTag}: the first buffered as
     * unexpected, else one at the head of its channel that no posted receive claims. -1 when there is none yet.
     */
    private long findMessage(final int source, final int tag)
    {
        final RecvOp early = peekUnexpected(source, tag);
        if (early != null)
        {
            lastSource = early.source;
            lastTag = early.tag;
            return early.length;
        }
        for (int r = firstOf(source), end = endOf(source); r < end; r++)
        {
            final ChannelReader reader = readers[r];
            if (reader != null && current[r] == null && reader.poll() && takes(tag, reader.tag()) &&
                firstReceiveFor(posted[r], reader.tag()) < 0 && firstReceiveFor(postedAny, reader.tag()) < 0)
            {
                lastSource = r;
                lastTag = reader.tag();
                return reader.messageLength();
            }
        }
        return -1;
    }

    /**
     * Moves the messages that have arrived from {@code source} (or from every rank) to their receives, buffering the
     * others as unexpected, as a probe must to look past them.
     */
    private int progressFor(final int source)
    {
        int work = activeSendQueues > 0 ? progressSends() : 0;
        for (int r = firstOf(source), end = endOf(source); r < end; r++)
        {
            work += progressSource(r, null);
        }
        return work;
    }

    private void checkSource(final int source)
    {
        if (source != ANY_SOURCE && (source < 0 || source >= size))
        {
            throw new IllegalArgumentException("source rank " + source + " is outside 0.." + (size - 1) +
                " and not ANY_SOURCE (" + ANY_SOURCE + ")");
        }
    }

    /** The first of the ranks a receive from {@code source} reads: that one, or every rank for {@link #ANY_SOURCE}. */
    private static int firstOf(final int source)
    {
        return source == ANY_SOURCE ? 0 : source;
    }

    /** One past the last of the ranks a receive from {@code source} reads. */
    private int endOf(final int source)
    {
        return source == ANY_SOURCE ? size : source + 1;
    }

    /** The rank a wait for a message from {@code source} awaits: {@link Waiter#ANY_SENDER} for any. */
    private static int awaited(final int source)
    {
        return source == ANY_SOURCE ? Waiter.ANY_SENDER : source;
    }

    public Request isend(final Buf buf, final int dest, final int tag)
    {
        final SendOp op = newSend(buf, dest, tag);
        issue(op, buf);
        return op;
    }

    public ReceiveRequest irecv(final Buf buf, final int source, final int tag)
    {
        final RecvOp op = newReceive(buf, source, tag);
        post(op, buf);
        return op;
    }

    /** A persistent send ({@link SendOp#start}): complete, and inactive, until its first start. */
    public PersistentRequest sendInit(final Buf buf, final int dest, final int tag)
    {
        final SendOp op = newSend(buf, dest, tag);
        op.persistent = buf;
        op.done = true;
        return op;
    }

    /** A persistent receive ({@link RecvOp#start}): complete, and inactive, until its first start. */
    public PersistentReceiveRequest recvInit(final Buf buf, final int source, final int tag)
    {
        final RecvOp op = newReceive(buf, source, tag);
        op.persistent = buf;
        op.postedSource = source;
        op.postedTag = tag;
        op.done = true;
        return op;
    }

    /** The request of a send of {@code buf} to {@code dest}, its arguments checked. */
    private SendOp newSend(final Buf buf, final int dest, final int tag)
    {
        checkUsable();
        checkRank(dest, size, "destination rank");
        checkTag(tag);
        checkBuffer(buf, "send buffer", false);
        final SendOp op = new SendOp(this).reset(dest, tag, buf.base(), buf.offset(), buf.bytes());
        op.operation = "isend";
        return op;
    }

    /** The request of a receive into {@code buf} from {@code source}, its arguments checked. */
    private RecvOp newReceive(final Buf buf, final int source, final int tag)
    {
        checkUsable();
        checkSource(source);
        checkReceiveTag(tag);
        checkBuffer(buf, "receive buffer", true);
        final RecvOp op = new RecvOp(this).reset(source, tag, buf.base(), buf.offset(), buf.bytes());
        op.operation = "irecv";
        return op;
    }

    /** Starts persistent send {@code op} again: as {@link #isend}, into the same object. */
    void start(final SendOp op)
    {
        checkUsable();
        checkStartable(op.persistent, op.done, "send");
        final Buf buf = op.persistent;
        op.reset(op.dest, op.tag, buf.base(), buf.offset(), buf.bytes());
        op.active = true;
        issue(op, buf);
    }

    /** Numbers send {@code op} and starts it. */
    private void issue(final SendOp op, final Buf buf)
    {
        op.sequence = ++operationSequence;
        recorder.begin(op.sequence, FlightRecorder.pointToPoint(FlightRecorder.ISEND, buf.type()), buf.count(), null);
        startSend(op);
    }

    /** Posts persistent receive {@code op} again: as {@link #irecv}, into the same object. */
    void start(final RecvOp op)
    {
        checkUsable();
        checkStartable(op.persistent, op.done, "receive");
        final Buf buf = op.persistent;
        op.reset(op.postedSource, op.postedTag, buf.base(), buf.offset(), buf.bytes());
        op.active = true;
        post(op, buf);
    }

    private static void checkStartable(final Buf persistent, final boolean done, final String kind)
    {
        if (persistent == null)
        {
            throw new IllegalStateException("start() on a " + kind + " that is not persistent: sendInit and " +
                "recvInit make requests to start again and again, isend and irecv ones that run once");
        }
        if (!done)
        {
            throw new IllegalStateException("start() on a persistent " + kind + " whose last start has not " +
                "completed: complete it (test, await, waitAny, waitAll) before starting it again");
        }
    }

    /** Numbers receive {@code op} and matches it to the first unexpected message it takes, or posts it. */
    private void post(final RecvOp op, final Buf buf)
    {
        op.sequence = ++operationSequence;
        recorder.begin(op.sequence, FlightRecorder.pointToPoint(FlightRecorder.IRECV, buf.type()), buf.count(), null);
        final RecvOp early = takeUnexpected(op.source, op.tag);
        if (early == null)
        {
            (op.source == ANY_SOURCE ? postedAny : posted[op.source]).add(op);
        }
        else
        {
            op.source = early.source;
            op.tag = early.tag;
            if (early.done)
            {
                completeFrom(op, early);
            }
            else
            {
                op.pending = early;
            }
        }
    }

    // ==================================================================================== collective context

    /**
     * Starts a collective: every rank's collective sequence grows by one, and the call's signature is published
     * for mismatch detection (in check mode, compared with every rank's before this returns). {@code count} is
     * this rank's count, shown in diagnostics; {@code agreedCount} the count every rank must pass (-1: not
     * compared); {@code op} null and {@code root} -1 when the collective has none; {@code algorithm} is recorded.
     */
    public long beginCollective(final Collective collective, final DataType type, final ReduceOp op, final int root,
        final long count, final long agreedCount, final CollectiveAlgorithm algorithm)
    {
        checkUsable();
        final long sequence = ++collectiveSequence;
        final long shownCount = collective == Collective.BARRIER ? -1 : count;
        final long kind = CallSignatures.kind(collective, type, op, root);
        waiter.collective(collective.label(), sequence, shownCount, type == null ? null : type.label());
        recorder.begin(sequence, kind, shownCount, algorithm);
        signatures.publish(sequence, kind, agreedCount);
        // Acquire: what the failing rank published before it set the word (its signatures, its state) is visible.
        if (UnsafeApi.getLongAcquire(null, base + ABORT_OFFSET) != 0)
        {
            abortedByPeer();
        }
        if (checkMode)
        {
            verifySignatures(sequence);
        }
        return sequence;
    }

    /**
     * Another rank broke: this collective cannot complete. A mismatch of the calls is the cause to report when
     * there is one (the rank that finished a mismatched collective early learns of it here), else the failed peer.
     */
    private void abortedByPeer()
    {
        final CollectiveMismatchException mismatch = signatures.findMismatch();
        if (mismatch != null)
        {
            throw fail(mismatch);
        }
        try
        {
            monitor.check(-1, waiter);
        }
        catch (final JcclException ex)
        {
            throw fail(ex);
        }
        final int culprit = (int) UnsafeApi.getLongAcquire(null, base + ABORT_OFFSET) - 1;
        throw fail(new PeerFailedException(culprit, "rank " + culprit + " broke off the job " + waiter.describe()));
    }

    /** The collective started by {@link #beginCollective} has finished on this rank. */
    public void endCollective()
    {
        recorder.done();
    }

    /**
     * The collective started by {@link #beginCollective} has ended unrun on this rank, since a rank declined its
     * single-copy algorithm ({@link io.jccl.spi.CollectiveArgs#declined}): the flight record says so.
     */
    public void endDeclinedCollective()
    {
        recorder.declined();
    }

    /** Check mode: waits for every peer's signature of collective {@code sequence} and compares it with this one's. */
    private void verifySignatures(final long sequence)
    {
        for (int r = 0; r < size; r++)
        {
            if (r == rank)
            {
                continue;
            }
            int result;
            while ((result = signatures.compare(r, sequence)) == CallSignatures.ABSENT)
            {
                idleUnless(activeSendQueues > 0 ? progressSends() : 0, r);
            }
            if (result == CallSignatures.MISMATCH)
            {
                throw fail(signatures.mismatch(sequence));
            }
        }
        waiter.done();
    }

    /** The last operations of this rank, one per line (see {@link FlightRecorder}). */
    public String flightRecord()
    {
        return recorder.dump("");
    }

    private void beginPointToPoint(final String name, final int operation, final Buf buf)
    {
        final long sequence = ++operationSequence;
        waiter.operation(name, sequence, buf.count(), buf.type().label(), true);
        recorder.begin(sequence, FlightRecorder.pointToPoint(operation, buf.type()), buf.count(), null);
    }

    @Override
    public long sequence()
    {
        return collectiveSequence;
    }

    @Override
    public void send(final int peer, final Object base, final long offset, final long bytes)
    {
        waiter.target(peer, COLLECTIVE_TAG, bytes);
        sendBlocking(peer, COLLECTIVE_TAG, base, offset, bytes, false);
    }

    @Override
    public void sendForReduction(final int peer, final Object base, final long offset, final long bytes)
    {
        waiter.target(peer, COLLECTIVE_TAG, bytes);
        sendBlocking(peer, COLLECTIVE_TAG, base, offset, bytes, true);
    }

    @Override
    public void recv(final int peer, final Object base, final long offset, final long bytes)
    {
        waiter.target(peer, COLLECTIVE_TAG, bytes);
        final long received;
        try
        {
            received = recvBlocking(peer, COLLECTIVE_TAG, base, offset, bytes);
        }
        catch (final JcclException ex)
        {
            throw collectiveFailure(ex);
        }
        expectLength(peer, bytes, received);
    }

    @Override
    public void sendRecv(final int dest, final Object sendBase, final long sendOffset, final long sendBytes,
        final int source, final Object recvBase, final long recvOffset, final long recvBytes)
    {
        waiter.target(source, COLLECTIVE_TAG, recvBytes);
        final long received;
        try
        {
            received = exchange(dest, COLLECTIVE_TAG, sendBase, sendOffset, sendBytes,
                source, COLLECTIVE_TAG, recvBase, recvOffset, recvBytes);
        }
        catch (final JcclException ex)
        {
            throw collectiveFailure(ex);
        }
        expectLength(source, recvBytes, received);
    }

    /**
     * The pace the communicator's probe read ({@code io.jccl.engine.PaceProbe}). At the slow pace, in a job of at most
     * {@link SingleCopy#STAGED_HEAP_SEND_MAX_RANKS_PER_CORE} ranks a core, a heap array's blocking send of
     * {@link SingleCopy#stagedHeapSendMinBytes()} or more goes single copy out of an off-heap copy of it, instead of
     * through the ring, where this JVM's large copies stream past the caches ({@link StreamingCopy}): the
     * collectives' sends, but not between the paces, where the copy took twice the ring's time (2 ranks, an 8 MiB
     * {@code float[]} binomial broadcast, 2.0-2.4 ms against 0.9-1.0; PERFORMANCE.md, session 61); the application's
     * follow the pace their own chunks read from the ring ({@link RingPace}).
     *
     * @param copiesStream whether rank 0's JVM's large copies stream past the caches, the same on every rank: with the
     *                     slow pace, in a job whose heap arrays' sends go out of a copy, {@link #copiesStream()}.
     * @param betweenPaces whether the probe found the large calls between the machine's paces.
     */
    public void pace(final Pace pace, final boolean copiesStream, final boolean betweenPaces)
    {
        singleCopy.stageHeapSends(pace == Pace.SLOW && !betweenPaces);
        this.copiesStream = pace == Pace.SLOW && copiesStream && singleCopy.stagedHeapSendMinBytes() > 0;
    }

    @Override
    public boolean copiesStream()
    {
        return copiesStream;
    }

    /** Whether the collectives' heap arrays' large blocking sends go out of an off-heap copy now (tools and tests). */
    public boolean stagesHeapSends()
    {
        return singleCopy.stagesHeapSends();
    }

    @Override
    public long singleCopyBytes()
    {
        return singleCopyBytes;
    }

    /**
     * The single-copy threshold of a job of {@code ranks} ranks sharing {@code cores} cores without
     * {@code jccl.single.copy.bytes}, where every rank can read its peers' memory ({@link #singleCopyBytes()}).
     */
    public static long defaultSingleCopyBytes(final int ranks, final int cores)
    {
        return SingleCopy.defaultThreshold(ranks > cores);
    }

    @Override
    public void readPeer(final int peer, final long remoteAddress, final long localAddress, final long bytes)
    {
        if (singleCopyBytes == 0)
        {
            throw new UnsupportedOperationException("single copy is off");
        }
        singleCopy.read(peer, localAddress, remoteAddress, bytes);
    }

    @Override
    public long stagingAddress(final int r)
    {
        return base + layout.stagingOffset(r);
    }

    @Override
    public long stagingBytes()
    {
        return layout.stagingBytes();
    }

    @Override
    public long segmentAddress(final long segmentOffset)
    {
        return base + segmentOffset;
    }

    @Override
    public void setFlag(final int slot, final long value)
    {
        UnsafeApi.putLongRelease(null, flagAddress(rank, slot), value);
    }

    @Override
    public long getFlag(final int peer, final int slot)
    {
        return UnsafeApi.getLongAcquire(null, flagAddress(peer, slot));
    }

    @Override
    public void setFlagPayload(final int slot, final int word, final long value)
    {
        UnsafeApi.putLong(null, flagAddress(rank, slot) + payloadOffset(word), value);
    }

    @Override
    public long getFlagPayload(final int peer, final int slot, final int word)
    {
        // plain: ordered after the caller's acquire load of the flag, which the peer's release store published it with
        return UnsafeApi.getLong(null, flagAddress(peer, slot) + payloadOffset(word));
    }

    @Override
    public long waitFlag(final int peer, final int slot, final long atLeast)
    {
        final long address = flagAddress(peer, slot);
        long value;
        // Acquire: what the peer wrote before its release store of the flag is visible after this load.
        while ((value = UnsafeApi.getLongAcquire(null, address)) < atLeast)
        {
            idle(peer, address, atLeast, CoreMates.AT_LEAST);
        }
        waiter.done();
        return value;
    }

    @Override
    public void onlyReadsLeft()
    {
        waiter.onlyReads();
    }

    @Override
    public void waitWord(final int peer, final long address, final long expected)
    {
        // Acquire: what the peer stored before its release store of the word is visible after this load.
        while (UnsafeApi.getLongAcquire(null, address) != expected)
        {
            idle(peer, address, expected, CoreMates.EQUALS);
        }
        waiter.done();
    }

    @Override
    public StagingLedger stagingLedger()
    {
        return staging;
    }

    @Override
    public long scratch(final int index, final long bytes)
    {
        ByteBuffer buffer = scratch[index];
        if (buffer == null || buffer.capacity() < bytes)
        {
            if (bytes > Integer.MAX_VALUE - 64)
            {
                throw new JcclException("scratch of " + bytes + " bytes exceeds what one buffer holds");
            }
            final int capacity = (int) Math.min(Integer.MAX_VALUE - 64,
                Math.max(4096, Long.highestOneBit(Math.max(1, bytes - 1)) << 1));
            // peers may read a scratch buffer through the kernel (a heap array's copy for single copy)
            buffer = singleCopy.allocateForPeers(capacity);
            scratch[index] = buffer;
        }
        return BufferUtil.address(buffer);
    }

    /**
     * Allocates {@code count} elements of this rank's symmetric memory, 64-byte aligned. Every rank must allocate the
     * same sequence of sizes, so a buffer and its twins lie at the same distance from each rank's region start.
     */
    public Buf allocateShared(final long count, final DataType type)
    {
        checkUsable();
        checkType(type);
        checkCount(count, type);
        final long bytes = count * type.size();
        final long start = SegmentDescriptor.align(symmetricUsed, 64);
        if (start + bytes > layout.symmetricBytes())
        {
            throw new IllegalArgumentException("symmetric memory exhausted: " + bytes + " bytes requested, " +
                (layout.symmetricBytes() - start) + " of " + layout.symmetricBytes() + " left (set " +
                "jccl.symmetric.bytes / JCCL_SYMMETRIC_BYTES)");
        }
        symmetricUsed = start + bytes;
        final long segmentOffset = layout.symmetricOffset(rank) + start;
        return Buf.ofShared(base + segmentOffset, segmentOffset, count, type, segment.mapping());
    }

    /**
     * The twin of {@code own}, symmetric memory this rank allocated, in {@code peer}'s symmetric memory: the same
     * distance from the start of the peer's region (MPI_Win_shared_query). Read-only when {@code own} is.
     */
    public Buf peerView(final Buf own, final int peer)
    {
        checkUsable();
        checkBuffer(own, "buffer", false);
        checkRank(peer, size, "peer");
        final long regionStart = layout.symmetricOffset(rank);
        final long at = own.segmentOffset();
        if (!own.isShared() || own.offset() != base + at || at < regionStart ||
            at + own.bytes() > regionStart + layout.symmetricBytes())
        {
            throw new IllegalArgumentException("peerView takes symmetric memory this rank allocated from this " +
                "communicator (allocateShared), not " + own);
        }
        if (peer == rank)
        {
            return own;
        }
        final long peerOffset = layout.symmetricOffset(peer) + (at - regionStart);
        final Buf view = Buf.ofShared(base + peerOffset, peerOffset, own.count(), own.type(), segment.mapping());
        return own.isReadOnly() ? view.asReadOnly() : view;
    }

    // ================================================================================================ engine

    /** Advances every pending send and every receive in progress; returns the amount of work done. */
    int progress()
    {
        int work = activeSendQueues > 0 ? progressSends() : 0;
        final boolean anyPosted = !postedAny.isEmpty();
        for (int r = 0; r < size; r++)
        {
            if (anyPosted || current[r] != null || !posted[r].isEmpty())
            {
                work += progressSource(r, null);
            }
        }
        return work;
    }

    boolean await(final Request request, final int peer, final String operation, final long sequence,
        final long timeoutNs)
    {
        checkUsable();
        final int awaited = awaited(peer);
        waiter.operation(operation, sequence, -1, null, true);
        waiter.target(awaited, Integer.MIN_VALUE, request.bytes());
        final long start = timeoutNs >= 0 ? System.nanoTime() : 0;
        while (!request.test())
        {
            if (timeoutNs >= 0 && System.nanoTime() - start > timeoutNs)
            {
                waiter.done();
                return false;
            }
            idle(awaited);
        }
        waiter.done();
        return true;
    }

    /**
     * Withdraws posted receive {@code op} while no message has matched it: it is then still in its source's list of
     * posted receives, or the list of those from any source (a match takes it out of the list first). It does not
     * make progress first: a message that has arrived but not been matched may go either way, as MPI allows.
     */
    boolean cancel(final RecvOp op)
    {
        checkUsable();
        if (op.done || op.pending != null || !(op.source == ANY_SOURCE ? postedAny : posted[op.source]).remove(op))
        {
            return false;
        }
        op.cancelled = true;
        op.done = true;
        return true;
    }

    /** Whether {@code request} is one of this transport's sends or receives, persistent ones included. */
    public boolean owns(final Request request)
    {
        return request instanceof SendOp send ? send.transport == this :
            request instanceof RecvOp recv && recv.transport == this;
    }

    /**
     * The communicator's {@code waitAny} ({@code block}) and {@code testAny}: the index of a request of
     * {@code requests} that has completed, whose entry it sets to null, or, for a persistent request, leaves in place,
     * the request inactive until started again; -1 when, without {@code block}, none has completed; {@link #NONE_LEFT}
     * when no entry is pending (null or an inactive persistent request), without making progress. A failed request's
     * entry goes the same way before its failure is thrown. This transport's own requests are looked at after one
     * {@link #progress()} a round; any other (the caller has checked that it is its communicator's non-blocking
     * collective, which its progress thread completes) through its own {@code test()}. The wait goes through the waiter
     * as every other: bounded by the operation timeout, watching the peers. It may spin with a core each only while it
     * waits for messages alone: a collective's request is completed by a progress thread, which needs the core.
     */
    public int completeAny(final Request[] requests, final boolean block)
    {
        checkUsable();
        if (!anyPending(requests))
        {
            return NONE_LEFT;
        }
        boolean waiting = false;
        while (true)
        {
            progress();
            int awaited = NO_REQUEST;
            long sequence = -1;
            boolean collectives = false;
            for (int i = 0; i < requests.length; i++)
            {
                final Request request = requests[i];
                if (!pending(request))
                {
                    continue;
                }
                final boolean done;
                try
                {
                    done = request instanceof SendOp send && send.transport == this ? send.done :
                        request instanceof RecvOp recv && recv.transport == this ? recv.completed() : request.test();
                }
                catch (final RuntimeException ex)
                {
                    seen(requests, i);
                    endWait(waiting);
                    throw ex;
                }
                if (done)
                {
                    seen(requests, i);
                    endWait(waiting);
                    return i;
                }
                final int peer;
                if (request instanceof SendOp send)
                {
                    peer = send.dest;
                    sequence = sequence < 0 ? send.sequence : sequence;
                }
                else if (request instanceof RecvOp recv)
                {
                    peer = awaited(recv.source);
                    sequence = sequence < 0 ? recv.sequence : sequence;
                }
                else
                {
                    peer = Waiter.ANY_SENDER;
                    collectives = true;
                }
                awaited = awaited == NO_REQUEST || awaited == peer ? peer : Waiter.ANY_SENDER;
            }
            if (!block)
            {
                endWait(waiting);
                return -1;
            }
            if (!waiting)
            {
                waiting = true;
                // named by its first message's number, or the rank's last operation's when it waits for collectives
                waiter.operation("waitAny", sequence >= 0 ? sequence : operationSequence, -1, null, !collectives);
            }
            waiter.target(awaited, Integer.MIN_VALUE, -1);
            idle(awaited);
        }
    }

    private static boolean anyPending(final Request[] requests)
    {
        for (final Request request : requests)
        {
            if (pending(request))
            {
                return true;
            }
        }
        return false;
    }

    /** Whether {@link #completeAny} looks at {@code request}: not null, nor an inactive persistent request. */
    private static boolean pending(final Request request)
    {
        return request instanceof SendOp send ? send.persistent == null || send.active :
            request instanceof RecvOp recv ? recv.persistent == null || recv.active : request != null;
    }

    /** The completion of {@code requests[i]} has been seen: a persistent request goes inactive, any other's entry null. */
    private static void seen(final Request[] requests, final int i)
    {
        if (requests[i] instanceof SendOp send && send.persistent != null)
        {
            send.active = false;
        }
        else if (requests[i] instanceof RecvOp recv && recv.persistent != null)
        {
            recv.active = false;
        }
        else
        {
            requests[i] = null;
        }
    }

    private void endWait(final boolean waiting)
    {
        if (waiting)
        {
            waiter.done();
        }
    }

    /** Finishes receive {@code op} from an unexpected message that has fully arrived. */
    void completeFrom(final RecvOp op, final RecvOp early)
    {
        op.pending = null;
        op.length = early.length;
        if (early.length > op.capacity)
        {
            op.error = truncation(op.source, op.tag, early.length, op.capacity);
        }
        else
        {
            Memory.copy(early.base, early.offset, op.base, op.offset, early.length);
            op.received = early.length;
        }
        op.done = true;
        if (early.pooledBytes != null && unexpectedPool.size() < POOLED_UNEXPECTED_MAX)
        {
            unexpectedPool.add(early);
        }
    }

    private void sendBlocking(final int dest, final int tag, final Object base, final long offset, final long bytes,
        final boolean forReduction)
    {
        final SendOp op = blockingSend.reset(dest, tag, base, offset, bytes);
        op.forReduction = forReduction;
        startSend(op);
        while (!op.done)
        {
            int work = progressSends();
            if (!op.done)
            {
                // The receiver may be sending to us first (a full ring, a rendezvous waiting to be accepted): take
                // its messages meanwhile, as unexpected ones, so two ranks that both send first still meet.
                work += progressSource(dest, null);
            }
            idleUnless(work, dest);
        }
        waiter.done();
    }

    private long recvBlocking(final int source, final int tag, final Object base, final long offset,
        final long capacity)
    {
        final RecvOp early = takeUnexpected(source, tag);
        final RecvOp op = early != null ? blockingRecv.reset(early.source, early.tag, base, offset, capacity) :
            blockingRecv.reset(source, tag, base, offset, capacity);
        if (early != null)
        {
            while (!early.done)
            {
                idleUnless(progressSource(early.source, null), early.source);
            }
            completeFrom(op, early);
        }
        else
        {
            while (!op.done)
            {
                int work = progressReceive(op);
                if (activeSendQueues > 0)
                {
                    work += progressSends();
                }
                if (!op.done)
                {
                    idleUnless(work, awaited(op.source));
                }
            }
        }
        waiter.done();
        if (op.error != null)
        {
            throw op.error;
        }
        return op.length;
    }

    private long exchange(final int dest, final int sendTag, final Object sendBase, final long sendOffset,
        final long sendBytes, final int source, final int recvTag, final Object recvBase, final long recvOffset,
        final long recvBytes)
    {
        final SendOp send = blockingSend.reset(dest, sendTag, sendBase, sendOffset, sendBytes);
        final RecvOp early = takeUnexpected(source, recvTag);
        final RecvOp recv = early != null ?
            blockingRecv.reset(early.source, early.tag, recvBase, recvOffset, recvBytes) :
            blockingRecv.reset(source, recvTag, recvBase, recvOffset, recvBytes);
        startSend(send);
        while (true)
        {
            int work = 0;
            if (!send.done)
            {
                work += progressSends();
            }
            if (!recv.done)
            {
                if (early == null)
                {
                    work += progressReceive(recv);
                }
                else
                {
                    work += progressSource(early.source, null);
                    if (early.done)
                    {
                        completeFrom(recv, early);
                    }
                }
            }
            if (send.done && recv.done)
            {
                break;
            }
            idleUnless(work, send.done ? awaited(recv.source) : dest);
        }
        waiter.done();
        if (recv.error != null)
        {
            throw recv.error;
        }
        return recv.length;
    }

    private void startSend(final SendOp op)
    {
        if (op.dest == rank)
        {
            sendToSelf(op);
            return;
        }
        // The collectives' heap arrays follow the engine's probe; the application's, the pace of the ring to dest
        final boolean staged = op == blockingSend && op.base != null && singleCopy.offerStaged(op.dest, op.bytes) &&
            (waiter.pointToPoint() ? ringPace.outOfCopy(op.dest, op.bytes) : singleCopy.stagesHeapSends());
        if (staged)
        {
            singleCopy.beginStaged(op);
        }
        if (staged || singleCopy.offer(op.dest, op.base, op.bytes, waiter.pointToPoint(), op.forReduction))
        {
            op.rendezvousId = singleCopy.nextId(op.dest);
            if (log.enabled(Log.TRACE, Log.P2P))
            {
                log.trace(Log.P2P, "sending " + op.bytes + " bytes to rank " + op.dest + " single copy" +
                    (staged ? " out of an off-heap copy of its heap array" : ""));
            }
        }
        final ArrayDeque<SendOp> queue = sendQueues[op.dest];
        if (queue.isEmpty())
        {
            pushChunks(op);
            if (op.done)
            {
                return;
            }
            activeSendQueues++;
        }
        queue.add(op);
    }

    private int progressSends()
    {
        int work = 0;
        for (int d = 0; d < size; d++)
        {
            final ArrayDeque<SendOp> queue = sendQueues[d];
            SendOp op;
            while ((op = queue.peek()) != null)
            {
                work += pushChunks(op);
                if (!op.done)
                {
                    break;
                }
                queue.poll();
                if (queue.isEmpty())
                {
                    activeSendQueues--;
                }
            }
        }
        return work;
    }

    /** Writes as many chunks of {@code op} as the ring takes now; returns the number written. */
    private int pushChunks(final SendOp op)
    {
        final ChannelWriter writer = writers[op.dest];
        if (op.rendezvousId != 0)
        {
            return pushRendezvous(op, writer);
        }
        final long bytes = op.bytes;
        final boolean timed = ringPace.reads(bytes);
        if (timed && !op.started)
        {
            ringPace.begin(op.dest);
        }
        int written = 0;
        do
        {
            final int chunk = (int) Math.min(bytes - op.sent, writer.maxChunk());
            final int flags = (op.started ? 0 : FLAG_FIRST) | (op.sent + chunk == bytes ? FLAG_LAST : 0);
            final long start = timed ? System.nanoTime() : 0;
            if (!writer.tryWrite(op.tag, flags, bytes, op.base, op.offset + op.sent, chunk))
            {
                return written;
            }
            if (timed)
            {
                ringPace.copied(op.dest, chunk, System.nanoTime() - start, op.sent);
            }
            op.started = true;
            op.sent += chunk;
            written++;
        }
        while (op.sent < bytes);
        op.done = true;
        if (timed)
        {
            ringPace.end(op.dest);
        }
        return written;
    }

    /** Announces a single-copy send, then helps copy it once the receiver has accepted. */
    private int pushRendezvous(final SendOp op, final ChannelWriter writer)
    {
        int work = 0;
        if (!op.started)
        {
            final boolean staged = op.stagedFrom != null;
            if (staged)
            {
                singleCopy.clearReady(op.dest);
            }
            if (!writer.tryWriteRendezvous(op.tag, op.bytes, op.offset, op.rendezvousId, staged ? 0 : op.bytes))
            {
                return 0;
            }
            op.started = true;
            work = 1;
        }
        try
        {
            return work + singleCopy.progressSend(op);
        }
        catch (final JcclException ex)
        {
            throw fail(ex);
        }
    }

    /** Moves whole records from {@code source}'s channel to their receives; stops after completing {@code wanted}. */
    private int progressSource(final int source, final RecvOp wanted)
    {
        final ChannelReader reader = readers[source];
        if (reader == null)
        {
            return 0;
        }
        int work = 0;
        final RecvOp arriving = current[source];
        if (arriving != null && arriving.rendezvousId != 0)
        {
            work += progressRendezvous(source, arriving);
            if (!arriving.done || arriving == wanted)
            {
                return work;
            }
        }
        while (reader.poll())
        {
            RecvOp op = current[source];
            if (op == null)
            {
                op = match(source, reader.tag(), wanted);
                final long length = reader.messageLength();
                op.length = length;
                op.truncated = length > op.capacity;
                current[source] = op;
                if (reader.isRendezvous())
                {
                    singleCopy.accept(source, reader, op);
                    reader.consume();
                    work += 1 + progressRendezvous(source, op);
                    if (!op.done || op == wanted)
                    {
                        return work;
                    }
                    continue;
                }
            }
            if (!op.truncated)
            {
                reader.copyPayload(op.base, op.offset + op.received);
            }
            op.received += reader.chunk();
            final boolean last = (reader.flags() & FLAG_LAST) != 0;
            reader.consume();
            work++;
            if (last)
            {
                current[source] = null;
                if (op.truncated)
                {
                    op.error = truncation(source, op.tag, op.length, op.capacity);
                }
                op.done = true;
                if (op == wanted)
                {
                    return work;
                }
            }
        }
        return work;
    }

    /** Copies a single-copy message in; when every byte has arrived (from either end), the receive is done. */
    private int progressRendezvous(final int source, final RecvOp op)
    {
        final int work;
        try
        {
            work = singleCopy.progressRecv(source, op);
        }
        catch (final JcclException ex)
        {
            throw fail(ex);
        }
        if (op.done)
        {
            current[source] = null;
            if (op.truncated)
            {
                op.error = truncation(source, op.tag, op.length, op.capacity);
            }
        }
        return work;
    }

    /**
     * Advances blocking receive {@code op}: from its source, or, until a message matches it, from every rank's
     * channel in turn, starting one further on each time so that no rank's messages wait behind another's.
     */
    private int progressReceive(final RecvOp op)
    {
        if (op.source != ANY_SOURCE)
        {
            return progressSource(op.source, op);
        }
        int work = 0;
        int r = anySourceStart;
        anySourceStart = r + 1 == size ? 0 : r + 1;
        for (int i = 0; i < size && op.source == ANY_SOURCE; i++)
        {
            work += progressSource(r, op);
            r = r + 1 == size ? 0 : r + 1;
        }
        return work;
    }

    /**
     * The receive that a new message with {@code tag} from {@code source} goes to: the one posted first for it,
     * else {@code wanted} (a blocking receive from that source or from any), else a new unexpected one.
     */
    private RecvOp match(final int source, final int tag, final RecvOp wanted)
    {
        final RecvOp posted = takePosted(source, tag);
        if (posted != null)
        {
            return posted;
        }
        if (wanted != null && takes(wanted.tag, tag))
        {
            wanted.source = source;
            wanted.tag = tag;
            return wanted;
        }
        return newUnexpected(source, tag, readers[source].messageLength(), readers[source].isRendezvous());
    }

    /**
     * Removes and returns the receive posted first, for {@code source} or for any, that a message with {@code tag}
     * from {@code source} matches, with the message's source and tag; null when none does.
     */
    private RecvOp takePosted(final int source, final int tag)
    {
        final ArrayList<RecvOp> list = posted[source];
        final int i = firstReceiveFor(list, tag);
        final int any = postedAny.isEmpty() ? -1 : firstReceiveFor(postedAny, tag);
        final RecvOp op;
        if (any >= 0 && (i < 0 || postedAny.get(any).sequence < list.get(i).sequence))
        {
            op = postedAny.remove(any);
            op.source = source;
        }
        else if (i >= 0)
        {
            op = list.remove(i);
        }
        else
        {
            return null;
        }
        op.tag = tag;
        return op;
    }

    /** Whether a receive for {@code wanted} takes a message with {@code tag}: the same tag, or any user tag. */
    private static boolean takes(final int wanted, final int tag)
    {
        return wanted == tag || wanted == ANY_TAG && tag >= 0;
    }

    /** The first of the posted {@code receives} that takes a message with {@code tag}; -1 when none does. */
    private static int firstReceiveFor(final ArrayList<RecvOp> receives, final int tag)
    {
        for (int i = 0, n = receives.size(); i < n; i++)
        {
            if (takes(receives.get(i).tag, tag))
            {
                return i;
            }
        }
        return -1;
    }

    /** The first of the unexpected {@code messages} that a receive for {@code wanted} takes; -1 when none. */
    private static int firstMessageFor(final ArrayList<RecvOp> messages, final int wanted)
    {
        for (int i = 0, n = messages.size(); i < n; i++)
        {
            if (takes(wanted, messages.get(i).tag))
            {
                return i;
            }
        }
        return -1;
    }

    /**
     * A receive for a message nobody asked for yet. A single-copy message lands off-heap, where the sender can write
     * part of it.
     */
    private RecvOp newUnexpected(final int source, final int tag, final long length, final boolean offHeap)
    {
        if (length > Integer.MAX_VALUE - 16)
        {
            throw fail(new JcclException("rank " + rank + " must buffer an unexpected message of " + length +
                " bytes from rank " + source + " (tag " + tag + "), more than a heap array holds: post the " +
                "matching receive first"));
        }
        final RecvOp op;
        if (offHeap)
        {
            final ByteBuffer data = ByteBuffer.allocateDirect((int) Math.max(length, 1));
            op = new RecvOp(this).reset(source, tag, null, BufferUtil.address(data), length);
            op.unexpectedBuffer = data;
        }
        else if (length <= POOLED_UNEXPECTED_BYTES)
        {
            RecvOp pooled = unexpectedPool.poll();
            if (pooled == null)
            {
                pooled = new RecvOp(this);
                pooled.pooledBytes = new byte[POOLED_UNEXPECTED_BYTES];
            }
            op = pooled.reset(source, tag, pooled.pooledBytes, UnsafeApi.arrayBaseOffset(byte[].class), length);
        }
        else
        {
            final byte[] data = new byte[(int) length];
            op = new RecvOp(this).reset(source, tag, data, UnsafeApi.arrayBaseOffset(byte[].class), length);
        }
        op.arrival = ++unexpectedArrivals;
        unexpected[source].add(op);
        if (log.enabled(Log.TRACE, Log.P2P))
        {
            log.trace(Log.P2P, "buffering unexpected message from rank " + source + ", tag " + tag + ", " + length +
                " bytes");
        }
        return op;
    }

    /** Removes and returns {@link #peekUnexpected}'s message; null when there is none. */
    private RecvOp takeUnexpected(final int source, final int tag)
    {
        final RecvOp op = peekUnexpected(source, tag);
        if (op != null)
        {
            unexpected[op.source].remove(op);
        }
        return op;
    }

    /**
     * The first unexpected message with {@code tag} (or any) from {@code source}; from {@link #ANY_SOURCE}, the one of
     * those of every source that was buffered first. Null when there is none.
     */
    private RecvOp peekUnexpected(final int source, final int tag)
    {
        RecvOp first = null;
        for (int r = firstOf(source), end = endOf(source); r < end; r++)
        {
            final int i = firstMessageFor(unexpected[r], tag);
            if (i >= 0 && (first == null || unexpected[r].get(i).arrival < first.arrival))
            {
                first = unexpected[r].get(i);
            }
        }
        return first;
    }

    private void sendToSelf(final SendOp op)
    {
        RecvOp target = takePosted(rank, op.tag);
        if (target == null)
        {
            target = newUnexpected(rank, op.tag, op.bytes, false);
        }
        target.length = op.bytes;
        if (op.bytes > target.capacity)
        {
            target.error = truncation(rank, op.tag, op.bytes, target.capacity);
        }
        else
        {
            Memory.copy(op.base, op.offset, target.base, target.offset, op.bytes);
            target.received = op.bytes;
        }
        target.done = true;
        op.sent = op.bytes;
        op.done = true;
    }

    private void idleUnless(final int work, final int peer)
    {
        if (work > 0)
        {
            waiter.progressed();
        }
        else
        {
            idle(peer);
        }
    }

    private void idle(final int peer)
    {
        idle(peer, 0, 0, CoreMates.UNKNOWN);
    }

    private void idle(final int peer, final long address, final long value, final int kind)
    {
        try
        {
            waiter.idle(peer, address, value, kind);
        }
        catch (final JcclException ex)
        {
            throw fail(ex);
        }
    }

    /**
     * Marks the transport broken: this rank's record says FAILED, and every later call rethrows the cause. The
     * failure and the flight recorder go to stderr.
     */
    private JcclException fail(final JcclException ex)
    {
        if (broken == null)
        {
            broken = ex;
            waiter.abandon();
            recorder.failed();
            monitor.setState(STATE_FAILED, blamed(ex));
            // Release: the state and signatures above are visible to a rank that sees the word.
            UnsafeApi.putLongRelease(null, base + ABORT_OFFSET, rank + 1);
            log.warn(Log.ALL, ex.getMessage());
            System.err.println(recorder.dump(log.prefix() + "WARN ALL "));
        }
        return ex;
    }

    /** A collective message went wrong: a mismatch of the calls explains it best, when there is one. */
    private JcclException collectiveFailure(final JcclException ex)
    {
        final CollectiveMismatchException mismatch = signatures.findMismatch();
        return fail(mismatch != null ? mismatch : ex);
    }

    private void expectLength(final int peer, final long expected, final long actual)
    {
        if (expected != actual)
        {
            throw collectiveFailure(new JcclException("collective mismatch: rank " + rank + " expected " + expected +
                " bytes from rank " + peer + " but received " + actual + " " + waiter.describe() +
                ": do all ranks call the same collective with the same count and datatype?"));
        }
    }

    private JcclException truncation(final int source, final int tag, final long length, final long capacity)
    {
        return new JcclException("message truncated: rank " + source + " sent " + length + " bytes with tag " + tag +
            ", the receive buffer of rank " + rank + " holds " + capacity + " bytes (the message was discarded)");
    }

    private long flagAddress(final int r, final int slot)
    {
        return base + layout.rankRecordOffset(r) + flagOffset(slot);
    }

    // ============================================================================================ validation

    private void checkUsable()
    {
        if (closed)
        {
            throw new IllegalStateException("communicator of rank " + rank + " is closed");
        }
        if (broken != null)
        {
            throw broken instanceof PeerFailedException pf ?
                new PeerFailedException(pf.peer(), "communicator is broken: " + pf.getMessage()) :
                new JcclException("communicator is broken: " + broken.getMessage(), broken);
        }
    }

    // ============================================================================================= lifecycle

    public boolean isClosed()
    {
        return closed;
    }

    /** Leaves the job: peers that still wait on this rank get an error instead of a hang. */
    @Override
    public void close()
    {
        if (closed)
        {
            return;
        }
        closed = true;
        if (log.enabled(Log.INFO, Log.COLL | Log.P2P))
        {
            System.err.println(recorder.dump(log.prefix() + "INFO ALL "));
        }
        monitor.setState(broken == null ? STATE_CLOSED : STATE_FAILED, blamed(broken));
        monitor.close();
        removeExitHook();
        segment.unlink();
        // The mapping is released by the GC with the last reference: shared buffers handed out stay valid.
    }

    /** Drops the exit hook, and with it the hook's reference to this transport, unless the JVM is exiting. */
    private void removeExitHook()
    {
        try
        {
            Runtime.getRuntime().removeShutdownHook(exitHook);
        }
        catch (final IllegalStateException ignore)
        {
            // the JVM is already shutting down: the hook runs, or has run
        }
    }

    /** The JVM exits without close(): peers must not wait for this rank; a failure already recorded stays. */
    private void exitWithoutClose()
    {
        if (!closed)
        {
            monitor.setState(STATE_FAILED, blamed(broken));
            monitor.close();
        }
    }

    /** The peer a failure is blamed on, or -1. */
    private static int blamed(final RuntimeException failure)
    {
        return failure instanceof PeerFailedException pf ? pf.peer() : -1;
    }
}
