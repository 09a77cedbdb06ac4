package io.jccl;

/** The collectives, with the names used on the command line, in configuration and in CSV. */
public enum Collective
{
    BARRIER("barrier"),
    BROADCAST("broadcast"),
    REDUCE("reduce"),
    ALLREDUCE("allreduce"),
    GATHER("gather"),
    GATHERV("gatherv"),
    SCATTER("scatter"),
    SCATTERV("scatterv"),
    ALLGATHER("allgather"),
    ALLGATHERV("allgatherv"),
    REDUCE_SCATTER("reduce_scatter"),
    REDUCE_SCATTERV("reduce_scatterv"),
    ALLTOALL("alltoall"),
    ALLTOALLV("alltoallv"),
    SCAN("scan"),
    EXSCAN("exscan");

    private static final Collective[] VALUES = values();

    private final String label;

    Collective(final String label)
    {
        this.label = label;
    }

    public String label()
    {
        return label;
    }

    public static Collective parse(final String text)
    {
        final String s = text.trim().toLowerCase(java.util.Locale.ROOT).replace('-', '_');
        for (final Collective c : VALUES)
        {
            if (c.label.equals(s) || c.label.replace("_", "").equals(s))
            {
                return c;
            }
        }
        throw new IllegalArgumentException("unknown collective '" + text + "'");
    }
}
