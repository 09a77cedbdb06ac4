package io.jccl.it;

import io.jccl.Buf;
import io.jccl.Communicator;
import io.jccl.Configuration;
import io.jccl.Jccl;
import io.jccl.JcclException;
import io.jccl.ReduceOp;

/**
 * One rank of {@link MismatchTest}'s deadlock: after allreduce #1, rank 0 receives from rank 1 while rank 1 calls
 * allreduce #2, so each waits on the other. Rank 0's timeout is 1.5 s and rank 1's 20 s: rank 0 times out, and rank 1
 * learns it from rank 0. Each prints "TIMEOUT message".
 */
public final class DeadlockRank
{
    private DeadlockRank()
    {
    }

    public static void main(final String[] args)
    {
        final int rank = Configuration.fromEnvironment().rank();
        System.setProperty(Configuration.TIMEOUT_MS_PROP_NAME, rank == 0 ? "1500" : "20000");
        try (Communicator comm = Jccl.connect())
        {
            final float[] data = new float[256];
            comm.allreduce(Buf.of(data), ReduceOp.SUM);
            try
            {
                if (rank == 0)
                {
                    comm.recv(Buf.of(new int[1]), 1, 5);
                }
                else
                {
                    comm.allreduce(Buf.of(data), ReduceOp.SUM);
                }
                System.out.println("NO TIMEOUT");
            }
            catch (final JcclException ex)
            {
                System.out.println("TIMEOUT " + ex.getMessage());
            }
        }
    }
}
