package io.jccl.tools.bench;

import io.jccl.DataType;

import java.io.PrintStream;
import java.util.Locale;

/**
 * Blocks as OSU micro-benchmarks 7.2 print them: a collective like {@code osu_allreduce -f} (full listing: average,
 * minimum and maximum latency and iterations; with --check the {@code -c} "Validation" column), ping-pong like
 * {@code osu_latency} (one-way latency). Each block is preceded by one "# jccl: ..." line naming the operation and
 * the algorithm. As in OSU, Size is one rank's block for the gathers and scatters and one peer's block for
 * alltoall, and the whole vector otherwise.
 * <p>
 * Sources: c/util/osu_util.h (HEADER, FIELD_WIDTH 20, FLOAT_PRECISION 2), c/util/osu_util_mpi.c
 * (print_preamble, print_only_header, print_stats, print_stats_validate, VALIDATION_STATUS), c/util/osu_util.c
 * (print_header for point-to-point), c/mpi/pt2pt/standard/osu_latency.c, c/mpi/collective/blocking/osu_bcast.c
 * and osu_barrier.c (the "# Datatype" line, and the barrier printing no column header), in OMB 7.2 as kept in
 * github.com/lanl/benchmarks (microbenchmarks/osumb).
 */
public final class OsuWriter implements ResultWriter
{
    /** OMB's version in the benchmark header line. */
    public static final String OSU_VERSION = "7.2";
    /** osu_util.h: FIELD_WIDTH. */
    public static final int FIELD_WIDTH = 20;
    /** osu_util.h: FLOAT_PRECISION. */
    public static final int FLOAT_PRECISION = 2;
    /** osu_util_mpi.c print_only_header / osu_util.c print_header: the size column, {@code %-10s}. */
    public static final String SIZE_HEADER = "# Size";
    public static final String AVG_LATENCY = "Avg Latency(us)";
    public static final String MIN_LATENCY = "Min Latency(us)";
    public static final String MAX_LATENCY = "Max Latency(us)";
    /** print_only_header: {@code %12s}. */
    public static final String ITERATIONS = "Iterations";
    public static final String VALIDATION = "Validation";
    /** osu_util.c print_header, point-to-point latency. */
    public static final String LATENCY = "Latency (us)";
    /** osu_util_mpi.h VALIDATION_STATUS. */
    public static final String PASS = "Pass";
    public static final String FAIL = "Fail";
    /** osu_bcast.c and the other benchmarks of 7.x: {@code "# Datatype: %s.\n"}. */
    public static final String DATATYPE_LINE = "# Datatype: %s.";

    private final PrintStream out;
    private RunInfo info;
    private BenchOp op;

    public OsuWriter(final PrintStream out)
    {
        this.out = out;
    }

    /** OSU's {@code HEADER} for a benchmark, {@code "# " BENCHMARK " v" PACKAGE_VERSION}, printed with "". */
    public static String benchmarkHeader(final BenchOp op)
    {
        return "# " + String.format(Locale.ROOT, op.osuBenchmark(), "") + " v" + OSU_VERSION;
    }

    /** The column header of a collective with -f ({@code print_only_header}, show_size and show_full set). */
    public static String collectiveColumns(final boolean validation)
    {
        return String.format(Locale.ROOT, "%-10s%" + FIELD_WIDTH + "s%" + FIELD_WIDTH + "s%" + FIELD_WIDTH +
            "s%12s", SIZE_HEADER, AVG_LATENCY, MIN_LATENCY, MAX_LATENCY, ITERATIONS) +
            (validation ? String.format(Locale.ROOT, "%" + FIELD_WIDTH + "s", VALIDATION) : "");
    }

    /** The column header of osu_latency ({@code print_header}, point-to-point). */
    public static String latencyColumns(final boolean validation)
    {
        return String.format(Locale.ROOT, "%-10s%" + FIELD_WIDTH + "s", SIZE_HEADER, LATENCY) +
            (validation ? String.format(Locale.ROOT, "%" + FIELD_WIDTH + "s", VALIDATION) : "");
    }

    /** The MPI name OMB's "# Datatype" line would print for a jccl element type. */
    public static String mpiTypeName(final DataType type)
    {
        return switch (type)
        {
            case INT8 -> "MPI_CHAR";
            case INT32 -> "MPI_INT";
            case INT64 -> "MPI_INT64_T";
            case FLOAT16 -> "MPIX_C_FLOAT16";
            case BFLOAT16 -> "MPIX_BFLOAT16";
            case FLOAT32 -> "MPI_FLOAT";
            case FLOAT64 -> "MPI_DOUBLE";
            case UINT8 -> "MPI_UINT8_T";
            case UINT32 -> "MPI_UINT32_T";
            case UINT64 -> "MPI_UINT64_T";
        };
    }

    @Override
    public void start(final RunInfo info)
    {
        this.info = info;
    }

    @Override
    public void startBlock(final BenchPlan.Block block)
    {
        op = block.op();
        final BenchOptions options = info.options();
        final boolean validation = options.check();
        final StringBuilder sb = new StringBuilder();
        sb.append(block.describe(options)).append('\n');
        final String datatype = String.format(Locale.ROOT, DATATYPE_LINE, mpiTypeName(options.dataType()));
        if (op == BenchOp.PINGPONG)
        {
            // osu_latency: print_header (no blank line first), then the datatype line of the type loop
            sb.append(benchmarkHeader(op)).append('\n');
            sb.append(latencyColumns(validation)).append('\n');
            sb.append(datatype).append('\n');
        }
        else if (op == BenchOp.BARRIER)
        {
            // osu_barrier: print_preamble only; OMB 7.2 prints no column header for the barrier
            sb.append('\n').append(benchmarkHeader(op)).append('\n');
        }
        else
        {
            // print_preamble ("\n" and the header), the datatype line, print_only_header
            sb.append('\n').append(benchmarkHeader(op)).append('\n');
            sb.append(datatype).append('\n');
            sb.append(collectiveColumns(validation)).append('\n');
        }
        out.print(sb);
        out.flush();
    }

    @Override
    public void row(final BenchResult r)
    {
        out.print(line(r, info.options().check()) + "\n");
        out.flush();
    }

    /** One data line as OSU prints it: print_stats, print_stats_validate, or osu_latency's own printf. */
    public static String line(final BenchResult r, final boolean validation)
    {
        final String status = validation ? pad(r.wrong() > 0 ? FAIL : PASS, FIELD_WIDTH) : "";
        if (r.op() == BenchOp.PINGPONG)
        {
            return String.format(Locale.ROOT, "%-10d", r.bytes()) +
                CFormat.f(r.avgUs(), FIELD_WIDTH, FLOAT_PRECISION) + status;
        }
        final String full = CFormat.f(r.minUs(), FIELD_WIDTH, FLOAT_PRECISION) +
            CFormat.f(r.maxUs(), FIELD_WIDTH, FLOAT_PRECISION) + String.format(Locale.ROOT, "%12d", r.iters());
        if (r.op() == BenchOp.BARRIER)
        {
            // show_size is 0 for the barrier, and osu_barrier calls print_stats (no validation)
            return CFormat.f(r.avgUs(), 17, FLOAT_PRECISION) + full;
        }
        return String.format(Locale.ROOT, "%-10d", r.op().osuSize(r.bytes(), r.ranks())) +
            CFormat.f(r.avgUs(), FIELD_WIDTH, FLOAT_PRECISION) + full + status;
    }

    @Override
    public void endBlock()
    {
    }

    @Override
    public void finish()
    {
        out.flush();
    }

    private static String pad(final String text, final int width)
    {
        return text.length() >= width ? text : " ".repeat(width - text.length()) + text;
    }
}
