package io.jccl.it;

import io.jccl.Communicator;
import io.jccl.Jccl;
import io.jccl.PeerFailedException;

/**
 * One rank of {@link JavaDebuggerTest}: barriers in a loop, 10 ms apart, for at most 30 s, while the test suspends
 * a rank through a debugger. Prints {@code LOOPING} once connected, and {@code DETECTED message=...} (exit code 3)
 * when a barrier fails.
 */
public final class DebuggedRank
{
    private DebuggedRank()
    {
    }

    public static void main(final String[] args) throws Exception
    {
        try (Communicator comm = Jccl.connect())
        {
            System.out.println("LOOPING");
            final long end = System.nanoTime() + 30_000_000_000L;
            while (System.nanoTime() < end)
            {
                comm.barrier();
                Thread.sleep(10);
            }
        }
        catch (final PeerFailedException ex)
        {
            System.out.println("DETECTED message=" + ex.getMessage());
            System.exit(3);
        }
    }
}
