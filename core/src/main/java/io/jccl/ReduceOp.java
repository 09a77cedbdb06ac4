package io.jccl;

/**
 * Reduction operators. {@link #AVG} is SUM followed by division by the number of ranks (integer types truncate).
 * {@link #BAND}, {@link #BOR} and {@link #BXOR} are bitwise and, or and exclusive or of integer types (MPI_BAND,
 * MPI_BOR, MPI_BXOR; torch.distributed's BAND, BOR, BXOR); floating-point buffers refuse them.
 */
public enum ReduceOp
{
    SUM, PROD, MIN, MAX, AVG, BAND, BOR, BXOR;

    private static final ReduceOp[] VALUES = values();

    public String label()
    {
        return name().toLowerCase(java.util.Locale.ROOT);
    }

    /** Whether this is a bitwise operator, which reduces integer types only. */
    public boolean isBitwise()
    {
        return this == BAND || this == BOR || this == BXOR;
    }

    /** Whether this operator reduces elements of {@code type}: integers take every operator, floats all but bitwise. */
    public boolean reduces(final DataType type)
    {
        return !isBitwise() || !type.isFloatingPoint();
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
        throw new IllegalArgumentException("unknown reduction op '" + text + "': expected sum, prod, min, max, avg, " +
            "band, bor or bxor");
    }
}
