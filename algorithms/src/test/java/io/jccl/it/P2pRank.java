package io.jccl.it;

import io.jccl.Buf;
import io.jccl.Communicator;
import io.jccl.DataType;
import io.jccl.Jccl;
import io.jccl.JcclException;
import io.jccl.PeerFailedException;
import io.jccl.ReduceOp;
import io.jccl.Request;
import io.jccl.spi.Elements;
import org.agrona.concurrent.UnsafeBuffer;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Arrays;

/**
 * One rank of the point-to-point integration tests ({@link PointToPointIT}): runs the scenario named by its first
 * argument and exits 0 when every check held. Prints "OK scenario" on success; failures throw (exit 1).
 */
public final class P2pRank
{
    private P2pRank()
    {
    }

    public static void main(final String[] args)
    {
        final String scenario = args[0];
        try (Communicator comm = Jccl.connect())
        {
            switch (scenario)
            {
                case "small" -> small(comm);
                case "stream" -> stream(comm);
                case "large" -> large(comm);
                case "tags" -> tags(comm);
                case "nonblocking" -> nonBlocking(comm);
                case "buffers" -> buffers(comm);
                case "badargs" -> badArguments(comm);
                case "singlecopy" -> singleCopy(comm);
                case "idlepair" -> idlePair(comm);
                case "stagedheap" -> stagedHeap(comm);
                case "collectiveheap" -> collectiveHeap(comm);
                case "forreduction" -> forReduction(comm);
                case "killcopy" -> killDuringSingleCopy(comm);
                case "kill" -> killOne(comm, Integer.parseInt(args[1]), "-9");
                case "stop" -> killOne(comm, Integer.parseInt(args[1]), "-STOP");
                default -> throw new IllegalArgumentException("unknown scenario " + scenario);
            }
            System.out.println("OK " + scenario + " rank " + comm.rank());
        }
    }

    /** Every ordered pair exchanges messages of sizes around the one-line and chunk boundaries. */
    private static void small(final Communicator comm)
    {
        final int[] sizes = {0, 1, 7, 8, 39, 40, 41, 64, 96, 97, 100, 432, 433, 1000, 4096, 65_537};
        for (int peer = 0; peer < comm.size(); peer++)
        {
            if (peer == comm.rank())
            {
                continue;
            }
            for (final int n : sizes)
            {
                final byte[] out = pattern(n, comm.rank(), peer);
                final byte[] in = new byte[n + 3];
                final long got = comm.sendRecv(Buf.of(out), peer, 5, Buf.of(in), peer, 5);
                check(got == n, "received " + got + " bytes, expected " + n);
                check(Arrays.equals(Arrays.copyOf(in, n), pattern(n, peer, comm.rank())), "payload of " + n);
            }
        }
    }

    /**
     * Rank 2k streams messages of 0 to 1199 bytes to rank 2k + 1, which checks every byte: with a small ring, records
     * of one line, line-flagged ones and plain ones follow each other over the same lines lap after lap. Every other
     * message waits for an acknowledgement, so the reader is waiting when the next one arrives and meets records
     * while they are being written. Each message's bytes are its own, so a record read before all its lines arrived,
     * or a stale line taken for a new one, shows as a wrong byte.
     */
    private static void stream(final Communicator comm)
    {
        final int messages = 40_000;
        final int peer = comm.rank() ^ 1;
        if (peer >= comm.size())
        {
            return;
        }
        final byte[] buffer = new byte[1200];
        final byte[] ack = new byte[1];
        for (int m = 0; m < messages; m++)
        {
            final int n = (int) ((m * 37L) % buffer.length);
            final boolean acknowledged = (m & 1) == 0;
            if ((comm.rank() & 1) == 0)
            {
                fillMessage(buffer, n, m);
                comm.send(Buf.of(buffer, 0, n), peer, 3);
                if (acknowledged)
                {
                    comm.recv(Buf.of(ack), peer, 4);
                }
            }
            else
            {
                final long got = comm.recv(Buf.of(buffer), peer, 3);
                check(got == n, "message " + m + ": received " + got + " bytes, expected " + n);
                for (int i = 0; i < n; i++)
                {
                    check(buffer[i] == messageByte(m, i), "message " + m + " byte " + i + " of " + n);
                }
                if (acknowledged)
                {
                    comm.send(Buf.of(ack), peer, 4);
                }
            }
        }
    }

    private static void fillMessage(final byte[] b, final int n, final int message)
    {
        for (int i = 0; i < n; i++)
        {
            b[i] = messageByte(message, i);
        }
    }

    private static byte messageByte(final int message, final int i)
    {
        final long h = message * 0x9E3779B97F4A7C15L ^ i * 0xC2B2AE3D27D4EB4FL;
        return (byte) (h ^ h >>> 29);
    }

    /** 64 MiB around the ring of ranks: streams through rings far smaller than the message. */
    private static void large(final Communicator comm)
    {
        final int n = 64 << 20;
        final int next = (comm.rank() + 1) % comm.size();
        final int prev = (comm.rank() + comm.size() - 1) % comm.size();
        final long[] out = new long[n / 8];
        for (int i = 0; i < out.length; i++)
        {
            out[i] = mix(comm.rank(), i);
        }
        final long[] in = new long[n / 8];
        comm.sendRecv(Buf.of(out), next, 1, Buf.of(in), prev, 1);
        for (int i = 0; i < in.length; i++)
        {
            if (in[i] != mix(prev, i))
            {
                throw new AssertionError("word " + i + " of the 64 MiB message from rank " + prev + " is wrong");
            }
        }
        // Blocking send and receive of a message larger than the ring, rank 0 to the last rank.
        if (comm.rank() == 0)
        {
            comm.send(Buf.of(out), comm.size() - 1, 2);
        }
        else if (comm.rank() == comm.size() - 1)
        {
            Arrays.fill(in, 0);
            comm.recv(Buf.of(in), 0, 2);
            for (int i = 0; i < in.length; i++)
            {
                check(in[i] == mix(0, i), "blocking 64 MiB word " + i);
            }
        }
    }

    /** Order per (source, tag) holds when tags interleave and are received in another order. */
    private static void tags(final Communicator comm)
    {
        final int last = comm.size() - 1;
        final int perTag = 50;
        if (comm.rank() == 0)
        {
            for (int i = 0; i < perTag; i++)
            {
                for (int tag = 1; tag <= 3; tag++)
                {
                    comm.send(Buf.of(new int[] {tag, i}), last, tag);
                }
            }
            // a large message behind small ones of another tag
            comm.send(Buf.of(new byte[3 << 20]), last, 9);
            comm.send(Buf.of(new int[] {7, 7}), last, 7);
        }
        else if (comm.rank() == last)
        {
            final int[] m = new int[2];
            comm.recv(Buf.of(m), 0, 7);
            check(m[0] == 7, "tag 7 overtook the large tag 9 message");
            for (int tag = 3; tag >= 1; tag--)
            {
                for (int i = 0; i < perTag; i++)
                {
                    comm.recv(Buf.of(m), 0, tag);
                    check(m[0] == tag && m[1] == i, "tag " + tag + " message " + i + " arrived as " +
                        Arrays.toString(m));
                }
            }
            final byte[] big = new byte[3 << 20];
            check(comm.recv(Buf.of(big), 0, 9) == big.length, "large message length");
        }
    }

    /** Receives posted before sends, many in flight, completed while "computing"; no deadlock on big swaps. */
    private static void nonBlocking(final Communicator comm)
    {
        final int peer = comm.rank() ^ 1;
        if (peer >= comm.size())
        {
            return;
        }
        final int n = 16 << 20;
        final float[] out = new float[n / 4];
        final float[] in = new float[n / 4];
        Arrays.fill(out, comm.rank() + 0.5f);
        final Request recv = comm.irecv(Buf.of(in), peer, 3);
        final Request send = comm.isend(Buf.of(out), peer, 3);
        long spins = 0;
        while (!(recv.test() & send.test()))
        {
            spins++;
        }
        check(recv.bytes() == n, "irecv length " + recv.bytes());
        for (final float f : in)
        {
            check(f == peer + 0.5f, "irecv payload");
        }
        // many small requests in flight, completed out of order
        final Request[] reqs = new Request[64];
        final int[][] bufs = new int[32][1];
        for (int i = 0; i < 32; i++)
        {
            reqs[i] = comm.irecv(Buf.of(bufs[i]), peer, 4);
        }
        for (int i = 0; i < 32; i++)
        {
            reqs[32 + i] = comm.isend(Buf.of(new int[] {i}), peer, 4);
        }
        for (int i = reqs.length - 1; i >= 0; i--)
        {
            reqs[i].await();
        }
        for (int i = 0; i < 32; i++)
        {
            check(bufs[i][0] == i, "request " + i + " got " + bufs[i][0]);
        }
        System.out.println("progress polls while overlapping: " + spins);
    }

    /** Every buffer kind, as sender and receiver. */
    private static void buffers(final Communicator comm)
    {
        final int peer = comm.rank() ^ 1;
        if (peer >= comm.size())
        {
            return;
        }
        final int n = 1000;
        roundTrip(comm, peer, "byte[]", Buf.of(new byte[n]), Buf.of(new byte[n]));
        roundTrip(comm, peer, "short[] fp16", Buf.of(new short[n], DataType.FLOAT16), Buf.of(new short[n],
            DataType.FLOAT16));
        roundTrip(comm, peer, "int[]", Buf.of(new int[n]), Buf.of(new int[n]));
        roundTrip(comm, peer, "long[] slice", Buf.of(new long[n + 10], 5, n), Buf.of(new long[n + 10], 3, n));
        roundTrip(comm, peer, "float[]", Buf.of(new float[n]), Buf.of(new float[n]));
        roundTrip(comm, peer, "double[]", Buf.of(new double[n]), Buf.of(new double[n]));
        roundTrip(comm, peer, "direct ByteBuffer", Buf.of(ByteBuffer.allocateDirect(4 * n).order(
            ByteOrder.nativeOrder()), DataType.FLOAT32), Buf.of(ByteBuffer.allocateDirect(4 * n), DataType.FLOAT32));
        roundTrip(comm, peer, "heap ByteBuffer", Buf.of(ByteBuffer.allocate(8 * n), DataType.INT64),
            Buf.of(ByteBuffer.allocate(8 * n), DataType.INT64));
        roundTrip(comm, peer, "Agrona UnsafeBuffer", Buf.of(new UnsafeBuffer(ByteBuffer.allocateDirect(4 * n)), 0,
            4 * n, DataType.INT32), Buf.of(new UnsafeBuffer(new byte[4 * n + 16]), 16, 4 * n, DataType.INT32));
        roundTrip(comm, peer, "shared (symmetric)", comm.allocateShared(n, DataType.FLOAT64),
            comm.allocateShared(n, DataType.FLOAT64));
    }

    private static void roundTrip(final Communicator comm, final int peer, final String kind, final Buf out,
        final Buf in)
    {
        final long bytes = out.bytes();
        for (long i = 0; i < bytes; i++)
        {
            Elements.putBits(DataType.INT8, out.base(), out.offset(), i, i * 7 + comm.rank());
        }
        comm.sendRecv(out, peer, 11, in, peer, 11);
        for (long i = 0; i < bytes; i++)
        {
            check(Elements.getBits(DataType.INT8, in.base(), in.offset(), i) == ((i * 7 + peer) & 0xFF),
                kind + " byte " + i);
        }
    }

    /**
     * Large messages from off-heap buffers, which travel single-copy (rendezvous) when the JVM can: around the ring of
     * ranks both ways at once, into heap arrays, around the threshold, out of order (an unexpected rendezvous), two
     * ranks that both send first, and a truncated receive that leaves the communicator usable.
     */
    private static void singleCopy(final Communicator comm)
    {
        final int next = (comm.rank() + 1) % comm.size();
        final int prev = (comm.rank() + comm.size() - 1) % comm.size();
        for (final int n : new int[] {(256 << 10) - 8, 256 << 10, (3 << 20) + 8, 64 << 20})
        {
            final ByteBuffer out = direct(n);
            fill(out, comm.rank());
            final ByteBuffer in = direct(n);
            comm.sendRecv(Buf.of(out, DataType.INT64), next, 1, Buf.of(in, DataType.INT64), prev, 1);
            verify(in, prev, "ring, " + n + " bytes off-heap");
            final long[] heap = new long[n / 8];
            comm.sendRecv(Buf.of(out, DataType.INT64), next, 2, Buf.of(heap), prev, 2);
            verify(ByteBuffer.wrap(toBytes(heap)).order(ByteOrder.nativeOrder()), prev, "ring, " + n +
                " bytes into a heap array");
        }
        final int peer = comm.rank() ^ 1;
        if (peer >= comm.size())
        {
            return;
        }
        final int n = 4 << 20;
        final ByteBuffer first = direct(n);
        final ByteBuffer second = direct(2 * n);
        fill(first, comm.rank());
        fill(second, comm.rank() + 100);
        // Both ranks send two messages first and receive them in the opposite order: the first arrives unexpected.
        final Request a = comm.isend(Buf.of(first, DataType.INT64), peer, 3);
        final Request b = comm.isend(Buf.of(second, DataType.INT64), peer, 4);
        final ByteBuffer inSecond = direct(2 * n);
        final ByteBuffer inFirst = direct(n);
        comm.recv(Buf.of(inSecond, DataType.INT64), peer, 4);
        comm.recv(Buf.of(inFirst, DataType.INT64), peer, 3);
        a.await();
        b.await();
        verify(inFirst, peer, "unexpected rendezvous");
        verify(inSecond, peer + 100, "rendezvous after an unexpected one");
        // Blocking sends in both directions before either receive.
        comm.send(Buf.of(first, DataType.INT64), peer, 5);
        final ByteBuffer back = direct(n);
        comm.recv(Buf.of(back, DataType.INT64), peer, 5);
        verify(back, peer, "send-send-recv-recv");
        // Truncation: the receiver throws, the sender completes, the next exchange works.
        if (comm.rank() % 2 == 0)
        {
            comm.send(Buf.of(first, DataType.INT64), peer, 6);
        }
        else
        {
            expect(JcclException.class, () -> comm.recv(Buf.of(direct(n / 2), DataType.INT64), peer, 6),
                "truncated");
        }
        exchange(comm, peer);
    }

    /**
     * Ranks 2 and up wait in a barrier, long enough to count as idle, while ranks 0 and 1 exchange off-heap messages
     * of 64 KiB every 100 ms: below the single-copy threshold of ranks that outnumber cores, at or above the one of
     * ranks with a core each, which the two left have once the others are idle. Every byte is checked; the barrier
     * then ends the idle ranks' wait.
     */
    private static void idlePair(final Communicator comm)
    {
        if (comm.rank() < 2)
        {
            final int peer = comm.rank() ^ 1;
            final int n = 64 << 10;
            final ByteBuffer out = direct(n);
            fill(out, comm.rank());
            final ByteBuffer in = direct(n);
            for (int round = 0; round < 10; round++)
            {
                try
                {
                    Thread.sleep(100);
                }
                catch (final InterruptedException ex)
                {
                    Thread.currentThread().interrupt();
                    throw new IllegalStateException(ex);
                }
                comm.sendRecv(Buf.of(out, DataType.INT64), peer, 7, Buf.of(in, DataType.INT64), peer, 7);
                verify(in, peer, "round " + round + ", " + n + " bytes");
            }
        }
        comm.barrier();
    }

    /**
     * Heap arrays' large messages, which go single copy out of an off-heap copy while the ring to their receiver
     * reads the slow pace: between ranks 2k and 2k + 1, first an exchange of 2.5 MiB through the ring, whose senders
     * read the pace, and of a byte; then exchanges of 2.5 MiB - 8 B,
     * 2.5 MiB and 8 MiB + 8 B from heap arrays into heap arrays and direct buffers, blocking sends of 8 MiB + 8 B both
     * ways before either receive (each arrives as an unexpected message), a truncated receive that leaves the pair
     * usable, and an isend, which keeps the ring (the copy belongs to blocking sends). Every word checked; the test
     * reads from the P2P trace which messages went out of a copy.
     */
    private static void stagedHeap(final Communicator comm)
    {
        final int peer = comm.rank() ^ 1;
        if (peer >= comm.size())
        {
            return;
        }
        final long[] first = new long[(5 << 19) / 8];
        comm.sendRecv(Buf.of(heap(5 << 19, comm.rank())), peer, 0, Buf.of(first), peer, 0);
        verify(first, peer, "the first 2.5 MiB");
        comm.sendRecv(Buf.of(new byte[1]), peer, 0, Buf.of(new byte[1]), peer, 0);
        for (final int n : new int[] {(5 << 19) - 8, 5 << 19, (8 << 20) + 8})
        {
            final long[] out = heap(n, comm.rank());
            final long[] in = new long[n / 8];
            comm.sendRecv(Buf.of(out), peer, 1, Buf.of(in), peer, 1);
            verify(in, peer, n + " bytes, heap to heap");
            final ByteBuffer direct = direct(n);
            comm.sendRecv(Buf.of(out), peer, 2, Buf.of(direct, DataType.INT64), peer, 2);
            verify(direct, peer, n + " bytes, heap to off-heap");
        }
        final int n = (8 << 20) + 8;
        final long[] out = heap(n, comm.rank());
        comm.send(Buf.of(out), peer, 3);
        final long[] back = new long[n / 8];
        comm.recv(Buf.of(back), peer, 3);
        verify(back, peer, "send-send-recv-recv");
        if (comm.rank() % 2 == 0)
        {
            comm.send(Buf.of(out), peer, 4);
        }
        else
        {
            expect(JcclException.class, () -> comm.recv(Buf.of(new long[n / 16]), peer, 4), "truncated");
        }
        final Request sent = comm.isend(Buf.of(out), peer, 5);
        comm.recv(Buf.of(back), peer, 5);
        sent.await();
        verify(back, peer, "isend");
    }

    /**
     * A collective's heap array message follows the engine's pace probe, not the ring: an allreduce the engine chooses
     * for runs the probe (with {@code jccl.pace.probe.bytes} 1), then a 2.5 MiB broadcast by binomial (forced) from
     * rank 0, checked everywhere; the test reads from the P2P trace whether its messages went out of a copy.
     */
    private static void collectiveHeap(final Communicator comm)
    {
        comm.allreduce(Buf.of(new float[2]), Buf.of(new float[2]), ReduceOp.SUM);
        final long[] data = comm.rank() == 0 ? heap(5 << 19, 0) : new long[(5 << 19) / 8];
        comm.broadcast(Buf.of(data), 0);
        verify(data, 0, "the broadcast");
    }

    /**
     * Two ranks: a 64 KiB message, then binomial reduces of 128 KiB and 512 KiB (int64 sum, off-heap buffers), each
     * checked at the root; the test reads from the P2P trace which of them travelled single copy.
     */
    private static void forReduction(final Communicator comm)
    {
        final int peer = comm.rank() ^ 1;
        final ByteBuffer message = direct(64 << 10);
        fill(message, 1);
        if (comm.rank() == 1)
        {
            comm.send(Buf.of(message, DataType.INT64), peer, 3);
        }
        else
        {
            final ByteBuffer in = direct(64 << 10);
            comm.recv(Buf.of(in, DataType.INT64), peer, 3);
            verify(in, 1, "64 KiB message");
        }
        for (final int n : new int[] {128 << 10, 512 << 10})
        {
            final ByteBuffer send = direct(n);
            fill(send, comm.rank());
            final ByteBuffer recv = direct(n);
            comm.reduce(Buf.of(send, DataType.INT64), Buf.of(recv, DataType.INT64), ReduceOp.SUM, 0);
            if (comm.rank() == 0)
            {
                for (int i = 0; i < n / 8; i++)
                {
                    check(recv.getLong(8 * i) == mix(0, i) + mix(1, i), n + " bytes reduced, word " + i);
                }
            }
        }
    }

    /**
     * Rank 0 streams 64 MiB off-heap messages to rank 1, which kills itself with -9 while they arrive: rank 0 must
     * name it within 2 s, whether it died before accepting a message or in the middle of copying one.
     */
    private static void killDuringSingleCopy(final Communicator comm)
    {
        final int n = 64 << 20;
        final ByteBuffer buffer = direct(n);
        if (comm.rank() == 1)
        {
            comm.recv(Buf.of(buffer, DataType.INT64), 0, 1);
            System.out.println("KILLING at=" + System.currentTimeMillis());
            System.out.flush();
            try
            {
                new ProcessBuilder("kill", "-9", Long.toString(ProcessHandle.current().pid())).start();
                while (true)
                {
                    comm.recv(Buf.of(buffer, DataType.INT64), 0, 1);
                }
            }
            catch (final java.io.IOException ex)
            {
                throw new AssertionError(ex);
            }
        }
        long start = System.nanoTime();
        try
        {
            while (true)
            {
                start = System.nanoTime();
                comm.send(Buf.of(buffer, DataType.INT64), 1, 1);
            }
        }
        catch (final PeerFailedException ex)
        {
            final long ms = (System.nanoTime() - start) / 1_000_000;
            System.out.println("DETECTED peer=" + ex.peer() + " ms=" + ms + " message=" + ex.getMessage());
            System.out.flush();
            System.exit(3);
        }
    }

    private static ByteBuffer direct(final int bytes)
    {
        return ByteBuffer.allocateDirect(bytes).order(ByteOrder.nativeOrder());
    }

    private static long[] heap(final int bytes, final int rank)
    {
        final long[] words = new long[bytes / 8];
        for (int i = 0; i < words.length; i++)
        {
            words[i] = mix(rank, i);
        }
        return words;
    }

    private static void verify(final long[] words, final int rank, final String what)
    {
        for (int i = 0; i < words.length; i++)
        {
            if (words[i] != mix(rank, i))
            {
                throw new AssertionError(what + ": word " + i + " from rank " + rank + " is wrong");
            }
        }
    }

    private static void fill(final ByteBuffer buffer, final int rank)
    {
        for (int i = 0; i < buffer.capacity() / 8; i++)
        {
            buffer.putLong(8 * i, mix(rank, i));
        }
    }

    private static void verify(final ByteBuffer buffer, final int rank, final String what)
    {
        for (int i = 0; i < buffer.capacity() / 8; i++)
        {
            if (buffer.getLong(8 * i) != mix(rank, i))
            {
                throw new AssertionError(what + ": word " + i + " from rank " + rank + " is wrong");
            }
        }
    }

    private static byte[] toBytes(final long[] words)
    {
        final ByteBuffer bytes = ByteBuffer.allocate(words.length * 8).order(ByteOrder.nativeOrder());
        bytes.asLongBuffer().put(words);
        return bytes.array();
    }

    /** Each bad call throws IllegalArgumentException (or a truncation error) and the next exchange still works. */
    private static void badArguments(final Communicator comm)
    {
        final int peer = comm.rank() ^ 1;
        if (peer >= comm.size())
        {
            return;
        }
        final byte[] ok = new byte[16];
        expect(IllegalArgumentException.class, () -> comm.send(null, peer, 0), "null");
        expect(IllegalArgumentException.class, () -> comm.send(Buf.of(ok), comm.size(), 0), "outside");
        expect(IllegalArgumentException.class, () -> comm.recv(Buf.of(ok), -2, 0), "outside");
        expect(IllegalArgumentException.class, () -> comm.send(Buf.of(ok), peer, -3), "negative");
        expect(IllegalArgumentException.class, () -> Buf.of(ok, 0, -1), "negative count");
        expect(IllegalArgumentException.class, () -> Buf.of(ok, 4, 16), "does not fit");
        expect(IllegalArgumentException.class, () -> comm.recv(Buf.of(ByteBuffer.allocateDirect(16)
            .asReadOnlyBuffer(), DataType.INT8), peer, 0), "read-only");
        exchange(comm, peer);
        // a message longer than the receive buffer: both sides stay usable
        if (comm.rank() < peer)
        {
            comm.send(Buf.of(new byte[100]), peer, 1);
        }
        else
        {
            expect(JcclException.class, () -> comm.recv(Buf.of(new byte[10]), peer, 1), "truncated");
        }
        exchange(comm, peer);
    }

    private static void exchange(final Communicator comm, final int peer)
    {
        final int[] in = new int[1];
        comm.sendRecv(Buf.of(new int[] {comm.rank()}), peer, 2, Buf.of(in), peer, 2);
        check(in[0] == peer, "exchange after an error");
    }

    /**
     * The victim sends itself {@code signal} (SIGKILL, or SIGSTOP: stuck but alive) while the others wait to receive
     * from it; each survivor prints how long it took to get the error and what the error said.
     */
    private static void killOne(final Communicator comm, final int victim, final String signal)
    {
        final byte[] token = new byte[8];
        for (int r = 0; r < comm.size(); r++)
        {
            if (r != comm.rank())
            {
                comm.sendRecv(Buf.of(token), r, 0, Buf.of(new byte[8]), r, 0);
            }
        }
        if (comm.rank() == victim)
        {
            try
            {
                System.out.println("KILLING at=" + System.currentTimeMillis());
                System.out.flush();
                new ProcessBuilder("kill", signal, Long.toString(ProcessHandle.current().pid())).start().waitFor();
                Thread.sleep(10_000);
            }
            catch (final Exception ex)
            {
                throw new AssertionError(ex);
            }
            throw new AssertionError("still running after kill " + signal);
        }
        final long start = System.nanoTime();
        try
        {
            comm.recv(Buf.of(new byte[64]), victim, 42);
            throw new AssertionError("received from a dead rank");
        }
        catch (final PeerFailedException ex)
        {
            final long ms = (System.nanoTime() - start) / 1_000_000;
            System.out.println("DETECTED peer=" + ex.peer() + " ms=" + ms + " message=" + ex.getMessage());
            System.out.flush();
            System.exit(3);
        }
    }

    static void expect(final Class<? extends Throwable> type, final Runnable call, final String words)
    {
        try
        {
            call.run();
        }
        catch (final Throwable t)
        {
            check(type.isInstance(t), "expected " + type.getSimpleName() + " but got " + t);
            check(t.getMessage() != null && t.getMessage().contains(words), "message '" + t.getMessage() +
                "' does not mention '" + words + "'");
            return;
        }
        throw new AssertionError("expected " + type.getSimpleName() + " mentioning '" + words + "'");
    }

    private static byte[] pattern(final int n, final int from, final int to)
    {
        final byte[] b = new byte[n];
        for (int i = 0; i < n; i++)
        {
            b[i] = (byte) (i * 13 + from * 31 + to * 7);
        }
        return b;
    }

    private static long mix(final int rank, final long i)
    {
        return i * 0x9E3779B97F4A7C15L + rank;
    }

    static void check(final boolean condition, final String what)
    {
        if (!condition)
        {
            throw new AssertionError(what);
        }
    }
}
