package io.jccl.algorithms.shm;

import io.jccl.spi.CollectiveAlgorithm;
import io.jccl.spi.CollectiveArgs;
import io.jccl.spi.CollectiveContext;

/**
 * The algorithms that read peers' buffers through the kernel: {@code shm_single_copy}, one per collective, and the
 * two-shot allreduce {@code shm_single_copy_twoshot}; their name, and what each call needs beyond the common checks,
 * single copy on every rank ({@link SingleCopyReads#unsupportedReason}) unless the job has one rank.
 */
abstract class SingleCopyAlgorithm implements CollectiveAlgorithm
{
    private final String name;

    SingleCopyAlgorithm()
    {
        this("shm_single_copy");
    }

    SingleCopyAlgorithm(final String name)
    {
        this.name = name;
    }

    @Override
    public final String name()
    {
        return name;
    }

    @Override
    public final String unsupportedReason(final CollectiveArgs args, final int size, final CollectiveContext context)
    {
        final String reason = CollectiveAlgorithm.super.unsupportedReason(args, size, context);
        return reason != null || size == 1 ? reason : SingleCopyReads.unsupportedReason(name(), context);
    }
}
