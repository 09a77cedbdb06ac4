package io.jccl.it;

import io.jccl.launch.JobLauncher;
import io.jccl.launch.JobResult;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

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
        final List<Integer> cpus = allowedCpus();
        assumeTrue(cpus.size() >= 2, "needs two CPUs");
        assumeTrue(new ProcessBuilder("taskset", "-c", "0", "true").start().waitFor() == 0, "needs taskset");
        // a java that binds rank r to the r-th CPU this JVM may use, then runs the real one
        final Path java = dir.resolve("java");
        Files.writeString(java, "#!/bin/sh\ncpus=\"" + cpus.get(0) + " " + cpus.get(1) + "\"\n" +
            "set -- $cpus \"$@\"; cpu=$1; [ \"$JCCL_RANK\" = 1 ] && cpu=$2; shift 2\n" +
            "exec taskset -c \"$cpu\" \"" + Path.of(System.getProperty("java.home"), "bin", "java") + "\" \"$@\"\n");
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

    /** The CPUs this JVM may run on, in order, from the kernel's list ("0-3,8"). */
    private static List<Integer> allowedCpus() throws IOException
    {
        final List<Integer> cpus = new ArrayList<>();
        for (final String line : Files.readAllLines(Path.of("/proc/self/status")))
        {
            if (line.startsWith("Cpus_allowed_list:"))
            {
                for (final String part : line.substring(line.indexOf(':') + 1).trim().split(","))
                {
                    final String[] ends = part.split("-");
                    for (int cpu = Integer.parseInt(ends[0]); cpu <= Integer.parseInt(ends[ends.length - 1]); cpu++)
                    {
                        cpus.add(cpu);
                    }
                }
            }
        }
        return cpus;
    }
}
