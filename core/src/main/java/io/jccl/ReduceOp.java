package io.jccl;

/** Reduction operators. {@link #AVG} is SUM followed by division by the number of ranks (integer types truncate). */
public enum ReduceOp
{
    SUM, PROD, MIN, MAX, AVG;

    private static final ReduceOp[] VALUES = values();

    public String label()
    {
        return name().toLowerCase(java.util.Locale.ROOT);
    }

    public static ReduceOp parse(final String text)
    {
        for (final ReduceOp op : VALUES)
        {
            if (op.name().equalsIgnoreCase(text.trim()))
            {
                return op;
            }
        }
        throw new IllegalArgumentException("unknown reduction op '" + text + "': expected sum, prod, min, max or avg");
    }
}
