package io.jccl.it;

import io.jccl.launch.JobLauncher;
import io.jccl.launch.JobResult;
import io.jccl.shm.JobCores;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.BitSet;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * Ranks bound to CPUs of their own (taskset) count the CPUs the job's ranks may use together, not the one their JVM
 * sees: two ranks bound to a CPU each do not take themselves for ranks outnumbering cores.
 */
@Timeout(120)
class BoundRanksTest
{
    private static final String JOB_CPUS = "CPUs the job's ranks may use together";

    @Test
    void twoRanksBoundToACpuEachCountTwoCores(@TempDir final Path dir) throws Exception
    {
        final BitSet cpus = JobCores.cpus(ProcessHandle.current().pid());
        assumeTrue(cpus != null && cpus.cardinality() >= 2, "needs two CPUs");
        final int first = cpus.nextSetBit(0);
        assumeTrue(new ProcessBuilder("taskset", "-c", Integer.toString(first), "true").start().waitFor() == 0,
            "needs taskset");
        // a java that binds rank 0 to the first CPU this JVM may use and rank 1 to the second, then runs the real one
        final Path java = dir.resolve("java");
        Files.writeString(java, "#!/bin/sh\nif [ \"$JCCL_RANK\" = 0 ]; then cpu=" + first + "; else cpu=" +
            cpus.nextSetBit(first + 1) + "; fi\nexec taskset -c \"$cpu\" \"" +
            Path.of(System.getProperty("java.home"), "bin", "java") + "\" \"$@\"\n");
        Files.setPosixFilePermissions(java, PosixFilePermissions.fromString("rwxr-xr-x"));

        final JobResult bound = launch(java);
        Jobs.assertSucceeded(bound);
        for (int r = 0; r < 2; r++)
        {
            final String output = String.join("\n", bound.output(r));
            assertTrue(output.contains("this JVM may use 1 of the 2 " + JOB_CPUS), output);
            assertFalse(output.contains("oversubscribed"), output);
            assertTrue(output.contains("OK small rank " + r), output);
        }

        final JobResult unbound = launch(Path.of(System.getProperty("java.home"), "bin", "java"));
        Jobs.assertSucceeded(unbound);
        for (int r = 0; r < 2; r++)
        {
            assertFalse(String.join("\n", unbound.output(r)).contains(JOB_CPUS), Jobs.allOutput(unbound));
        }
    }

    private static JobResult launch(final Path java)
    {
        return JobLauncher.builder()
            .ranks(2)
            .mainClass(P2pRank.class.getName())
            .args("small")
            .jvmArgs("-Xmx256m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1")
            .javaExecutable(java)
            .environment("JCCL_DEBUG", "INFO")
            .environment("JCCL_DEBUG_SUBSYS", "INIT")
            .environment("JCCL_RING_BYTES", "1m")
            .captureOutput(true)
            .timeout(Duration.ofSeconds(90))
            .build()
            .run();
    }
}
