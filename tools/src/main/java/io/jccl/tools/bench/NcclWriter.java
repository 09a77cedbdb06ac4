package io.jccl.tools.bench;

import io.jccl.DataType;

import java.io.PrintStream;
import java.util.Locale;

/**
 * Output as nccl-tests prints it (all_reduce_perf and friends): the preamble once (parameters and one "Using
 * devices" line per rank, the device being the rank's JVM), then per block of rows a "# jccl: ..." line, the three
 * column header lines, one line per size and the footer ("Out of bounds values", "Avg bus bandwidth").
 * <p>
 * Only the out-of-place columns are filled: jccl bench measures out-of-place calls only, so each line ends after
 * the out-of-place {@code #wrong}, as nccl-tests' lines would if the in-place run were left out; the header keeps
 * nccl-tests' exact text. {@code #wrong} is the number of wrong elements summed over the ranks with --check, "N/A"
 * without (nccl-tests' -c 0). The average bus bandwidth of the footer is over the block's lines.
 * <p>
 * Source of every format string: src/common.cu of github.com/NVIDIA/nccl-tests (run(), BenchTime(), TimeTest();
 * the type and operation names are its test_typenames and test_opnames, "none" and root -1 as its collectives
 * pass them).
 */
public final class NcclWriter implements ResultWriter
{
    /** run(): the parameters line. */
    public static final String PARAMETERS = "# nThread %d nGpus %d minBytes %d maxBytes %d step: %d(%s) warmup " +
        "iters: %d iters: %d agg iters: %d validation: %d graph: %d";
    /** run(): after the parameters. */
    public static final String USING_DEVICES = "# Using devices";
    /** run(): one line per device. */
    public static final String DEVICE = "#  Rank %2d Group %2d Pid %6d on %10s device %2d [0x%02x] %s";
    /** run(): the column headers, three lines. */
    public static final String HEADER_GROUPS =
        "# %10s  %12s  %8s  %6s  %6s           out-of-place                       in-place          ";
    public static final String HEADER_NAMES = "# %10s  %12s  %8s  %6s  %6s  %7s  %6s  %6s %6s  %7s  %6s  %6s %6s";
    public static final String HEADER_UNITS = "# %10s  %12s  %8s  %6s  %6s  %7s  %6s  %6s  %5s  %7s  %6s  %6s  %5s";
    /** TimeTest(): the parameters of a line. */
    public static final String LINE_PARAMETERS = "%12d  %12d  %8s  %6s  %6d";
    /** run(): the footer. */
    public static final String OUT_OF_BOUNDS = "# Out of bounds values : %d %s";
    public static final String AVG_BUS_BANDWIDTH = "# Avg bus bandwidth    : %s %s";

    private final PrintStream out;
    private RunInfo info;
    private int errors;
    private double busBandwidthSum;
    private int lines;

    public NcclWriter(final PrintStream out)
    {
        this.out = out;
    }

    /** nccl-tests' name for a type (test_typenames). */
    public static String typeName(final DataType type)
    {
        return switch (type)
        {
            case INT8 -> "int8";
            case INT32 -> "int32";
            case INT64 -> "int64";
            case FLOAT16 -> "half";
            case BFLOAT16 -> "bfloat16";
            case FLOAT32 -> "float";
            case FLOAT64 -> "double";
            case UINT8 -> "uint8";
            case UINT32 -> "uint32";
            case UINT64 -> "uint64";
        };
    }

    /** The three column header lines, exactly as nccl-tests prints them. */
    public static String columnHeader()
    {
        return String.format(Locale.ROOT, HEADER_GROUPS, "", "", "", "", "") + "\n" +
            String.format(Locale.ROOT, HEADER_NAMES, "size", "count", "type", "redop", "root", "time", "algbw",
                "busbw", "#wrong", "time", "algbw", "busbw", "#wrong") + "\n" +
            String.format(Locale.ROOT, HEADER_UNITS, "(B)", "(elements)", "", "", "", "(us)", "(GB/s)", "(GB/s)", "",
                "(us)", "(GB/s)", "(GB/s)", "");
    }

    /** The footer of {@code errors} wrong lines and the given average bus bandwidth. */
    public static String footer(final int errors, final double avgBusBandwidth)
    {
        return String.format(Locale.ROOT, OUT_OF_BOUNDS, errors, errors != 0 ? "FAILED" : "OK") + "\n" +
            String.format(Locale.ROOT, AVG_BUS_BANDWIDTH, CFormat.g(avgBusBandwidth), "") + "\n" +
            "#";
    }

    @Override
    public void start(final RunInfo info)
    {
        this.info = info;
        final BenchOptions options = info.options();
        final int iters = options.iters() > 0 ? options.iters() : Iterations.defaultIters(options.minBytes());
        final int warmup = options.warmup() >= 0 ? options.warmup() : Iterations.defaultWarmup(iters);
        final StringBuilder sb = new StringBuilder();
        sb.append(String.format(Locale.ROOT, PARAMETERS, 1, 1, options.minBytes(), options.maxBytes(), 4,
            "factor", warmup, iters, 1, options.check() ? 1 : 0, 0)).append('\n');
        if (options.iters() == 0)
        {
            sb.append("# jccl: ").append(Iterations.describe()).append('\n');
        }
        sb.append("#\n");
        sb.append(USING_DEVICES).append('\n');
        for (int rank = 0; rank < info.pids().length; rank++)
        {
            sb.append(String.format(Locale.ROOT, DEVICE, rank, 0, info.pids()[rank], info.hostname(), rank, 0,
                "jccl rank (JVM)")).append('\n');
        }
        out.print(sb);
        out.flush();
    }

    @Override
    public void startBlock(final BenchPlan.Block block)
    {
        errors = 0;
        busBandwidthSum = 0;
        lines = 0;
        out.print("#\n" + block.describe(info.options()) + ", in-place columns left out\n" + columnHeader() + "\n");
        out.flush();
    }

    @Override
    public void row(final BenchResult r)
    {
        final BenchOptions options = info.options();
        out.print(line(r, options.reduceOp().label(), options.root()) + "\n");
        out.flush();
        if (r.wrong() > 0)
        {
            errors++;
        }
        busBandwidthSum += r.busbw();
        lines++;
    }

    /**
     * One line: nccl-tests' parameters and out-of-place results. BenchTime() prints the results with
     * {@code "  %7s  %6.2f  %6.2f  %5g"} (or {@code "%5s"} with "N/A"), the time formatted {@code %7.0f} from
     * 10000 µs, {@code %7.1f} from 100 µs, {@code %7.2f} below; the numbers here are rounded as glibc does.
     */
    public static String line(final BenchResult r, final String reduceOp, final int root)
    {
        final BenchOp op = r.op();
        final double us = r.avgUs();
        final String time = CFormat.f(us, 7, us >= 10000.0 ? 0 : us >= 100.0 ? 1 : 2);
        return String.format(Locale.ROOT, LINE_PARAMETERS, r.bytes(), op.ncclCount(r.count(), r.ranks()),
            typeName(r.type()), op.reducing() ? reduceOp : "none", op.rooted() ? root : -1) +
            "  " + time + "  " + CFormat.f(r.algbw(), 6, 2) + "  " + CFormat.f(r.busbw(), 6, 2) + "  " +
            (r.checked() ? CFormat.g(r.wrong(), 5) : String.format(Locale.ROOT, "%5s", "N/A"));
    }

    @Override
    public void endBlock()
    {
        out.print(footer(errors, lines == 0 ? 0 : busBandwidthSum / lines) + "\n");
        out.flush();
    }

    @Override
    public void finish()
    {
        out.flush();
    }
}
