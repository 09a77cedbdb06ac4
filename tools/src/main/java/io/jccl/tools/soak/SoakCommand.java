package io.jccl.tools.soak;

import io.jccl.Configuration;
import io.jccl.launch.JobLauncher;
import io.jccl.launch.JobResult;
import io.jccl.tools.Command;
import io.jccl.tools.bench.BenchSink;
import io.jccl.tools.soak.SoakOptions.Memory;

import java.io.PrintStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * {@code ./jccl soak [-n N] [--duration 10m] ...}: starts N ranks running {@link SoakRank} and passes rank 0's
 * progress through unprefixed. Exits with the job's exit code: 0 when every result was right, 1 when any was wrong,
 * or the code of a rank that failed.
 */
public final class SoakCommand implements Command
{
    /**
     * The ranks' heap is fixed and touched up front, so that resident memory does not grow with the collector's
     * high-water mark: what grows after warm-up is native memory, code or segment pages. This much, and the heap
     * regions on top when there are any.
     */
    private static final long RANK_HEAP_BYTES = 128L << 20;
    /** Communicators a soak's calls run on at most, each with its own scratch ({@link #rankJvmArgs}). */
    private static final int COMMUNICATORS = 6;
    /** Past the soak's own duration, how long the job may take before the launcher stops it as hung. */
    private static final Duration HANG_MARGIN = Duration.ofMinutes(2);

    private final PrintStream out;
    private final PrintStream err;

    public SoakCommand(final PrintStream out, final PrintStream err)
    {
        this.out = out;
        this.err = err;
    }

    @Override
    public String name()
    {
        return "soak";
    }

    @Override
    public String summary()
    {
        return "random collectives, sizes, types and algorithms for a set time, every result checked";
    }

    @Override
    public String usage()
    {
        return """
            usage: ./jccl soak [-n N] [--duration D] [--max-bytes B] [--seed S] [--report D] [--memory M]
                               [--groups G] [--blocking-only] [--out-of-place-only] [--ops OPS]

            Starts N ranks that run random operations until the time is up: every bench operation (pingpong, barrier,
            broadcast, reduce, allreduce, gather, scatter, allgather, reduce_scatter, alltoall, the v forms, scan and
            exscan), every datatype and reduction, every algorithm of the collective or jccl's own choice, sizes
            log-uniform from one element to --max-bytes, a random root, buffers in direct, heap or shared memory
            (direct and heap mixed across the ranks in a call of four that draws one of them), on the job's
            communicator, a dup() of it or the two groups of a split (even and odd ranks, each numbered backwards),
            whose calls run side by side; a call in four of allreduce, reduce, allgather, gather, reduce_scatter,
            scatter, gatherv, scatterv, scan and exscan is made in place. One step in four starts one to three
            non-blocking collectives, makes a blocking call while they run, then waits for them; one in eight
            exchanges one to four messages between every two ranks, in several tags and of every length from 0, by
            isend/irecv (awaited one by one, by waitAny or by testAll) or, one exchange in four, by blocking sendRecv
            round the group. Each call starts from fresh seeded inputs and its result is checked against a reference
            every rank computes locally (as bench --check: integers exactly, floating point within rounding). Rank 0
            prints a line every --report with the operations done, the wrong results and the resident memory (VmRSS)
            of each rank, then a summary comparing each rank's resident memory after warm-up (the first tenth of the
            run) with the end. Exits with 1 when any result was wrong.

              -n N             number of ranks (default 4)
              --duration D     how long to run: 10m, 30s, 1h, 500ms (default 60s)
              --max-bytes B    largest message, counted as bench counts it (default 4m); suffixes k, m, g
              --seed S         seed of the calls and their data (default: from the clock; printed)
              --report D       interval between progress lines (default a tenth of the duration, 1s to 10s)
              --memory M       where buffers live, any of direct, heap, shared (default all three)
              --groups G       communicators the calls run on, any of world, dup, split (default all three)
              --blocking-only  no non-blocking collectives and no exchanges
              --out-of-place-only
                               no calls in place
              --ops OPS        operations drawn, a comma list of bench's (--op), or all (default all)
            """;
    }

    @Override
    public int run(final String[] args)
    {
        final SoakOptions options = SoakOptions.parse(args);
        final JobResult result = JobLauncher.builder()
            .ranks(options.ranks())
            .mainClass(SoakRank.class.getName())
            .args(options.toArgs())
            .jvmArgs(rankJvmArgs(options))
            .classPath(System.getProperty("java.class.path"))
            .outputSink(new BenchSink(out, err))
            .timeout(Duration.ofMillis(options.durationMs()).plus(HANG_MARGIN))
            .build()
            .run();
        return result.exitCode();
    }

    /**
     * A fixed heap with room for the heap regions; direct memory for the direct ones, and for the engine's scratch,
     * where the single-copy algorithms copy heap and in-place send buffers: each communicator keeps its own, up to 1.5
     * times the largest message ({@code shm_single_copy_twoshot} allreduce), and the calls run on up to six (world, a
     * dup, a split, and the duplicate each one runs its non-blocking calls on); a segment for the shared regions.
     */
    static List<String> rankJvmArgs(final SoakOptions options)
    {
        final long regions = 2 * options.maxBytes();
        final long heapMiB = (RANK_HEAP_BYTES + (options.memory().contains(Memory.HEAP) ? regions : 0) + (1 << 20) -
            1) >> 20;
        final long scratch = COMMUNICATORS * 3 * options.maxBytes() / 2;
        final List<String> args = new ArrayList<>(List.of("-XX:+UseSerialGC", "-Xms" + heapMiB + "m",
            "-Xmx" + heapMiB + "m", "-XX:+AlwaysPreTouch",
            "-XX:MaxDirectMemorySize=" + (regions + scratch + (64 << 20))));
        if (options.memory().contains(Memory.SHARED))
        {
            // what allocateShared of both regions takes, alignment included (as bench --shared)
            args.add("-D" + Configuration.SYMMETRIC_BYTES_PROP_NAME + "=" + (regions + 2 * 64));
        }
        return args;
    }
}
