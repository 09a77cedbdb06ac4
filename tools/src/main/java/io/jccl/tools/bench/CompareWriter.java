package io.jccl.tools.bench;

import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * {@code --compare PEERS.csv}: after the sweep, per operation, algorithm and size, jccl's average µs per call next
 * to each peer library's (from a ../shared/peers/run-peers CSV, same ranks and bytes), the faster peer, and the
 * ratio jccl / faster peer (below 1: jccl is faster). A table, or CSV with --format csv.
 */
public final class CompareWriter implements ResultWriter
{
    private final PrintStream out;
    private final PeerResults peers;
    private final boolean csv;
    private final List<BenchResult> results = new ArrayList<>();

    public CompareWriter(final PrintStream out, final PeerResults peers, final boolean csv)
    {
        this.out = out;
        this.peers = peers;
        this.csv = csv;
    }

    @Override
    public void start(final RunInfo info)
    {
    }

    @Override
    public void startBlock(final BenchPlan.Block block)
    {
    }

    @Override
    public void row(final BenchResult result)
    {
        results.add(result);
    }

    @Override
    public void endBlock()
    {
    }

    @Override
    public void finish()
    {
        out.print(render());
        out.flush();
    }

    /** The whole comparison. */
    public String render()
    {
        final List<String> impls = peers.impls();
        final StringBuilder sb = new StringBuilder();
        if (csv)
        {
            sb.append("collective,algorithm,ranks,bytes,jccl_avg_us");
            impls.forEach(impl -> sb.append(',').append(impl).append("_avg_us"));
            sb.append(",best_peer,ratio\n");
        }
        else
        {
            sb.append("# average µs per call; ratio = jccl / the faster peer (below 1: jccl is faster)\n");
            sb.append(String.format(Locale.ROOT, "%-15s %-20s %5s %9s %11s", "collective", "algorithm", "ranks",
                "size", "jccl_us"));
            impls.forEach(impl -> sb.append(String.format(Locale.ROOT, " %12s", shorten(impl + "_us", 12))));
            sb.append(String.format(Locale.ROOT, " %-12s %7s\n", "best_peer", "ratio"));
        }
        for (final BenchResult r : results)
        {
            String best = null;
            double bestUs = Double.NaN;
            final double[] peerUs = new double[impls.size()];
            for (int i = 0; i < impls.size(); i++)
            {
                peerUs[i] = peers.avgUs(impls.get(i), r.op().label(), r.ranks(), r.bytes());
                if (!Double.isNaN(peerUs[i]) && (best == null || peerUs[i] < bestUs))
                {
                    best = impls.get(i);
                    bestUs = peerUs[i];
                }
            }
            final double ratio = best == null || !(bestUs > 0) ? Double.NaN : r.avgUs() / bestUs;
            if (csv)
            {
                sb.append(String.format(Locale.ROOT, "%s,%s,%d,%d,%.3f", r.op().label(), r.algorithm(), r.ranks(),
                    r.bytes(), r.avgUs()));
                for (final double us : peerUs)
                {
                    sb.append(',').append(Double.isNaN(us) ? "" : String.format(Locale.ROOT, "%.3f", us));
                }
                sb.append(',').append(best == null ? "" : best).append(',')
                    .append(Double.isNaN(ratio) ? "" : String.format(Locale.ROOT, "%.3f", ratio)).append('\n');
            }
            else
            {
                sb.append(String.format(Locale.ROOT, "%-15s %-20s %5d %9s %11.3f", r.op().label(), r.algorithm(),
                    r.ranks(), BenchOptions.humanBytes(r.bytes()), r.avgUs()));
                for (final double us : peerUs)
                {
                    sb.append(String.format(Locale.ROOT, " %12s", Double.isNaN(us) ? "-" :
                        String.format(Locale.ROOT, "%.3f", us)));
                }
                sb.append(String.format(Locale.ROOT, " %-12s %7s\n", best == null ? "-" : shorten(best, 12),
                    Double.isNaN(ratio) ? "-" : String.format(Locale.ROOT, "%.2f", ratio)));
            }
        }
        return sb.toString();
    }

    private static String shorten(final String text, final int width)
    {
        return text.length() <= width ? text : text.substring(0, width);
    }
}
