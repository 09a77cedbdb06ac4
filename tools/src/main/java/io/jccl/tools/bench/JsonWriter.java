package io.jccl.tools.bench;

import java.io.PrintStream;
import java.util.Locale;

/**
 * A JSON array of objects with the CSV fields, one object per line, printed as the rows come; {@code wrong} is
 * null when not checked, {@code op} when the collective does not reduce, {@code probe_us} and {@code handoff_us}
 * when not measured.
 */
public final class JsonWriter implements ResultWriter
{
    private final PrintStream out;
    private boolean first = true;
    private String reduceOp;
    private String memory;
    private String timing;

    public JsonWriter(final PrintStream out)
    {
        this.out = out;
    }

    @Override
    public void start(final RunInfo info)
    {
        reduceOp = info.options().reduceOp().label();
        memory = CsvWriter.memory(info.options());
        timing = CsvWriter.timing(info.options());
        out.print("[\n");
        out.flush();
    }

    @Override
    public void startBlock(final BenchPlan.Block block)
    {
    }

    @Override
    public void row(final BenchResult r)
    {
        out.print((first ? "" : ",\n") + object(r, reduceOp, memory, timing));
        first = false;
        out.flush();
    }

    /** One row as a JSON object, of a run with reduction operator {@code reduceOp}, {@code memory} and {@code timing}. */
    public static String object(final BenchResult r, final String reduceOp, final String memory, final String timing)
    {
        return String.format(Locale.ROOT, "{\"collective\":\"%s\",\"algorithm\":\"%s\",\"ranks\":%d,\"bytes\":%d," +
            "\"dtype\":\"%s\",\"avg_us\":%.3f,\"min_us\":%.3f,\"max_us\":%.3f,\"iters\":%d,\"algbw_GBps\":%.3f," +
            "\"busbw_GBps\":%.3f,\"wrong\":%s,\"op\":%s,\"memory\":\"%s\",\"timing\":\"%s\",\"probe_us\":%s," +
            "\"handoff_us\":%s}",
            r.op().label(), r.algorithm(), r.ranks(), r.bytes(), r.type().label(), r.avgUs(), r.minUs(), r.maxUs(),
            r.iters(), r.algbw(), r.busbw(), r.checked() ? Long.toString(r.wrong()) : "null",
            r.op().reducing() ? "\"" + reduceOp + "\"" : "null", memory, timing,
            BenchResult.optionalMicros(r.probeUs(), "null"), BenchResult.optionalMicros(r.handoffUs(), "null"));
    }

    @Override
    public void endBlock()
    {
    }

    @Override
    public void finish()
    {
        out.print((first ? "" : "\n") + "]\n");
        out.flush();
    }
}
