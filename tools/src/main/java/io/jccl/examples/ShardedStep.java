package io.jccl.examples;

import io.jccl.Buf;
import io.jccl.Communicator;
import io.jccl.Jccl;
import io.jccl.ReduceOp;

import java.util.Arrays;

/**
 * ZeRO / FSDP-style sharded training of a linear model with SGD and momentum: each rank owns 1/p of the parameters
 * and of the optimizer state (the momentum). A step is: allgather the parameter shards into the full vector, compute
 * the local gradient on the rank's data, reduce-scatter the gradients so that each rank receives the sum for its own
 * shard, update the shard. (Momentum rather than Adam: Adam divides by the gradient's own magnitude, which turns the
 * last-bit differences of a different summation order into visible ones where a gradient is near zero, and this
 * example checks against single-process training.) Shards differ by at most one element (the v forms, allgatherv and
 * reduceScatterv, take any parameter count).
 * <pre>
 *   ./jccl run -n 4 -- io.jccl.examples.ShardedStep [--params 65537] [--samples 16] [--steps 20] [--lr 0.05] [--seed 3]
 * </pre>
 * Rank 0 then trains the same model unsharded on one process (gradients summed in rank order) and checks that the
 * parameters agree within 1e-5 of their scale; exit status 1 when they do not.
 */
public final class ShardedStep
{
    private static final double TOLERANCE = 1e-5;
    private static final float MOMENTUM = 0.9f;

    private ShardedStep()
    {
    }

    public static void main(final String[] args)
    {
        final ExampleArgs options = new ExampleArgs(args);
        final int params = options.getInt("params", 65_537);
        final int samples = options.getInt("samples", 16);
        final int steps = options.getInt("steps", 20);
        final float lr = (float) options.getDouble("lr", 0.05);
        final long seed = options.getInt("seed", 3);
        boolean ok = true;
        try (Communicator comm = Jccl.connect())
        {
            final int p = comm.size();
            final int me = comm.rank();
            final int[] counts = new int[p];
            final int[] displs = new int[p];
            for (int r = 0, at = 0; r < p; r++)
            {
                counts[r] = params / p + (r < params % p ? 1 : 0);
                displs[r] = at;
                at += counts[r];
            }
            final float[] truth = TensorParallelMlp.random(params, seed, 1);
            final float[] x = TensorParallelMlp.random(samples * params, seed + 10 + me, 1);
            final float[] y = targets(x, truth, samples, params);

            // this rank's state: its shard of the parameters and of the momentum, nothing more
            final float[] shard = new float[counts[me]];
            final float[] m = new float[counts[me]];
            final float[] gradShard = new float[counts[me]];
            // working buffers: the full parameters and the full local gradient exist only during the step
            final float[] w = new float[params];
            final float[] grad = new float[params];
            final float normaliser = (float) samples * p;
            for (int t = 1; t <= steps; t++)
            {
                comm.allgatherv(Buf.of(shard), Buf.of(w), counts, displs);
                gradient(x, y, w, samples, params, normaliser, grad);
                comm.reduceScatterv(Buf.of(grad), Buf.of(gradShard), counts, ReduceOp.SUM);
                momentum(shard, gradShard, m, lr);
            }
            comm.allgatherv(Buf.of(shard), Buf.of(w), counts, displs);
            if (me == 0)
            {
                System.out.printf("ZeRO-style: %d parameters in %d shards of %d to %d; optimizer state per rank %d " +
                    "floats instead of %d%n", params, p, counts[p - 1], counts[0], counts[me], params);
                ok = compareWithUnsharded(w, seed, params, samples, p, steps, lr);
            }
        }
        if (!ok)
        {
            System.exit(1);
        }
    }

    private static boolean compareWithUnsharded(final float[] sharded, final long seed, final int params,
        final int samples, final int ranks, final int steps, final float lr)
    {
        final float[] truth = TensorParallelMlp.random(params, seed, 1);
        final float[][] xs = new float[ranks][];
        final float[][] ys = new float[ranks][];
        for (int r = 0; r < ranks; r++)
        {
            xs[r] = TensorParallelMlp.random(samples * params, seed + 10 + r, 1);
            ys[r] = targets(xs[r], truth, samples, params);
        }
        final float[] w = new float[params];
        final float[] m = new float[params];
        final float[] total = new float[params];
        final float[] grad = new float[params];
        for (int t = 1; t <= steps; t++)
        {
            Arrays.fill(total, 0f);
            for (int r = 0; r < ranks; r++)
            {
                gradient(xs[r], ys[r], w, samples, params, (float) samples * ranks, grad);
                for (int i = 0; i < params; i++)
                {
                    total[i] += grad[i];
                }
            }
            momentum(w, total, m, lr);
        }
        double scale = 0;
        double worst = 0;
        for (int i = 0; i < params; i++)
        {
            scale = Math.max(scale, Math.abs(w[i]));
            worst = Math.max(worst, Math.abs(w[i] - sharded[i]));
        }
        final boolean ok = worst <= TOLERANCE * scale;
        System.out.printf("unsharded training on one process: largest parameter difference %.2e of their scale " +
            "(bar %.0e) %s%n", worst / scale, TOLERANCE, ok ? "ok" : "FAILED");
        return ok;
    }

    /** y = X·truth: a realisable least-squares problem. */
    private static float[] targets(final float[] x, final float[] truth, final int samples, final int params)
    {
        final float[] y = new float[samples];
        for (int s = 0; s < samples; s++)
        {
            float dot = 0;
            for (int i = 0; i < params; i++)
            {
                dot += x[s * params + i] * truth[i];
            }
            y[s] = dot;
        }
        return y;
    }

    /** grad = Xᵀ(X·w − y) / normaliser: the local part of the mean squared error's gradient (halved). */
    private static void gradient(final float[] x, final float[] y, final float[] w, final int samples,
        final int params, final float normaliser, final float[] grad)
    {
        Arrays.fill(grad, 0f);
        for (int s = 0; s < samples; s++)
        {
            float dot = 0;
            for (int i = 0; i < params; i++)
            {
                dot += x[s * params + i] * w[i];
            }
            final float residual = (dot - y[s]) / normaliser;
            for (int i = 0; i < params; i++)
            {
                grad[i] += residual * x[s * params + i];
            }
        }
    }

    private static void momentum(final float[] w, final float[] g, final float[] m, final float lr)
    {
        for (int i = 0; i < w.length; i++)
        {
            m[i] = MOMENTUM * m[i] + g[i];
            w[i] -= lr * m[i];
        }
    }
}
