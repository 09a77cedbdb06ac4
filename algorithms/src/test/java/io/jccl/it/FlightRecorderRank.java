package io.jccl.it;

import io.jccl.Buf;
import io.jccl.Communicator;
import io.jccl.Jccl;
import io.jccl.JcclException;
import io.jccl.ReduceOp;
import io.jccl.engine.ShmCommunicator;

/**
 * One rank of {@link FlightRecorderTest}: three collectives and a send/recv, then rank 1 skips collective #4 while
 * rank 0 calls it and times out (short JCCL_TIMEOUT_MS). Rank 0 prints "TIMEOUT message"; rank 1 prints its own
 * flight record on demand, each line prefixed "RECORD ".
 */
public final class FlightRecorderRank
{
    private FlightRecorderRank()
    {
    }

    public static void main(final String[] args) throws InterruptedException
    {
        try (Communicator comm = Jccl.connect())
        {
            final float[] data = new float[256];
            comm.allreduce(Buf.of(data), ReduceOp.SUM);
            comm.broadcast(Buf.of(data), 0);
            comm.barrier();
            final int[] one = new int[1];
            if (comm.rank() == 0)
            {
                comm.send(Buf.of(one), 1, 5);
            }
            else
            {
                comm.recv(Buf.of(one), 0, 5);
            }
            if (comm.rank() == 0)
            {
                try
                {
                    comm.allreduce(Buf.of(data), ReduceOp.SUM);
                    System.out.println("NO TIMEOUT");
                }
                catch (final JcclException ex)
                {
                    System.out.println("TIMEOUT " + ex.getMessage());
                }
            }
            else
            {
                for (final String line : ((ShmCommunicator) comm).flightRecord().split("\n"))
                {
                    System.out.println("RECORD " + line);
                }
                Thread.sleep(4000);
            }
        }
    }
}
