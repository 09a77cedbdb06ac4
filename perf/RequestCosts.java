import io.jccl.Buf;
import io.jccl.Communicator;
import io.jccl.Jccl;
import io.jccl.PersistentRequest;
import io.jccl.Request;

import java.lang.management.ManagementFactory;
import java.util.Arrays;

/**
 * What a non-blocking exchange costs between ranks 0 and 1 (an {@code irecv} and an {@code isend} of 8 bytes each
 * way), completed three ways: one {@code await()} each, {@code waitAll}, and {@code waitAny} until none is left; then
 * the same exchange by persistent requests ({@code startAll}, {@code waitAll}), and a blocking {@code sendRecv} for
 * comparison. Rounds of 50,000 exchanges, the ways in turn within each round; rank 0
 * prints each way's median and fastest round in µs an exchange, and the bytes its thread allocated an exchange:
 * <pre>
 *   awaits     median 0.364 min 0.228 us, 216.0 B
 * </pre>
 * Build and run from the repository:
 * <pre>
 *   ./jccl info >/dev/null; J=/usr/lib/jvm/temurin-25-jdk-amd64/bin
 *   $J/javac -cp core/target/classes -d /tmp/request-costs perf/RequestCosts.java
 *   ./jccl run -n 2 --cp /tmp/request-costs RequestCosts
 * </pre>
 * PERFORMANCE.md, session 71, has what it measured.
 */
public final class RequestCosts
{
    private static final int ROUNDS = 15;
    private static final int EXCHANGES = 50_000;
    private static final String[] WAYS = {"awaits", "waitAll", "waitAny", "persistent", "sendRecv"};

    private RequestCosts()
    {
    }

    public static void main(final String[] args)
    {
        try (Communicator comm = Jccl.connect())
        {
            if (comm.size() < 2)
            {
                throw new IllegalArgumentException("RequestCosts needs 2 ranks or more");
            }
            final int peer = comm.rank() ^ 1;
            final boolean exchanging = peer < comm.size();
            final Buf out = Buf.of(new float[2]);
            final Buf in = Buf.of(new float[2]);
            final Request[] requests = new Request[2];
            final PersistentRequest[] persistent = exchanging ?
                new PersistentRequest[] {comm.recvInit(in, peer, 4), comm.sendInit(out, peer, 4)} : null;
            final com.sun.management.ThreadMXBean threads =
                (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
            final long thread = Thread.currentThread().threadId();
            final double[][] us = new double[WAYS.length][ROUNDS];
            final long[] allocated = new long[WAYS.length];
            for (int round = 0; round < ROUNDS; round++)
            {
                for (int way = 0; way < WAYS.length; way++)
                {
                    comm.barrier();
                    final long bytesBefore = threads.getThreadAllocatedBytes(thread);
                    final long start = System.nanoTime();
                    for (int i = 0; exchanging && i < EXCHANGES; i++)
                    {
                        switch (way)
                        {
                            case 0 ->
                            {
                                final Request received = comm.irecv(in, peer, 0);
                                final Request sent = comm.isend(out, peer, 0);
                                received.await();
                                sent.await();
                            }
                            case 1 ->
                            {
                                requests[0] = comm.irecv(in, peer, 1);
                                requests[1] = comm.isend(out, peer, 1);
                                comm.waitAll(requests);
                            }
                            case 2 ->
                            {
                                requests[0] = comm.irecv(in, peer, 2);
                                requests[1] = comm.isend(out, peer, 2);
                                while (comm.waitAny(requests) >= 0)
                                {
                                    // each completed request's entry is now null
                                }
                            }
                            case 3 ->
                            {
                                comm.startAll(persistent);
                                comm.waitAll(persistent);
                            }
                            default -> comm.sendRecv(out, peer, 3, in, peer, 3);
                        }
                    }
                    us[way][round] = (System.nanoTime() - start) / 1e3 / EXCHANGES;
                    allocated[way] += threads.getThreadAllocatedBytes(thread) - bytesBefore;
                }
            }
            if (comm.rank() == 0)
            {
                for (int way = 0; way < WAYS.length; way++)
                {
                    final double[] sorted = us[way].clone();
                    Arrays.sort(sorted);
                    System.out.printf("%-10s median %.3f min %.3f us, %.1f B%n", WAYS[way], sorted[ROUNDS / 2], sorted[0],
                        allocated[way] / (double) ROUNDS / EXCHANGES);
                }
            }
        }
    }
}
