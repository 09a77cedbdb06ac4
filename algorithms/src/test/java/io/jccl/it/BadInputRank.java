package io.jccl.it;

import io.jccl.Buf;
import io.jccl.Communicator;
import io.jccl.DataType;
import io.jccl.Jccl;
import io.jccl.ReduceOp;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;

/**
 * One rank of {@link BadInputTest}: makes every bad call of {@link #CASES} (both ranks the same call, or the root
 * alone for arguments only the root checks), expects the named exception with the named words, and after each one
 * proves the communicator still works with a checked allreduce. Then two threads on one communicator, then every
 * method after close. Prints "CASE name PASS" or "CASE name FAIL why" per case.
 */
public final class BadInputRank
{
    /** Who makes a bad call: every rank, or only rank 0 (the root; the others do not call). */
    enum Who
    {
        ALL, ROOT
    }

    record Case(String name, Who who, Class<? extends Throwable> expected, String words, Consumer<Communicator> call)
    {
    }

    static final List<Case> CASES = cases();

    /** Cases run after the table, by name: threads, and every public method after close. */
    static final List<String> LATER = List.of("second thread refused", "closed: send", "closed: recv",
        "closed: sendRecv", "closed: isend", "closed: irecv", "closed: barrier", "closed: broadcast", "closed: reduce",
        "closed: allreduce", "closed: gather", "closed: gatherv", "closed: scatter", "closed: scatterv",
        "closed: allgather", "closed: allgatherv",
        "closed: reduceScatter", "closed: reduceScatterv", "closed: alltoall", "closed: alltoallv", "closed: scan",
        "closed: exscan", "closed: allocateShared", "closed: peerView", "closed: iallreduce", "closed: ibarrier",
        "closed: split");

    private BadInputRank()
    {
    }

    private static List<Case> cases()
    {
        final Class<IllegalArgumentException> iae = IllegalArgumentException.class;
        final List<Case> c = new ArrayList<>();
        final int[] four = new int[4];
        final Buf ok = Buf.of(new int[4]);
        final Buf readOnly = Buf.of(ByteBuffer.allocateDirect(16), DataType.INT32).asReadOnly();
        final Buf readOnlyBuffer = Buf.of(ByteBuffer.allocateDirect(16).asReadOnlyBuffer(), DataType.INT32);
        // point-to-point
        c.add(new Case("send null buffer", Who.ALL, iae, "send buffer is null", m -> m.send(null, peer(m), 0)));
        c.add(new Case("send to rank size", Who.ALL, iae, "destination rank 2 is outside 0..1",
            m -> m.send(ok, m.size(), 0)));
        c.add(new Case("send to rank -1", Who.ALL, iae, "destination rank -1 is outside", m -> m.send(ok, -1, 0)));
        c.add(new Case("send negative tag", Who.ALL, iae, "tag -1 is negative", m -> m.send(ok, peer(m), -1)));
        c.add(new Case("recv null buffer", Who.ALL, iae, "receive buffer is null", m -> m.recv(null, peer(m), 0)));
        c.add(new Case("recv from rank size", Who.ALL, iae, "source rank 2 is outside",
            m -> m.recv(Buf.of(four), m.size(), 0)));
        c.add(new Case("recv into read-only view", Who.ALL, iae, "receive buffer is read-only",
            m -> m.recv(readOnly, peer(m), 0)));
        c.add(new Case("recv into read-only ByteBuffer", Who.ALL, iae, "receive buffer is read-only",
            m -> m.recv(readOnlyBuffer, peer(m), 0)));
        c.add(new Case("recv negative tag", Who.ALL, iae, "tag -5 is negative", m -> m.recv(ok, peer(m), -5)));
        c.add(new Case("sendRecv null receive", Who.ALL, iae, "receive buffer is null",
            m -> m.sendRecv(ok, peer(m), 0, null, peer(m), 0)));
        c.add(new Case("sendRecv bad destination", Who.ALL, iae, "destination rank 7 is outside",
            m -> m.sendRecv(ok, 7, 0, ok, peer(m), 0)));
        c.add(new Case("sendRecv negative receive tag", Who.ALL, iae, "tag -2 is negative",
            m -> m.sendRecv(ok, peer(m), 0, Buf.of(four), peer(m), -2)));
        c.add(new Case("isend null buffer", Who.ALL, iae, "send buffer is null", m -> m.isend(null, peer(m), 0)));
        c.add(new Case("isend negative tag", Who.ALL, iae, "tag -1 is negative", m -> m.isend(ok, peer(m), -1)));
        c.add(new Case("irecv into read-only", Who.ALL, iae, "receive buffer is read-only",
            m -> m.irecv(readOnly, peer(m), 0)));
        c.add(new Case("irecv from rank -3", Who.ALL, iae, "source rank -3 is outside",
            m -> m.irecv(Buf.of(four), -3, 0)));
        // rooted collectives
        c.add(new Case("broadcast null buffer", Who.ALL, iae, "buffer is null", m -> m.broadcast(null, 0)));
        c.add(new Case("broadcast root -1", Who.ALL, iae, "root -1 is outside 0..1",
            m -> m.broadcast(Buf.of(four), -1)));
        c.add(new Case("broadcast root size", Who.ALL, iae, "root 2 is outside 0..1",
            m -> m.broadcast(Buf.of(four), m.size())));
        c.add(new Case("broadcast read-only", Who.ALL, iae, "buffer is read-only", m -> m.broadcast(readOnly, 0)));
        c.add(new Case("reduce null send", Who.ALL, iae, "send buffer is null",
            m -> m.reduce(null, Buf.of(four), ReduceOp.SUM, 0)));
        c.add(new Case("reduce null op", Who.ALL, iae, "reduction op is null",
            m -> m.reduce(ok, Buf.of(four), null, 0)));
        c.add(new Case("reduce root out of range", Who.ALL, iae, "root 9 is outside",
            m -> m.reduce(ok, Buf.of(four), ReduceOp.SUM, 9)));
        c.add(new Case("reduce receive too small on root", Who.ROOT, iae,
            "receive buffer holds 3 elements, 4 are needed",
            m -> m.reduce(ok, Buf.of(new int[3]), ReduceOp.SUM, 0)));
        c.add(new Case("reduce receive null on root", Who.ROOT, iae, "receive buffer is null",
            m -> m.reduce(ok, null, ReduceOp.SUM, 0)));
        c.add(new Case("reduce receive read-only on root", Who.ROOT, iae, "receive buffer is read-only",
            m -> m.reduce(ok, readOnly, ReduceOp.SUM, 0)));
        c.add(new Case("gather receive too small on root", Who.ROOT, iae, "receive buffer (size × send count) holds 7",
            m -> m.gather(ok, Buf.of(new int[7]), 0)));
        c.add(new Case("gather root -2", Who.ALL, iae, "root -2 is outside", m -> m.gather(ok, Buf.of(four), -2)));
        c.add(new Case("gather types differ on root", Who.ROOT, iae, "send buffer holds int32, receive buffer float32",
            m -> m.gather(ok, Buf.of(new float[8]), 0)));
        c.add(new Case("scatter send too small on root", Who.ROOT, iae, "send buffer (size × receive count) holds 4",
            m -> m.scatter(ok, Buf.of(new int[4]), 0)));
        c.add(new Case("scatter receive read-only", Who.ALL, iae, "receive buffer is read-only",
            m -> m.scatter(Buf.of(new int[8]), readOnly, 0)));
        c.add(new Case("gatherv counts null", Who.ALL, iae, "counts must have one entry per rank (2), not null",
            m -> m.gatherv(ok, Buf.of(new int[8]), null, null, 0)));
        c.add(new Case("gatherv negative count", Who.ALL, iae, "counts[1] is negative: -4",
            m -> m.gatherv(ok, Buf.of(new int[8]), new int[] {4, -4}, null, 0)));
        c.add(new Case("gatherv root 2", Who.ALL, iae, "root 2 is outside",
            m -> m.gatherv(ok, Buf.of(new int[8]), new int[] {4, 4}, null, 2)));
        c.add(new Case("gatherv send below its count", Who.ALL, iae, "]) holds 4 elements, 5 are needed",
            m -> m.gatherv(ok, Buf.of(new int[10]), new int[] {5, 5}, null, 0)));
        c.add(new Case("gatherv receive too small on root", Who.ROOT, iae,
            "receive buffer holds 7 elements; block 1 needs [4, 8)",
            m -> m.gatherv(ok, Buf.of(new int[7]), new int[] {4, 4}, null, 0)));
        c.add(new Case("gatherv send overlaps another block on root", Who.ROOT, iae, "exactly this rank's block", m ->
        {
            final int[] a = new int[8];
            m.gatherv(Buf.of(a, 1, 4), Buf.of(a), new int[] {4, 4}, null, 0);
        }));
        c.add(new Case("scatterv send too small on root", Who.ROOT, iae,
            "send buffer holds 4 elements; block 1 needs [4, 8)",
            m -> m.scatterv(Buf.of(new int[4]), ok, new int[] {4, 4}, null, 0)));
        c.add(new Case("scatterv displacement out of range on root", Who.ROOT, iae, "block 1 needs [6, 10)",
            m -> m.scatterv(Buf.of(new int[8]), ok, new int[] {4, 4}, new int[] {0, 6}, 0)));
        c.add(new Case("scatterv receive below its count", Who.ALL, iae, "receive buffer (counts[",
            m -> m.scatterv(Buf.of(new int[10]), ok, new int[] {5, 5}, null, 0)));
        c.add(new Case("scatterv receive read-only", Who.ALL, iae, "receive buffer is read-only",
            m -> m.scatterv(Buf.of(new int[8]), readOnly, new int[] {4, 4}, null, 0)));
        // unrooted collectives
        c.add(new Case("allreduce null send", Who.ALL, iae, "send buffer is null",
            m -> m.allreduce(null, Buf.of(four), ReduceOp.SUM)));
        c.add(new Case("allreduce null receive", Who.ALL, iae, "receive buffer is null",
            m -> m.allreduce(ok, null, ReduceOp.SUM)));
        c.add(new Case("allreduce null op", Who.ALL, iae, "reduction op is null",
            m -> m.allreduce(ok, Buf.of(four), null)));
        c.add(new Case("allreduce bitwise of floats", Who.ALL, iae, "bxor reduces integer types (int8, int32, " +
            "int64, uint8, uint32, uint64), not float32", m -> m.allreduce(Buf.of(new float[4]), Buf.of(new float[4]), ReduceOp.BXOR)));
        c.add(new Case("reduce bitwise of floats", Who.ALL, iae, "band reduces integer types",
            m -> m.reduce(Buf.of(new double[4]), Buf.of(new double[4]), ReduceOp.BAND, 0)));
        c.add(new Case("allreduce receive too small", Who.ALL, iae, "receive buffer holds 3 elements, 4 are needed",
            m -> m.allreduce(ok, Buf.of(new int[3]), ReduceOp.SUM)));
        c.add(new Case("allreduce read-only receive", Who.ALL, iae, "receive buffer is read-only",
            m -> m.allreduce(ok, readOnlyBuffer, ReduceOp.SUM)));
        c.add(new Case("allreduce types differ", Who.ALL, iae, "send buffer holds int32, receive buffer int64",
            m -> m.allreduce(ok, Buf.of(new long[4]), ReduceOp.SUM)));
        c.add(new Case("allreduce partial overlap", Who.ALL, iae, "overlap without being the same memory", m ->
        {
            final int[] a = new int[8];
            m.allreduce(Buf.of(a, 0, 4), Buf.of(a, 2, 4), ReduceOp.SUM);
        }));
        c.add(new Case("allgather receive too small", Who.ALL, iae, "receive buffer (size × send count) holds 4",
            m -> m.allgather(ok, Buf.of(new int[4]))));
        c.add(new Case("allgather send overlaps another block", Who.ALL, iae, "exactly this rank's block", m ->
        {
            final int[] a = new int[8];
            m.allgather(Buf.of(a, 1, 4), Buf.of(a));
        }));
        c.add(new Case("allgatherv counts null", Who.ALL, iae, "counts must have one entry per rank (2), not null",
            m -> m.allgatherv(ok, Buf.of(new int[8]), null, null)));
        c.add(new Case("allgatherv counts of 3", Who.ALL, iae, "counts must have one entry per rank (2), not 3",
            m -> m.allgatherv(ok, Buf.of(new int[8]), new int[] {1, 1, 1}, null)));
        c.add(new Case("allgatherv negative count", Who.ALL, iae, "counts[1] is negative: -4",
            m -> m.allgatherv(ok, Buf.of(new int[8]), new int[] {4, -4}, null)));
        c.add(new Case("allgatherv overflowing counts", Who.ALL, iae, "receive buffer holds 8 elements; block 0 needs",
            m -> m.allgatherv(ok, Buf.of(new int[8]), new int[] {Integer.MAX_VALUE, Integer.MAX_VALUE}, null)));
        c.add(new Case("allgatherv displacement out of range", Who.ALL, iae, "block 1 needs [6, 10)",
            m -> m.allgatherv(ok, Buf.of(new int[8]), new int[] {4, 4}, new int[] {0, 6})));
        c.add(new Case("allgatherv negative displacement", Who.ALL, iae, "displacement[0] is negative",
            m -> m.allgatherv(ok, Buf.of(new int[8]), new int[] {4, 4}, new int[] {-1, 4})));
        c.add(new Case("allgatherv send below its count", Who.ALL, iae, "send buffer (counts[",
            m -> m.allgatherv(ok, Buf.of(new int[10]), new int[] {5, 5}, null)));
        c.add(new Case("reduceScatter send too small", Who.ALL, iae, "send buffer (size × receive count) holds 4",
            m -> m.reduceScatter(ok, Buf.of(new int[4]), ReduceOp.SUM)));
        c.add(new Case("reduceScatter null op", Who.ALL, iae, "reduction op is null",
            m -> m.reduceScatter(Buf.of(new int[8]), ok, null)));
        c.add(new Case("reduceScatterv counts null", Who.ALL, iae, "counts must have one entry per rank",
            m -> m.reduceScatterv(Buf.of(new int[8]), ok, null, ReduceOp.SUM)));
        c.add(new Case("reduceScatterv counts beyond send", Who.ALL, iae, "send buffer holds 8 elements; block 1",
            m -> m.reduceScatterv(Buf.of(new int[8]), ok, new int[] {4, 5}, ReduceOp.SUM)));
        c.add(new Case("alltoall not divisible", Who.ALL, iae, "not divisible into 2 equal blocks",
            m -> m.alltoall(Buf.of(new int[5]), Buf.of(new int[6]))));
        c.add(new Case("alltoall overlap", Who.ALL, iae, "alltoall send and receive buffers overlap", m ->
        {
            final int[] a = new int[8];
            m.alltoall(Buf.of(a), Buf.of(a));
        }));
        c.add(new Case("alltoall receive too small", Who.ALL, iae, "receive buffer holds 2 elements, 4 are needed",
            m -> m.alltoall(ok, Buf.of(new int[2]))));
        c.add(new Case("alltoallv send counts null", Who.ALL, iae, "sendCounts must have one entry per rank",
            m -> m.alltoallv(ok, null, null, Buf.of(new int[4]), new int[] {2, 2}, null)));
        c.add(new Case("alltoallv receive displacement out of range", Who.ALL, iae, "receive buffer holds 4 elements",
            m -> m.alltoallv(ok, new int[] {2, 2}, null, Buf.of(new int[4]), new int[] {2, 2}, new int[] {0, 3})));
        c.add(new Case("scan null send", Who.ALL, iae, "send buffer is null",
            m -> m.scan(null, Buf.of(four), ReduceOp.SUM)));
        c.add(new Case("scan receive too small", Who.ALL, iae, "receive buffer holds 3 elements, 4 are needed",
            m -> m.scan(ok, Buf.of(new int[3]), ReduceOp.SUM)));
        c.add(new Case("scan bitwise of floats", Who.ALL, iae, "band reduces integer types",
            m -> m.scan(Buf.of(new float[4]), Buf.of(new float[4]), ReduceOp.BAND)));
        c.add(new Case("exscan null op", Who.ALL, iae, "reduction op is null",
            m -> m.exscan(ok, Buf.of(four), null)));
        c.add(new Case("exscan types differ", Who.ALL, iae, "send buffer holds int32, receive buffer int64",
            m -> m.exscan(ok, Buf.of(new long[4]), ReduceOp.SUM)));
        c.add(new Case("exscan read-only receive", Who.ALL, iae, "receive buffer is read-only",
            m -> m.exscan(ok, readOnlyBuffer, ReduceOp.MAX)));
        // non-blocking collectives: what the call alone shows is refused at once, the rest fails the request
        c.add(new Case("iallreduce null send", Who.ALL, iae, "send buffer is null",
            m -> m.iallreduce(null, Buf.of(four), ReduceOp.SUM)));
        c.add(new Case("iallreduce null op", Who.ALL, iae, "reduction op is null",
            m -> m.iallreduce(ok, Buf.of(four), null)));
        c.add(new Case("iallreduce bitwise of floats", Who.ALL, iae, "bor reduces integer types",
            m -> m.iallreduce(Buf.of(new float[4]), Buf.of(new float[4]), ReduceOp.BOR)));
        c.add(new Case("ireduceScatter bitwise of floats", Who.ALL, iae, "band reduces integer types",
            m -> m.ireduceScatter(Buf.of(new float[4]), Buf.of(new float[2]), ReduceOp.BAND)));
        c.add(new Case("iscan bitwise of floats", Who.ALL, iae, "bxor reduces integer types",
            m -> m.iscan(Buf.of(new float[4]), Buf.of(new float[4]), ReduceOp.BXOR)));
        c.add(new Case("iexscan receive too small, at await", Who.ALL, iae,
            "receive buffer holds 3 elements, 4 are needed",
            m -> m.iexscan(ok, Buf.of(new int[3]), ReduceOp.SUM).await()));
        c.add(new Case("ibroadcast root out of range", Who.ALL, iae, "root 5 is outside 0..1",
            m -> m.ibroadcast(Buf.of(four), 5)));
        c.add(new Case("ireduce root -1", Who.ALL, iae, "root -1 is outside",
            m -> m.ireduce(ok, Buf.of(four), ReduceOp.SUM, -1)));
        c.add(new Case("iallreduce receive too small, at await", Who.ALL, iae,
            "receive buffer holds 3 elements, 4 are needed",
            m -> m.iallreduce(ok, Buf.of(new int[3]), ReduceOp.SUM).await()));
        c.add(new Case("ialltoall not divisible, at await", Who.ALL, iae, "not divisible into 2 equal blocks",
            m -> m.ialltoall(Buf.of(new int[5]), Buf.of(new int[6])).await()));
        // shared memory and algorithm control
        c.add(new Case("allocateShared negative count", Who.ALL, iae, "negative count -1",
            m -> m.allocateShared(-1, DataType.INT32)));
        c.add(new Case("allocateShared null type", Who.ALL, iae, "type is null", m -> m.allocateShared(4, null)));
        c.add(new Case("allocateShared overflowing count", Who.ALL, iae, "overflows a byte count",
            m -> m.allocateShared(Long.MAX_VALUE / 4, DataType.INT64)));
        c.add(new Case("allocateShared beyond the region", Who.ALL, iae, "symmetric memory exhausted",
            m -> m.allocateShared(1L << 40, DataType.INT8)));
        c.add(new Case("peerView of a heap array", Who.ALL, iae, "symmetric memory this rank allocated",
            m -> m.peerView(Buf.of(new int[4]), 0)));
        c.add(new Case("peerView null buffer", Who.ALL, iae, "buffer is null", m -> m.peerView(null, 0)));
        c.add(new Case("peerView rank out of range", Who.ALL, iae, "peer 2 is outside 0..1",
            m -> m.peerView(m.allocateShared(4, DataType.INT32), 2)));
        c.add(new Case("withAlgorithm null", Who.ALL, iae, "no algorithm named", m -> m.withAlgorithm(null)));
        c.add(new Case("withAlgorithm unknown", Who.ALL, iae, "no collective has an algorithm named 'nonesuch'",
            m -> m.withAlgorithm("nonesuch")));
        return c;
    }

    public static void main(final String[] args) throws Exception
    {
        final Communicator comm = Jccl.connect();
        for (final Case c : CASES)
        {
            if (c.who() == Who.ROOT && comm.rank() != 0)
            {
                report(c.name(), usable(comm));
                continue;
            }
            report(c.name(), expect(c.expected(), c.words(), () -> c.call().accept(comm), comm));
        }
        report("second thread refused", secondThread(comm));
        final Buf shared = comm.allocateShared(4, DataType.INT32);
        comm.close();
        final Buf ok = Buf.of(new int[4]);
        final Buf big = Buf.of(new int[8]);
        final Class<IllegalStateException> ise = IllegalStateException.class;
        final String closed = "is closed";
        final int peer = comm.rank() ^ 1;
        final List<Runnable> afterClose = List.of(
            () -> comm.send(ok, peer, 0), () -> comm.recv(ok, peer, 0), () -> comm.sendRecv(ok, peer, 0, ok, peer, 0),
            () -> comm.isend(ok, peer, 0), () -> comm.irecv(ok, peer, 0), comm::barrier, () -> comm.broadcast(ok, 0),
            () -> comm.reduce(ok, ok, ReduceOp.SUM, 0), () -> comm.allreduce(ok, ReduceOp.SUM),
            () -> comm.gather(ok, big, 0), () -> comm.gatherv(ok, big, new int[] {4, 4}, null, 0),
            () -> comm.scatter(big, ok, 0), () -> comm.scatterv(big, ok, new int[] {4, 4}, null, 0),
            () -> comm.allgather(ok, big),
            () -> comm.allgatherv(ok, big, new int[] {4, 4}, null),
            () -> comm.reduceScatter(big, ok, ReduceOp.SUM),
            () -> comm.reduceScatterv(big, ok, new int[] {4, 4}, ReduceOp.SUM), () -> comm.alltoall(ok, ok),
            () -> comm.alltoallv(ok, new int[] {2, 2}, null, big, new int[] {2, 2}, null),
            () -> comm.scan(ok, ReduceOp.SUM), () -> comm.exscan(ok, ReduceOp.SUM),
            () -> comm.allocateShared(4, DataType.INT32), () -> comm.peerView(shared, peer),
            () -> comm.iallreduce(ok, ReduceOp.SUM), comm::ibarrier,
            () -> comm.split(0, 0));
        for (int i = 0; i < afterClose.size(); i++)
        {
            report(LATER.get(i + 1), expect(ise, closed, afterClose.get(i), null));
        }
    }

    /**
     * A second thread calls while the first waits inside a receive: refused with IllegalStateException, and the
     * waiting call completes. Rank 0's helper thread receives; rank 1 sends once rank 0 has been refused.
     */
    private static String secondThread(final Communicator comm) throws Exception
    {
        final int peer = comm.rank() ^ 1;
        final int[] in = new int[1];
        final AtomicReference<Throwable> failure = new AtomicReference<>();
        if (comm.rank() == 0)
        {
            final Thread helper = new Thread(() ->
            {
                try
                {
                    comm.recv(Buf.of(in), peer, 77);
                }
                catch (final Throwable t)
                {
                    failure.set(t);
                }
            }, "helper");
            helper.start();
            String result = "the helper never parked inside its receive";
            final long deadline = System.nanoTime() + 20_000_000_000L;
            while (System.nanoTime() < deadline && helper.isAlive())
            {
                // parked: inside the receive, past the spin and yield phases, so the communicator is in use
                if (helper.getState() == Thread.State.TIMED_WAITING)
                {
                    result = expect(IllegalStateException.class, "is in use by thread 'helper': a communicator " +
                        "serves one thread at a time", comm::barrier, null);
                    if (result == null)
                    {
                        result = expect(IllegalStateException.class, "is in use by thread 'helper'",
                            () -> comm.send(Buf.of(in), peer, 1), null);
                    }
                    break;
                }
                Thread.sleep(1);
            }
            helper.join();
            final String after = usable(comm);
            if (failure.get() != null)
            {
                return "helper failed: " + failure.get();
            }
            if (in[0] != 42)
            {
                return "helper received " + in[0];
            }
            return result != null ? result : after;
        }
        // rank 1: a refusal on rank 0 needs the helper still waiting, so send only after a pause
        Thread.sleep(3000);
        comm.send(Buf.of(new int[] {42}), peer, 77);
        return usable(comm);
    }

    /** Null when {@code call} throws {@code type} with {@code words} and the communicator then works, else why not. */
    private static String expect(final Class<? extends Throwable> type, final String words, final Runnable call,
        final Communicator check)
    {
        try
        {
            call.run();
            return "no exception";
        }
        catch (final Throwable t)
        {
            if (!type.isInstance(t))
            {
                return "threw " + t;
            }
            if (t.getMessage() == null || !t.getMessage().contains(words))
            {
                return "message '" + t.getMessage() + "' lacks '" + words + "'";
            }
        }
        return check == null ? null : usable(check);
    }

    /** A correct allreduce after the bad call: null when its result is right. */
    private static String usable(final Communicator comm)
    {
        final int[] v = {comm.rank() + 1};
        comm.allreduce(Buf.of(v), ReduceOp.SUM);
        final int want = comm.size() * (comm.size() + 1) / 2;
        return v[0] == want ? null : "allreduce afterwards gave " + v[0] + ", not " + want;
    }

    private static void report(final String name, final String failure)
    {
        System.out.println("CASE " + name + (failure == null ? " PASS" : " FAIL " + failure));
    }

    private static int peer(final Communicator comm)
    {
        return comm.rank() ^ 1;
    }
}
