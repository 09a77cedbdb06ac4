package io.jccl.examples;

import io.jccl.Buf;
import io.jccl.CollectiveRequest;
import io.jccl.Communicator;
import io.jccl.ReduceOp;

/**
 * PyTorch DDP's gradient bucketing: the flat gradient vector is cut into buckets of {@code bucketBytes}; during the
 * backward pass, each bucket's sum over the ranks starts ({@code iallreduce}, in place) as soon as the backward pass
 * has written all of it, so the reduction of early buckets overlaps the computation of later ones.
 * {@link #finish()} starts what is left and waits for all. Nothing is allocated per step.
 */
final class GradientBuckets implements TwoLayerMlp.Progress
{
    /** When the buckets are sent: during the backward pass, after it, or never (to time the computation alone). */
    enum Mode
    {
        OVERLAPPED, AFTER_BACKWARD, NONE
    }

    private final Communicator comm;
    private final Buf[] buckets;
    private final int[] ends;
    private final CollectiveRequest[] requests;
    private Mode mode = Mode.OVERLAPPED;
    private int next;

    GradientBuckets(final Communicator comm, final float[] grad, final long bucketBytes)
    {
        this.comm = comm;
        final int perBucket = (int) Math.max(1, Math.min(grad.length, bucketBytes / Float.BYTES));
        final int count = (grad.length + perBucket - 1) / perBucket;
        this.buckets = new Buf[count];
        this.ends = new int[count];
        this.requests = new CollectiveRequest[count];
        for (int k = 0; k < count; k++)
        {
            final int from = k * perBucket;
            ends[k] = Math.min(grad.length, from + perBucket);
            buckets[k] = Buf.of(grad, from, ends[k] - from);
        }
    }

    int count()
    {
        return buckets.length;
    }

    /** Starts a step whose buckets are sent as {@code mode} says. */
    GradientBuckets begin(final Mode mode)
    {
        this.mode = mode;
        this.next = 0;
        return this;
    }

    @Override
    public void filled(final int upTo)
    {
        if (mode == Mode.OVERLAPPED)
        {
            while (next < buckets.length && ends[next] <= upTo)
            {
                requests[next] = comm.iallreduce(buckets[next], ReduceOp.SUM);
                next++;
            }
        }
    }

    /** Starts the buckets not started yet and waits until every bucket holds the sum over the ranks. */
    void finish()
    {
        if (mode == Mode.NONE)
        {
            return;
        }
        while (next < buckets.length)
        {
            requests[next] = comm.iallreduce(buckets[next], ReduceOp.SUM);
            next++;
        }
        for (int k = 0; k < buckets.length; k++)
        {
            requests[k].await();
            requests[k] = null;
        }
    }
}
