package io.jccl.examples;

import io.jccl.Buf;
import io.jccl.Communicator;
import io.jccl.Jccl;
import io.jccl.ReduceOp;

import java.util.SplittableRandom;

/**
 * Megatron-style tensor parallelism of an MLP block {@code y = relu(x·W1 + b1)·W2 + b2}: fc1 is column-parallel
 * (rank r holds the columns of W1 and b1 for its slice of the hidden units, and computes that slice of the
 * activations with no communication, relu being element-wise), fc2 is row-parallel (rank r holds the matching rows of
 * W2 and computes a partial output), and one allreduce sums the partial outputs; b2 is added once, after it.
 * <pre>
 *   ./jccl run -n 4 -- io.jccl.examples.TensorParallelMlp [--tp 2] [--batch 16] [--inputs 256] [--hidden 1024]
 *       [--outputs 256] [--seed 7]
 * </pre>
 * With {@code --tp} smaller than the number of ranks, the ranks form tensor-parallel groups of {@code tp} ranks
 * ({@code split(rank / tp, rank)}) and data-parallel groups across them ({@code split(rank % tp, rank)}): each
 * tensor-parallel group runs its own batch, and the data-parallel group averages the groups' losses. Every rank
 * checks its output against the unsharded block computed locally from the same weights (relative error at most
 * 1e-5 of the output's scale); exit status 1 when a check fails.
 */
public final class TensorParallelMlp
{
    private static final double TOLERANCE = 1e-5;

    private TensorParallelMlp()
    {
    }

    public static void main(final String[] args)
    {
        final ExampleArgs options = new ExampleArgs(args);
        final int batch = options.getInt("batch", 16);
        final int d = options.getInt("inputs", 256);
        final int h = options.getInt("hidden", 1024);
        final int o = options.getInt("outputs", 256);
        final long seed = options.getInt("seed", 7);
        boolean ok;
        try (Communicator world = Jccl.connect())
        {
            final int tp = options.getInt("tp", world.size());
            if (world.size() % tp != 0 || h % tp != 0)
            {
                throw new IllegalArgumentException("--tp " + tp + " must divide the ranks (" + world.size() +
                    ") and --hidden (" + h + ")");
            }
            final Communicator tensor = tp == world.size() ? world : world.split(world.rank() / tp, world.rank());
            final Communicator data = tp == world.size() ? null : world.split(world.rank() % tp, world.rank());
            final int replica = world.rank() / tp;
            final int shard = tensor.rank();
            final int slice = h / tp;

            // every rank can generate the full weights; it keeps its shard for the parallel computation
            final float[] w1 = random(d * h, seed, 1 / Math.sqrt(d));
            final float[] b1 = random(h, seed + 1, 0.1);
            final float[] w2 = random(h * o, seed + 2, 1 / Math.sqrt(h));
            final float[] b2 = random(o, seed + 3, 0.1);
            final float[] x = random(batch * d, seed + 100 + replica, 1);

            // column-parallel fc1: columns [shard·slice, (shard+1)·slice) of W1 and b1
            final float[] hidden = new float[batch * slice];
            for (int b = 0; b < batch; b++)
            {
                for (int j = 0; j < slice; j++)
                {
                    float s = b1[shard * slice + j];
                    for (int i = 0; i < d; i++)
                    {
                        s += x[b * d + i] * w1[i * h + shard * slice + j];
                    }
                    hidden[b * slice + j] = Math.max(0f, s);
                }
            }
            // row-parallel fc2: rows [shard·slice, (shard+1)·slice) of W2 give a partial output; allreduce sums them
            final float[] y = new float[batch * o];
            for (int b = 0; b < batch; b++)
            {
                for (int j = 0; j < slice; j++)
                {
                    final float a = hidden[b * slice + j];
                    for (int k = 0; k < o; k++)
                    {
                        y[b * o + k] += a * w2[(shard * slice + j) * o + k];
                    }
                }
            }
            tensor.allreduce(Buf.of(y), ReduceOp.SUM);
            for (int b = 0; b < batch; b++)
            {
                for (int k = 0; k < o; k++)
                {
                    y[b * o + k] += b2[k];
                }
            }

            // the unsharded block, computed locally
            final float[] full = unsharded(x, w1, b1, w2, b2, batch, d, h, o);
            double scale = 0;
            double worst = 0;
            for (int i = 0; i < full.length; i++)
            {
                scale = Math.max(scale, Math.abs(full[i]));
            }
            for (int i = 0; i < full.length; i++)
            {
                worst = Math.max(worst, Math.abs(full[i] - y[i]) / scale);
            }
            ok = worst <= TOLERANCE;

            // a loss (mean square of the output), averaged over the data-parallel replicas
            final double[] loss = {0};
            for (final float v : y)
            {
                loss[0] += (double) v * v / y.length;
            }
            if (data != null)
            {
                data.allreduce(Buf.of(loss), ReduceOp.AVG);
            }
            final int[] failures = {ok ? 0 : 1};
            world.allreduce(Buf.of(failures), ReduceOp.SUM);
            System.out.printf("replica %d, tensor shard %d of %d: hidden units [%d, %d), largest error against the " +
                "unsharded MLP %.2e of the output scale (bar %.0e) %s%n", replica, shard, tp, shard * slice,
                (shard + 1) * slice, worst, TOLERANCE, ok ? "ok" : "FAILED");
            if (world.rank() == 0)
            {
                System.out.printf("%d ranks: %d data-parallel replicas x %d tensor-parallel shards; mean loss over " +
                    "replicas %.6f; %s%n", world.size(), world.size() / tp, tp, loss[0],
                    failures[0] == 0 ? "every shard matches the unsharded MLP" : failures[0] + " ranks FAILED");
            }
            ok = failures[0] == 0;
            if (data != null)
            {
                data.close();
                tensor.close();
            }
        }
        if (!ok)
        {
            System.exit(1);
        }
    }

    private static float[] unsharded(final float[] x, final float[] w1, final float[] b1, final float[] w2,
        final float[] b2, final int batch, final int d, final int h, final int o)
    {
        final float[] y = new float[batch * o];
        final float[] a = new float[h];
        for (int b = 0; b < batch; b++)
        {
            for (int j = 0; j < h; j++)
            {
                float s = b1[j];
                for (int i = 0; i < d; i++)
                {
                    s += x[b * d + i] * w1[i * h + j];
                }
                a[j] = Math.max(0f, s);
            }
            for (int k = 0; k < o; k++)
            {
                float s = b2[k];
                for (int j = 0; j < h; j++)
                {
                    s += a[j] * w2[j * o + k];
                }
                y[b * o + k] = s;
            }
        }
        return y;
    }

    static float[] random(final int n, final long seed, final double scale)
    {
        final SplittableRandom random = new SplittableRandom(seed);
        final float[] v = new float[n];
        for (int i = 0; i < n; i++)
        {
            v[i] = (float) (random.nextGaussian() * scale);
        }
        return v;
    }
}
