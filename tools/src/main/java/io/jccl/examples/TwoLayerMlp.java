package io.jccl.examples;

import java.util.SplittableRandom;

/**
 * A two-layer perceptron for classification, {@code softmax(relu(x·W1 + b1)·W2 + b2)} with cross-entropy loss, on
 * one flat parameter vector. The layout follows the order in which backpropagation produces the gradients, so the
 * gradient fills from offset 0 upwards and a bucket can be sent as soon as the backward pass has passed its end:
 * <pre>
 *   0            H·C       H·C+C     H·C+C+H                       H·C+C+H+D·H
 *   +------------+---------+---------+-----------------------------+
 *   | W2 (H × C) | b2 (C)  | b1 (H)  | W1 (D × H), row by row      |
 *   +------------+---------+---------+-----------------------------+
 * </pre>
 * The loops are written for C2's auto-vectorisation (contiguous inner loops over H). Work arrays are allocated once
 * for the batch size.
 */
final class TwoLayerMlp
{
    /** Told how far the gradient vector is complete, as the backward pass goes. */
    interface Progress
    {
        void filled(int upTo);
    }

    final int inputs;
    final int hidden;
    final int classes;
    final int batch;

    private final int w2;
    private final int b2;
    private final int b1;
    private final int w1;
    private final int parameters;
    private final float[] z1;
    private final float[] a1;
    private final float[] probabilities;
    private final float[] dz1;

    TwoLayerMlp(final int inputs, final int hidden, final int classes, final int batch)
    {
        this.inputs = inputs;
        this.hidden = hidden;
        this.classes = classes;
        this.batch = batch;
        this.w2 = 0;
        this.b2 = w2 + hidden * classes;
        this.b1 = b2 + classes;
        this.w1 = b1 + hidden;
        this.parameters = w1 + inputs * hidden;
        this.z1 = new float[batch * hidden];
        this.a1 = new float[batch * hidden];
        this.probabilities = new float[batch * classes];
        this.dz1 = new float[batch * hidden];
    }

    int parameterCount()
    {
        return parameters;
    }

    /** Small random weights (scaled by fan-in), zero biases: the same on every rank for the same seed. */
    float[] initialParameters(final long seed)
    {
        final float[] theta = new float[parameters];
        final SplittableRandom random = new SplittableRandom(seed);
        for (int i = 0; i < hidden * classes; i++)
        {
            theta[w2 + i] = (float) (random.nextGaussian() / Math.sqrt(hidden));
        }
        for (int i = 0; i < inputs * hidden; i++)
        {
            theta[w1 + i] = (float) (random.nextGaussian() / Math.sqrt(inputs));
        }
        return theta;
    }

    /**
     * Forward and backward over one batch: writes into {@code grad} the gradient of the summed loss divided by
     * {@code normaliser} (the global batch size, so that summing the ranks' gradients gives the mean), reporting
     * progress as it fills; returns the summed loss of the batch.
     */
    double lossAndGradient(final float[] theta, final float[] x, final int[] labels, final float normaliser,
        final float[] grad, final Progress progress)
    {
        final int d = inputs;
        final int h = hidden;
        final int c = classes;
        // forward: z1 = x·W1 + b1, a1 = relu(z1), logits = a1·W2 + b2, probabilities = softmax(logits)
        for (int b = 0; b < batch; b++)
        {
            final int zRow = b * h;
            System.arraycopy(theta, b1, z1, zRow, h);
            for (int i = 0; i < d; i++)
            {
                final float xi = x[b * d + i];
                final int wRow = w1 + i * h;
                for (int j = 0; j < h; j++)
                {
                    z1[zRow + j] += xi * theta[wRow + j];
                }
            }
            for (int j = 0; j < h; j++)
            {
                a1[zRow + j] = Math.max(0f, z1[zRow + j]);
            }
        }
        double loss = 0;
        for (int b = 0; b < batch; b++)
        {
            float max = Float.NEGATIVE_INFINITY;
            for (int k = 0; k < c; k++)
            {
                float logit = theta[b2 + k];
                for (int j = 0; j < h; j++)
                {
                    logit += a1[b * h + j] * theta[w2 + j * c + k];
                }
                probabilities[b * c + k] = logit;
                max = Math.max(max, logit);
            }
            float sum = 0;
            for (int k = 0; k < c; k++)
            {
                final float e = (float) Math.exp(probabilities[b * c + k] - max);
                probabilities[b * c + k] = e;
                sum += e;
            }
            for (int k = 0; k < c; k++)
            {
                probabilities[b * c + k] /= sum;
            }
            loss -= Math.log(Math.max(probabilities[b * c + labels[b]], 1e-30f));
        }

        // backward: dlogits = (p - onehot) / normaliser, kept in probabilities
        for (int b = 0; b < batch; b++)
        {
            probabilities[b * c + labels[b]] -= 1f;
            for (int k = 0; k < c; k++)
            {
                probabilities[b * c + k] /= normaliser;
            }
        }
        // gW2 = a1ᵀ·dlogits, gb2 = Σ dlogits
        java.util.Arrays.fill(grad, 0, b1, 0f);
        for (int b = 0; b < batch; b++)
        {
            for (int j = 0; j < h; j++)
            {
                final float a = a1[b * h + j];
                for (int k = 0; k < c; k++)
                {
                    grad[w2 + j * c + k] += a * probabilities[b * c + k];
                }
            }
            for (int k = 0; k < c; k++)
            {
                grad[b2 + k] += probabilities[b * c + k];
            }
        }
        // dz1 = (dlogits·W2ᵀ) ⊙ relu'(z1), gb1 = Σ dz1
        java.util.Arrays.fill(grad, b1, w1, 0f);
        for (int b = 0; b < batch; b++)
        {
            for (int j = 0; j < h; j++)
            {
                float s = 0;
                for (int k = 0; k < c; k++)
                {
                    s += probabilities[b * c + k] * theta[w2 + j * c + k];
                }
                dz1[b * h + j] = z1[b * h + j] > 0 ? s : 0f;
            }
            for (int j = 0; j < h; j++)
            {
                grad[b1 + j] += dz1[b * h + j];
            }
        }
        progress.filled(w1);
        // gW1 = xᵀ·dz1, one row of W1 at a time, each reported as soon as it is complete
        for (int i = 0; i < d; i++)
        {
            final int gRow = w1 + i * h;
            java.util.Arrays.fill(grad, gRow, gRow + h, 0f);
            for (int b = 0; b < batch; b++)
            {
                final float xi = x[b * d + i];
                final int dRow = b * h;
                for (int j = 0; j < h; j++)
                {
                    grad[gRow + j] += xi * dz1[dRow + j];
                }
            }
            progress.filled(gRow + h);
        }
        return loss;
    }

    /** Plain SGD: θ ← θ − lr·g. */
    static void sgd(final float[] theta, final float[] grad, final float learningRate)
    {
        for (int i = 0; i < theta.length; i++)
        {
            theta[i] -= learningRate * grad[i];
        }
    }
}
