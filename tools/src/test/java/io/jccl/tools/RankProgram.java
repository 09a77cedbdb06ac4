package io.jccl.tools;

/**
 * A program for {@code jccl run} tests: prints its rank, the world size and its arguments; with arguments
 * {@code fail R CODE}, rank R exits with CODE.
 */
public final class RankProgram
{
    private RankProgram()
    {
    }

    public static void main(final String[] args)
    {
        final int rank = Integer.parseInt(System.getenv("JCCL_RANK"));
        System.out.println("rank " + rank + " of " + System.getenv("JCCL_WORLD_SIZE") + " args " + String.join(" ", args));
        if (args.length == 3 && "fail".equals(args[0]) && rank == Integer.parseInt(args[1]))
        {
            System.exit(Integer.parseInt(args[2]));
        }
    }
}
