package io.jccl.jmh;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

@Timeout(10)
class WorkloadTest
{
    @Test
    void peerArgumentsRebuildTheSameWorkload()
    {
        final Workload workload = Workload.of("reduce_scatter", "ring", 4096, 4, "bf16");
        final Workload copy = Workload.fromArgs(workload.peerArgs().toArray(String[]::new));
        assertEquals(workload.toString(), copy.toString());
        assertEquals("reduce_scatter algorithm=ring bytes=4096 ranks=4 dtype=bfloat16", copy.toString());

        final Workload shared = Workload.of("allgather", "shm_direct", 4096, 4, "float32", Workload.SHARED);
        final Workload sharedCopy = Workload.fromArgs(shared.peerArgs().toArray(String[]::new));
        assertTrue(sharedCopy.shared());
        assertEquals("allgather algorithm=shm_direct bytes=4096 ranks=4 dtype=float32 memory=shared",
            sharedCopy.toString());
        assertThrows(IllegalArgumentException.class, () -> Workload.of("allgather", "default", 4096, 4, "float32",
            "offheap"));
    }

    @Test
    void unknownAlgorithmNamesTheKnownOnes()
    {
        final IllegalArgumentException ex = assertThrows(IllegalArgumentException.class,
            () -> Workload.of("allreduce", "binomial", 1024, 2, "float32"));
        assertTrue(ex.getMessage().contains("no allreduce algorithm named 'binomial'"), ex.getMessage());
        assertTrue(ex.getMessage().contains("ring"), ex.getMessage());
    }

    @Test
    void blockCollectivesNeedOneWholeBlockPerRank()
    {
        final IllegalArgumentException ex = assertThrows(IllegalArgumentException.class,
            () -> Workload.of("allgather", "default", 8, 4, "float32"));
        assertTrue(ex.getMessage().contains("bytes must be a positive multiple of 16"), ex.getMessage());
        Workload.of("allgather", "default", 16, 4, "float32");
        Workload.of("allreduce", "default", 8, 4, "float32");
    }

    @Test
    void sizesMustBeWholeElements()
    {
        assertThrows(IllegalArgumentException.class, () -> Workload.of("allreduce", "default", 6, 2, "float64"));
        assertThrows(IllegalArgumentException.class, () -> Workload.of("broadcast", "default", 0, 2, "int8"));
    }

    @Test
    void barrierMovesNoData()
    {
        Workload.of("barrier", "dissemination", 0, 8, "int8");
        final IllegalArgumentException ex = assertThrows(IllegalArgumentException.class,
            () -> Workload.of("barrier", "default", 1024, 2, "int8"));
        assertTrue(ex.getMessage().contains("barrier moves no data"), ex.getMessage());
    }

    @Test
    void pingpongRunsOnTwoRanksWithoutAlgorithms()
    {
        Workload.of("pingpong", "default", 8, 2, "int8");
        assertThrows(IllegalArgumentException.class, () -> Workload.of("pingpong", "default", 8, 4, "int8"));
        assertThrows(IllegalArgumentException.class, () -> Workload.of("pingpong", "ring", 8, 2, "int8"));
    }

    @Test
    void busFactorsAreThoseOfNcclTests()
    {
        assertEquals(1.5, Workload.busFactor("allreduce", 4), 1e-12);
        assertEquals(0.75, Workload.busFactor("allgather", 4), 1e-12);
        assertEquals(0.875, Workload.busFactor("reduceScatter", 8), 1e-12);
        assertEquals(0.5, Workload.busFactor("alltoallv", 2), 1e-12);
        assertEquals(1.0, Workload.busFactor("broadcast", 8), 1e-12);
        assertEquals(1.0, Workload.busFactor("reduce", 8), 1e-12);
        assertEquals(1.0, Workload.busFactor("pingpong", 2), 1e-12);
        assertEquals(0.0, Workload.busFactor("barrier", 2), 1e-12);
    }
}
