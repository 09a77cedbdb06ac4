package io.jccl.engine;

import io.jccl.Buf;
import io.jccl.Collective;
import io.jccl.CollectiveRequest;
import io.jccl.Communicator;
import io.jccl.Configuration;
import io.jccl.DataType;
import io.jccl.PersistentReceiveRequest;
import io.jccl.PersistentRequest;
import io.jccl.ReceiveRequest;
import io.jccl.ReduceOp;
import io.jccl.Request;
import io.jccl.algorithms.AlgorithmRegistry;
import io.jccl.algorithms.AlgorithmSelector;
import io.jccl.algorithms.LastSmallCallChoice;
import io.jccl.algorithms.TunedSelection;
import io.jccl.model.Pace;
import io.jccl.model.TuningTable;
import io.jccl.shm.AgreedSettings;
import io.jccl.shm.Log;
import io.jccl.shm.ShmTransport;
import io.jccl.spi.CollectiveAlgorithm;
import io.jccl.spi.CollectiveArgs;
import io.jccl.spi.Memory;
import io.jccl.spi.Reductions;

import java.util.Objects;

import static io.jccl.spi.ArgumentChecks.*;

/**
 * The communicator: validates every call before a byte moves, then runs point-to-point on the shared-memory
 * transport and collectives through the algorithm the selector picks. Views made by {@link #withAlgorithm} share
 * the transport and differ only in their forced algorithms.
 */
public final class ShmCommunicator implements Communicator
{
    private final ShmTransport transport;
    private final AlgorithmSelector selector;
    /** The selector, with the choice for the last small call remembered: what every collective call asks. */
    private final LastSmallCallChoice smallCalls;
    private final CollectiveArgs args;
    private final Owner owner;
    private final boolean view;
    /** The algorithm the last collective through this communicator (or view) ran: what selection really did. */
    private CollectiveAlgorithm lastAlgorithm;
    /** jccl.chunk.bytes, or 0: every collective call carries it to the algorithm. */
    private final long chunkBytes;
    /** jccl.split.bytes in whole lines, Long.MAX_VALUE for 0: larger calls run in parts ({@link #runInParts}). */
    private final long splitBytes;
    private final SubCommunicators splitter;
    private final NonBlockingCollectives nonBlocking;
    /** The machine's pace of the moment, where the tuning file parts the choices by it; null elsewhere. */
    private final PaceProbe paceProbe;
    /** The displacements of a v form called with null ones (alltoallv's send side), packed: no call allocates. */
    private final int[] packedDispls;
    /** alltoallv's receive side of the same. */
    private final int[] packedRecvDispls;

    /** The thread inside a call, shared by a communicator and its views. */
    private static final class Owner
    {
        Thread thread;
    }

    private ShmCommunicator(final ShmTransport transport, final AlgorithmSelector selector, final CollectiveArgs args,
        final Owner owner, final boolean view, final long chunkBytes, final long splitBytes,
        final SubCommunicators splitter, final NonBlockingCollectives nonBlocking, final PaceProbe paceProbe,
        final Configuration configuration)
    {
        this.transport = transport;
        this.paceProbe = paceProbe;
        this.selector = selector;
        this.smallCalls = new LastSmallCallChoice(selector);
        this.args = args;
        this.owner = owner;
        this.view = view;
        this.chunkBytes = chunkBytes;
        this.splitBytes = splitBytes;
        this.splitter = splitter != null ? splitter : new SubCommunicators(configuration);
        this.nonBlocking = nonBlocking != null ? nonBlocking :
            new NonBlockingCollectives(this, this.splitter, configuration);
        this.packedDispls = new int[transport.size()];
        this.packedRecvDispls = new int[transport.size()];
    }

    /** A size setting that is 0 ({@code zeroMeans}) or at least {@code min} bytes. */
    private static long bytesOrZero(final Configuration configuration, final String propName, final long defaultValue,
        final long min, final String zeroMeans)
    {
        final long bytes = configuration.getLong(propName, defaultValue);
        if (bytes != 0 && bytes < min)
        {
            throw new IllegalArgumentException("setting " + propName + " (" + Configuration.envName(propName) +
                ") = " + bytes + ": at least " + min + " bytes, or 0 " + zeroMeans);
        }
        return bytes;
    }

    /** Joins the job described by {@code configuration}; the tuning file (or the shipped model) is read first. */
    public static ShmCommunicator connect(final Configuration configuration)
    {
        final long chunkBytes = bytesOrZero(configuration, Configuration.CHUNK_BYTES_PROP_NAME,
            Configuration.CHUNK_BYTES_DEFAULT, Configuration.CHUNK_BYTES_MIN, "for the algorithms' default");
        final long splitBytes = bytesOrZero(configuration, Configuration.SPLIT_BYTES_PROP_NAME,
            Configuration.SPLIT_BYTES_DEFAULT, Configuration.SPLIT_BYTES_MIN, "to run every call whole");
        // parts of whole cache lines, so that each starts where the call's buffers are aligned
        final long partBytes = splitBytes == 0 ? Long.MAX_VALUE : splitBytes & ~63L;
        // the reduction kernels' classes (the Vector API's) load while this rank connects and waits for its peers,
        // where the job's first collective, however small, would pay for them: 2 ranks on 2 cores, JDK 25, six
        // alternating runs, the first 8-byte allreduce 25-52 ms against 132-219, connect 0.76-0.99 s against
        // 0.85-0.94; 4 and 8 ranks, four runs each, the first 56-78 ms against 294-348 and 80-133 against 515-681,
        // connect about 0.1 and 0.7 s longer (the ranks' start-ups share the cores): the same time to the first
        // result, no longer in the first collective. Class initialisation is thread-safe: a collective that comes
        // first waits for it. The same thread gives the JIT a profile of the small copies at every size
        // (Memory.profileCopies), so that what the job's first calls happen to copy does not decide how C2 compiles
        // them for the rest of it.
        Thread.ofPlatform().daemon().name("jccl-load-kernels").start(() ->
        {
            Reductions.vectorKernels();
            Memory.profileCopies();
        });
        final AlgorithmRegistry registry = AlgorithmRegistry.instance();
        final String forced = configuration.get(Configuration.ALGO_PROP_NAME);
        // read and checked before joining, so that a bad tuning file or algorithm name fails this rank alone
        TunedSelection tuned = TunedSelection.load(configuration, registry);
        final PaceProbe.Settings paceSettings = PaceProbe.settings(configuration);
        AlgorithmSelector selector = new AlgorithmSelector(registry, forced, tuned);
        final BuildDigest build = BuildDigest.thisJvm();
        final ShmTransport transport = ShmTransport.connect(configuration, AgreedSettings.of(configuration)
            .build(build.digest(), build.toString())
            .text(Configuration.ALGO_PROP_NAME, selector.describeForced())
            .number(Configuration.CHUNK_BYTES_PROP_NAME, chunkBytes)
            .number(Configuration.SPLIT_BYTES_PROP_NAME, splitBytes)
            .number(Configuration.PACE_PROBE_BYTES_PROP_NAME, paceSettings.probeBytes())
            .text(Configuration.PACE_THRESHOLD_US_PROP_NAME, Double.isNaN(paceSettings.thresholdMicros()) ? null :
                Double.toString(paceSettings.thresholdMicros()))
            .digest(TuningTable.FILE_PROP_NAME, tuned.tableJson(), tuned.measured() ?
                TuningTable.path(configuration).toString() : "none"));
        if (transport.cores() != Runtime.getRuntime().availableProcessors())
        {
            // the job's ranks may use more CPUs together than this JVM may (each bound to its own): the model's
            // choices and the rules for ranks outnumbering cores count those
            tuned = tuned.atCores(registry, transport.cores());
            selector = new AlgorithmSelector(registry, forced, tuned, transport.cores());
        }
        tuned.logChoices(configuration);
        final Log log = new Log(configuration, configuration.rank());
        final boolean followsPace = selector.followsPace(transport.size(), transport.singleCopyBytes());
        if (transport.rank() == 0 && log.enabled(Log.INFO, Log.INIT))
        {
            final String singleCopy = selector.describeSingleCopy(transport.size(), transport.singleCopyBytes());
            if (singleCopy != null)
            {
                // while ranks share cores each choice that holds at the slow pace alone says so itself
                log.info(Log.INIT, "algorithm selection with single copy on every rank, replacing the choices above " +
                    "from these sizes" + (followsPace && transport.size() <= transport.cores() ?
                    " until the handoff probe finds the fast pace, and again at the slow one: " : ": ") + singleCopy);
            }
            final String rankRules =
                selector.describeRankRules(transport.size(), followsPace ? transport.singleCopyBytes() : 0);
            if (rankRules != null)
            {
                log.info(Log.INIT, "algorithm selection at " + transport.size() + " ranks on " +
                    transport.cores() + " cores, replacing the choices above: " + rankRules);
            }
            if (splitBytes != 0)
            {
                log.info(Log.INIT, "broadcasts, reduces and allreduces of more than " + partBytes + " B run as " +
                    "calls on parts of their vectors, each at most that size (" + Configuration.SPLIT_BYTES_PROP_NAME +
                    ")");
            }
            log.info(Log.INIT, "reductions of off-heap memory: " + (Reductions.vectorKernels() ?
                "SIMD kernels (Vector API)" : "array kernels; no SIMD kernels: " + Reductions.vectorKernelsWhyNot()));
        }
        final PaceProbe paceProbe = PaceProbe.of(transport, tuned.paceSplit(), paceSettings, followsPace,
            configuration, registry);
        return new ShmCommunicator(transport, selector, new CollectiveArgs(), new Owner(), false, chunkBytes,
            partBytes, null, null, paceProbe, configuration);
    }

    @Override
    public int rank()
    {
        return transport.rank();
    }

    @Override
    public int size()
    {
        return transport.size();
    }

    /** The transport underneath, for tools that measure it. */
    public ShmTransport transport()
    {
        return transport;
    }

    // ====================================================================================== point-to-point

    @Override
    public void send(final Buf buf, final int dest, final int tag)
    {
        enter();
        try
        {
            transport.send(buf, dest, tag);
        }
        finally
        {
            exit();
        }
    }

    @Override
    public long recv(final Buf buf, final int source, final int tag)
    {
        enter();
        try
        {
            return transport.recv(buf, source, tag);
        }
        finally
        {
            exit();
        }
    }

    @Override
    public long sendRecv(final Buf sendBuf, final int dest, final int sendTag, final Buf recvBuf, final int source,
        final int recvTag)
    {
        enter();
        try
        {
            return transport.sendRecv(sendBuf, dest, sendTag, recvBuf, source, recvTag);
        }
        finally
        {
            exit();
        }
    }

    @Override
    public Request isend(final Buf buf, final int dest, final int tag)
    {
        enter();
        try
        {
            return transport.isend(buf, dest, tag);
        }
        finally
        {
            exit();
        }
    }

    @Override
    public int lastSource()
    {
        return transport.lastSource();
    }

    @Override
    public int lastTag()
    {
        return transport.lastTag();
    }

    @Override
    public long probe(final int source, final int tag)
    {
        enter();
        try
        {
            return transport.probe(source, tag);
        }
        finally
        {
            exit();
        }
    }

    @Override
    public long iprobe(final int source, final int tag)
    {
        enter();
        try
        {
            return transport.iprobe(source, tag);
        }
        finally
        {
            exit();
        }
    }

    @Override
    public ReceiveRequest irecv(final Buf buf, final int source, final int tag)
    {
        enter();
        try
        {
            return transport.irecv(buf, source, tag);
        }
        finally
        {
            exit();
        }
    }

    @Override
    public PersistentRequest sendInit(final Buf buf, final int dest, final int tag)
    {
        enter();
        try
        {
            return transport.sendInit(buf, dest, tag);
        }
        finally
        {
            exit();
        }
    }

    @Override
    public PersistentReceiveRequest recvInit(final Buf buf, final int source, final int tag)
    {
        enter();
        try
        {
            return transport.recvInit(buf, source, tag);
        }
        finally
        {
            exit();
        }
    }

    @Override
    public int waitAny(final Request... requests)
    {
        final int index = complete(requests, true, false);
        return index == ShmTransport.NONE_LEFT ? -1 : index;
    }

    @Override
    public int testAny(final Request... requests)
    {
        final int index = complete(requests, false, false);
        return index == ShmTransport.NONE_LEFT ? -1 : index;
    }

    @Override
    public void waitAll(final Request... requests)
    {
        complete(requests, true, true);
    }

    @Override
    public boolean testAll(final Request... requests)
    {
        return complete(requests, false, true) == ShmTransport.NONE_LEFT;
    }

    @Override
    public int waitSome(final int[] indices, final Request... requests)
    {
        return completeSome(indices, requests, true);
    }

    @Override
    public int testSome(final int[] indices, final Request... requests)
    {
        return completeSome(indices, requests, false);
    }

    /**
     * {@link ShmTransport#completeAny} for requests checked, once, to be this communicator's; with {@code all}, again
     * until it finds none completed (-1, never when it waits) or none left ({@link ShmTransport#NONE_LEFT}).
     */
    private int complete(final Request[] requests, final boolean block, final boolean all)
    {
        enter();
        try
        {
            checkOwned(requests);
            int index;
            do
            {
                index = transport.completeAny(requests, block);
            }
            while (all && index >= 0);
            return index;
        }
        finally
        {
            exit();
        }
    }

    /** waitSome and testSome: the first {@link ShmTransport#completeAny} waits or not, those after it never. */
    private int completeSome(final int[] indices, final Request[] requests, final boolean block)
    {
        enter();
        try
        {
            checkOwned(requests);
            Objects.requireNonNull(indices, "indices");
            if (indices.length < requests.length)
            {
                throw new IllegalArgumentException("indices has room for " + indices.length + " of " +
                    requests.length + " requests");
            }
            int index = transport.completeAny(requests, block);
            if (index == ShmTransport.NONE_LEFT)
            {
                return -1;
            }
            int completed = 0;
            while (index >= 0)
            {
                indices[completed++] = index;
                index = transport.completeAny(requests, false);
            }
            return completed;
        }
        finally
        {
            exit();
        }
    }

    private void checkOwned(final Request[] requests)
    {
        Objects.requireNonNull(requests, "requests");
        for (int i = 0; i < requests.length; i++)
        {
            final Request request = requests[i];
            if (request != null && !transport.owns(request) && !nonBlocking.owns(request))
            {
                throw new IllegalArgumentException("requests[" + i + "] is not this communicator's: waitAny " +
                    "and the other completion calls take the requests of its own isend, irecv, sendInit, " +
                    "recvInit and non-blocking collectives");
            }
        }
    }

    // ========================================================================================= collectives

    @Override
    public void barrier()
    {
        enter();
        try
        {
            args.clear().collective = Collective.BARRIER;
            run(0, null, 0);
        }
        finally
        {
            exit();
        }
    }

    @Override
    public void broadcast(final Buf buf, final int root)
    {
        enter();
        try
        {
            checkRank(root, size(), "root");
            checkBuffer(buf, "buffer", true);
            final CollectiveArgs a = args.clear();
            a.collective = Collective.BROADCAST;
            a.type = buf.type();
            a.root = root;
            a.count = buf.count();
            setRecv(a, buf);
            run(buf.bytes(), null, a.count);
        }
        finally
        {
            exit();
        }
    }

    @Override
    public void reduce(final Buf send, final Buf recv, final ReduceOp op, final int root)
    {
        enter();
        try
        {
            checkRank(root, size(), "root");
            checkBuffer(send, "send buffer", false);
            checkOp(op, send.type());
            final boolean isRoot = rank() == root;
            if (isRoot)
            {
                checkBuffer(recv, "receive buffer", true);
                checkSameType(send, recv);
                checkAtLeast(recv, send.count(), "receive buffer");
                checkNoPartialOverlap(send, recv);
            }
            final CollectiveArgs a = args.clear();
            a.collective = Collective.REDUCE;
            a.type = send.type();
            a.op = op == ReduceOp.AVG ? ReduceOp.SUM : op;
            a.root = root;
            a.count = send.count();
            setSend(a, send);
            if (isRoot)
            {
                setRecv(a, recv);
            }
            run(send.bytes(), op, a.count);
            if (isRoot && op == ReduceOp.AVG)
            {
                Reductions.divide(a.type, recv.base(), recv.offset(), a.count, size());
            }
        }
        finally
        {
            exit();
        }
    }

    @Override
    public void allreduce(final Buf send, final Buf recv, final ReduceOp op)
    {
        reduceElementwise(Collective.ALLREDUCE, send, recv, op);
    }

    @Override
    public void scan(final Buf send, final Buf recv, final ReduceOp op)
    {
        reduceElementwise(Collective.SCAN, send, recv, op);
    }

    @Override
    public void exscan(final Buf send, final Buf recv, final ReduceOp op)
    {
        reduceElementwise(Collective.EXSCAN, send, recv, op);
    }

    /**
     * Allreduce, scan or exscan: the same arguments and checks, every rank's result in its own recv, the reduction of
     * every rank's input or of a prefix of the ranks'.
     */
    private void reduceElementwise(final Collective collective, final Buf send, final Buf recv, final ReduceOp op)
    {
        enter();
        try
        {
            checkBuffer(send, "send buffer", false);
            checkOp(op, send.type());
            checkBuffer(recv, "receive buffer", true);
            checkSameType(send, recv);
            checkAtLeast(recv, send.count(), "receive buffer");
            checkNoPartialOverlap(send, recv);
            final CollectiveArgs a = args.clear();
            a.collective = collective;
            a.type = send.type();
            a.op = op == ReduceOp.AVG ? ReduceOp.SUM : op;
            a.count = send.count();
            setSend(a, send);
            setRecv(a, recv);
            run(send.bytes(), op, a.count);
            if (op == ReduceOp.AVG)
            {
                // the average of the inputs reduced: every rank's, or r + 1 on rank r for a scan and r for an exscan
                // (rank 0's has none)
                final int reduced = switch (collective)
                {
                    case SCAN -> rank() + 1;
                    case EXSCAN -> rank();
                    default -> size();
                };
                if (reduced > 0)
                {
                    Reductions.divide(a.type, recv.base(), recv.offset(), a.count, reduced);
                }
            }
        }
        finally
        {
            exit();
        }
    }

    @Override
    public void gather(final Buf send, final Buf recv, final int root)
    {
        enter();
        try
        {
            checkRank(root, size(), "root");
            checkBuffer(send, "send buffer", false);
            final boolean isRoot = rank() == root;
            if (isRoot)
            {
                checkBuffer(recv, "receive buffer", true);
                checkSameType(send, recv);
                checkAtLeast(recv, send.count() * size(), "receive buffer (size × send count)");
            }
            final CollectiveArgs a = args.clear();
            a.collective = Collective.GATHER;
            a.type = send.type();
            a.root = root;
            a.count = send.count();
            setSend(a, send);
            if (isRoot)
            {
                setRecv(a, recv);
            }
            run(send.bytes() * size(), null, a.count);
        }
        finally
        {
            exit();
        }
    }

    @Override
    public void gatherv(final Buf send, final Buf recv, final int[] counts, final int[] displs, final int root)
    {
        enter();
        try
        {
            checkRank(root, size(), "root");
            checkBuffer(send, "send buffer", false);
            final boolean isRoot = rank() == root;
            int[] d = null;
            if (isRoot)
            {
                checkBuffer(recv, "receive buffer", true);
                checkSameType(send, recv);
                d = checkLayout(counts, displs, size(), recv.count(), "counts", "receive buffer", packedDispls);
                checkBlockOrApart(recv, send, d[root], "gatherv send buffer");
            }
            else
            {
                checkCounts(counts, size(), "counts");
            }
            checkOwnCount(send, counts, rank(), "send buffer");
            final CollectiveArgs a = args.clear();
            a.collective = Collective.GATHERV;
            a.type = send.type();
            a.root = root;
            a.count = counts[rank()];
            a.counts = counts;
            a.displs = d;
            setSend(a, send);
            if (isRoot)
            {
                setRecv(a, recv);
            }
            final long total = sum(counts);
            run(total * send.type().size(), null, total);
        }
        finally
        {
            exit();
        }
    }

    @Override
    public void scatter(final Buf send, final Buf recv, final int root)
    {
        enter();
        try
        {
            checkRank(root, size(), "root");
            checkBuffer(recv, "receive buffer", true);
            final boolean isRoot = rank() == root;
            if (isRoot)
            {
                checkBuffer(send, "send buffer", false);
                checkSameType(send, recv);
                checkAtLeast(send, recv.count() * size(), "send buffer (size × receive count)");
            }
            final CollectiveArgs a = args.clear();
            a.collective = Collective.SCATTER;
            a.type = recv.type();
            a.root = root;
            a.count = recv.count();
            if (isRoot)
            {
                setSend(a, send);
            }
            setRecv(a, recv);
            run(recv.bytes() * size(), null, a.count);
        }
        finally
        {
            exit();
        }
    }

    @Override
    public void scatterv(final Buf send, final Buf recv, final int[] counts, final int[] displs, final int root)
    {
        enter();
        try
        {
            checkRank(root, size(), "root");
            checkBuffer(recv, "receive buffer", true);
            final boolean isRoot = rank() == root;
            int[] d = null;
            if (isRoot)
            {
                checkBuffer(send, "send buffer", false);
                checkSameType(send, recv);
                d = checkLayout(counts, displs, size(), send.count(), "counts", "send buffer", packedDispls);
                checkBlockOrApart(send, recv, d[root], "scatterv receive buffer");
            }
            else
            {
                checkCounts(counts, size(), "counts");
            }
            checkOwnCount(recv, counts, rank(), "receive buffer");
            final CollectiveArgs a = args.clear();
            a.collective = Collective.SCATTERV;
            a.type = recv.type();
            a.root = root;
            a.count = counts[rank()];
            a.counts = counts;
            a.displs = d;
            if (isRoot)
            {
                setSend(a, send);
            }
            setRecv(a, recv);
            final long total = sum(counts);
            run(total * recv.type().size(), null, total);
        }
        finally
        {
            exit();
        }
    }

    @Override
    public void allgather(final Buf send, final Buf recv)
    {
        enter();
        try
        {
            checkBuffer(send, "send buffer", false);
            checkBuffer(recv, "receive buffer", true);
            checkSameType(send, recv);
            checkAtLeast(recv, send.count() * size(), "receive buffer (size × send count)");
            checkOwnBlockOrApart(recv, send, rank(), send.count(), "allgather send buffer");
            final CollectiveArgs a = args.clear();
            a.collective = Collective.ALLGATHER;
            a.type = send.type();
            a.count = send.count();
            setSend(a, send);
            setRecv(a, recv);
            run(send.bytes() * size(), null, a.count);
        }
        finally
        {
            exit();
        }
    }

    @Override
    public void allgatherv(final Buf send, final Buf recv, final int[] counts, final int[] displs)
    {
        enter();
        try
        {
            checkBuffer(send, "send buffer", false);
            checkBuffer(recv, "receive buffer", true);
            checkSameType(send, recv);
            final int[] d = checkLayout(counts, displs, size(), recv.count(), "counts", "receive buffer",
                packedDispls);
            checkOwnCount(send, counts, rank(), "send buffer");
            final CollectiveArgs a = args.clear();
            a.collective = Collective.ALLGATHERV;
            a.type = send.type();
            a.count = counts[rank()];
            a.counts = counts;
            a.displs = d;
            setSend(a, send);
            setRecv(a, recv);
            final long total = sum(counts);
            run(total * send.type().size(), null, total);
        }
        finally
        {
            exit();
        }
    }

    @Override
    public void reduceScatter(final Buf send, final Buf recv, final ReduceOp op)
    {
        enter();
        try
        {
            checkBuffer(send, "send buffer", false);
            checkOp(op, send.type());
            checkBuffer(recv, "receive buffer", true);
            checkSameType(send, recv);
            checkAtLeast(send, recv.count() * size(), "send buffer (size × receive count)");
            checkOwnBlockOrApart(send, recv, rank(), recv.count(), "reduce_scatter receive buffer");
            final CollectiveArgs a = args.clear();
            a.collective = Collective.REDUCE_SCATTER;
            a.type = recv.type();
            a.op = op == ReduceOp.AVG ? ReduceOp.SUM : op;
            a.count = recv.count();
            setSend(a, send);
            setRecv(a, recv);
            run(recv.bytes() * size(), op, a.count);
            if (op == ReduceOp.AVG)
            {
                Reductions.divide(a.type, recv.base(), recv.offset(), a.count, size());
            }
        }
        finally
        {
            exit();
        }
    }

    @Override
    public void reduceScatterv(final Buf send, final Buf recv, final int[] counts, final ReduceOp op)
    {
        enter();
        try
        {
            checkBuffer(send, "send buffer", false);
            checkOp(op, send.type());
            checkBuffer(recv, "receive buffer", true);
            checkSameType(send, recv);
            final int[] d = checkLayout(counts, null, size(), send.count(), "counts", "send buffer", packedDispls);
            checkOwnCount(recv, counts, rank(), "receive buffer");
            checkNoPartialOverlap(send, recv);
            final CollectiveArgs a = args.clear();
            a.collective = Collective.REDUCE_SCATTERV;
            a.type = recv.type();
            a.count = counts[rank()];
            a.op = op == ReduceOp.AVG ? ReduceOp.SUM : op;
            a.counts = counts;
            a.displs = d;
            setSend(a, send);
            setRecv(a, recv);
            final long total = sum(counts);
            run(total * recv.type().size(), op, total);
            if (op == ReduceOp.AVG)
            {
                Reductions.divide(a.type, recv.base(), recv.offset(), counts[rank()], size());
            }
        }
        finally
        {
            exit();
        }
    }

    @Override
    public void alltoall(final Buf send, final Buf recv)
    {
        enter();
        try
        {
            checkBuffer(send, "send buffer", false);
            checkBuffer(recv, "receive buffer", true);
            checkSameType(send, recv);
            if (send.count() % size() != 0)
            {
                throw new IllegalArgumentException("alltoall send buffer of " + send.count() + " elements is not " +
                    "divisible into " + size() + " equal blocks");
            }
            checkAtLeast(recv, send.count(), "receive buffer");
            checkApart(send, recv, "alltoall");
            final CollectiveArgs a = args.clear();
            a.collective = Collective.ALLTOALL;
            a.type = send.type();
            a.count = send.count() / size();
            setSend(a, send);
            setRecv(a, recv);
            run(send.bytes(), null, a.count);
        }
        finally
        {
            exit();
        }
    }

    @Override
    public void alltoallv(final Buf send, final int[] sendCounts, final int[] sendDispls, final Buf recv,
        final int[] recvCounts, final int[] recvDispls)
    {
        enter();
        try
        {
            checkBuffer(send, "send buffer", false);
            checkBuffer(recv, "receive buffer", true);
            checkSameType(send, recv);
            checkApart(send, recv, "alltoallv");
            final int[] sd = checkLayout(sendCounts, sendDispls, size(), send.count(), "sendCounts", "send buffer",
                packedDispls);
            final int[] rd = checkLayout(recvCounts, recvDispls, size(), recv.count(), "recvCounts",
                "receive buffer", packedRecvDispls);
            final CollectiveArgs a = args.clear();
            a.collective = Collective.ALLTOALLV;
            a.type = send.type();
            a.count = sum(sendCounts);
            a.sendCounts = sendCounts;
            a.sendDispls = sd;
            a.recvCounts = recvCounts;
            a.recvDispls = rd;
            setSend(a, send);
            setRecv(a, recv);
            run(sum(sendCounts) * send.type().size(), null, -1);
        }
        finally
        {
            exit();
        }
    }

    // ============================================================ non-blocking collectives (NonBlockingCollectives)

    @Override
    public CollectiveRequest ibarrier()
    {
        nonBlocking.start();
        enter();
        try
        {
            return nonBlocking.barrier();
        }
        finally
        {
            exit();
        }
    }

    @Override
    public CollectiveRequest ibroadcast(final Buf buf, final int root)
    {
        nonBlocking.start();
        enter();
        try
        {
            return nonBlocking.broadcast(buf, root);
        }
        finally
        {
            exit();
        }
    }

    @Override
    public CollectiveRequest ireduce(final Buf send, final Buf recv, final ReduceOp op, final int root)
    {
        nonBlocking.start();
        enter();
        try
        {
            return nonBlocking.reduce(send, recv, op, root);
        }
        finally
        {
            exit();
        }
    }

    @Override
    public CollectiveRequest iallreduce(final Buf send, final Buf recv, final ReduceOp op)
    {
        nonBlocking.start();
        enter();
        try
        {
            return nonBlocking.allreduce(send, recv, op);
        }
        finally
        {
            exit();
        }
    }

    @Override
    public CollectiveRequest iscan(final Buf send, final Buf recv, final ReduceOp op)
    {
        nonBlocking.start();
        enter();
        try
        {
            return nonBlocking.scan(send, recv, op);
        }
        finally
        {
            exit();
        }
    }

    @Override
    public CollectiveRequest iexscan(final Buf send, final Buf recv, final ReduceOp op)
    {
        nonBlocking.start();
        enter();
        try
        {
            return nonBlocking.exscan(send, recv, op);
        }
        finally
        {
            exit();
        }
    }

    @Override
    public CollectiveRequest igather(final Buf send, final Buf recv, final int root)
    {
        nonBlocking.start();
        enter();
        try
        {
            return nonBlocking.gather(send, recv, root);
        }
        finally
        {
            exit();
        }
    }

    @Override
    public CollectiveRequest igatherv(final Buf send, final Buf recv, final int[] counts, final int[] displs,
        final int root)
    {
        nonBlocking.start();
        enter();
        try
        {
            return nonBlocking.gatherv(send, recv, counts, displs, root);
        }
        finally
        {
            exit();
        }
    }

    @Override
    public CollectiveRequest iscatter(final Buf send, final Buf recv, final int root)
    {
        nonBlocking.start();
        enter();
        try
        {
            return nonBlocking.scatter(send, recv, root);
        }
        finally
        {
            exit();
        }
    }

    @Override
    public CollectiveRequest iscatterv(final Buf send, final Buf recv, final int[] counts, final int[] displs,
        final int root)
    {
        nonBlocking.start();
        enter();
        try
        {
            return nonBlocking.scatterv(send, recv, counts, displs, root);
        }
        finally
        {
            exit();
        }
    }

    @Override
    public CollectiveRequest iallgather(final Buf send, final Buf recv)
    {
        nonBlocking.start();
        enter();
        try
        {
            return nonBlocking.allgather(send, recv);
        }
        finally
        {
            exit();
        }
    }

    @Override
    public CollectiveRequest iallgatherv(final Buf send, final Buf recv, final int[] counts, final int[] displs)
    {
        nonBlocking.start();
        enter();
        try
        {
            return nonBlocking.allgatherv(send, recv, counts, displs);
        }
        finally
        {
            exit();
        }
    }

    @Override
    public CollectiveRequest ireduceScatter(final Buf send, final Buf recv, final ReduceOp op)
    {
        nonBlocking.start();
        enter();
        try
        {
            return nonBlocking.reduceScatter(send, recv, op);
        }
        finally
        {
            exit();
        }
    }

    @Override
    public CollectiveRequest ireduceScatterv(final Buf send, final Buf recv, final int[] counts, final ReduceOp op)
    {
        nonBlocking.start();
        enter();
        try
        {
            return nonBlocking.reduceScatterv(send, recv, counts, op);
        }
        finally
        {
            exit();
        }
    }

    @Override
    public CollectiveRequest ialltoall(final Buf send, final Buf recv)
    {
        nonBlocking.start();
        enter();
        try
        {
            return nonBlocking.alltoall(send, recv);
        }
        finally
        {
            exit();
        }
    }

    @Override
    public CollectiveRequest ialltoallv(final Buf send, final int[] sendCounts, final int[] sendDispls,
        final Buf recv, final int[] recvCounts, final int[] recvDispls)
    {
        nonBlocking.start();
        enter();
        try
        {
            return nonBlocking.alltoallv(send, sendCounts, sendDispls, recv, recvCounts, recvDispls);
        }
        finally
        {
            exit();
        }
    }

    // ====================================================================== sub-communicators (SubCommunicators)

    @Override
    public Communicator split(final int color, final int key)
    {
        if (transport.isClosed())
        {
            throw new IllegalStateException("communicator of rank " + rank() + " is closed");
        }
        // the allgather inside enters and leaves this communicator like any call
        return splitter.split(this, color, key);
    }

    // ============================================================================================ the rest

    @Override
    public Buf allocateShared(final long count, final DataType type)
    {
        enter();
        try
        {
            return transport.allocateShared(count, type);
        }
        finally
        {
            exit();
        }
    }

    @Override
    public Buf peerView(final Buf own, final int peer)
    {
        enter();
        try
        {
            return transport.peerView(own, peer);
        }
        finally
        {
            exit();
        }
    }

    @Override
    public Communicator withAlgorithm(final String algorithms)
    {
        if (algorithms == null || algorithms.isBlank())
        {
            throw new IllegalArgumentException("no algorithm named");
        }
        return new ShmCommunicator(transport, selector.with(algorithms), args, owner, true, chunkBytes, splitBytes,
            splitter, nonBlocking, paceProbe, null);
    }

    /**
     * The algorithm a collective with these arguments would use now, at the pace the last probe gives it; for a call
     * that runs in parts ({@link #runInParts}), the first part's (tools and tests). {@code call} may change.
     */
    public CollectiveAlgorithm algorithmFor(final CollectiveArgs call, final long bytes)
    {
        call.chunkBytes = chunkBytes;
        call.maxCopyBytes = splitBytes;
        long selected = bytes;
        if (bytes > splitBytes && splits(call.collective))
        {
            call.count = splitBytes / call.type.size();
            selected = call.count * call.type.size();
        }
        final Pace pace = paceProbe == null ? null : paceProbe.paceFor(call.collective, selected);
        call.betweenPaces = pace != null && paceProbe.betweenPaces(call.collective, selected, pace);
        return selector.select(call, transport, selected, pace);
    }

    /** The probe of the machine's pace, shared with the views; null where the tuning file has one pace. */
    public PaceProbe paceProbe()
    {
        return paceProbe;
    }

    /**
     * Runs the pace probe ({@link PaceProbe}) now, where this communicator has one, and returns whether it did: a
     * collective call, which every rank must make at the same point of its calls. A communicator first probes inside
     * the call that fills {@code jccl.pace.probe.bytes} of traffic, and that first probe also runs its own calls
     * untimed until they are compiled: about 0.1 s at 2 ranks, 0.2-0.25 s at 4 on 2 cores, in the middle of whatever
     * the application was doing. A benchmark, or a loop that must not stall, calls this once beforehand. Its views
     * share the probe; the duplicate that progresses non-blocking calls has its own.
     */
    public boolean probePace()
    {
        enter();
        try
        {
            if (paceProbe == null)
            {
                return false;
            }
            paceProbe.probeNow();
            return true;
        }
        finally
        {
            exit();
        }
    }

    /** The algorithm the last collective called through this communicator (or view) ran; null before the first. */
    public CollectiveAlgorithm lastAlgorithm()
    {
        return lastAlgorithm;
    }

    @Override
    public void close()
    {
        if (!view && !transport.isClosed())
        {
            try
            {
                nonBlocking.close();
            }
            finally
            {
                transport.close();
            }
        }
    }

    @Override
    public String toString()
    {
        return "ShmCommunicator[rank " + rank() + " of " + size() + "]";
    }

    /**
     * Runs the collective in {@link #args}: {@code op} is the caller's operator (AVG is SUM in the args),
     * {@code agreedCount} the count every rank must pass (-1 when ranks legitimately differ).
     */
    private void run(final long bytes, final ReduceOp op, final long agreedCount)
    {
        final CollectiveArgs a = args;
        // a forced algorithm does not depend on the pace: its calls neither count toward a probe nor run one (every
        // rank forces the same ones, or they would run different algorithms anyway)
        final boolean paced = paceProbe != null && selector.forced(a.collective) == null;
        final Pace pace = paced ? paceProbe.before(a.collective, bytes) : null;
        if (bytes > splitBytes && splits(a.collective))
        {
            runInParts(op, agreedCount, paced);
        }
        else
        {
            runWhole(bytes, op, agreedCount, pace);
        }
    }

    private void runWhole(final long bytes, final ReduceOp op, final long agreedCount, final Pace pace)
    {
        final CollectiveArgs a = args;
        a.chunkBytes = chunkBytes;
        a.maxCopyBytes = splitBytes;
        a.declinedCopyMaxBytes = 0;
        a.betweenPaces = pace != null && paceProbe.betweenPaces(a.collective, bytes, pace);
        runAs(smallCalls.select(a, transport, bytes, pace), op, agreedCount);
        if (a.declined)
        {
            // a rank would have copied its buffers for single copy at a cost the staged algorithms beat, and every
            // rank left the call unrun: it runs again, staged, as the next collective
            runAs(selector.selectAfterDecline(a, transport, bytes, pace), op, agreedCount);
        }
    }

    /**
     * A broadcast, reduce or allreduce of more than {@link #splitBytes}, as consecutive calls on ranges of its vector
     * of at most that many bytes: no call then copies more than that into scratch (a heap array's copy for single
     * copy, which else holds a whole vector, and fails beyond 2 GiB), and each part is a call of a size the bench
     * measures. Every rank cuts the same parts, since all pass the same count; each part's signature carries the
     * whole call's count ({@code agreedCount}), so the mismatch checks compare calls, not parts. The call counted once
     * toward the pace probe; each part takes the choice of its own size at the pace the probe last read.
     */
    private void runInParts(final ReduceOp op, final long agreedCount, final boolean paced)
    {
        final CollectiveArgs a = args;
        final long count = a.count;
        final int elementSize = a.type.size();
        final long partCount = splitBytes / elementSize;
        // a broadcast has no send buffer, and a reduce's receive buffer is the root's alone
        final boolean sends = a.collective != Collective.BROADCAST;
        final boolean receives = a.collective != Collective.REDUCE || rank() == a.root;
        final long sendOffset = a.sendOffset;
        final long sendSegmentOffset = a.sendSegmentOffset;
        final long recvOffset = a.recvOffset;
        final long recvSegmentOffset = a.recvSegmentOffset;
        for (long first = 0; first < count; first += partCount)
        {
            final long skip = first * elementSize;
            a.count = Math.min(partCount, count - first);
            if (sends)
            {
                a.sendOffset = sendOffset + skip;
                a.sendSegmentOffset = sendSegmentOffset < 0 ? -1 : sendSegmentOffset + skip;
            }
            if (receives)
            {
                a.recvOffset = recvOffset + skip;
                a.recvSegmentOffset = recvSegmentOffset < 0 ? -1 : recvSegmentOffset + skip;
            }
            final long bytes = a.count * elementSize;
            try
            {
                runWhole(bytes, op, agreedCount, paced ? paceProbe.paceFor(a.collective, bytes) : null);
            }
            catch (final IllegalArgumentException ex)
            {
                // a forced algorithm refuses the first part, the largest, before any byte moved: say what it was
                throw first > 0 ? ex : new IllegalArgumentException(ex.getMessage() + " (the first part of a call of " +
                    count * elementSize + " B, split by " + Configuration.SPLIT_BYTES_PROP_NAME + ")", ex);
            }
        }
        // the caller divides an average over the whole vector
        a.count = count;
    }

    private static boolean splits(final Collective collective)
    {
        return collective == Collective.BROADCAST || collective == Collective.REDUCE ||
            collective == Collective.ALLREDUCE;
    }

    private void runAs(final CollectiveAlgorithm algorithm, final ReduceOp op, final long agreedCount)
    {
        final CollectiveArgs a = args;
        lastAlgorithm = algorithm;
        transport.beginCollective(a.collective, a.type, op, rooted(a.collective) ? a.root : -1, a.count, agreedCount,
            algorithm);
        algorithm.run(transport, a);
        if (a.declined)
        {
            transport.endDeclinedCollective();
        }
        else
        {
            transport.endCollective();
        }
    }

    private static boolean rooted(final Collective collective)
    {
        return switch (collective)
        {
            case BROADCAST, REDUCE, GATHER, GATHERV, SCATTER, SCATTERV -> true;
            case BARRIER, ALLREDUCE, ALLGATHER, ALLGATHERV, REDUCE_SCATTER, REDUCE_SCATTERV, ALLTOALL, ALLTOALLV, SCAN,
                EXSCAN -> false;
        };
    }

    /** The last operations of this rank, one per line: what a timeout or a failure dumps to stderr. */
    public String flightRecord()
    {
        return transport.flightRecord();
    }

    // ============================================================================================ validation

    private void enter()
    {
        final Thread me = Thread.currentThread();
        final Thread inside = owner.thread;
        if (inside != null && inside != me)
        {
            throw new IllegalStateException("communicator of rank " + rank() + " is in use by thread '" +
                inside.getName() + "': a communicator serves one thread at a time");
        }
        if (transport.isClosed())
        {
            throw new IllegalStateException("communicator of rank " + rank() + " is closed");
        }
        owner.thread = me;
    }

    private void exit()
    {
        owner.thread = null;
    }

    private void setSend(final CollectiveArgs a, final Buf buf)
    {
        a.sendBase = buf.base();
        a.sendOffset = buf.offset();
        a.sendSegmentOffset = segmentOffset(buf);
    }

    private void setRecv(final CollectiveArgs a, final Buf buf)
    {
        a.recvBase = buf.base();
        a.recvOffset = buf.offset();
        a.recvSegmentOffset = segmentOffset(buf);
    }

    /** The buffer's offset in this job's segment when it lies there, else -1. */
    private long segmentOffset(final Buf buf)
    {
        return buf.isShared() && buf.base() == null &&
            buf.offset() - transport.segmentAddress() == buf.segmentOffset() ? buf.segmentOffset() : -1;
    }

}
