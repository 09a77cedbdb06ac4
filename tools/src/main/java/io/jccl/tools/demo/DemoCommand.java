package io.jccl.tools.demo;

import io.jccl.launch.JobLauncher;
import io.jccl.launch.JobResult;
import io.jccl.tools.Arguments;
import io.jccl.tools.Command;

import java.io.PrintStream;
import java.time.Duration;
import java.util.List;

/**
 * {@code ./jccl demo [-n N]}: launches N rank JVMs running {@link DemoRank} and prints rank 0's report as is: every
 * collective's buffers before and after, then the worked examples. Exits 0 when every result was right.
 */
public final class DemoCommand implements Command
{
    static final int DEFAULT_RANKS = 4;
    static final int MAX_RANKS = 8;
    /** The demo takes a few seconds; a job still running after this is stuck, and is stopped. */
    static final Duration TIMEOUT = Duration.ofMinutes(2);
    /** Small heaps and the simplest collector: the ranks start fast, and 1 MiB vectors need little memory. */
    static final List<String> RANK_JVM_ARGS = List.of("-Xmx256m", "-XX:+UseSerialGC");

    private final PrintStream out;
    private final PrintStream err;

    public DemoCommand(final PrintStream out, final PrintStream err)
    {
        this.out = out;
        this.err = err;
    }

    @Override
    public String name()
    {
        return "demo";
    }

    @Override
    public String summary()
    {
        return "run the collectives on N ranks and show each buffer before and after, then worked examples";
    }

    @Override
    public String usage()
    {
        return """
            usage: ./jccl demo [-n N]

            Starts N ranks (separate JVMs) and shows every collective on small vectors, each rank's buffer before
            and after: barrier, broadcast, reduce, allreduce, gather, scatter, allgather, reduce_scatter, alltoall,
            allgatherv, gatherv, scatterv, alltoallv, scan, exscan, and a float16 allreduce. Then worked examples:
            distributed mean, argmax and softmax, a ring allreduce written with send/recv only, word counts (Java
            maps) merged by an allreduce of objects, and allreduce done three ways (allreduce, reduce + broadcast,
            reduce_scatter + allgather), timed on 1 MiB. Rank 0 prints the report; every result is checked, and the
            exit code is 1 when one is wrong.

              -n N    number of ranks, 1 to 8 (default 4)
            """;
    }

    @Override
    public int run(final String[] args)
    {
        final Arguments arguments = new Arguments(args);
        int ranks = DEFAULT_RANKS;
        String option;
        while ((option = arguments.nextOption()) != null)
        {
            if ("-n".equals(option))
            {
                ranks = arguments.intValue(option, 1, MAX_RANKS);
            }
            else
            {
                throw Arguments.unknownOption(option);
            }
        }
        arguments.expectNoOperands();

        final JobResult result = JobLauncher.builder()
            .ranks(ranks)
            .mainClass(DemoRank.class.getName())
            .jvmArgs(RANK_JVM_ARGS)
            .timeout(TIMEOUT)
            .outputSink(new RankZeroSink(out, err))
            .build()
            .run();
        return result.exitCode();
    }
}
