package io.jccl.launch;

import java.util.concurrent.TimeUnit;

/**
 * A rank for the launcher tests, started in its own JVM; the first argument says what it does:
 * {@code hello} prints its environment to stdout and a line to stderr; {@code fail R CODE} makes rank R exit with
 * CODE while the others wait to be stopped; {@code kill9 R} makes rank R kill itself with SIGKILL; {@code sleep}
 * waits to be stopped.
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
                    " in job " + System.getenv("JCCL_JOB_ID") + " shm " + System.getenv("JCCL_SHM_DIR"));
                System.err.println("stderr of rank " + rank);
            }
            case "fail" ->
            {
                if (rank == Integer.parseInt(args[1]))
                {
                    System.out.println("rank " + rank + " giving up");
                    System.exit(Integer.parseInt(args[2]));
                }
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
            default -> throw new IllegalArgumentException("unknown test action " + args[0]);
        }
    }
}
