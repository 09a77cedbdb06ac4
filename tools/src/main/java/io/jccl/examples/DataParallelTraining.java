package io.jccl.examples;

import io.jccl.Buf;
import io.jccl.Communicator;
import io.jccl.Jccl;
import io.jccl.ReduceOp;

import java.util.Arrays;

/**
 * Data-parallel training of a two-layer MLP, as PyTorch DDP does it: every rank holds the whole model and trains on
 * its own shard of each batch; the gradients are summed over the ranks in buckets ({@link GradientBuckets}, 25 MiB
 * by default as in DDP), each bucket's non-blocking allreduce overlapping the rest of the backward pass.
 * <pre>
 *   ./jccl run -n 2 -- io.jccl.examples.DataParallelTraining [--steps 60] [--batch 32] [--inputs 1024]
 *       [--hidden 1024] [--classes 10] [--lr 0.3] [--bucket-bytes 25m] [--seed 42] [--measure-rounds 9] [--check 1]
 * </pre>
 * It prints the loss as training goes, then checks that the final weights are bitwise identical on every rank and
 * (with {@code --check 1}) that rank 0's single-process training over the same shards gives the same loss, within
 * 1e-5 relative at every step. Last, it measures the overlap: the step's computation alone, the bucket allreduces
 * alone, and both overlapped, each the median of {@code --measure-rounds} rounds (a round's time is its slowest
 * rank's), with the middle half of the rounds beside it; hidden = (compute + communication − overlapped) /
 * communication, and it says so when the computation's own spread exceeds the communication, which leaves that share
 * to noise. Exit status 1 when a check fails.
 */
public final class DataParallelTraining
{
    private static final double LOSS_TOLERANCE = 1e-5;

    private DataParallelTraining()
    {
    }

    public static void main(final String[] args)
    {
        final ExampleArgs options = new ExampleArgs(args);
        final int steps = options.getInt("steps", 60);
        final int batch = options.getInt("batch", 32);
        final int inputs = options.getInt("inputs", 1024);
        final int hidden = options.getInt("hidden", 1024);
        final int classes = options.getInt("classes", 10);
        final float lr = (float) options.getDouble("lr", 0.3);
        final long bucketBytes = options.getSize("bucket-bytes", 25L << 20);
        final long seed = options.getInt("seed", 42);
        final int rounds = options.getInt("measure-rounds", 9);
        final boolean check = options.getInt("check", 1) != 0;

        boolean ok = true;
        try (Communicator comm = Jccl.connect())
        {
            final int rank = comm.rank();
            final int ranks = comm.size();
            final float globalBatch = (float) batch * ranks;
            final TwoLayerMlp model = new TwoLayerMlp(inputs, hidden, classes, batch);
            final SyntheticData data = new SyntheticData(inputs, classes, seed);
            final float[] theta = model.initialParameters(seed);
            final float[] grad = new float[model.parameterCount()];
            final GradientBuckets buckets = new GradientBuckets(comm, grad, bucketBytes);
            final float[] x = new float[batch * inputs];
            final int[] labels = new int[batch];
            final double[] loss = new double[1];
            final double[] losses = new double[steps];
            if (rank == 0)
            {
                System.out.printf("data-parallel MLP %d-%d-%d on %d ranks, %d samples per rank per step, " +
                    "%d parameters (%.2f MiB of float32 gradients) in %d buckets of at most %s%n", inputs, hidden,
                    classes, ranks, batch, model.parameterCount(), model.parameterCount() * 4 / 1048576.0,
                    buckets.count(), human(bucketBytes));
            }

            for (int step = 0; step < steps; step++)
            {
                data.batch(step, rank, x, labels);
                loss[0] = model.lossAndGradient(theta, x, labels, globalBatch, grad,
                    buckets.begin(GradientBuckets.Mode.OVERLAPPED));
                buckets.finish();
                comm.allreduce(Buf.of(loss), ReduceOp.SUM);
                TwoLayerMlp.sgd(theta, grad, lr);
                losses[step] = loss[0] / globalBatch;
                if (rank == 0 && (step % 10 == 0 || step == steps - 1))
                {
                    System.out.printf("step %3d  loss %.6f%n", step, losses[step]);
                }
            }

            // the same weights, bit for bit, on every rank
            final long[] checksums = new long[ranks];
            comm.allgather(Buf.of(new long[] {checksum(theta)}), Buf.of(checksums));
            final boolean identical = Arrays.stream(checksums).allMatch(c -> c == checksums[0]);
            if (rank == 0)
            {
                System.out.printf("final weights identical on all %d ranks: %s (checksum %016x)%n", ranks,
                    identical ? "yes" : "NO", checksums[0]);
            }
            ok &= identical;

            final double[][] times = measureOverlap(comm, model, data, theta, grad, buckets, x, labels, globalBatch,
                steps, rounds);
            if (rank == 0)
            {
                final double compute = times[0][1];
                final double communication = times[1][1];
                final double hiddenShare = (compute + communication - times[2][1]) / communication;
                System.out.printf("overlap: compute alone %s ms, %d bucket allreduces alone %s ms, both " +
                    "overlapped %s ms: %.0f %% of the communication hidden (median of %d rounds, the middle half " +
                    "of them in brackets)%n", spread(times[0]), buckets.count(), spread(times[1]), spread(times[2]),
                    100 * hiddenShare, rounds);
                final double computeSpread = times[0][2] - times[0][0];
                if (computeSpread > communication)
                {
                    System.out.printf("overlap: the middle half of the computation's rounds spans %.2f ms, more " +
                        "than the communication's %.2f: the share hidden is within that noise%n", computeSpread,
                        communication);
                }
            }
            if (rank == 0 && check)
            {
                ok &= compareWithSingleProcess(model, data, seed, steps, ranks, lr, losses, theta);
            }
        }
        if (!ok)
        {
            System.exit(1);
        }
    }

    /**
     * The first quartile, median and third quartile of the rounds' times (ms) of computation alone, communication
     * alone and both overlapped; theta is not changed.
     */
    private static double[][] measureOverlap(final Communicator comm, final TwoLayerMlp model, final SyntheticData data,
        final float[] theta, final float[] grad, final GradientBuckets buckets, final float[] x, final int[] labels,
        final float globalBatch, final int step, final int rounds)
    {
        final double[][] samples = new double[3][rounds];
        final double[] slowest = new double[3];
        data.batch(step, comm.rank(), x, labels);
        for (int round = -2; round < rounds; round++)  // two rounds of warm-up
        {
            comm.barrier();
            long start = System.nanoTime();
            model.lossAndGradient(theta, x, labels, globalBatch, grad, buckets.begin(GradientBuckets.Mode.NONE));
            slowest[0] = (System.nanoTime() - start) / 1e6;

            comm.barrier();
            start = System.nanoTime();
            buckets.begin(GradientBuckets.Mode.AFTER_BACKWARD).finish();
            slowest[1] = (System.nanoTime() - start) / 1e6;

            comm.barrier();
            start = System.nanoTime();
            model.lossAndGradient(theta, x, labels, globalBatch, grad, buckets.begin(GradientBuckets.Mode.OVERLAPPED));
            buckets.finish();
            slowest[2] = (System.nanoTime() - start) / 1e6;

            comm.allreduce(Buf.of(slowest), ReduceOp.MAX);
            if (round >= 0)
            {
                for (int k = 0; k < 3; k++)
                {
                    samples[k][round] = slowest[k];
                }
            }
        }
        final double[][] quartiles = new double[3][];
        for (int k = 0; k < 3; k++)
        {
            Arrays.sort(samples[k]);
            quartiles[k] = new double[] {samples[k][rounds / 4], samples[k][rounds / 2], samples[k][3 * rounds / 4]};
        }
        return quartiles;
    }

    /** "median (first quartile-third quartile)". */
    private static String spread(final double[] quartiles)
    {
        return String.format("%.2f (%.2f-%.2f)", quartiles[1], quartiles[0], quartiles[2]);
    }

    /**
     * Trains the same model on one process: each step's gradient is the sum, in rank order, of the gradients of the
     * ranks' shards (what the allreduce computes, up to the order of the additions).
     */
    private static boolean compareWithSingleProcess(final TwoLayerMlp model, final SyntheticData data, final long seed,
        final int steps, final int ranks, final float lr, final double[] distributedLosses, final float[] theta)
    {
        final float[] reference = model.initialParameters(seed);
        final float[] total = new float[reference.length];
        final float[] shardGrad = new float[reference.length];
        final float[] x = new float[model.batch * model.inputs];
        final int[] labels = new int[model.batch];
        final float globalBatch = (float) model.batch * ranks;
        double worst = 0;
        for (int step = 0; step < steps; step++)
        {
            Arrays.fill(total, 0f);
            double loss = 0;
            for (int shard = 0; shard < ranks; shard++)
            {
                data.batch(step, shard, x, labels);
                loss += model.lossAndGradient(reference, x, labels, globalBatch, shardGrad, upTo -> { });
                for (int i = 0; i < total.length; i++)
                {
                    total[i] += shardGrad[i];
                }
            }
            TwoLayerMlp.sgd(reference, total, lr);
            final double singleLoss = loss / globalBatch;
            worst = Math.max(worst, Math.abs(distributedLosses[step] - singleLoss) / Math.abs(singleLoss));
        }
        float maxWeightDiff = 0;
        for (int i = 0; i < theta.length; i++)
        {
            maxWeightDiff = Math.max(maxWeightDiff, Math.abs(theta[i] - reference[i]));
        }
        final boolean ok = worst <= LOSS_TOLERANCE;
        System.out.printf("single-process training over the same shards: largest relative loss difference %.2e " +
            "(bar %.0e) %s; largest weight difference %.2e%n", worst, LOSS_TOLERANCE, ok ? "ok" : "FAILED",
            maxWeightDiff);
        return ok;
    }

    private static long checksum(final float[] values)
    {
        long h = 1125899906842597L;
        for (final float v : values)
        {
            h = 31 * h + Float.floatToRawIntBits(v);
        }
        return h;
    }

    static String human(final long bytes)
    {
        return bytes % (1 << 20) == 0 ? (bytes >> 20) + " MiB" : bytes % 1024 == 0 ? (bytes >> 10) + " KiB" :
            bytes + " B";
    }
}
