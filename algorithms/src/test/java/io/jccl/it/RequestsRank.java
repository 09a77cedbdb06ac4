package io.jccl.it;

import io.jccl.Buf;
import io.jccl.CollectiveRequest;
import io.jccl.Communicator;
import io.jccl.DataType;
import io.jccl.Jccl;
import io.jccl.JcclException;
import io.jccl.PeerFailedException;
import io.jccl.PersistentReceiveRequest;
import io.jccl.PersistentRequest;
import io.jccl.ReceiveRequest;
import io.jccl.ReduceOp;
import io.jccl.Request;

import java.nio.ByteBuffer;
import java.util.Arrays;

import static io.jccl.Communicator.ANY_SOURCE;
import static io.jccl.Communicator.ANY_TAG;
import static io.jccl.it.P2pRank.check;
import static io.jccl.it.P2pRank.expect;

/**
 * One rank of {@link RequestsTest}: {@code waitAny}, {@code testAny}, {@code waitAll} and {@code testAll} over
 * point-to-point requests and non-blocking collectives, persistent requests, and cancelled receives. Runs the scenario
 * named by its first argument; prints "OK scenario rank R" when every check held, and throws (exit 1) otherwise.
 */
public final class RequestsRank
{
    private static final int GO_TAG = 6;
    private static final int VALUE_TAG = 5;

    private RequestsRank()
    {
    }

    public static void main(final String[] args)
    {
        final String scenario = args[0];
        try (Communicator comm = Jccl.connect())
        {
            switch (scenario)
            {
                case "completion" -> completion(comm);
                case "killed" -> killed(comm);
                default -> throw new IllegalArgumentException("unknown scenario " + scenario);
            }
            System.out.println("OK " + scenario + " rank " + comm.rank());
        }
    }

    private static void completion(final Communicator comm)
    {
        inTheOrderTheyComplete(comm);
        comm.barrier();
        mixedWithCollectives(comm);
        comm.barrier();
        overlappedWithTestAll(comm);
        comm.barrier();
        failures(comm);
        comm.barrier();
        cancelled(comm);
        comm.barrier();
        persistent(comm);
        comm.barrier();
        some(comm);
        comm.barrier();
        badArguments(comm);
    }

    /**
     * Rank 0 posts a receive from every worker, then lets the workers send one at a time, last rank first: each
     * waitAny returns the index of the one receive that can complete, and sets its entry to null; nothing completes
     * before the first go, and an array of nulls gives -1.
     */
    private static void inTheOrderTheyComplete(final Communicator comm)
    {
        final int workers = comm.size() - 1;
        if (comm.rank() == 0)
        {
            final int[][] values = new int[workers][1];
            final ReceiveRequest[] receives = new ReceiveRequest[workers];
            final Request[] requests = new Request[workers];
            for (int w = 1; w <= workers; w++)
            {
                receives[w - 1] = comm.irecv(Buf.of(values[w - 1]), w, VALUE_TAG);
                requests[w - 1] = receives[w - 1];
            }
            check(comm.testAny(requests) == -1, "testAny found a receive complete before any worker sent");
            for (int w = workers; w >= 1; w--)
            {
                comm.send(Buf.of(new int[] {w}), w, GO_TAG);
                final int index = comm.waitAny(requests);
                check(index == w - 1, "waitAny returned " + index + " when only rank " + w + " had sent");
                check(requests[index] == null, "waitAny left its entry " + index);
                check(values[index][0] == 10 * w, "rank " + w + "'s value arrived as " + values[index][0]);
                final ReceiveRequest r = receives[index];
                check(r.source() == w && r.tag() == VALUE_TAG && r.bytes() == 4, "the receive from rank " + w +
                    " reports source " + r.source() + ", tag " + r.tag() + ", " + r.bytes() + " bytes");
            }
            check(comm.waitAny(requests) == -1, "waitAny over nulls did not return -1");
            check(comm.testAny(requests) == -1, "testAny over nulls did not return -1");
            check(comm.testAll(requests), "testAll over nulls was false");
            comm.waitAll(requests);
            check(comm.waitAny() == -1 && comm.testAll(), "an empty array");
        }
        else
        {
            final int[] go = new int[1];
            comm.recv(Buf.of(go), 0, GO_TAG);
            comm.send(Buf.of(new int[] {10 * go[0]}), 0, VALUE_TAG);
        }
    }

    /**
     * One array of a receive from any source with any tag, a send, a non-blocking allreduce and a non-blocking
     * barrier, completed by waitAll in whatever order they complete, twice: with messages of 16 bytes, and of 1.2 MB,
     * more than the ring holds.
     */
    private static void mixedWithCollectives(final Communicator comm)
    {
        final int me = comm.rank();
        final int size = comm.size();
        final int right = (me + 1) % size;
        final int left = (me + size - 1) % size;
        for (final int n : new int[] {4, 300_000})
        {
            final int[] out = new int[n];
            final int[] in = new int[n];
            Arrays.fill(out, 1000 * me + n % 7);
            final long[] sum = {me, 1};
            final ReceiveRequest receive = comm.irecv(Buf.of(in), ANY_SOURCE, ANY_TAG);
            final CollectiveRequest allreduce = comm.iallreduce(Buf.of(sum), ReduceOp.SUM);
            final Request[] requests = {
                receive, comm.isend(Buf.of(out), right, 100 + me), allreduce, comm.ibarrier()};
            comm.waitAll(requests);
            check(Arrays.stream(requests).allMatch(r -> r == null), "waitAll left entries: " +
                Arrays.toString(requests));
            check(receive.source() == left && receive.tag() == 100 + left && receive.bytes() == 4L * n,
                "the receive from any source took source " + receive.source() + ", tag " + receive.tag() + ", " +
                receive.bytes() + " bytes");
            for (final int v : in)
            {
                check(v == 1000 * left + n % 7, "received " + v + " from rank " + left);
            }
            check(sum[0] == (long) size * (size - 1) / 2 && sum[1] == size, "allreduce gave " +
                Arrays.toString(sum));
        }
    }

    /**
     * A 1 MiB message round the ring and a non-blocking allgather, polled with testAll until it says true: every
     * result right, every entry null.
     */
    private static void overlappedWithTestAll(final Communicator comm)
    {
        final int me = comm.rank();
        final int size = comm.size();
        final int n = 1 << 20;
        final ByteBuffer toRight = ByteBuffer.allocateDirect(n);
        final ByteBuffer fromLeft = ByteBuffer.allocateDirect(n);
        for (int i = 0; i < n; i++)
        {
            toRight.put(i, (byte) (i * 31 + me));
        }
        final double[] gathered = new double[size * 1000];
        final double[] mine = new double[1000];
        Arrays.fill(mine, me + 0.25);
        final Request[] requests = {
            comm.irecv(Buf.of(fromLeft, DataType.INT8), (me + size - 1) % size, 7),
            comm.isend(Buf.of(toRight, DataType.INT8), (me + 1) % size, 7),
            comm.iallgather(Buf.of(mine), Buf.of(gathered))};
        long polls = 0;
        while (!comm.testAll(requests))
        {
            polls++;
        }
        check(Arrays.stream(requests).allMatch(r -> r == null), "testAll said true and left entries");
        final int left = (me + size - 1) % size;
        for (int i = 0; i < n; i++)
        {
            check(fromLeft.get(i) == (byte) (i * 31 + left), "byte " + i + " from rank " + left);
        }
        for (int i = 0; i < gathered.length; i++)
        {
            check(gathered[i] == i / 1000 + 0.25, "allgather element " + i + " is " + gathered[i]);
        }
        System.out.println("testAll polls: " + polls);
    }

    /**
     * A request that fails has its entry set to null and throws from waitAny, leaving the communicator usable: a
     * truncated receive, and a non-blocking allreduce whose receive buffer is too small on every rank.
     */
    private static void failures(final Communicator comm)
    {
        final int me = comm.rank();
        if (me == 0)
        {
            final Request[] requests = {comm.irecv(Buf.of(new int[2]), 1, 8)};
            expect(JcclException.class, () -> comm.waitAny(requests), "message truncated");
            check(requests[0] == null, "a failed receive's entry was left");
        }
        else if (me == 1)
        {
            comm.send(Buf.of(new int[16]), 0, 8);
        }
        final Request[] requests = {comm.iallreduce(Buf.of(new int[8]), Buf.of(new int[4]), ReduceOp.SUM)};
        expect(IllegalArgumentException.class, () -> comm.waitAny(requests), "non-blocking allreduce failed");
        check(requests[0] == null, "a failed collective's entry was left");
        final int[] value = {me};
        comm.allreduce(Buf.of(value), ReduceOp.MAX);
        check(value[0] == comm.size() - 1, "the communicator after the failures gave " + value[0]);
    }

    /**
     * Receives that no message has matched are withdrawn (rank 1 sends only once told to): complete at once, no
     * bytes, and the messages they would have taken go to the next receives; one that matches a message already
     * waiting as unexpected cannot be, and completes with it.
     */
    private static void cancelled(final Communicator comm)
    {
        final int me = comm.rank();
        if (me == 0)
        {
            final int[] got = new int[1];
            final ReceiveRequest fromOne = comm.irecv(Buf.of(got), 1, 12);
            final ReceiveRequest fromAny = comm.irecv(Buf.of(got), ANY_SOURCE, ANY_TAG);
            final Request[] requests = {comm.irecv(Buf.of(got), 1, 13), fromAny};
            check(fromOne.cancel() && fromAny.cancel(), "an unmatched receive was not withdrawn");
            check(fromOne.isCancelled() && fromOne.test() && fromOne.bytes() == -1 && fromAny.source() == ANY_SOURCE,
                "a withdrawn receive: test " + fromOne.test() + ", " + fromOne.bytes() + " bytes, source " +
                fromAny.source());
            check(!fromOne.cancel(), "a withdrawn receive was withdrawn again");
            check(comm.waitAny(requests) == 1, "waitAny did not return the withdrawn receive");
            comm.send(Buf.of(new int[] {1}), 1, 14);
            check(comm.waitAny(requests) == 0 && got[0] == 113, "the receive beside the withdrawn ones got " + got[0]);
            // taking rank 1's later message reads past its tag-12 one, which waits as unexpected, already matched
            final int[] later = new int[1];
            comm.recv(Buf.of(later), 1, 15);
            check(later[0] == 115, "the tag-15 message arrived as " + later[0]);
            final ReceiveRequest matched = comm.irecv(Buf.of(got), 1, 12);
            check(!matched.cancel() && !matched.isCancelled(), "a receive that matched a message was withdrawn");
            matched.await();
            check(got[0] == 112 && matched.bytes() == 4, "the withdrawn receives' message went to " + got[0]);
        }
        else if (me == 1)
        {
            comm.recv(Buf.of(new int[1]), 0, 14);
            comm.send(Buf.of(new int[] {113}), 0, 13);
            comm.send(Buf.of(new int[] {112}), 0, 12);
            comm.send(Buf.of(new int[] {115}), 0, 15);
        }
    }

    /**
     * A persistent send and receive round the ring (the receive from any source with any tag), started again for 200
     * steps: every message right, the sender and tag told each time, and waitAll's entries left in place, inactive
     * until started again. Before the first start they are complete and skipped; starting one whose last start has
     * not completed is refused (a receive of a tag nobody sends), as is start() on an isend's request; a started
     * persistent receive can be withdrawn, then started again.
     */
    private static void persistent(final Communicator comm)
    {
        final int me = comm.rank();
        final int size = comm.size();
        final int right = (me + 1) % size;
        final int left = (me + size - 1) % size;
        final long[] out = new long[3];
        final long[] in = new long[3];
        final PersistentReceiveRequest receive = comm.recvInit(Buf.of(in), ANY_SOURCE, ANY_TAG);
        final PersistentRequest send = comm.sendInit(Buf.of(out), right, 21);
        final PersistentRequest[] both = {receive, send};
        check(receive.test() && send.test(), "a persistent request was not complete before its first start");
        check(comm.testAll(both) && comm.waitAny(both) == -1, "inactive persistent requests were waited for");
        for (int step = 0; step < 200; step++)
        {
            out[0] = me;
            out[1] = step;
            out[2] = 1000L * me + step;
            comm.startAll(both);
            comm.waitAll(both);
            check(both[0] == receive && both[1] == send, "waitAll nulled a persistent request's entry");
            check(in[0] == left && in[1] == step && in[2] == 1000L * left + step, "step " + step + " received " +
                Arrays.toString(in));
            check(receive.source() == left && receive.tag() == 21 && receive.bytes() == 24 && !receive.isCancelled(),
                "step " + step + ": source " + receive.source() + ", tag " + receive.tag() + ", " + receive.bytes() +
                " bytes");
            check(comm.waitAny(both) == -1, "waitAny took a persistent request already seen complete");
        }
        // a receive no message matches (a tag nobody sends): started, refused a second start, withdrawn, twice
        final PersistentReceiveRequest idle = comm.recvInit(Buf.of(in), left, 99);
        for (int round = 0; round < 2; round++)
        {
            idle.start();
            expect(IllegalStateException.class, idle::start, "whose last start has not completed");
            check(idle.cancel() && idle.isCancelled() && idle.test() && idle.bytes() == -1, "round " + round +
                ": the started receive was not withdrawn");
        }
        final Request once = comm.isend(Buf.of(new int[] {7}), me, 22);
        expect(IllegalStateException.class, ((PersistentRequest) once)::start, "not persistent");
        comm.recv(Buf.of(new int[1]), me, 22);
        once.await();
    }

    /**
     * Rank 0 posts a receive from every worker, one of them persistent. testSome finds none complete before the
     * workers send; once every worker has sent (a barrier after their sends), one waitSome completes all of them,
     * each index once, nulls every entry but the persistent one's, and the next call finds none left. Too small an
     * index array is refused.
     */
    private static void some(final Communicator comm)
    {
        final int workers = comm.size() - 1;
        if (comm.rank() == 0)
        {
            final int[][] values = new int[workers][1];
            final Request[] requests = new Request[workers];
            for (int w = 1; w <= workers; w++)
            {
                requests[w - 1] = w == 1 ? comm.recvInit(Buf.of(values[0]), 1, VALUE_TAG) :
                    comm.irecv(Buf.of(values[w - 1]), w, VALUE_TAG);
            }
            final PersistentRequest first = (PersistentRequest)requests[0];
            first.start();
            final int[] indices = new int[workers];
            check(comm.testSome(indices, requests) == 0, "testSome found a receive complete before any worker sent");
            expect(IllegalArgumentException.class, () -> comm.waitSome(new int[workers - 1], requests),
                "indices has room for " + (workers - 1) + " of " + workers);
            comm.barrier();
            comm.barrier();
            final int completed = comm.waitSome(indices, requests);
            check(completed == workers, "waitSome after every send completed " + completed + " of " + workers);
            final boolean[] seen = new boolean[workers];
            for (int i = 0; i < completed; i++)
            {
                check(!seen[indices[i]], "waitSome returned index " + indices[i] + " twice");
                seen[indices[i]] = true;
                check(values[indices[i]][0] == 20 * (indices[i] + 1), "rank " + (indices[i] + 1) + "'s value " +
                    "arrived as " + values[indices[i]][0]);
                check((requests[indices[i]] == null) == (indices[i] != 0), "entry " + indices[i] + " after waitSome");
            }
            check(comm.waitSome(indices, requests) == -1 && comm.testSome(indices, requests) == -1,
                "waitSome or testSome found a request left");
        }
        else
        {
            comm.barrier();
            comm.send(Buf.of(new int[] {20 * comm.rank()}), 0, VALUE_TAG);
            comm.barrier();
        }
    }

    /** A null array, and a request of another communicator, are refused; that communicator completes its own. */
    private static void badArguments(final Communicator comm)
    {
        expect(NullPointerException.class, () -> comm.waitAny((Request[]) null), "requests");
        try (Communicator sub = comm.split(0, comm.rank()))
        {
            final int[] got = new int[1];
            final Request[] requests = {
                sub.irecv(Buf.of(got), sub.rank(), 3), sub.isend(Buf.of(new int[] {33}), sub.rank(), 3)};
            expect(IllegalArgumentException.class, () -> comm.waitAny(requests[0]), "is not this communicator's");
            expect(IllegalArgumentException.class, () -> comm.testAll(null, requests[1]), "requests[1] is not");
            sub.waitAll(requests);
            check(got[0] == 33, "the sub-communicator's message to itself arrived as " + got[0]);
        }
    }

    /**
     * Rank 1 kills itself while rank 0 waits on receives from it and from any source: waitAny throws, naming rank 1
     * and saying it was in waitAny, in well under the operation timeout.
     */
    private static void killed(final Communicator comm)
    {
        comm.barrier();
        if (comm.rank() == 1)
        {
            try
            {
                new ProcessBuilder("kill", "-9", Long.toString(ProcessHandle.current().pid())).start().waitFor();
                Thread.sleep(10_000);
            }
            catch (final Exception ex)
            {
                throw new AssertionError(ex);
            }
            throw new AssertionError("still running after kill -9");
        }
        final long start = System.nanoTime();
        final Request[] requests = {
            comm.irecv(Buf.of(new int[1]), 1, 9), comm.irecv(Buf.of(new int[1]), ANY_SOURCE, ANY_TAG)};
        try
        {
            comm.waitAny(requests);
            throw new AssertionError("waitAny returned with its peer dead");
        }
        catch (final PeerFailedException ex)
        {
            System.out.println("DETECTED peer=" + ex.peer() + " ms=" + (System.nanoTime() - start) / 1_000_000 +
                " message=" + ex.getMessage());
            System.out.flush();
            System.exit(3);
        }
    }
}
