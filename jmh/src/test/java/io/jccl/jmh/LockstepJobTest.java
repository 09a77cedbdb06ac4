package io.jccl.jmh;

import io.jccl.JcclException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The rank-0 side without JMH: peers are real JVMs, and nothing of a job outlives it, even a failed one. */
@Timeout(60)
class LockstepJobTest
{
    @TempDir
    Path shmDir;

    @BeforeEach
    void useOwnShmDir()
    {
        System.setProperty("jccl.shm.dir", shmDir.toString());
    }

    @AfterEach
    void restoreShmDir()
    {
        System.clearProperty("jccl.shm.dir");
    }

    @Test
    void peersFollowInvocationsAndExitOnStop() throws IOException
    {
        final LockstepJob job = LockstepJob.start(Workload.of("allreduce", "ring", 1024, 3, "float32"));
        assertEquals(2, peers().size());
        for (int i = 0; i < 20; i++)
        {
            job.invoke();
        }
        job.close();
        assertNothingLeft();
    }

    @Test
    void symmetricBuffersOfEveryRootedAndBlockedKind() throws IOException
    {
        // larger than the default symmetric memory per rank (8 MiB), which the job sizes for the workload
        for (final String operation : List.of("allgather", "reduce", "scatter", "alltoall"))
        {
            final LockstepJob job = LockstepJob.start(Workload.of(operation, "default", 6 << 20, 3, "float32",
                Workload.SHARED));
            job.invoke();
            job.close();
        }
        assertNothingLeft();
    }

    @Test
    void aKilledPeerFailsTheInvocationAndTheCloseSaysSo() throws IOException
    {
        final LockstepJob job = LockstepJob.start(Workload.of("broadcast", "default", 4096, 2, "int32"));
        job.invoke();
        final List<ProcessHandle> peers = peers();
        assertEquals(1, peers.size());
        peers.get(0).destroyForcibly();

        final long start = System.nanoTime();
        assertThrows(RuntimeException.class, () ->
        {
            while (true)
            {
                job.invoke();
            }
        });
        assertTrue(System.nanoTime() - start < 10_000_000_000L, "the dead peer was noticed within 10 s");
        final JcclException ex = assertThrows(JcclException.class, job::close);
        assertTrue(ex.getMessage().contains("peer rank 1 exited with code 137"), ex.getMessage());
        assertNothingLeft();
    }

    /** This test's peers: children of this JVM running with its shm directory. */
    private List<ProcessHandle> peers()
    {
        return ProcessHandle.current().children()
            .filter(ProcessHandle::isAlive)
            .filter(p -> p.info().arguments().map(args -> Stream.of(args).anyMatch(a -> a.contains(shmDir.toString())))
                .orElse(false))
            .toList();
    }

    private void assertNothingLeft() throws IOException
    {
        assertEquals(List.of(), peers(), "peer processes left");
        try (Stream<Path> files = Files.list(shmDir))
        {
            assertEquals(List.of(), files.toList(), "files left in the shm directory");
        }
    }
}
