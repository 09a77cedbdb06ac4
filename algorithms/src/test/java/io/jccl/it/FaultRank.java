package io.jccl.it;

import io.jccl.Buf;
import io.jccl.Collective;
import io.jccl.Communicator;
import io.jccl.Configuration;
import io.jccl.Jccl;
import io.jccl.JcclException;
import io.jccl.PeerFailedException;
import io.jccl.ReduceOp;
import io.jccl.shm.JobSegment;
import io.jccl.shm.SegmentDescriptor;
import io.jccl.shm.SegmentFiles;
import org.agrona.UnsafeApi;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.locks.LockSupport;

/**
 * One rank of the fault-injection suite ({@link FaultInjectionTest}). Arguments: {@code KIND PHASE VICTIM DIR
 * [COLLECTIVE:ALGORITHM ELEMENTS]}. The victim rank injects fault KIND (kill9: SIGKILL to itself; stop: SIGSTOP to
 * itself; exit: {@code System.exit(7)}; throw: an uncaught exception out of {@code main}; late: a sleep of a minute,
 * alive and running but not calling jccl, until the launcher stops it) at PHASE; the other ranks report what they
 * saw on stdout:
 * <ul>
 *   <li>victim: {@code FAULT at=EPOCH_MS} just before the fault;</li>
 *   <li>survivor: {@code DETECTED peer=P done=N ms=T message=...} (N operations of the phase completed before the one
 *       that failed, T ms from the start of that wait) and exit code 3; or {@code CLOSED} when its close returned and
 *       it had nothing to wait for.</li>
 * </ul>
 * Phases: {@code before-attach} (the victim faults before connecting), {@code attaching} (the victim, rank 0, faults
 * while it waits in bootstrap for the others), {@code p2p-recv} / {@code p2p-send} (the survivors are blocked
 * receiving from / sending a message larger than the ring to the victim), {@code collective} (the collective runs in
 * a loop; kill9, stop and exit strike from another thread of the victim while it is inside the fourth or a later
 * call; throw leaves {@code main}, and late sleeps, before the fourth call while the survivors are in it),
 * {@code close} (the victim faults where it would close).
 */
public final class FaultRank
{
    private static final int COLLECTIVES_BEFORE_FAULT = 3;
    /** Point-to-point elements of the p2p-send phase: 2 MiB of float32. */
    private static final int P2P_ELEMENTS = 512 * 1024;

    private static volatile long completed;

    private FaultRank()
    {
    }

    public static void main(final String[] args) throws Exception
    {
        final String kind = args[0];
        final String phase = args[1];
        final int victim = Integer.parseInt(args[2]);
        final Path dir = Path.of(args[3]);
        final Configuration configuration = Configuration.fromEnvironment();
        final int rank = configuration.rank();
        final boolean isVictim = rank == victim;

        switch (phase)
        {
            case "before-attach" ->
            {
                if (isVictim)
                {
                    fault(kind);
                }
                connectAndExpectFailure();
            }
            case "attaching" -> attaching(kind, isVictim, configuration, dir);
            case "p2p-recv", "p2p-send", "collective", "close" ->
            {
                try (Communicator comm = Jccl.connect())
                {
                    switch (phase)
                    {
                        case "p2p-recv" -> pointToPoint(comm, kind, victim, false);
                        case "p2p-send" -> pointToPoint(comm, kind, victim, true);
                        case "collective" -> collective(comm, kind, victim, args[4], Integer.parseInt(args[5]));
                        default -> close(comm, kind, victim);
                    }
                }
                System.out.println("CLOSED");
            }
            default -> throw new IllegalArgumentException("unknown phase " + phase);
        }
    }

    private static void connectAndExpectFailure()
    {
        final long start = System.nanoTime();
        try (Communicator comm = Jccl.connect())
        {
            throw new AssertionError("rank " + comm.rank() + " connected although a rank failed");
        }
        catch (final JcclException ex)
        {
            detected(ex, 0, start);
        }
    }

    /**
     * Rank 0 (the victim) creates the segment and waits in bootstrap for rank 1; rank 1 waits for the segment,
     * tells the victim to fault through a marker file, then connects and must find the victim failed.
     */
    private static void attaching(final String kind, final boolean isVictim, final Configuration configuration,
        final Path dir) throws Exception
    {
        final Path marker = dir.resolve("fault-now");
        if (isVictim)
        {
            final Thread injector = new Thread(() ->
            {
                awaitFile(marker);
                fault(kind);
            }, "fault-injector");
            injector.setDaemon(true);
            injector.start();
            try (Communicator comm = Jccl.connect())
            {
                throw new AssertionError("the victim connected alone");
            }
        }
        awaitRegistered(SegmentFiles.path(configuration, configuration.jobId()), configuration);
        Files.createFile(marker);
        Thread.sleep(100);
        connectAndExpectFailure();
    }

    private static void pointToPoint(final Communicator comm, final String kind, final int victim,
        final boolean survivorsSend)
    {
        final byte[] token = new byte[8];
        int done = 0;
        for (int r = 0; r < comm.size(); r++)
        {
            if (r != comm.rank())
            {
                comm.sendRecv(Buf.of(token), r, 0, Buf.of(new byte[8]), r, 0);
                done++;
            }
        }
        if (comm.rank() == victim)
        {
            // let the survivors block in their call first
            sleep(200);
            fault(kind);
        }
        final long start = System.nanoTime();
        try
        {
            if (survivorsSend)
            {
                // eight times the ring: the send can only finish while the victim drains it
                comm.send(Buf.of(new float[P2P_ELEMENTS]), victim, 7);
            }
            else
            {
                comm.recv(Buf.of(new byte[64]), victim, 42);
            }
            throw new AssertionError("point-to-point with a failed rank completed");
        }
        catch (final JcclException ex)
        {
            detected(ex, done, start);
        }
    }

    private static void collective(final Communicator comm, final String kind, final int victim,
        final String algorithm, final int elements)
    {
        final Collective collective = Collective.parse(algorithm.substring(0, algorithm.indexOf(':')));
        final Communicator forced = comm.withAlgorithm(algorithm);
        final int size = comm.size();
        final float[] send = new float[elements];
        final float[] recv = new float[elements];
        final Buf sendBuf = Buf.of(send);
        final Buf recvBuf = Buf.of(recv);
        final Buf block = Buf.of(send, 0, elements / size);
        final boolean inMainThread = "throw".equals(kind) || "late".equals(kind);
        if (comm.rank() == victim && !inMainThread)
        {
            final Thread injector = new Thread(() ->
            {
                while (completed < COLLECTIVES_BEFORE_FAULT)
                {
                    LockSupport.parkNanos(100_000);
                }
                fault(kind);
            }, "fault-injector");
            injector.setDaemon(true);
            injector.start();
        }
        long start = System.nanoTime();
        try
        {
            while (true)
            {
                if (comm.rank() == victim && inMainThread && completed == COLLECTIVES_BEFORE_FAULT)
                {
                    fault(kind);
                }
                start = System.nanoTime();
                switch (collective)
                {
                    case ALLREDUCE -> forced.allreduce(sendBuf, recvBuf, ReduceOp.SUM);
                    case BROADCAST -> forced.broadcast(sendBuf, 0);
                    case REDUCE -> forced.reduce(sendBuf, recvBuf, ReduceOp.SUM, 0);
                    case ALLGATHER -> forced.allgather(block, recvBuf);
                    case REDUCE_SCATTER -> forced.reduceScatter(sendBuf, Buf.of(recv, 0, elements / size),
                        ReduceOp.SUM);
                    case ALLTOALL -> forced.alltoall(sendBuf, recvBuf);
                    case BARRIER -> forced.barrier();
                    default -> throw new IllegalArgumentException("no fault scenario for " + collective);
                }
                completed++;
            }
        }
        catch (final JcclException ex)
        {
            detected(ex, completed, start);
        }
    }

    /** Everyone runs one barrier; the victim faults where it would close, the others close and finish. */
    private static void close(final Communicator comm, final String kind, final int victim)
    {
        comm.barrier();
        if (comm.rank() == victim)
        {
            fault(kind);
        }
    }

    /** Survivor: prints what it caught and exits with 3, as an application that cannot go on would. */
    private static void detected(final JcclException ex, final long done, final long startNs)
    {
        final int peer = ex instanceof PeerFailedException pf ? pf.peer() : -1;
        System.out.println("DETECTED peer=" + peer + " done=" + done + " ms=" +
            (System.nanoTime() - startNs) / 1_000_000 + " message=" + ex.getMessage().replace('\n', ' '));
        System.out.flush();
        System.exit(3);
    }

    private static void fault(final String kind)
    {
        System.out.println("FAULT at=" + System.currentTimeMillis());
        System.out.flush();
        switch (kind)
        {
            case "kill9" -> signalSelf("-KILL");
            case "stop" -> signalSelf("-STOP");
            case "exit" -> System.exit(7);
            case "throw" -> throw new IllegalStateException("injected fault: an uncaught exception");
            case "late" ->
            {
            }
            default -> throw new IllegalArgumentException("unknown fault " + kind);
        }
        // SIGKILL ends the process before this; a stopped or late process never comes back (the launcher stops it)
        sleep(60_000);
        throw new AssertionError("still running after the fault " + kind);
    }

    private static void signalSelf(final String signal)
    {
        try
        {
            new ProcessBuilder("kill", signal, Long.toString(ProcessHandle.current().pid())).start().waitFor();
        }
        catch (final IOException | InterruptedException ex)
        {
            throw new AssertionError("cannot send " + signal + " to myself", ex);
        }
    }

    /** Waits until rank 0 has registered in the segment at {@code path}: it is in bootstrap, waiting for the others. */
    private static void awaitRegistered(final Path path, final Configuration configuration)
    {
        awaitFile(path);
        try (JobSegment segment = JobSegment.tryAttach(path, configuration.worldSize(), configuration.jobId()))
        {
            final long state = segment.address() + segment.layout().rankRecordOffset(0) +
                SegmentDescriptor.RankRecordDescriptor.STATE_OFFSET;
            while (UnsafeApi.getLongAcquire(null, state) == SegmentDescriptor.RankRecordDescriptor.STATE_EMPTY)
            {
                LockSupport.parkNanos(1_000_000);
            }
        }
    }

    private static void awaitFile(final Path file)
    {
        while (!Files.exists(file))
        {
            LockSupport.parkNanos(1_000_000);
        }
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
