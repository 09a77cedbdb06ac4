package io.jccl.it;

import io.jccl.Buf;
import io.jccl.Collective;
import io.jccl.Communicator;
import io.jccl.DataType;
import io.jccl.Jccl;
import io.jccl.ReduceOp;
import io.jccl.algorithms.AlgorithmRegistry;
import io.jccl.it.ContractBuffers.Region;
import io.jccl.it.ContractCase.Layout;
import io.jccl.it.ContractValues.Mode;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.locks.LockSupport;

import static io.jccl.it.ContractBuffers.RECV;
import static io.jccl.it.ContractBuffers.SEND;
import static io.jccl.it.ContractValues.CHUNK;

/**
 * One rank of the collective contract suite ({@link CollectiveContractTest}). Every rank walks the same list of
 * cases ({@link ContractCases}); for each it fills its buffers with its seeded input, makes the call forced to the
 * case's algorithm, and checks its own result against a reference computed locally from every rank's seeded input:
 * the result where the collective writes, every other byte of the buffers (guards, gaps between v blocks, the send
 * input, a non-root's receive buffer) unchanged. Replicated results are hashed, and the hashes compared across ranks
 * at the end over point-to-point, so every rank must hold the same bits; the replicated results of broadcast,
 * allreduce and allgather are checked against the reference in shares, each rank its own (see {@link #sliceStart}).
 * <p>
 * Output: one line per failing case, "FAIL collective algorithm dtype op count root inplace [...]: what", one per
 * algorithm that refused a case ("UNSUPPORTED ...", rank 0 only), and the summary
 * "CASES n FAILED m UNSUPPORTED k SECONDS s". The first argument, if any, is a regular expression that selects
 * cases by label. A call that throws anything but a refusal before any byte moves ends the job: ranks may have
 * diverged.
 */
public final class ContractRank
{
    private static final int EXCHANGE_TAG = 7_000_001;
    private static final long LATE_ARRIVAL_NS = 2_000_000;
    private static final String REFUSAL = "cannot serve this call";
    private static final int SLOWEST_SHOWN = 5;
    private static final long STUCK_NS = 10_000_000_000L;

    private final Communicator comm;
    private final int rank;
    private final int size;
    private final List<ContractCase> cases;
    private final ContractBuffers buffers;
    private final Map<String, Communicator> views = new HashMap<>();
    private final long[] hashes;
    private final boolean[] failedCases;
    private final long[] nanos;
    private int unsupported;
    private final ContractValues.Scratch scratch = new ContractValues.Scratch();
    private final long[] expected = new long[CHUNK];
    private final long[] got = new long[CHUNK];
    private final double[] gotValues = new double[CHUNK];
    private final double[] approximate = new double[CHUNK];
    private final double[] tolerance = new double[CHUNK];

    // the case being run, for the watchdog
    private volatile int runningPosition = -1;
    private volatile long runningSince;

    // the case being checked
    private ContractCase current;
    private int position;
    private DataType type;
    private ReduceOp op;
    private Mode mode;
    private long seed;
    private String firstProblem;
    private long problems;

    private ContractRank(final Communicator comm, final String filter)
    {
        this.comm = comm;
        this.rank = comm.rank();
        this.size = comm.size();
        this.cases = ContractCases.build(size, AlgorithmRegistry.instance(), filter);
        this.buffers = new ContractBuffers(comm, ContractCases.sharedBytes(cases, size, SEND),
            ContractCases.sharedBytes(cases, size, RECV));
        this.hashes = new long[cases.size()];
        this.failedCases = new boolean[cases.size()];
        this.nanos = new long[cases.size()];
    }

    public static void main(final String[] args)
    {
        final long start = System.nanoTime();
        try (Communicator comm = Jccl.connect())
        {
            final ContractRank contract = new ContractRank(comm, args.length > 0 ? args[0] : null);
            final Thread watchdog = new Thread(contract::watch, "contract-watchdog");
            watchdog.setDaemon(true);
            watchdog.start();
            contract.runAll(start);
        }
    }

    /** Names a case that runs for longer than {@link #STUCK_NS}, so that a hang killed by the launcher is found. */
    private void watch()
    {
        int reported = -1;
        while (true)
        {
            LockSupport.parkNanos(STUCK_NS / 10);
            final int at = runningPosition;
            if (at >= 0 && at != reported && System.nanoTime() - runningSince > STUCK_NS)
            {
                reported = at;
                System.out.println("STUCK for " + STUCK_NS / 1_000_000_000 + " s in " + cases.get(at).label() +
                    " [rank " + rank + " of " + size + "]");
                System.out.flush();
            }
        }
    }

    private void runAll(final long start)
    {
        for (int i = 0; i < cases.size(); i++)
        {
            final ContractCase c = cases.get(i);
            final long caseStart = System.nanoTime();
            runningSince = caseStart;
            runningPosition = i;
            begin(c, i);
            try
            {
                run(c);
            }
            catch (final IllegalArgumentException ex)
            {
                if (ex.getMessage() != null && ex.getMessage().contains(REFUSAL))
                {
                    unsupported++;
                    if (rank == 0)
                    {
                        System.out.println("UNSUPPORTED " + c.label() + ": " + ex.getMessage());
                    }
                }
                else
                {
                    problem("refused a valid call: " + ex);
                }
            }
            catch (final RuntimeException | AssertionError ex)
            {
                problem("threw " + ex);
                end();
                summary(start, "ABORTED at case #" + c.index());
                throw ex;
            }
            end();
            nanos[i] = System.nanoTime() - caseStart;
        }
        runningPosition = -1;
        compareHashes();
        summary(start, null);
    }

    private void summary(final long start, final String note)
    {
        int failed = 0;
        for (final boolean f : failedCases)
        {
            failed += f ? 1 : 0;
        }
        if (rank == 0)
        {
            final Integer[] order = new Integer[cases.size()];
            Arrays.setAll(order, i -> i);
            Arrays.sort(order, Comparator.comparingLong(i -> -nanos[i]));
            for (int i = 0; i < Math.min(SLOWEST_SHOWN, order.length); i++)
            {
                System.out.printf("SLOW %.3f s %s%n", nanos[order[i]] / 1e9, cases.get(order[i]).label());
            }
        }
        System.out.printf("CASES %d FAILED %d UNSUPPORTED %d SECONDS %.1f%s%n", cases.size(), failed, unsupported,
            (System.nanoTime() - start) / 1e9, note == null ? "" : " " + note);
        System.out.flush();
    }

    // ============================================================================================ bookkeeping

    private void begin(final ContractCase c, final int position)
    {
        current = c;
        this.position = position;
        type = c.type();
        op = c.op();
        mode = Mode.of(op, c.inexact());
        seed = c.seed();
        firstProblem = null;
        problems = 0;
    }

    private void end()
    {
        if (problems > 0)
        {
            failedCases[position] = true;
            System.out.println("FAIL " + current.label() + ": " + firstProblem +
                (problems > 1 ? " (" + problems + " problems in all)" : "") + " [rank " + rank + " of " + size + "]");
        }
    }

    private void problem(final String what)
    {
        if (problems++ == 0)
        {
            firstProblem = what;
        }
    }

    private void mismatch(final String what, final long index, final long gotBits, final long expectedBits)
    {
        if (problems++ == 0)
        {
            firstProblem = what + ": element " + index + " is " + ContractValues.show(type, gotBits) +
                ", expected " + ContractValues.show(type, expectedBits);
        }
    }

    private Communicator view(final ContractCase c)
    {
        return views.computeIfAbsent(c.algorithmSpec(), comm::withAlgorithm);
    }

    // ============================================================================================ the cases

    private void run(final ContractCase c)
    {
        switch (c.collective())
        {
            case BARRIER -> barrier(c);
            case BROADCAST -> broadcast(c);
            case REDUCE -> reduce(c);
            case ALLREDUCE -> allreduce(c);
            case GATHER -> gather(c);
            case GATHERV -> gatherv(c);
            case SCATTER -> scatter(c);
            case SCATTERV -> scatterv(c);
            case ALLGATHER -> allgather(c);
            case ALLGATHERV -> allgatherv(c);
            case REDUCE_SCATTER -> reduceScatter(c);
            case REDUCE_SCATTERV -> reduceScatterv(c);
            case ALLTOALL -> alltoall(c);
            case ALLTOALLV -> alltoallv(c);
            case SCAN, EXSCAN -> scan(c);
        }
    }

    /**
     * {@code count} barriers; before barrier k the rank root + k arrives late. Nobody may leave barrier k before
     * every rank has entered it: enter and leave times (System.nanoTime, one clock for all processes on Linux)
     * are exchanged afterwards and compared.
     */
    private void barrier(final ContractCase c)
    {
        final int calls = Math.toIntExact(c.count());
        final long[] times = new long[2 * calls];
        final Communicator view = view(c);
        for (int k = 0; k < calls; k++)
        {
            if (rank == (c.root() + k) % size)
            {
                LockSupport.parkNanos(LATE_ARRIVAL_NS);
            }
            times[2 * k] = System.nanoTime();
            view.barrier();
            times[2 * k + 1] = System.nanoTime();
        }
        final long[][] all = exchange(times);
        for (int k = 0; k < calls; k++)
        {
            for (int s = 0; s < size; s++)
            {
                if (times[2 * k + 1] < all[s][2 * k])
                {
                    problem("left barrier " + k + " " + (all[s][2 * k] - times[2 * k + 1]) / 1000 +
                        " µs before rank " + s + " entered it");
                }
            }
        }
    }

    private void broadcast(final ContractCase c)
    {
        final long n = c.count();
        final Region buf = buffers.region(RECV, c.recvKind(), type, n);
        fillInput(buf, 0, n, rank, 0);
        view(c).broadcast(buf.buf, c.root());
        final long from = sliceStart(n);
        expectInput(buf, from, sliceStart(n, rank + 1) - from, c.root(), from, "buffer");
        guards(buf, "buffer");
        hashes[position] = hash(buf);
    }

    private void reduce(final ContractCase c)
    {
        final long n = c.count();
        final boolean isRoot = rank == c.root();
        final Region send;
        final Region recv;
        if (c.inPlace() && isRoot)
        {
            recv = buffers.region(RECV, c.recvKind(), type, n);
            fillInput(recv, 0, n, rank, 0);
            send = recv;
        }
        else
        {
            send = buffers.region(SEND, c.sendKind(), type, n);
            fillInput(send, 0, n, rank, 0);
            recv = isRoot || c.index() % 2 == 1 ? buffers.region(RECV, c.recvKind(), type, n) : null;
        }
        view(c).reduce(send.buf, recv == null ? null : recv.buf, op, c.root());
        if (isRoot)
        {
            expectReduced(recv, 0, n, 0, "result");
        }
        else if (recv != null)
        {
            expectUntouched(recv, 0, n, "receive buffer of a non-root");
        }
        if (send != recv)
        {
            expectInput(send, 0, n, rank, 0, "send buffer (must not change)");
        }
        guards(send, "send buffer");
        guards(recv, "receive buffer");
    }

    private void allreduce(final ContractCase c)
    {
        final long n = c.count();
        final Region recv = buffers.region(RECV, c.recvKind(), type, n);
        final Region send = c.inPlace() ? recv : buffers.region(SEND, c.sendKind(), type, n);
        fillInput(send, 0, n, rank, 0);
        view(c).allreduce(send.buf, recv.buf, op);
        final long from = sliceStart(n);
        expectReduced(recv, from, sliceStart(n, rank + 1) - from, from, "result");
        if (send != recv)
        {
            expectInput(send, 0, n, rank, 0, "send buffer (must not change)");
        }
        guards(send, "send buffer");
        guards(recv, "receive buffer");
        hashes[position] = hash(recv);
    }

    /**
     * Scan and exscan: rank r's result is the reduction of ranks 0..r (0..r-1, exclusive); rank 0's exclusive result
     * is none, so its receive buffer stays as it was (its input, in place).
     */
    private void scan(final ContractCase c)
    {
        final long n = c.count();
        final Region recv = buffers.region(RECV, c.recvKind(), type, n);
        final Region send = c.inPlace() ? recv : buffers.region(SEND, c.sendKind(), type, n);
        fillInput(send, 0, n, rank, 0);
        final boolean inclusive = c.collective() == Collective.SCAN;
        if (inclusive)
        {
            view(c).scan(send.buf, recv.buf, op);
        }
        else
        {
            view(c).exscan(send.buf, recv.buf, op);
        }
        final int reduced = inclusive ? rank + 1 : rank;
        if (reduced > 0)
        {
            expectReduced(recv, 0, n, 0, reduced, "prefix of ranks 0.." + (reduced - 1));
        }
        else if (send != recv)
        {
            expectUntouched(recv, 0, n, "receive buffer of rank 0 (exscan leaves it)");
        }
        if (send != recv || reduced == 0)
        {
            expectInput(send, 0, n, rank, 0, send != recv ? "send buffer (must not change)" :
                "buffer of rank 0 (exscan leaves it)");
        }
        guards(send, "send buffer");
        guards(recv, "receive buffer");
    }

    private void gather(final ContractCase c)
    {
        final long n = c.count();
        final boolean isRoot = rank == c.root();
        final Region send;
        final Region recv;
        final Buf sendBuf;
        if (c.inPlace() && isRoot)
        {
            recv = buffers.region(RECV, c.recvKind(), type, size * n);
            fillInput(recv, rank * n, n, rank, 0);
            send = null;
            sendBuf = recv.buf.slice(rank * n, n);
        }
        else
        {
            send = buffers.region(SEND, c.sendKind(), type, n);
            fillInput(send, 0, n, rank, 0);
            sendBuf = send.buf;
            recv = isRoot || c.index() % 2 == 1 ? buffers.region(RECV, c.recvKind(), type, size * n) : null;
        }
        view(c).gather(sendBuf, recv == null ? null : recv.buf, c.root());
        if (isRoot)
        {
            for (int j = 0; j < size; j++)
            {
                expectInput(recv, j * n, n, j, 0, "block of rank " + j);
            }
        }
        else if (recv != null)
        {
            expectUntouched(recv, 0, size * n, "receive buffer of a non-root");
        }
        if (send != null)
        {
            expectInput(send, 0, n, rank, 0, "send buffer (must not change)");
        }
        guards(send, "send buffer");
        guards(recv, "receive buffer");
    }

    private void scatter(final ContractCase c)
    {
        final long n = c.count();
        final boolean isRoot = rank == c.root();
        final Region send = isRoot || c.index() % 2 == 1 ? buffers.region(SEND, c.sendKind(), type, size * n) : null;
        if (send != null)
        {
            fillInput(send, 0, size * n, rank, 0);
        }
        final Region recv = c.inPlace() && isRoot ? null : buffers.region(RECV, c.recvKind(), type, n);
        final Buf recvBuf = recv == null ? send.buf.slice(rank * n, n) : recv.buf;
        view(c).scatter(send == null ? null : send.buf, recvBuf, c.root());
        if (recv != null)
        {
            expectInput(recv, 0, n, c.root(), rank * n, "received block");
        }
        if (send != null)
        {
            expectInput(send, 0, size * n, rank, 0, isRoot ? "send buffer (must not change)" :
                "send buffer of a non-root (must not change)");
        }
        guards(send, "send buffer");
        guards(recv, "receive buffer");
    }

    private void gatherv(final ContractCase c)
    {
        final int[] counts = ContractCases.allgathervCounts(c, size);
        final int[] displs = ContractCases.displacements(counts, c.layout());
        final long extent = ContractCases.extent(counts, displs);
        final boolean isRoot = rank == c.root();
        final Region send;
        final Region recv;
        final Buf sendBuf;
        if (c.inPlace() && isRoot)
        {
            recv = buffers.region(RECV, c.recvKind(), type, extent);
            fillInput(recv, displs[rank], counts[rank], rank, 0);
            send = null;
            sendBuf = recv.buf.slice(displs[rank], counts[rank]);
        }
        else
        {
            send = buffers.region(SEND, c.sendKind(), type, counts[rank]);
            fillInput(send, 0, counts[rank], rank, 0);
            sendBuf = send.buf;
            recv = isRoot || c.index() % 2 == 1 ? buffers.region(RECV, c.recvKind(), type, extent) : null;
        }
        view(c).gatherv(sendBuf, recv == null ? null : recv.buf, counts.clone(),
            c.layout() == Layout.PACKED ? null : displs.clone(), c.root());
        if (isRoot)
        {
            for (int j = 0; j < size; j++)
            {
                expectInput(recv, displs[j], counts[j], j, 0, "block of rank " + j);
            }
            expectGapsUntouched(recv, counts, displs);
        }
        else if (recv != null)
        {
            expectUntouched(recv, 0, extent, "receive buffer of a non-root");
        }
        if (send != null)
        {
            expectInput(send, 0, counts[rank], rank, 0, "send buffer (must not change)");
        }
        guards(send, "send buffer");
        guards(recv, "receive buffer");
    }

    private void scatterv(final ContractCase c)
    {
        final int[] counts = ContractCases.allgathervCounts(c, size);
        final int[] displs = ContractCases.displacements(counts, c.layout());
        final long extent = ContractCases.extent(counts, displs);
        final boolean isRoot = rank == c.root();
        final Region send = isRoot || c.index() % 2 == 1 ? buffers.region(SEND, c.sendKind(), type, extent) : null;
        if (send != null)
        {
            fillInput(send, 0, extent, rank, 0);
        }
        final Region recv = c.inPlace() && isRoot ? null : buffers.region(RECV, c.recvKind(), type, counts[rank]);
        final Buf recvBuf = recv == null ? send.buf.slice(displs[rank], counts[rank]) : recv.buf;
        view(c).scatterv(send == null ? null : send.buf, recvBuf, counts.clone(),
            c.layout() == Layout.PACKED ? null : displs.clone(), c.root());
        if (recv != null)
        {
            expectInput(recv, 0, counts[rank], c.root(), displs[rank], "received block");
        }
        if (send != null)
        {
            expectInput(send, 0, extent, rank, 0, isRoot ? "send buffer (must not change)" :
                "send buffer of a non-root (must not change)");
        }
        guards(send, "send buffer");
        guards(recv, "receive buffer");
    }

    private void allgather(final ContractCase c)
    {
        final long n = c.count();
        final Region recv = buffers.region(RECV, c.recvKind(), type, size * n);
        final Region send;
        final Buf sendBuf;
        if (c.inPlace())
        {
            fillInput(recv, rank * n, n, rank, 0);
            send = null;
            sendBuf = recv.buf.slice(rank * n, n);
        }
        else
        {
            send = buffers.region(SEND, c.sendKind(), type, n);
            fillInput(send, 0, n, rank, 0);
            sendBuf = send.buf;
        }
        view(c).allgather(sendBuf, recv.buf);
        final long from = sliceStart(size * n);
        final long to = sliceStart(size * n, rank + 1);
        for (int j = 0; j < size; j++)
        {
            final long start = Math.max(from, j * n);
            final long end = Math.min(to, (j + 1) * n);
            if (start < end)
            {
                expectInput(recv, start, end - start, j, start - j * n, "block of rank " + j);
            }
        }
        if (send != null)
        {
            expectInput(send, 0, n, rank, 0, "send buffer (must not change)");
        }
        guards(send, "send buffer");
        guards(recv, "receive buffer");
        hashes[position] = hash(recv);
    }

    private void allgatherv(final ContractCase c)
    {
        final int[] counts = ContractCases.allgathervCounts(c, size);
        final int[] displs = ContractCases.displacements(counts, c.layout());
        final Region recv = buffers.region(RECV, c.recvKind(), type, ContractCases.extent(counts, displs));
        final Region send;
        final Buf sendBuf;
        if (c.inPlace())
        {
            fillInput(recv, displs[rank], counts[rank], rank, 0);
            send = null;
            sendBuf = recv.buf.slice(displs[rank], counts[rank]);
        }
        else
        {
            send = buffers.region(SEND, c.sendKind(), type, counts[rank]);
            fillInput(send, 0, counts[rank], rank, 0);
            sendBuf = send.buf;
        }
        view(c).allgatherv(sendBuf, recv.buf, counts.clone(), c.layout() == Layout.PACKED ? null : displs.clone());
        for (int j = 0; j < size; j++)
        {
            expectInput(recv, displs[j], counts[j], j, 0, "block of rank " + j);
        }
        expectGapsUntouched(recv, counts, displs);
        if (send != null)
        {
            expectInput(send, 0, counts[rank], rank, 0, "send buffer (must not change)");
        }
        guards(send, "send buffer");
        guards(recv, "receive buffer");
        hashes[position] = hash(recv);
    }

    private void reduceScatter(final ContractCase c)
    {
        final long n = c.count();
        final Region send = buffers.region(SEND, c.sendKind(), type, size * n);
        fillInput(send, 0, size * n, rank, 0);
        final Region recv = c.inPlace() ? null : buffers.region(RECV, c.recvKind(), type, n);
        view(c).reduceScatter(send.buf, recv == null ? send.buf.slice(rank * n, n) : recv.buf, op);
        if (recv == null)
        {
            // in place: this rank's block of the send buffer holds the result, the other blocks are undefined
            expectReduced(send, rank * n, n, rank * n, "result");
        }
        else
        {
            expectReduced(recv, 0, n, rank * n, "result");
            expectInput(send, 0, size * n, rank, 0, "send buffer (must not change)");
        }
        guards(send, "send buffer");
        guards(recv, "receive buffer");
    }

    private void reduceScatterv(final ContractCase c)
    {
        final int[] counts = ContractCases.reduceScattervCounts(c, size);
        final int[] displs = ContractCases.displacements(counts, Layout.PACKED);
        final long total = c.count();
        final Region send = buffers.region(SEND, c.sendKind(), type, total);
        fillInput(send, 0, total, rank, 0);
        final Region recv = buffers.region(RECV, c.recvKind(), type, counts[rank]);
        view(c).reduceScatterv(send.buf, recv.buf, counts.clone(), op);
        expectReduced(recv, 0, counts[rank], displs[rank], "result");
        expectInput(send, 0, total, rank, 0, "send buffer (must not change)");
        guards(send, "send buffer");
        guards(recv, "receive buffer");
    }

    private void alltoall(final ContractCase c)
    {
        final long n = c.count();
        final Region send = buffers.region(SEND, c.sendKind(), type, size * n);
        fillInput(send, 0, size * n, rank, 0);
        final Region recv = buffers.region(RECV, c.recvKind(), type, size * n);
        view(c).alltoall(send.buf, recv.buf);
        for (int s = 0; s < size; s++)
        {
            expectInput(recv, s * n, n, s, rank * n, "block from rank " + s);
        }
        expectInput(send, 0, size * n, rank, 0, "send buffer (must not change)");
        guards(send, "send buffer");
        guards(recv, "receive buffer");
    }

    private void alltoallv(final ContractCase c)
    {
        final Layout layout = c.layout();
        final int[] sendCounts = ContractCases.alltoallvCounts(c, size, rank, true);
        final int[] sendDispls = ContractCases.displacements(sendCounts, layout);
        final int[] recvCounts = ContractCases.alltoallvCounts(c, size, rank, false);
        final int[] recvDispls = ContractCases.displacements(recvCounts, layout);
        final long sendExtent = ContractCases.extent(sendCounts, sendDispls);
        final Region send = buffers.region(SEND, c.sendKind(), type, sendExtent);
        fillInput(send, 0, sendExtent, rank, 0);
        final Region recv = buffers.region(RECV, c.recvKind(), type, ContractCases.extent(recvCounts, recvDispls));
        final boolean packed = layout == Layout.PACKED;
        view(c).alltoallv(send.buf, sendCounts.clone(), packed ? null : sendDispls.clone(), recv.buf,
            recvCounts.clone(), packed ? null : recvDispls.clone());
        for (int s = 0; s < size; s++)
        {
            final int[] theirDispls = ContractCases.displacements(ContractCases.alltoallvCounts(c, size, s, true),
                layout);
            expectInput(recv, recvDispls[s], recvCounts[s], s, theirDispls[rank], "block from rank " + s);
        }
        expectGapsUntouched(recv, recvCounts, recvDispls);
        expectInput(send, 0, sendExtent, rank, 0, "send buffer (must not change)");
        guards(send, "send buffer");
        guards(recv, "receive buffer");
    }

    // ============================================================================================ checks

    /** Elements [at, at + n) of {@code region} := rank {@code source}'s input from {@code sourceIndex}. */
    private void fillInput(final Region region, final long at, final long n, final int source,
        final long sourceIndex)
    {
        for (long done = 0; done < n; done += CHUNK)
        {
            final int length = (int)Math.min(CHUNK, n - done);
            ContractValues.inputs(type, mode, seed, source, sourceIndex + done, expected, length, scratch);
            region.put(at + done, expected, length);
        }
    }

    /** Elements [at, at + n) of {@code region} hold rank {@code source}'s input from {@code sourceIndex}. */
    private void expectInput(final Region region, final long at, final long n, final int source,
        final long sourceIndex, final String what)
    {
        for (long done = 0; done < n; done += CHUNK)
        {
            final int length = (int)Math.min(CHUNK, n - done);
            ContractValues.inputs(type, mode, seed, source, sourceIndex + done, expected, length, scratch);
            region.get(at + done, got, length);
            compare(what, at + done, length);
        }
    }

    /** Elements [at, at + n) hold the reduction of every rank's input from {@code index}. */
    private void expectReduced(final Region region, final long at, final long n, final long index,
        final String what)
    {
        expectReduced(region, at, n, index, size, what);
    }

    /** Elements [at, at + n) hold the reduction of the inputs of ranks 0 to {@code ranks} - 1 from {@code index}. */
    private void expectReduced(final Region region, final long at, final long n, final long index, final int ranks,
        final String what)
    {
        for (long done = 0; done < n; done += CHUNK)
        {
            final int length = (int)Math.min(CHUNK, n - done);
            region.get(at + done, got, length);
            if (!current.inexact())
            {
                ContractValues.reduced(type, op, mode, seed, ranks, index + done, expected, length, scratch);
                compare(what, at + done, length);
                continue;
            }
            ContractValues.reducedApproximately(type, op, mode, seed, ranks, index + done, approximate, tolerance,
                length, scratch);
            ContractValues.decode(type, got, gotValues, length);
            for (int i = 0; i < length; i++)
            {
                if (!(Math.abs(gotValues[i] - approximate[i]) <= tolerance[i]) && problems++ == 0)
                {
                    firstProblem = what + ": element " + (at + done + i) + " is " + gotValues[i] + ", expected " +
                        approximate[i] + " ± " + tolerance[i];
                }
            }
        }
    }

    /** Counts the elements where {@link #got} differs from {@link #expected}; element 0 is {@code at}. */
    private void compare(final String what, final long at, final int length)
    {
        int from = 0;
        while (from < length)
        {
            final int m = Arrays.mismatch(got, from, length, expected, from, length);
            if (m < 0)
            {
                return;
            }
            mismatch(what, at + from + m, got[from + m], expected[from + m]);
            from += m + 1;
        }
    }

    private void expectUntouched(final Region region, final long at, final long n, final String what)
    {
        if (!region.untouched(at, n))
        {
            problem(what + " was written (it must stay untouched)");
        }
    }

    /** Every element of {@code region} outside the blocks stays untouched. */
    private void expectGapsUntouched(final Region region, final int[] counts, final int[] displs)
    {
        final Integer[] order = new Integer[counts.length];
        Arrays.setAll(order, i -> i);
        Arrays.sort(order, Comparator.comparingInt(i -> displs[i]));
        long at = 0;
        for (final int j : order)
        {
            expectUntouched(region, at, displs[j] - at, "gap before the block of rank " + j);
            at = (long)displs[j] + counts[j];
        }
        expectUntouched(region, at, region.count - at, "gap after the last block");
    }

    private void guards(final Region region, final String what)
    {
        if (region != null && !region.guardsIntact())
        {
            problem(what + " written outside its bounds (guard bytes changed)");
        }
    }

    /**
     * Where this rank's share of a replicated result of {@code n} elements begins. Each rank checks its share against
     * the reference and hashes the whole result ({@link #hash}); {@link #compareHashes} then holds every rank's
     * result to rank 0's, so every element is checked, and the reference, which costs p times the result on every
     * rank where it is a reduction or a gather, is computed once across the ranks.
     */
    private long sliceStart(final long n)
    {
        return sliceStart(n, rank);
    }

    private long sliceStart(final long n, final int share)
    {
        return n * share / size;
    }

    /** A checksum of the whole region, for comparing replicated results across ranks. */
    private long hash(final Region region)
    {
        final long[] sums = {region.count, 0};
        for (long done = 0; done < region.count; done += CHUNK)
        {
            final int length = (int)Math.min(CHUNK, region.count - done);
            region.get(done, got, length);
            ContractValues.checksum(sums, got, length);
        }
        return ContractValues.mix(sums[0]) ^ sums[1];
    }

    /** Every rank's replicated results must be bitwise equal to rank 0's. */
    private void compareHashes()
    {
        final long[][] all = exchange(hashes);
        final List<String> differing = new ArrayList<>();
        for (int i = 0; i < cases.size(); i++)
        {
            if (all[0][i] != hashes[i])
            {
                final ContractCase c = cases.get(i);
                begin(c, i);
                problem("result differs from rank 0's (replicated results must be bitwise identical)");
                end();
                differing.add("#" + c.index());
            }
        }
        if (!differing.isEmpty())
        {
            System.out.println("DIFFERENT FROM RANK 0: " + String.join(" ", differing));
        }
    }

    /** Gathers {@code mine} from every rank over point-to-point (not the collectives under test). */
    private long[][] exchange(final long[] mine)
    {
        final long[][] all = new long[size][];
        all[rank] = mine;
        for (int k = 1; k < size; k++)
        {
            final int dest = (rank + k) % size;
            final int source = (rank - k + size) % size;
            final long[] theirs = new long[mine.length];
            comm.sendRecv(Buf.of(mine), dest, EXCHANGE_TAG, Buf.of(theirs), source, EXCHANGE_TAG);
            all[source] = theirs;
        }
        return all;
    }
}
