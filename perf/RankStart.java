import io.jccl.Communicator;
import io.jccl.Jccl;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * What starting a rank costs: the time of {@code Jccl.connect()}, then the CPU time of each of this JVM's threads so
 * far and of the whole process (dead threads included, such as the kernels' loader), from {@code /proc}; then a
 * barrier and close. One line per rank:
 * <pre>
 *   RANKSTART connect_ms 506 process_cpu_ms 590 threads [java 250] [C1_CompilerThre 160] ...
 * </pre>
 * Build and run from the repository (Linux only):
 * <pre>
 *   ./jccl info >/dev/null; J=/usr/lib/jvm/temurin-25-jdk-amd64/bin
 *   $J/javac -cp core/target/classes -d /tmp/rank-start perf/RankStart.java
 *   ./jccl run -n 2 --cp /tmp/rank-start RankStart
 *   ./jccl run -n 2 --cp /tmp/rank-start --jvm-arg -XX:TieredStopAtLevel=1 --jvm-arg -XX:+UseSerialGC \
 *       --jvm-arg -Xmx512m RankStart                       # the test suite's rank flags (Jobs.launch)
 * </pre>
 * PERFORMANCE.md, session 69, has what it measured.
 */
public final class RankStart
{
    /** Clock ticks of /proc's CPU times: USER_HZ, 100 on Linux. */
    private static final long MS_PER_TICK = 10;

    public static void main(final String[] args) throws IOException
    {
        final long start = System.nanoTime();
        try (Communicator comm = Jccl.connect())
        {
            final long connected = System.nanoTime();
            final StringBuilder threads = new StringBuilder();
            try (DirectoryStream<Path> tasks = Files.newDirectoryStream(Path.of("/proc/self/task")))
            {
                for (final Path task : tasks)
                {
                    final String stat = Files.readString(task.resolve("stat"));
                    final long ms = cpuMillis(stat);
                    if (ms > 0)
                    {
                        final String name = stat.substring(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
                        threads.append(" [").append(name.replace(' ', '_')).append(' ').append(ms).append(']');
                    }
                }
            }
            System.out.printf("RANKSTART connect_ms %.0f process_cpu_ms %d threads%s%n", (connected - start) / 1e6,
                cpuMillis(Files.readString(Path.of("/proc/self/stat"))), threads);
            comm.barrier();
        }
    }

    /** User and system time of a /proc stat line (fields 14 and 15, counted from the pid), in milliseconds. */
    private static long cpuMillis(final String stat)
    {
        final String[] fields = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
        return (Long.parseLong(fields[11]) + Long.parseLong(fields[12])) * MS_PER_TICK;
    }
}
