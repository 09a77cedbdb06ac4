package io.jccl.jmh;

import io.jccl.Buf;
import io.jccl.Communicator;
import io.jccl.Jccl;

import java.util.Optional;

/**
 * Ranks 1..N-1 of a benchmark job, started by {@link LockstepJob} in the JMH fork (rank 0). Joins the job from the
 * environment ({@code JCCL_RANK}, {@code JCCL_WORLD_SIZE}, {@code JCCL_JOB_ID}), builds the same {@link Workload}
 * as rank 0, then repeats: receive a control message from rank 0, run that many operations, acknowledge; until the
 * control message is STOP. Exits with 0 after STOP, 1 on an error (printed), 3 when its parent process is gone.
 */
public final class Peer
{
    private static final long PARENT_CHECK_MS = 200;

    private Peer()
    {
    }

    public static void main(final String[] args)
    {
        exitWithParent();
        int status = 0;
        int rank = -1;
        try
        {
            final Workload workload = Workload.fromArgs(args);
            try (Communicator communicator = Jccl.connect())
            {
                rank = communicator.rank();
                run(communicator, workload.operation(communicator));
            }
        }
        catch (final Throwable ex)
        {
            System.err.println("jccl jmh peer rank " + rank + ": " + ex);
            ex.printStackTrace();
            status = 1;
        }
        System.exit(status);
    }

    private static void run(final Communicator communicator, final Runnable operation)
    {
        final long[] control = new long[1];
        final Buf controlBuf = Buf.of(control);
        while (true)
        {
            // step 1: rank 0 says how many operations to run, or STOP
            communicator.recv(controlBuf, 0, LockstepJob.CONTROL_TAG);
            final long count = control[0];
            if (count == LockstepJob.STOP)
            {
                return;
            }
            // step 2: run them in lockstep with every other rank
            for (long i = 0; i < count; i++)
            {
                operation.run();
            }
            // step 3: tell rank 0 this rank is done
            communicator.send(controlBuf, 0, LockstepJob.CONTROL_TAG);
        }
    }

    /** Never outlive the JMH fork that started this peer, whatever happened to it. */
    private static void exitWithParent()
    {
        final Optional<ProcessHandle> parent = ProcessHandle.current().parent();
        if (parent.isEmpty())
        {
            return;
        }
        final ProcessHandle fork = parent.get();
        final Thread watchdog = new Thread(() ->
        {
            while (fork.isAlive())
            {
                try
                {
                    Thread.sleep(PARENT_CHECK_MS);
                }
                catch (final InterruptedException ex)
                {
                    return;
                }
            }
            System.err.println("jccl jmh peer: the JMH fork (pid " + fork.pid() + ") is gone, exiting");
            System.exit(3);
        }, "jccl-jmh-parent-watchdog");
        watchdog.setDaemon(true);
        watchdog.start();
    }
}
