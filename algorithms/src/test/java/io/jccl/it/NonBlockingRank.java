package io.jccl.it;

import io.jccl.Buf;
import io.jccl.CollectiveRequest;
import io.jccl.Communicator;
import io.jccl.DataType;
import io.jccl.Jccl;
import io.jccl.PeerFailedException;
import io.jccl.ReduceOp;

import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

/**
 * One rank of {@link NonBlockingCollectivesTest}: runs the scenario named by its first argument, prints
 * "OK scenario rank R" when every check held; a failed check throws (exit 1).
 */
public final class NonBlockingRank
{
    /** Windows of operations whose allocation {@code resources} counts; the least must be under the bound. */
    private static final int ALLOCATION_WINDOWS = 4;

    private NonBlockingRank()
    {
    }

    public static void main(final String[] args) throws Exception
    {
        final String scenario = args[0];
        final Communicator comm = Jccl.connect();
        switch (scenario)
        {
            case "every" -> every(comm);
            case "inflight" -> inFlight(comm);
            case "mixed" -> mixedWithBlocking(comm);
            case "failure" -> peerFailure(comm, Integer.parseInt(args[1]));
            case "close" -> closeInFlight(comm);
            case "resources" -> resources(comm);
            case "driven" -> driven(comm);
            case "reentrant" -> reentrant(comm);
            default -> throw new IllegalArgumentException("unknown scenario " + scenario);
        }
        System.out.println("OK " + scenario + " rank " + comm.rank());
        comm.close();
    }

    /** Every non-blocking collective once, each result checked, awaited, tested or through the future. */
    private static void every(final Communicator comm) throws Exception
    {
        final int p = comm.size();
        final int me = comm.rank();
        final int n = 1001;

        comm.ibarrier().await();

        final double[] b = new double[n];
        if (me == p - 1)
        {
            Arrays.setAll(b, i -> i * 0.5);
        }
        final CollectiveRequest bcast = comm.ibroadcast(Buf.of(b), p - 1);
        while (!bcast.test())
        {
            Thread.onSpinWait();
        }
        for (int i = 0; i < n; i++)
        {
            check(b[i] == i * 0.5, "ibroadcast element " + i);
        }

        final long[] red = new long[n];
        final long[] mine = new long[n];
        Arrays.setAll(mine, i -> me * 1000L + i);
        comm.ireduce(Buf.of(mine), Buf.of(red), ReduceOp.MAX, 0).future().get(60, TimeUnit.SECONDS);
        if (me == 0)
        {
            for (int i = 0; i < n; i++)
            {
                check(red[i] == (p - 1) * 1000L + i, "ireduce element " + i);
            }
        }

        final float[] ar = new float[n];
        Arrays.setAll(mine, i -> me + i);
        for (int i = 0; i < n; i++)
        {
            ar[i] = me + i;
        }
        final float[] arOut = new float[n];
        comm.iallreduce(Buf.of(ar), Buf.of(arOut), ReduceOp.SUM).await();
        for (int i = 0; i < n; i++)
        {
            check(arOut[i] == p * (p - 1) / 2f + p * i, "iallreduce element " + i);
        }
        comm.iallreduce(Buf.of(ar), ReduceOp.AVG).await();
        for (int i = 0; i < n; i++)
        {
            check(Math.abs(ar[i] - ((p - 1) / 2f + i)) < 1e-3f, "in-place iallreduce avg element " + i);
        }

        final int[] gathered = new int[3 * p];
        comm.igather(Buf.of(new int[] {me, me + 1, me + 2}), me == 0 ? Buf.of(gathered) : null, 0).await();
        if (me == 0)
        {
            for (int r = 0; r < p; r++)
            {
                check(gathered[3 * r] == r && gathered[3 * r + 2] == r + 2, "igather block " + r);
            }
        }

        final int[] scatterSrc = new int[2 * p];
        Arrays.setAll(scatterSrc, i -> 7 * i);
        final int[] piece = new int[2];
        comm.iscatter(me == 1 % p ? Buf.of(scatterSrc) : null, Buf.of(piece), 1 % p).await();
        check(piece[0] == 14 * me && piece[1] == 14 * me + 7, "iscatter piece " + Arrays.toString(piece));

        final short[] all = new short[4 * p];
        final short[] four = new short[4];
        Arrays.fill(four, (short) (me + 1));
        comm.iallgather(Buf.of(four, DataType.BFLOAT16), Buf.of(all, DataType.BFLOAT16)).await();
        for (int r = 0; r < p; r++)
        {
            check(all[4 * r] == r + 1 && all[4 * r + 3] == r + 1, "iallgather block " + r);
        }

        final int[] counts = new int[p];
        Arrays.setAll(counts, r -> r + 1);
        final int total = p * (p + 1) / 2;
        final int[] v = new int[total];
        final int[] myPart = new int[me + 1];
        Arrays.fill(myPart, me);
        comm.iallgatherv(Buf.of(myPart), Buf.of(v), counts, null).await();
        for (int r = 0, at = 0; r < p; at += counts[r], r++)
        {
            check(v[at] == r && v[at + counts[r] - 1] == r, "iallgatherv block " + r);
        }

        // gatherv to the last rank, blocks in reverse order two elements apart
        final int[] displs = new int[p];
        for (int r = p - 1, at = 0; r >= 0; at += counts[r] + 2, r--)
        {
            displs[r] = at;
        }
        final int last = p - 1;
        final int[] gatheredV = new int[total + 2 * p];
        comm.igatherv(Buf.of(myPart), me == last ? Buf.of(gatheredV) : null, counts, displs, last).await();
        if (me == last)
        {
            for (int r = 0; r < p; r++)
            {
                check(gatheredV[displs[r]] == r && gatheredV[displs[r] + counts[r] - 1] == r, "igatherv block " + r);
            }
        }

        // scatterv from the last rank with the same layout: rank r gets the r + 1 elements from displs[r]
        final int[] scatterVSrc = new int[total + 2 * p];
        Arrays.setAll(scatterVSrc, i -> 100 * i);
        final int[] pieceV = new int[me + 1];
        comm.iscatterv(me == last ? Buf.of(scatterVSrc) : null, Buf.of(pieceV), counts, displs, last).await();
        check(pieceV[0] == 100 * displs[me] && pieceV[me] == 100 * (displs[me] + me),
            "iscatterv piece " + Arrays.toString(pieceV));

        final long[] rsIn = new long[3 * p];
        Arrays.setAll(rsIn, i -> i + me);
        final long[] rsOut = new long[3];
        comm.ireduceScatter(Buf.of(rsIn), Buf.of(rsOut), ReduceOp.SUM).await();
        for (int k = 0; k < 3; k++)
        {
            check(rsOut[k] == p * (3L * me + k) + p * (p - 1) / 2, "ireduceScatter element " + k);
        }

        final long[] rsvIn = new long[total];
        Arrays.fill(rsvIn, me + 1);
        final long[] rsvOut = new long[me + 1];
        comm.ireduceScatterv(Buf.of(rsvIn), Buf.of(rsvOut), counts, ReduceOp.SUM).await();
        for (final long x : rsvOut)
        {
            check(x == (long) p * (p + 1) / 2, "ireduceScatterv element " + x);
        }

        // scan and exscan of rank + 1: the sums of 1..me + 1 and of 1..me; exscan leaves rank 0's buffer
        final long[] prefixIn = new long[n];
        Arrays.setAll(prefixIn, i -> me + 1 + i);
        final long[] scanOut = new long[n];
        final long[] exscanOut = new long[n];
        Arrays.fill(exscanOut, -7);
        final CollectiveRequest scan = comm.iscan(Buf.of(prefixIn), Buf.of(scanOut), ReduceOp.SUM);
        final CollectiveRequest exscan = comm.iexscan(Buf.of(prefixIn), Buf.of(exscanOut), ReduceOp.SUM);
        comm.waitAll(scan, exscan);
        for (int i = 0; i < n; i++)
        {
            check(scanOut[i] == (long) (me + 1) * (me + 2) / 2 + (long) (me + 1) * i, "iscan element " + i);
            check(exscanOut[i] == (me == 0 ? -7 : (long) me * (me + 1) / 2 + (long) me * i), "iexscan element " + i);
        }

        final int[] a2aOut = new int[2 * p];
        final int[] a2aIn = new int[2 * p];
        for (int r = 0; r < p; r++)
        {
            a2aOut[2 * r] = me * 100 + r;
            a2aOut[2 * r + 1] = -1;
        }
        comm.ialltoall(Buf.of(a2aOut), Buf.of(a2aIn)).await();
        for (int r = 0; r < p; r++)
        {
            check(a2aIn[2 * r] == r * 100 + me && a2aIn[2 * r + 1] == -1, "ialltoall block " + r);
        }

        // alltoallv: rank i sends j + 1 elements to rank j, all equal to i * 10 + j
        final int[] sendCounts = new int[p];
        final int[] recvCounts = new int[p];
        Arrays.setAll(sendCounts, j -> j + 1);
        Arrays.fill(recvCounts, me + 1);
        final int[] vOut = new int[total];
        for (int j = 0, at = 0; j < p; at += sendCounts[j], j++)
        {
            Arrays.fill(vOut, at, at + sendCounts[j], me * 10 + j);
        }
        final int[] vIn = new int[p * (me + 1)];
        comm.ialltoallv(Buf.of(vOut), sendCounts, null, Buf.of(vIn), recvCounts, null).await();
        for (int r = 0; r < p; r++)
        {
            check(vIn[r * (me + 1)] == r * 10 + me, "ialltoallv block " + r);
        }

        // a bad call fails its request (or the call) and the communicator goes on
        try
        {
            comm.iallreduce(null, ReduceOp.SUM);
            throw new AssertionError("null buffer accepted");
        }
        catch (final IllegalArgumentException expected)
        {
            // refused before anything was queued
        }
        final int[] one = {1};
        comm.iallreduce(Buf.of(one), ReduceOp.SUM).await();
        check(one[0] == p, "iallreduce after a refused call");
    }

    /** Many operations in flight at once; they complete in the order they were started; results exact. */
    private static void inFlight(final Communicator comm) throws Exception
    {
        final int p = comm.size();
        final int k = 24;
        final float[][] buffers = new float[k][];
        final CollectiveRequest[] requests = new CollectiveRequest[k];
        final List<Integer> order = new CopyOnWriteArrayList<>();
        for (int j = 0; j < k; j++)
        {
            final int n = 1 + (j * 7919) % (300_000);
            buffers[j] = new float[n];
            Arrays.fill(buffers[j], comm.rank() + j);
            requests[j] = comm.iallreduce(Buf.of(buffers[j]), ReduceOp.SUM);
            final int index = j;
            requests[j].future().thenRun(() -> order.add(index));
        }
        // await from the last: the earlier ones are complete by then
        requests[k - 1].await();
        for (int j = 0; j < k; j++)
        {
            check(requests[j].future().isDone(), "request " + j + " not done after the last one");
        }
        for (int j = k - 1; j >= 0; j--)
        {
            requests[j].await();
            final float expected = p * (p - 1) / 2f + p * j;
            for (final float x : buffers[j])
            {
                check(x == expected, "request " + j + ": " + x + ", expected " + expected);
            }
        }
        final List<Integer> sorted = new ArrayList<>(order);
        sorted.sort(null);
        check(order.equals(sorted) && order.size() == k, "completion order " + order);
    }

    /** Non-blocking allreduces in flight while the caller runs blocking collectives and messages on the same comm. */
    private static void mixedWithBlocking(final Communicator comm)
    {
        final int p = comm.size();
        final int n = 1 << 18;
        for (int round = 0; round < 20; round++)
        {
            final int[] background = new int[n];
            Arrays.fill(background, comm.rank() + round);
            final CollectiveRequest request = comm.iallreduce(Buf.of(background), ReduceOp.SUM);
            final int[] foreground = new int[1000];
            Arrays.fill(foreground, 1);
            comm.allreduce(Buf.of(foreground), ReduceOp.SUM);
            final int next = (comm.rank() + 1) % p;
            final int prev = (comm.rank() + p - 1) % p;
            final int[] token = {round * 10 + comm.rank()};
            final int[] got = new int[1];
            comm.sendRecv(Buf.of(token), next, 3, Buf.of(got), prev, 3);
            check(got[0] == round * 10 + prev, "message " + got[0]);
            for (final int x : foreground)
            {
                check(x == p, "blocking allreduce gave " + x);
            }
            request.await();
            final int expected = p * (p - 1) / 2 + p * round;
            for (final int x : background)
            {
                check(x == expected, "round " + round + " background allreduce gave " + x);
            }
        }
    }

    /** The victim halts during an operation in flight; the others' requests fail naming it, future and await. */
    private static void peerFailure(final Communicator comm, final int victim)
    {
        comm.iallreduce(Buf.of(new int[8]), ReduceOp.SUM).await();
        comm.barrier();
        if (comm.rank() == victim)
        {
            System.out.println("HALTING");
            System.out.flush();
            Runtime.getRuntime().halt(3);
        }
        final long start = System.nanoTime();
        final CollectiveRequest first = comm.iallreduce(Buf.of(new float[100_000]), ReduceOp.SUM);
        final CollectiveRequest second = comm.ibroadcast(Buf.of(new int[10]), victim);
        try
        {
            first.await();
            throw new AssertionError("allreduce with a dead peer completed");
        }
        catch (final PeerFailedException ex)
        {
            final long ms = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
            System.out.println("DETECTED peer=" + ex.peer() + " ms=" + ms + " message=" + ex.getMessage());
        }
        try
        {
            second.future().join();
            throw new AssertionError("broadcast with a dead peer completed");
        }
        catch (final CompletionException ex)
        {
            check(ex.getCause() instanceof io.jccl.JcclException, "future failed with " + ex.getCause());
            System.out.println("FUTURE FAILED " + ex.getCause().getMessage());
        }
        // the communicator the caller uses directly is not broken by the background failure of its duplicate
        // (its own waits would see the dead peer too): closing is clean
    }

    /** close() with operations in flight: they run to completion first, on every rank; later calls are refused. */
    private static void closeInFlight(final Communicator comm)
    {
        final int p = comm.size();
        final int[][] buffers = new int[8][20_000];
        final CollectiveRequest[] requests = new CollectiveRequest[buffers.length];
        for (int j = 0; j < buffers.length; j++)
        {
            Arrays.fill(buffers[j], j);
            requests[j] = comm.iallreduce(Buf.of(buffers[j]), ReduceOp.SUM);
            requests[j].future();
        }
        comm.close();
        for (int j = 0; j < buffers.length; j++)
        {
            check(requests[j].future().isDone() && !requests[j].future().isCompletedExceptionally(),
                "request " + j + " after close: " + requests[j].future());
            check(buffers[j][0] == p * j && buffers[j][19_999] == p * j, "request " + j + " result");
        }
        try
        {
            comm.ibarrier();
            throw new AssertionError("ibarrier after close accepted");
        }
        catch (final IllegalStateException expected)
        {
            System.out.println("REFUSED " + expected.getMessage());
        }
    }

    /**
     * Who runs the operations. A caller in await() runs them itself (most of the time: the progress thread may take one
     * first); a caller in a timed await leaves them to the progress thread. Rank 0 starts each one before the others
     * (they sleep first), so it is not complete when rank 0 asks its future who completes it. Then another thread
     * starts an operation while rank 0's caller runs one, and awaits it with a timeout: the progress thread must run
     * it (the caller stops at the operation it awaits), so the caller must wake it when it leaves one queued.
     */
    private static void driven(final Communicator comm) throws Exception
    {
        final int p = comm.size();
        final int rounds = 20;
        int byCaller = 0;
        for (int round = 0; round < 2 * rounds; round++)
        {
            final boolean timed = round >= rounds;
            if (comm.rank() != 0)
            {
                Thread.sleep(20);
            }
            final int[] v = {comm.rank() + round};
            final CollectiveRequest request = comm.iallreduce(Buf.of(v), ReduceOp.SUM);
            final Thread[] completer = new Thread[1];
            final java.util.concurrent.CompletableFuture<Void> recorded =
                request.future().thenRun(() -> completer[0] = Thread.currentThread());
            await(request, timed, "round " + round);
            check(v[0] == p * (p - 1) / 2 + p * round, "round " + round + ": " + v[0]);
            recorded.join();  // the thread that completes the future runs the action after it publishes the result
            if (comm.rank() == 0)
            {
                final boolean caller = completer[0] == Thread.currentThread();
                check(!timed || !caller && completer[0].getName().startsWith("jccl-progress-"),
                    "a timed await's operation was completed by " + completer[0]);
                byCaller += caller ? 1 : 0;
            }
        }
        if (comm.rank() == 0)
        {
            System.out.println("CALLER RAN " + byCaller + " of " + rounds);
            // How many is a race with the progress thread, which may take one first: 8-10 of 10 on an idle machine,
            // 3 of 10 in a CI run. One shows that await() runs them at all; 20 rounds make none unlikely even so.
            check(byCaller >= 1, "await() ran " + byCaller + " of " + rounds + " itself");
        }

        if (comm.rank() != 0)
        {
            Thread.sleep(300);
        }
        final int[] first = {comm.rank()};
        final CollectiveRequest running = comm.iallreduce(Buf.of(first), ReduceOp.SUM);
        final CountDownLatch firstStarted = new CountDownLatch(1);
        final int[] second = {comm.rank() == 0 ? 42 : -1};
        final boolean[] secondDone = new boolean[1];
        final Thread other = new Thread(() ->
        {
            try
            {
                firstStarted.await();
                secondDone[0] = comm.ibroadcast(Buf.of(second), 0).await(60, TimeUnit.SECONDS);
            }
            catch (final InterruptedException ex)
            {
                Thread.currentThread().interrupt();
            }
        }, "other-caller");
        other.start();
        firstStarted.countDown();
        running.await();
        other.join();
        check(first[0] == p * (p - 1) / 2, "first allreduce: " + first[0]);
        check(secondDone[0] && second[0] == 42, "broadcast started by another thread: done " + secondDone[0] +
            ", value " + second[0]);
    }

    /**
     * A future's dependent action awaits a later request, on the thread that completed the first: the caller inside
     * its await(), then the progress thread (the first awaited with a timeout). Neither may wait for the other.
     */
    private static void reentrant(final Communicator comm) throws Exception
    {
        final int p = comm.size();
        for (final boolean timed : new boolean[] {false, true})
        {
            if (comm.rank() != 0)
            {
                Thread.sleep(20);  // rank 0's first is not complete when it chains the action to it
            }
            final int[] a = {comm.rank()};
            final int[] b = {10 * comm.rank()};
            final CollectiveRequest first = comm.iallreduce(Buf.of(a), ReduceOp.SUM);
            final CollectiveRequest second = comm.iallreduce(Buf.of(b), ReduceOp.SUM);
            final java.util.concurrent.CompletableFuture<Void> chained = first.future().thenRun(second::await);
            await(first, timed, "the first");
            chained.get(60, TimeUnit.SECONDS);
            check(a[0] == p * (p - 1) / 2 && b[0] == 10 * p * (p - 1) / 2, (timed ? "timed: " : "") + "results " +
                a[0] + ", " + b[0]);
        }
    }

    /**
     * Pooled requests: after warm-up, start + await allocates nothing on the caller's thread nor on the progress
     * thread, whichever runs the operations (the caller in await(), the progress thread for a timed await); the
     * progress thread parks (no CPU) while nothing is in flight.
     * <p>
     * Allocation is counted over {@link #ALLOCATION_WINDOWS} windows of 5,000 operations and the least counts: an
     * allocation per operation shows in every window (80 KB at 16 bytes an operation), while the runtime now and then
     * allocates a burst on a thread of its own accord, once 8,552 bytes on the caller in one window of a CI run: some
     * hundred strings within a millisecond, from compiled jccl code at method entries that allocate nothing
     * (JFR's allocation events, without TLABs; PERFORMANCE.md, session 41).
     */
    private static void resources(final Communicator comm) throws Exception
    {
        final com.sun.management.ThreadMXBean threads =
            (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        final float[] v = new float[256];
        final Buf buf = Buf.of(v);
        for (final boolean timed : new boolean[] {false, true})
        {
            // long enough for C2 to compile the path (escape analysis removes what the interpreter allocates)
            for (int i = 0; i < 30_000; i++)
            {
                awaitAllreduce(comm, buf, timed);
            }
            final Thread progress = progressThread();
            final long me = Thread.currentThread().threadId();
            final int ops = 5000;
            final long[] caller = new long[ALLOCATION_WINDOWS];
            final long[] ran = new long[ALLOCATION_WINDOWS];
            for (int w = 0; w < ALLOCATION_WINDOWS; w++)
            {
                final long callerBefore = threads.getThreadAllocatedBytes(me);
                final long agentBefore = threads.getThreadAllocatedBytes(progress.threadId());
                for (int i = 0; i < ops; i++)
                {
                    awaitAllreduce(comm, buf, timed);
                }
                caller[w] = threads.getThreadAllocatedBytes(me) - callerBefore;
                ran[w] = threads.getThreadAllocatedBytes(progress.threadId()) - agentBefore;
            }
            final long leastCaller = Arrays.stream(caller).min().orElseThrow();
            final long leastRan = Arrays.stream(ran).min().orElseThrow();
            System.out.println("ALLOCATED " + (timed ? "timed" : "await") + " caller=" +
                Arrays.toString(caller) + " progress=" + Arrays.toString(ran) + " ops=" + ops);
            check(leastCaller < 4096 && leastRan < 4096, "allocation over " + ops + " operations" +
                (timed ? " (timed await)" : "") + ", the least of " + ALLOCATION_WINDOWS + " windows: caller " +
                leastCaller + " B, progress thread " + leastRan + " B");
        }
        final Thread agent = progressThread();
        comm.barrier();
        Thread.sleep(200);
        final long cpuBefore = threads.getThreadCpuTime(agent.threadId());
        Thread.sleep(500);
        final long idleCpu = threads.getThreadCpuTime(agent.threadId()) - cpuBefore;
        System.out.println("IDLE state=" + agent.getState() + " cpu_us=" + idleCpu / 1000);
        check(agent.getState() == Thread.State.WAITING, "idle progress thread is " + agent.getState());
        check(idleCpu < TimeUnit.MILLISECONDS.toNanos(5), "idle progress thread used " + idleCpu / 1000 + " µs CPU");
        comm.barrier();
    }

    private static void awaitAllreduce(final Communicator comm, final Buf buf, final boolean timed)
    {
        await(comm.iallreduce(buf, ReduceOp.MAX), timed, "an allreduce");
    }

    /**
     * await(), which runs the operations on this thread, or a timed await, which leaves them to the progress thread.
     * The message is built only on failure: {@code resources} counts what this allocates.
     */
    private static void await(final CollectiveRequest request, final boolean timed, final String what)
    {
        if (!timed)
        {
            request.await();
        }
        else if (!request.await(60, TimeUnit.SECONDS))
        {
            throw new AssertionError("timed await of " + what + " timed out");
        }
    }

    private static Thread progressThread()
    {
        return Thread.getAllStackTraces().keySet().stream().filter(t -> t.getName().startsWith("jccl-progress-"))
            .findFirst().orElseThrow(() -> new AssertionError("no progress thread"));
    }

    private static void check(final boolean condition, final String what)
    {
        if (!condition)
        {
            throw new AssertionError(what);
        }
    }
}
