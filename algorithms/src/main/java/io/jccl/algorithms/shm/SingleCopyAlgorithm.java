package io.jccl.algorithms.shm;

import io.jccl.spi.CollectiveAlgorithm;
import io.jccl.spi.CollectiveArgs;
import io.jccl.spi.CollectiveContext;

/**
 * The {@code shm_single_copy} algorithms, one per collective: their name, and what each call needs beyond the common
 * checks, single copy on every rank ({@link SingleCopyReads#unsupportedReason}) unless the job has one rank.
 */
abstract class SingleCopyAlgorithm implements CollectiveAlgorithm
{
    @Override
    public final String name()
    {
        return "shm_single_copy";
    }

    @Override
    public final String unsupportedReason(final CollectiveArgs args, final int size, final CollectiveContext context)
    {
        final String reason = CollectiveAlgorithm.super.unsupportedReason(args, size, context);
        return reason != null || size == 1 ? reason : SingleCopyReads.unsupportedReason(name(), context);
    }
}
