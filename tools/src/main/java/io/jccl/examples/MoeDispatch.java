package io.jccl.examples;

import io.jccl.Buf;
import io.jccl.Communicator;
import io.jccl.Jccl;
import io.jccl.ReduceOp;

import java.util.SplittableRandom;

/**
 * Mixture-of-experts token routing with {@code alltoallv}: rank e hosts expert e; a gate sends each token to one
 * expert, with a skewed preference (expert e is chosen about 1/(e+1) as often as expert 0), so the counts per expert
 * are uneven and differ per rank. Dispatch: exchange the counts ({@code alltoall}), then the tokens grouped by
 * expert ({@code alltoallv}); each expert transforms what it received; combine: the reverse {@code alltoallv}, and
 * each token is put back in its original position.
 * <pre>
 *   ./jccl run -n 4 -- io.jccl.examples.MoeDispatch [--tokens 4096] [--dim 64] [--seed 11]
 * </pre>
 * Every token's output is checked against its expert's transform applied locally (exactly); the load of each expert
 * is printed. Exit status 1 when a token comes back wrong.
 */
public final class MoeDispatch
{
    private MoeDispatch()
    {
    }

    public static void main(final String[] args)
    {
        final ExampleArgs options = new ExampleArgs(args);
        final int tokens = options.getInt("tokens", 4096);
        final int dim = options.getInt("dim", 64);
        final long seed = options.getInt("seed", 11);
        final boolean ok;
        try (Communicator comm = Jccl.connect())
        {
            final int p = comm.size();
            final int me = comm.rank();
            final SplittableRandom random = new SplittableRandom(seed * 31 + me);
            final float[] x = new float[tokens * dim];
            final int[] expert = new int[tokens];
            final double[] weights = new double[p];
            double totalWeight = 0;
            for (int e = 0; e < p; e++)
            {
                weights[e] = 1.0 / (e + 1);
                totalWeight += weights[e];
            }
            for (int t = 0; t < tokens; t++)
            {
                double u = random.nextDouble() * totalWeight;
                int e = 0;
                while (e < p - 1 && u >= weights[e])
                {
                    u -= weights[e];
                    e++;
                }
                expert[t] = e;
                for (int k = 0; k < dim; k++)
                {
                    x[t * dim + k] = (float) random.nextGaussian();
                }
            }

            // group the tokens by expert (a stable counting sort); counts in tokens, then in floats
            final int[] tokensTo = new int[p];
            for (final int e : expert)
            {
                tokensTo[e]++;
            }
            final int[] start = new int[p];
            for (int e = 1; e < p; e++)
            {
                start[e] = start[e - 1] + tokensTo[e - 1];
            }
            final int[] slot = new int[tokens];
            final float[] grouped = new float[tokens * dim];
            final int[] fill = start.clone();
            for (int t = 0; t < tokens; t++)
            {
                slot[t] = fill[expert[t]]++;
                System.arraycopy(x, t * dim, grouped, slot[t] * dim, dim);
            }

            // dispatch: how many tokens come from each rank, then the tokens themselves
            final int[] tokensFrom = new int[p];
            comm.alltoall(Buf.of(tokensTo), Buf.of(tokensFrom));
            final int[] sendCounts = new int[p];
            final int[] recvCounts = new int[p];
            int received = 0;
            for (int r = 0; r < p; r++)
            {
                sendCounts[r] = tokensTo[r] * dim;
                recvCounts[r] = tokensFrom[r] * dim;
                received += tokensFrom[r];
            }
            final float[] inbox = new float[received * dim];
            comm.alltoallv(Buf.of(grouped), sendCounts, null, Buf.of(inbox), recvCounts, null);

            // the expert: an element-wise transform of its own
            for (int i = 0; i < inbox.length; i++)
            {
                inbox[i] = transform(me, inbox[i]);
            }

            // combine: everything goes back where it came from, then into the original token order
            final float[] returned = new float[tokens * dim];
            comm.alltoallv(Buf.of(inbox), recvCounts, null, Buf.of(returned), sendCounts, null);
            int wrong = 0;
            for (int t = 0; t < tokens; t++)
            {
                for (int k = 0; k < dim; k++)
                {
                    if (returned[slot[t] * dim + k] != transform(expert[t], x[t * dim + k]))
                    {
                        wrong++;
                    }
                }
            }

            final int[] load = new int[p];
            comm.allgather(Buf.of(new int[] {received}), Buf.of(load));
            final int[] wrongTotal = {wrong};
            comm.allreduce(Buf.of(wrongTotal), ReduceOp.SUM);
            System.out.printf("sent per expert %s, received %d tokens%n", java.util.Arrays.toString(tokensTo),
                received);
            if (me == 0)
            {
                int max = 0;
                for (final int l : load)
                {
                    max = Math.max(max, l);
                }
                System.out.printf("MoE dispatch on %d ranks: tokens per expert %s (busiest %.2fx the mean); " +
                    "%s%n", p, java.util.Arrays.toString(load), max / (double) tokens, wrongTotal[0] == 0 ?
                    "every token came back transformed by its expert" : wrongTotal[0] + " values WRONG");
            }
            ok = wrongTotal[0] == 0;
        }
        if (!ok)
        {
            System.exit(1);
        }
    }

    private static float transform(final int expert, final float value)
    {
        return value * (expert + 2) - expert;
    }
}
