package io.jccl.algorithms;

import io.jccl.algorithms.allgather.RecursiveDoublingAllgather;
import io.jccl.algorithms.allgather.RingAllgather;
import io.jccl.algorithms.allgather.RingAllgatherv;
import io.jccl.algorithms.allreduce.RabenseifnerAllreduce;
import io.jccl.algorithms.allreduce.RecursiveDoublingAllreduce;
import io.jccl.algorithms.allreduce.RingAllreduce;
import io.jccl.algorithms.pattern.Exchange;
import io.jccl.algorithms.reducescatter.RecursiveHalvingReduceScatter;
import io.jccl.algorithms.reducescatter.RingReduceScatter;
import io.jccl.algorithms.reducescatter.RingReduceScatterv;
import io.jccl.algorithms.scan.RecursiveDoublingScan;
import io.jccl.spi.CollectiveAlgorithm;

import java.util.List;

/** The message-passing algorithms built on the ring and recursive doubling/halving patterns. */
public final class RingFamilyAlgorithms
{
    private RingFamilyAlgorithms()
    {
    }

    /** One instance of each, with the default chunk size. */
    public static List<CollectiveAlgorithm> all()
    {
        return all(Exchange.CHUNK_BYTES_DEFAULT);
    }

    /** One instance of each, moving messages in chunks of at most {@code chunkBytes} (a multiple of 8). */
    public static List<CollectiveAlgorithm> all(final int chunkBytes)
    {
        return List.of(
            new RingAllreduce(chunkBytes),
            new RecursiveDoublingAllreduce(chunkBytes),
            new RabenseifnerAllreduce(chunkBytes),
            new RingAllgather(chunkBytes),
            new RecursiveDoublingAllgather(chunkBytes),
            new RingAllgatherv(chunkBytes),
            new RingReduceScatter(chunkBytes),
            new RecursiveHalvingReduceScatter(chunkBytes),
            new RingReduceScatterv(chunkBytes),
            new RecursiveDoublingScan(chunkBytes));
    }
}
