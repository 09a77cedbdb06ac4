package io.jccl.tools.bench;

import java.io.PrintStream;
import java.util.Locale;

/**
 * The contract CSV of DESIGN.md section 7: one header line, then one line per row. Times in µs and bandwidths in
 * GB/s with 3 decimals (as ../shared/peers/run-peers prints times); {@code wrong} is empty when not checked. After the
 * contract's columns, what else a row's time depends on: {@code op}, the reduction operator (empty for collectives
 * that do not reduce), and {@code memory}, where the buffers lived: {@code private} (direct memory, as MPI
 * benchmarks use) or {@code shared} (--shared: in the job's shared segment, read in place by the zero-copy paths),
 * so that ./jccl fit and tune never take one for the other; and {@code timing}: {@code back_to_back} (the calls of a
 * size in one timed loop, as nccl-tests and run-peers time them) or {@code sync} (--sync: a barrier before every
 * call, each timed alone, as OSU's latency benchmarks do); and {@code probe_us}, the one-way time of an 8-byte
 * pingpong between ranks 0 and 1 right after the row ({@link BenchResult#probeUs}; empty for one rank), by which
 * ./jccl fit --probe-max keeps the rows measured while the machine was in one state; and {@code handoff_us}, the
 * time of a 512 KiB allgather through the staging areas right after it ({@link BenchResult#handoffUs}), by which
 * ./jccl fit and tune tell the machine's paces apart where the cores' handoff changes pace.
 */
public final class CsvWriter implements ResultWriter
{
    /** The contract columns (DESIGN.md section 7): add columns at the end, never rename. */
    public static final String HEADER =
        "collective,algorithm,ranks,bytes,dtype,avg_us,min_us,max_us,iters,algbw_GBps,busbw_GBps,wrong,op,memory," +
        "timing,probe_us,handoff_us";

    /** {@code memory} of rows whose buffers were private (direct memory). */
    public static final String PRIVATE_MEMORY = "private";
    /** {@code memory} of rows whose buffers lay in the shared segment (--shared). */
    public static final String SHARED_MEMORY = "shared";
    /** {@code timing} of rows whose calls ran back to back in one timed loop. */
    public static final String BACK_TO_BACK = "back_to_back";
    /** {@code timing} of rows whose calls each started after a barrier and were timed alone (--sync). */
    public static final String SYNC = "sync";

    private final PrintStream out;
    private String reduceOp;
    private String memory;
    private String timing;

    public CsvWriter(final PrintStream out)
    {
        this.out = out;
    }

    @Override
    public void start(final RunInfo info)
    {
        reduceOp = info.options().reduceOp().label();
        memory = memory(info.options());
        timing = timing(info.options());
        out.print(HEADER + "\n");
        out.flush();
    }

    @Override
    public void startBlock(final BenchPlan.Block block)
    {
    }

    @Override
    public void row(final BenchResult r)
    {
        out.print(line(r, reduceOp, memory, timing) + "\n");
        out.flush();
    }

    /** The {@code memory} column of a run with {@code options}. */
    static String memory(final BenchOptions options)
    {
        return options.shared() ? SHARED_MEMORY : PRIVATE_MEMORY;
    }

    /** The {@code timing} column of a run with {@code options}. */
    static String timing(final BenchOptions options)
    {
        return options.sync() ? SYNC : BACK_TO_BACK;
    }

    /**
     * One CSV line, without its terminator, of a run with reduction operator {@code reduceOp}, {@code memory} and
     * {@code timing}.
     */
    public static String line(final BenchResult r, final String reduceOp, final String memory, final String timing)
    {
        return String.format(Locale.ROOT, "%s,%s,%d,%d,%s,%.3f,%.3f,%.3f,%d,%.3f,%.3f,%s,%s,%s,%s,%s,%s",
            r.op().label(), r.algorithm(), r.ranks(), r.bytes(), r.type().label(), r.avgUs(), r.minUs(), r.maxUs(),
            r.iters(), r.algbw(), r.busbw(), r.checked() ? Long.toString(r.wrong()) : "", r.op().reducing() ? reduceOp : "",
            memory, timing, BenchResult.optionalMicros(r.probeUs(), ""), BenchResult.optionalMicros(r.handoffUs(), ""));
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
}
