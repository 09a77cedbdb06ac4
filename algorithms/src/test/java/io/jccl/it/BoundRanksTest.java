package io.jccl.it;

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
    private static final String CORE_EACH = "wait and send as with a core each";
    private static final Path JAVA = Path.of(System.getProperty("java.home"), "bin", "java");

    @Test
    void twoRanksBoundToACpuEachCountTwoCores(@TempDir final Path dir) throws Exception
    {
        final JobResult bound = launch(2, bindingJava(dir, 1));
        for (int r = 0; r < 2; r++)
        {
            final String output = output(bound, r);
            assertTrue(output.contains("this JVM may use 1 of the 2 " + JOB_CPUS), output);
            assertFalse(output.contains("oversubscribed"), output);
            assertTrue(output.contains("OK small rank " + r), output);
        }

        final JobResult unbound = launch(2, JAVA);
        for (int r = 0; r < 2; r++)
        {
            assertFalse(output(unbound, r).contains(JOB_CPUS), Jobs.allOutput(unbound));
        }
    }

    /**
     * Four ranks bound two to a CPU outnumber their two cores, and the ranks at work cannot be given cores of their
     * own: their waits never spin on the count of idle ranks, which unbound ranks do.
     */
    @Test
    void ranksBoundTwoToACpuDoNotWaitAsIfTheyHadACoreEach(@TempDir final Path dir) throws Exception
    {
        final JobResult bound = launch(4, bindingJava(dir, 2));
        for (int r = 0; r < 4; r++)
        {
            final String output = output(bound, r);
            assertTrue(output.contains("4 ranks on 2 cores: oversubscribed"), output);
            assertFalse(output.contains(CORE_EACH), output);
            assertTrue(output.contains("OK small rank " + r), output);
        }

        if (Runtime.getRuntime().availableProcessors() < 4)
        {
            // unbound, the same job outnumbers the cores here too, and its waits do count on the idle ranks
            final JobResult unbound = launch(4, JAVA);
            for (int r = 0; r < 4; r++)
            {
                assertTrue(output(unbound, r).contains(CORE_EACH), Jobs.allOutput(unbound));
            }
        }
    }

    /**
     * A java that binds the ranks below {@code onFirst} to the first CPU this JVM may use and the others to the
     * second, then runs the real one; the test is skipped without two CPUs or taskset.
     */
    private static Path bindingJava(final Path dir, final int onFirst) throws Exception
    {
        final BitSet cpus = JobCores.cpus(ProcessHandle.current().pid());
        assumeTrue(cpus != null && cpus.cardinality() >= 2, "needs two CPUs");
        final int first = cpus.nextSetBit(0);
        assumeTrue(new ProcessBuilder("taskset", "-c", Integer.toString(first), "true").start().waitFor() == 0,
            "needs taskset");
        final Path java = dir.resolve("java");
        Files.writeString(java, "#!/bin/sh\nif [ \"$JCCL_RANK\" -lt " + onFirst + " ]; then cpu=" + first +
            "; else cpu=" + cpus.nextSetBit(first + 1) + "; fi\nexec taskset -c \"$cpu\" \"" + JAVA + "\" \"$@\"\n");
        Files.setPosixFilePermissions(java, PosixFilePermissions.fromString("rwxr-xr-x"));
        return java;
    }

    /** P2pRank's "small" scenario on {@code ranks} ranks started by {@code java}, INIT logged at INFO; it must pass. */
    private static JobResult launch(final int ranks, final Path java)
    {
        final JobResult result = Jobs.builder()
            .ranks(ranks)
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
        Jobs.assertSucceeded(result);
        return result;
    }

    private static String output(final JobResult result, final int rank)
    {
        return String.join("\n", result.output(rank));
    }
}
