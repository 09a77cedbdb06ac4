package io.jccl.it;

import io.jccl.Buf;
import io.jccl.CollectiveMismatchException;
import io.jccl.Communicator;
import io.jccl.Jccl;
import io.jccl.ReduceOp;

/**
 * One rank of {@link MismatchTest}: a correct allreduce (collective #1), then collective #2 called differently on
 * rank 1 in the way the first argument names (collective, count, dtype, op, root), then a barrier (#3). Rank 1
 * computes for a while before the barrier, so that a mismatch that neither hangs nor breaks a message is still
 * met by a slow wait on rank 0. Prints "MISMATCH seq=S message=M" when a {@link CollectiveMismatchException}
 * arrives, "NO MISMATCH" otherwise.
 */
public final class MismatchRank
{
    private static final int N = 1024;

    private MismatchRank()
    {
    }

    public static void main(final String[] args) throws InterruptedException
    {
        final String kind = args[0];
        try (Communicator comm = Jccl.connect())
        {
            final boolean odd = comm.rank() == 1;
            final float[] warm = {1};
            comm.allreduce(Buf.of(warm), ReduceOp.SUM);
            try
            {
                final float[] data = new float[N];
                switch (kind)
                {
                    case "collective" ->
                    {
                        if (odd)
                        {
                            comm.broadcast(Buf.of(data), 0);
                        }
                        else
                        {
                            comm.allreduce(Buf.of(data), ReduceOp.SUM);
                        }
                    }
                    case "count" -> comm.allreduce(Buf.of(data, 0, odd ? 1000 : N), ReduceOp.SUM);
                    case "dtype" ->
                    {
                        if (odd)
                        {
                            comm.allreduce(Buf.of(new int[N]), ReduceOp.SUM);
                        }
                        else
                        {
                            comm.allreduce(Buf.of(data), ReduceOp.SUM);
                        }
                    }
                    case "op" -> comm.allreduce(Buf.of(data), odd ? ReduceOp.MAX : ReduceOp.SUM);
                    case "root" -> comm.broadcast(Buf.of(data), odd ? 1 : 0);
                    default -> throw new IllegalArgumentException("unknown mismatch " + kind);
                }
                if (odd)
                {
                    Thread.sleep(300);
                }
                comm.barrier();
                System.out.println("NO MISMATCH");
            }
            catch (final CollectiveMismatchException ex)
            {
                System.out.println("MISMATCH seq=" + ex.sequence() + " message=" + ex.getMessage());
            }
        }
    }
}
