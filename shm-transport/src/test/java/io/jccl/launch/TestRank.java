package io.jccl.launch;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * A rank for the launcher tests, started in its own JVM; the first argument says what it does: {@code hello} prints its
 * environment (and whether it has the Vector API) to stdout and a line to stderr; {@code fail R CODE} makes rank R exit
 * with CODE once the others wait to be stopped (they say so from a shutdown hook); {@code kill9 R} makes rank R kill
 * itself with SIGKILL; {@code sleep} waits to be stopped; {@code delete DIR} deletes DIR and what it holds.
 */
public final class TestRank
{
    private static final long WAIT_TO_BE_STOPPED_SECONDS = 60;

    private TestRank()
    {
    }

    public static void main(final String[] args) throws Exception
    {
        final int rank = Integer.parseInt(System.getenv("JCCL_RANK"));
        switch (args[0])
        {
            case "hello" ->
            {
                System.out.println("hello from rank " + rank + " of " + System.getenv("JCCL_WORLD_SIZE") +
                    " in job " + System.getenv("JCCL_JOB_ID") + " shm " + System.getenv("JCCL_SHM_DIR") +
                    " vector " + ModuleLayer.boot().findModule(JobLauncher.VECTOR_MODULE).isPresent());
                System.err.println("stderr of rank " + rank);
            }
            case "fail" ->
            {
                // ready files in JCCL_SHM_DIR tell the failing rank that the others wait, their hook installed
                final Path dir = Path.of(System.getenv("JCCL_SHM_DIR"));
                final String job = System.getenv("JCCL_JOB_ID");
                if (rank == Integer.parseInt(args[1]))
                {
                    final long deadlineNs = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
                    final int size = Integer.parseInt(System.getenv("JCCL_WORLD_SIZE"));
                    while (readyRanks(dir, job) < size - 1 && System.nanoTime() < deadlineNs)
                    {
                        TimeUnit.MILLISECONDS.sleep(10);
                    }
                    System.out.println("rank " + rank + " giving up");
                    System.exit(Integer.parseInt(args[2]));
                }
                Runtime.getRuntime().addShutdownHook(
                    new Thread(() -> System.out.println("rank " + rank + " stopping")));
                Files.createFile(dir.resolve("ready-" + job + "-" + rank));
                TimeUnit.SECONDS.sleep(WAIT_TO_BE_STOPPED_SECONDS);
            }
            case "kill9" ->
            {
                if (rank == Integer.parseInt(args[1]))
                {
                    new ProcessBuilder("kill", "-9", Long.toString(ProcessHandle.current().pid())).start().waitFor();
                }
                TimeUnit.SECONDS.sleep(WAIT_TO_BE_STOPPED_SECONDS);
            }
            case "sleep" -> TimeUnit.SECONDS.sleep(WAIT_TO_BE_STOPPED_SECONDS);
            case "delete" ->
            {
                // as a user who empties a cache while a job runs
                try (Stream<Path> files = Files.walk(Path.of(args[1])))
                {
                    for (final Path file : files.sorted(Comparator.reverseOrder()).toList())
                    {
                        Files.deleteIfExists(file);
                    }
                }
                catch (final NoSuchFileException alreadyDeleted)
                {
                    // by the other rank
                }
            }
            default -> throw new IllegalArgumentException("unknown test action " + args[0]);
        }
    }

    private static long readyRanks(final Path dir, final String job) throws IOException
    {
        try (Stream<Path> files = Files.list(dir))
        {
            return files.filter(p -> p.getFileName().toString().startsWith("ready-" + job + "-")).count();
        }
    }
}
