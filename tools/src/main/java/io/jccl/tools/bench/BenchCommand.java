package io.jccl.tools.bench;

import io.jccl.Configuration;
import io.jccl.launch.JobLauncher;
import io.jccl.launch.JobResult;
import io.jccl.tools.Command;
import io.jccl.tools.UsageException;

import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.util.List;
import java.util.Map;

/**
 * {@code ./jccl bench -n N --op OPS ...}: the everyday sweep. Checks the arguments, starts N rank JVMs running
 * {@link BenchRank} with jccl's class path, and passes rank 0's results through unprefixed ({@link BenchSink}).
 * Exits with the job's exit code: 0, or 1 when a checked row had wrong results, or the code of a rank that failed.
 */
public final class BenchCommand implements Command
{
    /** JVM options of the ranks, besides the direct memory their regions need. */
    public static final List<String> RANK_JVM_ARGS = List.of("-XX:+UseSerialGC", "-Xmx256m");

    private final PrintStream out;
    private final PrintStream err;

    public BenchCommand(final PrintStream out, final PrintStream err)
    {
        this.out = out;
        this.err = err;
    }

    @Override
    public String name()
    {
        return "bench";
    }

    @Override
    public String summary()
    {
        return "benchmark ping-pong and the collectives across message sizes (table, OSU, nccl-tests, CSV, JSON)";
    }

    @Override
    public String usage()
    {
        return """
            usage: ./jccl bench -n N --op OPS [--algo NAME|all] [--min-bytes B] [--max-bytes B] [--step F] \
            [--dtype T] [--reduce-op OP] [--format table|osu|nccl|csv|json] [--iters K] [--warmup K] [--check] \
            [--cold] [--shared] [--sync] [--root R] [--compare PEERS.csv]

            Starts N ranks and times each operation at sizes from --min-bytes to --max-bytes in x4 steps (8 B, 32 B,
            128 B, ...), like ../shared/peers/run-peers, or in steps of --step. Bytes follow nccl-tests: the whole
            vector (the gathered output, the scattered input, one rank's alltoall send buffer); sizes that do not
            split into one block per rank are skipped. Each rank times its own loop; rows show the average, fastest
            and slowest rank's mean time per call, algbw = bytes / time and busbw = algbw x nccl-tests' factor.
            pingpong rows are the one-way latency between ranks 0 and 1. Results go to stdout, progress to stderr.

              -n N              number of ranks (required)
              --op OPS          comma list of pingpong, barrier, broadcast, reduce, allreduce, gather, scatter,
                                allgather, reduce_scatter, alltoall, allgatherv, reduce_scatterv, alltoallv,
                                gatherv, scatterv (the v forms with equal counts), scan, exscan, or all
              --algo A          all: every algorithm of each collective; NAME: that algorithm wherever the
                                collective has it; COLLECTIVE:NAME,...: per collective. Default: jccl chooses
                                per call, and the algorithm column says what it chose
              --min-bytes B     smallest size (default 8); suffixes k, m, g
              --max-bytes B     largest size (default 64m)
              --step F          factor between sizes (default 4; 2 gives the model fit twice the points)
              --dtype T         int8, int32, int64, float16, bfloat16, float32 (default), float64, uint8,
                                uint32 or uint64
              --reduce-op OP    sum (default), prod, min, max, avg, or band, bor, bxor (integer types)
              --format F        table (default), osu (like osu_allreduce -f), nccl (like all_reduce_perf),
                                csv (collective,algorithm,ranks,bytes,dtype,avg_us,min_us,max_us,iters,
                                algbw_GBps,busbw_GBps,wrong,op,memory,timing) or json
              --iters K         timed calls per size (default 20000 up to 8 KiB, 1000 up to 1 MiB, 50 above,
                                fewer, down to a hundredth, when a size would take over 0.3 s)
              --warmup K        untimed calls before timing (default: rounds of calls until the pace stops
                                improving, at most 1 s per size)
              --check           check one call per row against a locally computed reference (exact for
                                integers, within rounding for floating point); fills the wrong column
              --cold            rotate through buffers spanning more than the last-level cache (default hot)
              --shared          buffers from allocateShared, in the job's shared segment (default: private
                                direct memory, as MPI benchmarks use): the collectives then read peers'
                                buffers in place, without staging copies or kernel calls
              --sync            a barrier before every timed call, and each rank times the call alone (OSU's
                                latency; default: calls back to back, as nccl-tests and run-peers, where a
                                root that does not wait for its leaves overlaps one call with the next)
              --root R          root of broadcast, reduce, gather and scatter (default 0)
              --compare FILE    after the sweep, print jccl next to a run-peers CSV and the ratio to the faster
                                peer (table, or CSV with --format csv)
            """;
    }

    @Override
    public int run(final String[] args)
    {
        return run(args, Map.of());
    }

    /** {@link #run(String[])} with these environment variables set for the ranks. */
    public int run(final String[] args, final Map<String, String> environment)
    {
        final BenchOptions options = BenchOptions.parse(args);
        if (options.compare() != null)
        {
            try
            {
                PeerResults.read(options.compare());
            }
            catch (final IllegalArgumentException | UncheckedIOException ex)
            {
                throw new UsageException("--compare: " + ex.getMessage());
            }
        }
        final BenchPlan plan = new BenchPlan(options, BenchPlan.detectColdSpan());
        if (plan.blocks().isEmpty())
        {
            plan.notes().forEach(note -> err.println(BenchSweep.NOTE_PREFIX + note));
            throw new UsageException("nothing to measure with these options");
        }
        final JobLauncher.Builder launcher = JobLauncher.builder();
        environment.forEach(launcher::environment);
        final JobResult result = launcher
            .ranks(options.ranks())
            .mainClass(BenchRank.class.getName())
            .args(options.toArgs())
            .jvmArgs(RANK_JVM_ARGS)
            .jvmArgs("-XX:MaxDirectMemorySize=" + plan.directMemoryBytes())
            .jvmArgs(options.shared() ? List.of("-D" + Configuration.SYMMETRIC_BYTES_PROP_NAME + "=" +
                plan.symmetricBytes()) : List.of())
            .classPath(System.getProperty("java.class.path"))
            .outputSink(new BenchSink(out, err))
            .build()
            .run();
        return result.exitCode();
    }
}
