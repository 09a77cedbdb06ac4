package io.jccl.tools.bench;

import io.jccl.Collective;

import java.util.List;
import java.util.Locale;

/**
 * An operation {@code jccl bench} measures: point-to-point ping-pong or one collective. {@code bytes} follows
 * nccl-tests (DESIGN.md section 7): the whole vector for broadcast, reduce, allreduce, scan and exscan; the gathered
 * output for gather and allgather; the input for scatter and reduce_scatter; one rank's send buffer for alltoall. The
 * v forms count as their plain forms, with equal counts. Operations whose vector is cut into one block per rank are
 * {@link #blocked()}.
 */
public enum BenchOp
{
    PINGPONG("pingpong", null, false, false, false, "OSU MPI%s Latency Test"),
    BARRIER("barrier", Collective.BARRIER, false, false, false, "OSU MPI%s Barrier Latency Test"),
    BROADCAST("broadcast", Collective.BROADCAST, false, true, false, "OSU MPI%s Broadcast Latency Test"),
    REDUCE("reduce", Collective.REDUCE, false, true, true, "OSU MPI%s Reduce Latency Test"),
    ALLREDUCE("allreduce", Collective.ALLREDUCE, false, false, true, "OSU MPI%s Allreduce Latency Test"),
    GATHER("gather", Collective.GATHER, true, true, false, "OSU MPI%s Gather Latency Test"),
    SCATTER("scatter", Collective.SCATTER, true, true, false, "OSU MPI%s Scatter Latency Test"),
    ALLGATHER("allgather", Collective.ALLGATHER, true, false, false, "OSU MPI%s Allgather Latency Test"),
    REDUCE_SCATTER("reduce_scatter", Collective.REDUCE_SCATTER, true, false, true,
        "OSU MPI%s Reduce_scatter_block Latency Test"),
    ALLTOALL("alltoall", Collective.ALLTOALL, true, false, false,
        "OSU MPI%s All-to-All Personalized Exchange Latency Test"),
    ALLGATHERV("allgatherv", Collective.ALLGATHERV, true, false, false, "OSU MPI%s Allgatherv Latency Test"),
    REDUCE_SCATTERV("reduce_scatterv", Collective.REDUCE_SCATTERV, true, false, true,
        "OSU MPI%s Reduce_scatter Latency Test"),
    ALLTOALLV("alltoallv", Collective.ALLTOALLV, true, false, false,
        "OSU MPI%s All-to-Allv Personalized Exchange Latency Test"),
    GATHERV("gatherv", Collective.GATHERV, true, true, false, "OSU MPI%s Gatherv Latency Test"),
    SCATTERV("scatterv", Collective.SCATTERV, true, true, false, "OSU MPI%s Scatterv Latency Test"),
    SCAN("scan", Collective.SCAN, false, false, true, "OSU MPI%s Scan Latency Test"),
    EXSCAN("exscan", Collective.EXSCAN, false, false, true, "OSU MPI%s Exscan Latency Test");

    /** The algorithm column of ping-pong rows: it runs on send/recv, not on a collective algorithm. */
    public static final String P2P_ALGORITHM = "p2p";

    private static final BenchOp[] VALUES = values();

    private final String label;
    private final Collective collective;
    private final boolean blocked;
    private final boolean rooted;
    private final boolean reducing;
    private final String osuBenchmark;

    BenchOp(
        final String label,
        final Collective collective,
        final boolean blocked,
        final boolean rooted,
        final boolean reducing,
        final String osuBenchmark)
    {
        this.label = label;
        this.collective = collective;
        this.blocked = blocked;
        this.rooted = rooted;
        this.reducing = reducing;
        this.osuBenchmark = osuBenchmark;
    }

    /** The name on the command line and in the collective column of the results. */
    public String label()
    {
        return label;
    }

    /** The collective, or null for ping-pong. */
    public Collective collective()
    {
        return collective;
    }

    /** True when the vector is cut into one equal block per rank, so bytes must divide by ranks × element size. */
    public boolean blocked()
    {
        return blocked;
    }

    /** True when the operation has a root (--root). */
    public boolean rooted()
    {
        return rooted;
    }

    /** True when the operation reduces with --reduce-op. */
    public boolean reducing()
    {
        return reducing;
    }

    /**
     * The name OSU micro-benchmarks 7.4 gives its matching benchmark ({@code BENCHMARK} in osu_latency.c and in the
     * collective benchmarks), with {@code %s} where OSU puts "-CUDA" and the like; for scan and exscan, which OSU does
     * not measure, a name in its style.
     */
    public String osuBenchmark()
    {
        return osuBenchmark;
    }

    /**
     * nccl-tests' bus bandwidth factor (DESIGN.md section 4): 2(p-1)/p for allreduce, (p-1)/p for the gathers,
     * scatters, reduce-scatters and alltoalls, 1 for broadcast, reduce and ping-pong; 1 for scan and exscan, which
     * nccl-tests does not have: a chain moves the whole vector over every link once.
     */
    public double busBandwidthFactor(final int ranks)
    {
        return switch (this)
        {
            case ALLREDUCE -> 2.0 * (ranks - 1) / ranks;
            case PINGPONG, BROADCAST, REDUCE, SCAN, EXSCAN -> 1.0;
            case BARRIER -> 0.0;
            default -> (double)(ranks - 1) / ranks;
        };
    }

    /** Bytes of the send buffer one call reads, for a vector of {@code bytes} on {@code ranks} ranks. */
    public long sendBytes(final long bytes, final int ranks)
    {
        return switch (this)
        {
            case BARRIER, BROADCAST -> 0;
            case GATHER, GATHERV, ALLGATHER, ALLGATHERV -> bytes / ranks;
            default -> bytes;
        };
    }

    /** Bytes of the receive buffer one call writes. */
    public long recvBytes(final long bytes, final int ranks)
    {
        return switch (this)
        {
            case BARRIER -> 0;
            case SCATTER, SCATTERV, REDUCE_SCATTER, REDUCE_SCATTERV -> bytes / ranks;
            default -> bytes;
        };
    }

    /**
     * The message size OSU micro-benchmarks prints for this operation: one rank's block for the gathers and
     * scatters and one peer's block for alltoall, the whole vector otherwise.
     */
    public long osuSize(final long bytes, final int ranks)
    {
        return switch (this)
        {
            case GATHER, GATHERV, SCATTER, SCATTERV, ALLGATHER, ALLGATHERV, ALLTOALL, ALLTOALLV -> bytes / ranks;
            default -> bytes;
        };
    }

    /** The count nccl-tests prints: elements per call argument (per rank's block for the blocked collectives). */
    public long ncclCount(final long elements, final int ranks)
    {
        return blocked ? elements / ranks : elements;
    }

    /** Every operation, in the order {@code --op all} runs them. */
    public static List<BenchOp> all()
    {
        return List.of(VALUES);
    }

    /** Parses an operation name ({@code allreduce}, {@code reduce-scatter}, {@code reducescatter}). */
    public static BenchOp parse(final String text)
    {
        final String s = text.trim().toLowerCase(Locale.ROOT).replace('-', '_');
        for (final BenchOp op : VALUES)
        {
            if (op.label.equals(s) || op.label.replace("_", "").equals(s))
            {
                return op;
            }
        }
        return null;
    }

    /** The names, for messages. */
    public static String names()
    {
        final StringBuilder sb = new StringBuilder();
        for (final BenchOp op : VALUES)
        {
            sb.append(sb.isEmpty() ? "" : ", ").append(op.label);
        }
        return sb.toString();
    }
}
