package io.jccl.algorithms.pattern;

/**
 * Where block {@code b} of a vector lies, in elements: either {@code total} elements split into nearly-equal blocks
 * (the first {@code total % blocks} blocks get one element more, so sizes differ by at most one), or explicit
 * per-block counts and displacements (the v collectives), chosen by passing {@code null} arrays or not.
 */
public final class VectorSplit
{
    private VectorSplit()
    {
    }

    /** First element of block {@code block} of {@code total} split into {@code blocks}; block == blocks gives total. */
    public static long start(final long total, final int blocks, final int block)
    {
        final long quotient = total / blocks;
        final long remainder = total % blocks;
        return block * quotient + Math.min(block, remainder);
    }

    /** Elements in block {@code block} of {@code total} split into {@code blocks}. */
    public static long count(final long total, final int blocks, final int block)
    {
        return total / blocks + (block < total % blocks ? 1 : 0);
    }

    /** {@code displs[block]} when given, else {@link #start(long, int, int)}. */
    public static long start(final int[] displs, final long total, final int blocks, final int block)
    {
        return null == displs ? start(total, blocks, block) : displs[block];
    }

    /** {@code counts[block]} when given, else {@link #count(long, int, int)}. */
    public static long count(final int[] counts, final long total, final int blocks, final int block)
    {
        return null == counts ? count(total, blocks, block) : counts[block];
    }

    /** The largest block. */
    public static long maxCount(final int[] counts, final long total, final int blocks)
    {
        if (null == counts)
        {
            return count(total, blocks, 0);
        }
        long max = 0;
        for (int i = 0; i < blocks; i++)
        {
            max = Math.max(max, counts[i]);
        }
        return max;
    }

    /** Elements from the start of the vector to the end of its last block: where the blocks end. */
    public static long end(final int[] counts, final int[] displs, final int blocks)
    {
        long end = 0;
        for (int i = 0; i < blocks; i++)
        {
            end = Math.max(end, (long) displs[i] + counts[i]);
        }
        return end;
    }
}
