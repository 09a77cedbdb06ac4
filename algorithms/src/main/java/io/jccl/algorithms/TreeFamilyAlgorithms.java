package io.jccl.algorithms;

import io.jccl.algorithms.allgather.BruckAllgather;
import io.jccl.algorithms.allreduce.ReduceBroadcastAllreduce;
import io.jccl.algorithms.alltoall.BruckAlltoall;
import io.jccl.algorithms.alltoall.PairwiseAlltoall;
import io.jccl.algorithms.barrier.DisseminationBarrier;
import io.jccl.algorithms.broadcast.BinomialBroadcast;
import io.jccl.algorithms.broadcast.ChainBroadcast;
import io.jccl.algorithms.broadcast.ScatterAllgatherBroadcast;
import io.jccl.algorithms.gather.BinomialGather;
import io.jccl.algorithms.gather.LinearGather;
import io.jccl.algorithms.gather.LinearGatherv;
import io.jccl.algorithms.reduce.BinomialReduce;
import io.jccl.algorithms.scatter.BinomialScatter;
import io.jccl.algorithms.scatter.LinearScatter;
import io.jccl.algorithms.scan.ChainScan;
import io.jccl.algorithms.scatter.LinearScatterv;
import io.jccl.spi.CollectiveAlgorithm;

import java.util.List;

/**
 * The message-passing algorithms built on trees, chains, Bruck and pairwise patterns: binomial and k-nomial trees,
 * pipelined chains (broadcast, scan), van de Geijn scatter-allgather, Bruck, pairwise exchange, linear gather and
 * scatter (and their v forms), dissemination.
 */
public final class TreeFamilyAlgorithms
{
    private static final List<CollectiveAlgorithm> ALL = List.of(
        new BinomialBroadcast(),
        new ChainBroadcast(),
        new ScatterAllgatherBroadcast(),
        new BinomialReduce(),
        new ReduceBroadcastAllreduce(),
        new BruckAllgather(),
        new PairwiseAlltoall(),
        new BruckAlltoall(),
        new LinearGather(),
        new LinearGatherv(),
        new BinomialGather(),
        new LinearScatter(),
        new LinearScatterv(),
        new BinomialScatter(),
        new DisseminationBarrier(),
        new ChainScan());

    private TreeFamilyAlgorithms()
    {
    }

    /** One instance of each (algorithms are stateless); pairwise serves both alltoall and alltoallv. */
    public static List<CollectiveAlgorithm> all()
    {
        return ALL;
    }
}
