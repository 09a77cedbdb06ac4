package io.jccl.it;

import io.jccl.Buf;
import io.jccl.Communicator;
import io.jccl.DataType;
import io.jccl.Jccl;
import io.jccl.PeerFailedException;
import io.jccl.ReceiveRequest;
import io.jccl.ReduceOp;
import io.jccl.Request;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;

import static io.jccl.Communicator.ANY_SOURCE;
import static io.jccl.Communicator.ANY_TAG;
import static io.jccl.it.P2pRank.check;
import static io.jccl.it.P2pRank.expect;

/**
 * One rank of {@link AnySourceTest}: receives from {@link Communicator#ANY_SOURCE} and with
 * {@link Communicator#ANY_TAG}. Runs the scenario named by its first argument; prints "OK scenario rank R" when every
 * check held, and throws (exit 1) otherwise.
 */
public final class AnySourceRank
{
    /** Message sizes of the workers' stream: one line, line-flagged, ring records, single copy, beyond the ring. */
    private static final int[] SIZES = {16, 200, 4096, 100_000, 2_500_000};
    private static final int WORK_TAG = 7;

    private AnySourceRank()
    {
    }

    public static void main(final String[] args)
    {
        final String scenario = args[0];
        try (Communicator comm = Jccl.connect())
        {
            switch (scenario)
            {
                case "matching" -> matching(comm);
                case "closed" -> closed(comm);
                default -> throw new IllegalArgumentException("unknown scenario " + scenario);
            }
            System.out.println("OK " + scenario + " rank " + comm.rank());
        }
    }

    private static void matching(final Communicator comm)
    {
        workers(comm);
        comm.barrier();
        postedOrder(comm);
        comm.barrier();
        unexpectedFirst(comm);
        comm.barrier();
        self(comm);
        comm.barrier();
        ringBySendRecv(comm);
        comm.barrier();
        probing(comm);
        comm.barrier();
        anyTag(comm);
        comm.barrier();
        badArguments(comm);
    }

    /**
     * Every other rank sends rank 0 a stream of messages of every size, from heap arrays and direct buffers; rank 0
     * takes them from any source as they come, and checks that each one's sender is the source it was told and that
     * every sender's messages came in the order sent.
     */
    private static void workers(final Communicator comm)
    {
        final int perWorker = 3 * SIZES.length;
        if (comm.rank() == 0)
        {
            final byte[] heap = new byte[SIZES[SIZES.length - 1]];
            final ByteBuffer direct = ByteBuffer.allocateDirect(heap.length).order(ByteOrder.LITTLE_ENDIAN);
            final int[] next = new int[comm.size()];
            for (int m = 0; m < perWorker * (comm.size() - 1); m++)
            {
                final boolean toHeap = (m & 1) == 0;
                final long length = toHeap ? comm.recv(Buf.of(heap), ANY_SOURCE, WORK_TAG) :
                    comm.recv(Buf.of(direct.clear(), DataType.INT8), ANY_SOURCE, WORK_TAG);
                final int source = comm.lastSource();
                final byte[] got = toHeap ? heap : new byte[(int) length];
                if (!toHeap)
                {
                    direct.get(0, got, 0, (int) length);
                }
                final ByteBuffer header = ByteBuffer.wrap(got).order(ByteOrder.LITTLE_ENDIAN);
                check(source >= 1 && source < comm.size(), "lastSource() " + source + " after message " + m);
                check(header.getInt(0) == source, "message " + m + " from rank " + header.getInt(0) +
                    " reported as from rank " + source);
                check(header.getInt(4) == next[source], "rank " + source + "'s message " + header.getInt(4) +
                    " arrived where its message " + next[source] + " was due");
                check(length == SIZES[next[source] % SIZES.length], "message " + m + " is " + length + " bytes");
                checkPattern(got, (int) length, source, next[source]);
                next[source]++;
            }
            System.out.println("workers: " + perWorker * (comm.size() - 1) + " messages from any source");
        }
        else
        {
            for (int i = 0; i < perWorker; i++)
            {
                final byte[] message = message(SIZES[i % SIZES.length], comm.rank(), i);
                if (i % 3 == 1)
                {
                    final ByteBuffer direct = ByteBuffer.allocateDirect(message.length);
                    direct.put(message).flip();
                    comm.send(Buf.of(direct, DataType.INT8), 0, WORK_TAG);
                }
                else
                {
                    comm.send(Buf.of(message), 0, WORK_TAG);
                }
            }
        }
    }

    /**
     * A message goes to the receive posted first among those it matches, for its source or for any: rank 1's two
     * messages fill rank 0's receives in the order they were posted, whichever way round.
     */
    private static void postedOrder(final Communicator comm)
    {
        for (int round = 0; round < 2; round++)
        {
            final int tag = 11 + round;
            if (comm.rank() == 0)
            {
                final int[] a = new int[2];
                final int[] b = new int[2];
                final ReceiveRequest first;
                final ReceiveRequest second;
                if (round == 0)
                {
                    first = comm.irecv(Buf.of(a), ANY_SOURCE, tag);
                    second = comm.irecv(Buf.of(b), 1, tag);
                    check(first.source() == ANY_SOURCE, "an unmatched receive's source is " + first.source());
                }
                else
                {
                    first = comm.irecv(Buf.of(a), 1, tag);
                    second = comm.irecv(Buf.of(b), ANY_SOURCE, tag);
                }
                comm.barrier();
                first.await();
                second.await();
                check(a[1] == 0 && b[1] == 1, "round " + round + ": the receives took messages " + a[1] + " and " +
                    b[1] + ", not in the order they were posted");
                check(first.source() == 1 && second.source() == 1, "round " + round + ": sources " + first.source() +
                    " and " + second.source());
            }
            else
            {
                comm.barrier();
                if (comm.rank() == 1)
                {
                    comm.send(Buf.of(new int[] {1, 0}), 0, tag);
                    comm.send(Buf.of(new int[] {1, 1}), 0, tag);
                }
            }
        }
    }

    /**
     * Messages rank 0 had to buffer before anyone asked for them are found by a receive from any source: rank 1's tag
     * 21 message is read into the unexpected list by a receive of its later tag 22 one.
     */
    private static void unexpectedFirst(final Communicator comm)
    {
        if (comm.rank() == 1)
        {
            comm.send(Buf.of(new int[] {21}), 0, 21);
            comm.send(Buf.of(new int[] {22}), 0, 22);
        }
        else if (comm.rank() == 0)
        {
            final int[] m = new int[1];
            comm.recv(Buf.of(m), 1, 22);
            check(m[0] == 22, "tag 22 got " + m[0]);
            comm.recv(Buf.of(m), ANY_SOURCE, 21);
            check(m[0] == 21 && comm.lastSource() == 1, "tag 21 got " + m[0] + " from " + comm.lastSource());
        }
    }

    /** A rank's messages to itself match its receives from any source, blocking and posted. */
    private static void self(final Communicator comm)
    {
        final int me = comm.rank();
        final int[] m = new int[1];
        final Request sent = comm.isend(Buf.of(new int[] {41}), me, 41);
        check(comm.recv(Buf.of(m), ANY_SOURCE, 41) == 4 && m[0] == 41 && comm.lastSource() == me,
            "a message to itself came back as " + m[0] + " from " + comm.lastSource());
        sent.await();
        final ReceiveRequest posted = comm.irecv(Buf.of(m), ANY_SOURCE, 42);
        comm.isend(Buf.of(new int[] {42}), me, 42).await();
        posted.await();
        check(m[0] == 42 && posted.source() == me, "a posted receive got " + m[0] + " from " + posted.source());
    }

    /** sendRecv around the ring, receiving from any source: only the rank before sends to each. */
    private static void ringBySendRecv(final Communicator comm)
    {
        final int me = comm.rank();
        final int p = comm.size();
        final int[] in = new int[1024];
        for (int round = 0; round < 20; round++)
        {
            final int[] out = new int[1024];
            java.util.Arrays.fill(out, me * 1000 + round);
            final long got = comm.sendRecv(Buf.of(out), (me + 1) % p, 51, Buf.of(in), ANY_SOURCE, 51);
            final int before = (me + p - 1) % p;
            check(got == 4096 && comm.lastSource() == before && in[0] == before * 1000 + round &&
                in[1023] == in[0], "round " + round + ": got " + in[0] + " from " + comm.lastSource());
        }
    }

    /**
     * Probes: messages of lengths rank 0 does not know, received into buffers sized by probes from any source; a probe
     * that looks past messages of other tags (a single-copy one among them), one that a posted receive's claim makes
     * look further, and iprobe before and after its message is sent.
     */
    private static void probing(final Communicator comm)
    {
        final int me = comm.rank();
        if (me == 0)
        {
            check(comm.iprobe(ANY_SOURCE, 74) == -1, "iprobe found a message nobody sent yet");
            for (int m = 1; m < comm.size(); m++)
            {
                final long length = comm.probe(ANY_SOURCE, 71);
                final int source = comm.lastSource();
                check(length == unknownLength(source), "probe said " + length + " bytes from rank " + source);
                final byte[] exact = new byte[(int) length];
                check(comm.recv(Buf.of(exact), source, 71) == length && comm.lastSource() == source,
                    "the probed message from rank " + source);
                checkPattern(exact, exact.length, source, 71);
            }
            final ReceiveRequest claimed = comm.irecv(Buf.of(new byte[8]), 1, 75);
            comm.barrier();
            check(comm.probe(1, 73) == 50 && comm.lastSource() == 1, "probe past a 100 KB message of tag 72");
            final byte[] large = new byte[100_000];
            check(comm.recv(Buf.of(large), 1, 72) == large.length, "the tag 72 message after the probe");
            checkPattern(large, large.length, 1, 72);
            check(comm.recv(Buf.of(new byte[50]), 1, 73) == 50, "the probed tag 73 message");
            check(comm.probe(1, 75) == 16, "a probe took the message a posted receive claimed");
            claimed.await();
            check(claimed.bytes() == 8, "the posted receive got " + claimed.bytes() + " bytes");
            check(comm.recv(Buf.of(new byte[16]), 1, 75) == 16, "the second tag 75 message");
            long seen = -1;
            for (final long deadline = System.nanoTime() + 10_000_000_000L; seen < 0 && System.nanoTime() < deadline; )
            {
                seen = comm.iprobe(ANY_SOURCE, 74);
            }
            check(seen == 4 * comm.size(), "iprobe said " + seen);
            comm.recv(Buf.of(new int[comm.size()]), comm.lastSource(), 74);
        }
        else
        {
            comm.send(Buf.of(message(unknownLength(me), me, 71)), 0, 71);
            comm.barrier();
            if (me == 1)
            {
                final ByteBuffer direct = ByteBuffer.allocateDirect(100_000);
                direct.put(message(100_000, 1, 72)).flip();
                comm.send(Buf.of(direct, DataType.INT8), 0, 72);
                comm.send(Buf.of(new byte[50]), 0, 73);
                comm.send(Buf.of(new byte[8]), 0, 75);
                comm.send(Buf.of(new byte[16]), 0, 75);
                comm.send(Buf.of(new int[comm.size()]), 0, 74);
            }
        }
    }

    /** A length rank 0 learns only by probing. */
    private static int unknownLength(final int rank)
    {
        return 1000 * rank + 7 * rank * rank + 13;
    }

    /**
     * Receives with {@link Communicator#ANY_TAG}: every other rank's messages of five tags reach rank 0, taken from any
     * source with any tag, in the order each sender sent them and with their tags; a receive for any tag posted
     * before a ring allreduce and a binomial broadcast (collectives of point-to-point messages) takes none of theirs;
     * between receives for any tag and for a tag the one posted first wins, whichever way round; an unexpected
     * message is found by its place, a probe for any tag names the tag, and sendRecv takes any tag round a ring.
     */
    private static void anyTag(final Communicator comm)
    {
        final int me = comm.rank();
        final int p = comm.size();
        final int perSender = 12;
        final int[] m = new int[2];
        if (me == 0)
        {
            final int[] next = new int[p];
            for (int i = 0; i < (p - 1) * perSender; i++)
            {
                final long got = comm.recv(Buf.of(m), ANY_SOURCE, ANY_TAG);
                final int from = comm.lastSource();
                check(got == 8 && m[0] == from && m[1] == next[from] && comm.lastTag() == streamTag(from, m[1]),
                    "message " + i + " from any tag: " + m[0] + "/" + m[1] + " (tag " + comm.lastTag() + ") from " +
                    from + ", whose next was " + next[from]);
                next[from]++;
            }
        }
        else
        {
            for (int k = 0; k < perSender; k++)
            {
                comm.send(Buf.of(new int[] {me, k}), 0, streamTag(me, k));
            }
        }

        final ReceiveRequest early = me == 0 ? comm.irecv(Buf.of(m), ANY_SOURCE, ANY_TAG) : null;
        final int[] sum = {me + 1, 1};
        comm.withAlgorithm("allreduce:ring").allreduce(Buf.of(sum), ReduceOp.SUM);
        final int[] root = {me == p - 1 ? 99 : 0};
        comm.withAlgorithm("broadcast:binomial").broadcast(Buf.of(root), p - 1);
        check(sum[0] == p * (p + 1) / 2 && sum[1] == p && root[0] == 99, "the collectives beside a receive for any " +
            "tag gave " + sum[0] + ", " + sum[1] + " and " + root[0]);
        if (me == 1)
        {
            comm.send(Buf.of(new int[] {1, 77}), 0, 90);
        }
        if (me == 0)
        {
            early.await();
            check(early.source() == 1 && early.tag() == 90 && m[1] == 77, "a receive for any tag posted before the " +
                "collectives took " + m[0] + "/" + m[1] + " (tag " + early.tag() + ") from " + early.source());
        }
        comm.barrier();

        for (int round = 0; round < 2; round++)
        {
            if (me == 0)
            {
                final int[] a = new int[2];
                final int[] b = new int[2];
                final ReceiveRequest any;
                final ReceiveRequest tagged;
                if (round == 0)
                {
                    any = comm.irecv(Buf.of(a), 1, ANY_TAG);
                    tagged = comm.irecv(Buf.of(b), 1, 61);
                    check(any.tag() == ANY_TAG, "an unmatched receive's tag is " + any.tag());
                }
                else
                {
                    tagged = comm.irecv(Buf.of(b), 1, 61);
                    any = comm.irecv(Buf.of(a), 1, ANY_TAG);
                }
                comm.barrier();
                any.await();
                tagged.await();
                final boolean anyFirst = round == 0;
                check(a[1] == (anyFirst ? 0 : 1) && any.tag() == (anyFirst ? 61 : 62) && b[1] == (anyFirst ? 1 : 0) &&
                    tagged.tag() == 61, "round " + round + ": the receive for any tag took message " + a[1] +
                    " (tag " + any.tag() + "), the one for tag 61 message " + b[1]);
            }
            else
            {
                comm.barrier();
                if (me == 1)
                {
                    comm.send(Buf.of(new int[] {1, 0}), 0, 61);
                    comm.send(Buf.of(new int[] {1, 1}), 0, round == 0 ? 61 : 62);
                }
            }
        }
        comm.barrier();

        if (me == 0)
        {
            check(comm.iprobe(ANY_SOURCE, ANY_TAG) == -1, "iprobe for any tag found a message nobody sent");
        }
        comm.barrier();
        if (me == 1)
        {
            comm.send(Buf.of(new int[] {1, 64}), 0, 64);
            comm.send(Buf.of(new int[] {1, 65}), 0, 65);
            comm.send(Buf.of(new int[5]), 0, 66);
        }
        else if (me == 0)
        {
            comm.recv(Buf.of(m), 1, 65);
            check(m[1] == 65, "tag 65 got " + m[1]);
            comm.recv(Buf.of(m), ANY_SOURCE, ANY_TAG);
            check(m[1] == 64 && comm.lastTag() == 64, "the unexpected message got " + m[1] + " (tag " +
                comm.lastTag() + ")");
            final long length = comm.probe(1, ANY_TAG);
            check(length == 20 && comm.lastTag() == 66 && comm.lastSource() == 1, "probe for any tag: " + length +
                " bytes, tag " + comm.lastTag() + " from " + comm.lastSource());
            final int[] five = new int[5];
            check(comm.recv(Buf.of(five), comm.lastSource(), comm.lastTag()) == 20, "the probed message");
        }
        comm.barrier();

        final int[] in = new int[1];
        comm.sendRecv(Buf.of(new int[] {me}), (me + 1) % p, 80 + me, Buf.of(in), ANY_SOURCE, ANY_TAG);
        final int left = (me - 1 + p) % p;
        check(in[0] == left && comm.lastSource() == left && comm.lastTag() == 80 + left, "sendRecv for any tag got " +
            in[0] + " (tag " + comm.lastTag() + ") from " + comm.lastSource());
    }

    /** The tag of message {@code k} of rank {@code sender}'s stream: five tags, taken in turn. */
    private static int streamTag(final int sender, final int k)
    {
        return 100 + 10 * sender + k % 5;
    }

    private static void badArguments(final Communicator comm)
    {
        final byte[] b = new byte[8];
        expect(IllegalArgumentException.class, () -> comm.recv(Buf.of(b), -2, 0), "not ANY_SOURCE");
        expect(IllegalArgumentException.class, () -> comm.probe(comm.size(), 0), "outside");
        expect(IllegalArgumentException.class, () -> comm.iprobe(0, -2), "not ANY_TAG");
        expect(IllegalArgumentException.class, () -> comm.recv(Buf.of(b), 0, -3), "not ANY_TAG");
        expect(IllegalArgumentException.class, () -> comm.send(Buf.of(b), 0, ANY_TAG), "negative");
        expect(IllegalArgumentException.class, () -> comm.isend(Buf.of(b), 0, ANY_TAG), "negative");
        expect(IllegalArgumentException.class, () -> comm.irecv(Buf.of(b), comm.size(), 0), "outside");
        expect(IllegalArgumentException.class, () -> comm.send(Buf.of(b), ANY_SOURCE, 0), "outside");
        expect(IllegalArgumentException.class, () -> comm.isend(Buf.of(b), ANY_SOURCE, 0), "outside");
    }

    /**
     * Rank 0 waits for messages from any rank while the others close one by one: it takes rank 2's late message,
     * though rank 1 closed long before, and fails, naming the ranks closed, once every other rank has closed.
     */
    private static void closed(final Communicator comm)
    {
        final int[] m = new int[1];
        if (comm.rank() == 0)
        {
            comm.barrier();
            comm.recv(Buf.of(m), ANY_SOURCE, 61);
            check(m[0] == 61 && comm.lastSource() == comm.size() - 1, "got " + m[0] + " from " + comm.lastSource());
            final long start = System.nanoTime();
            try
            {
                comm.recv(Buf.of(m), ANY_SOURCE, 62);
                throw new AssertionError("a receive from any source returned after every other rank closed");
            }
            catch (final PeerFailedException ex)
            {
                check(ex.getMessage().contains("every other rank closed"), ex.getMessage());
                check(ex.getMessage().contains("waiting on any rank"), ex.getMessage());
                System.out.println("CLOSED after " + (System.nanoTime() - start) / 1_000_000 + " ms: " +
                    ex.getMessage());
            }
        }
        else
        {
            comm.barrier();
            if (comm.rank() == comm.size() - 1)
            {
                sleep(300);
                comm.send(Buf.of(new int[] {61}), 0, 61);
            }
        }
    }

    private static byte[] message(final int length, final int rank, final int index)
    {
        final byte[] b = new byte[length];
        final ByteBuffer header = ByteBuffer.wrap(b).order(ByteOrder.LITTLE_ENDIAN);
        header.putInt(0, rank).putInt(4, index);
        for (int i = 8; i < length; i++)
        {
            b[i] = patternByte(i, rank, index);
        }
        return b;
    }

    private static void checkPattern(final byte[] b, final int length, final int rank, final int index)
    {
        for (int i = 8; i < length; i++)
        {
            if (b[i] != patternByte(i, rank, index))
            {
                throw new AssertionError("rank " + rank + "'s message " + index + " differs at byte " + i);
            }
        }
    }

    private static byte patternByte(final int i, final int rank, final int index)
    {
        return (byte) (i * 13 + rank * 31 + index * 7);
    }

    private static void sleep(final long ms)
    {
        try
        {
            Thread.sleep(ms);
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
        }
    }
}
