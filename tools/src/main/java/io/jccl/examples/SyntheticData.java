package io.jccl.examples;

import java.util.SplittableRandom;

/**
 * A generated classification task: inputs uniform in [-1, 1), labels from a fixed random linear "teacher" (argmax of
 * W·x). Every batch is a pure function of (seed, step, shard), so any process can regenerate any rank's shard: that
 * is how the examples check a distributed run against a single-process one.
 */
final class SyntheticData
{
    private final int inputs;
    private final int classes;
    private final float[] teacher;
    private final long seed;

    SyntheticData(final int inputs, final int classes, final long seed)
    {
        this.inputs = inputs;
        this.classes = classes;
        this.seed = seed;
        this.teacher = new float[inputs * classes];
        final SplittableRandom random = new SplittableRandom(seed);
        for (int i = 0; i < teacher.length; i++)
        {
            teacher[i] = (float) random.nextGaussian();
        }
    }

    /** Fills {@code x} (batch × inputs) and {@code labels} (batch) with shard {@code shard} of step {@code step}. */
    void batch(final int step, final int shard, final float[] x, final int[] labels)
    {
        final SplittableRandom random = new SplittableRandom(seed * 1_000_003L + step * 8191L + shard);
        final int batch = labels.length;
        for (int b = 0; b < batch; b++)
        {
            int best = 0;
            float bestScore = Float.NEGATIVE_INFINITY;
            for (int i = 0; i < inputs; i++)
            {
                x[b * inputs + i] = (float) (random.nextDouble() * 2 - 1);
            }
            for (int c = 0; c < classes; c++)
            {
                float score = 0;
                for (int i = 0; i < inputs; i++)
                {
                    score += teacher[i * classes + c] * x[b * inputs + i];
                }
                if (score > bestScore)
                {
                    bestScore = score;
                    best = c;
                }
            }
            labels[b] = best;
        }
    }
}
