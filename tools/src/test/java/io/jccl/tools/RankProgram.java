package io.jccl.tools;

import java.util.concurrent.TimeUnit;

/**
 * A program for {@code jccl run} tests: prints its rank, the world size and its arguments, then acts on them:
 * {@code fail R CODE} makes rank R exit with CODE; {@code sleep} prints the job id and waits a minute to be stopped.
 */
public final class RankProgram
{
    private RankProgram()
    {
    }

    public static void main(final String[] args) throws InterruptedException
    {
        final int rank = Integer.parseInt(System.getenv("JCCL_RANK"));
        System.out.println("rank " + rank + " of " + System.getenv("JCCL_WORLD_SIZE") + " args " +
            String.join(" ", args));
        if (args.length == 3 && "fail".equals(args[0]) && rank == Integer.parseInt(args[1]))
        {
            System.exit(Integer.parseInt(args[2]));
        }
        if (args.length == 1 && "sleep".equals(args[0]))
        {
            System.out.println("job " + System.getenv("JCCL_JOB_ID"));
            TimeUnit.SECONDS.sleep(60);
        }
    }
}
