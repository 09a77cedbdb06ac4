package io.jccl.algorithms;

import io.jccl.algorithms.shm.ShmDirectAllgather;
import io.jccl.algorithms.shm.ShmDirectAllgatherv;
import io.jccl.algorithms.shm.ShmDirectAlltoall;
import io.jccl.algorithms.shm.ShmDirectBroadcast;
import io.jccl.algorithms.shm.ShmEagerBroadcast;
import io.jccl.algorithms.shm.ShmDirectReduce;
import io.jccl.algorithms.shm.ShmDirectReduceScatter;
import io.jccl.algorithms.shm.ShmDirectReduceScatterv;
import io.jccl.algorithms.shm.ShmFlagsBarrier;
import io.jccl.algorithms.shm.ShmLowLatencyAllgather;
import io.jccl.algorithms.shm.ShmLowLatencyAllgatherv;
import io.jccl.algorithms.shm.ShmLowLatencyAllreduce;
import io.jccl.algorithms.shm.ShmLowLatencyAlltoall;
import io.jccl.algorithms.shm.ShmLowLatencyBroadcast;
import io.jccl.algorithms.shm.ShmLowLatencyReduceScatter;
import io.jccl.algorithms.shm.ShmLowLatencyReduceScatterv;
import io.jccl.algorithms.shm.ShmLowLatencyScan;
import io.jccl.algorithms.shm.ShmOneShotAllreduce;
import io.jccl.algorithms.shm.ShmSingleCopyAllgather;
import io.jccl.algorithms.shm.ShmSingleCopyAllgatherv;
import io.jccl.algorithms.shm.ShmSingleCopyAllreduce;
import io.jccl.algorithms.shm.ShmSingleCopyAlltoall;
import io.jccl.algorithms.shm.ShmSingleCopyBroadcast;
import io.jccl.algorithms.shm.ShmSingleCopyReduce;
import io.jccl.algorithms.shm.ShmSingleCopyReduceScatter;
import io.jccl.algorithms.shm.ShmSingleCopyReduceScatterv;
import io.jccl.algorithms.shm.ShmSingleCopyTwoShotAllreduce;
import io.jccl.algorithms.shm.ShmTwoShotAllreduce;
import io.jccl.spi.CollectiveAlgorithm;

import java.util.List;

/** The algorithms that read and write peers' memory directly: staging areas, flags and symmetric buffers. */
public final class SharedMemoryAlgorithms
{
    private SharedMemoryAlgorithms()
    {
    }

    /** One instance of each, in a stable order. */
    public static List<CollectiveAlgorithm> all()
    {
        return List.of(
            new ShmFlagsBarrier(),
            new ShmLowLatencyBroadcast(),
            new ShmEagerBroadcast(),
            new ShmDirectBroadcast(),
            new ShmSingleCopyBroadcast(),
            new ShmDirectReduce(),
            new ShmSingleCopyReduce(),
            new ShmLowLatencyAllreduce(),
            new ShmOneShotAllreduce(),
            new ShmTwoShotAllreduce(),
            new ShmSingleCopyAllreduce(),
            new ShmSingleCopyTwoShotAllreduce(),
            new ShmLowLatencyAllgather(),
            new ShmDirectAllgather(),
            new ShmSingleCopyAllgather(),
            new ShmLowLatencyAllgatherv(),
            new ShmDirectAllgatherv(),
            new ShmSingleCopyAllgatherv(),
            new ShmLowLatencyReduceScatter(),
            new ShmDirectReduceScatter(),
            new ShmSingleCopyReduceScatter(),
            new ShmLowLatencyReduceScatterv(),
            new ShmDirectReduceScatterv(),
            new ShmSingleCopyReduceScatterv(),
            new ShmLowLatencyAlltoall(),
            new ShmDirectAlltoall(),
            new ShmSingleCopyAlltoall(),
            new ShmLowLatencyScan());
    }
}
