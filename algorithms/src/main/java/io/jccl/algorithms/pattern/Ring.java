package io.jccl.algorithms.pattern;

/**
 * Ring topology maths: neighbours, and which block each rank sends and receives at each step of a ring
 * reduce-scatter or ring allgather (blocks indexed by the rank that ends up owning them).
 * <pre>
 *   0 -&gt; 1 -&gt; 2 -&gt; ... -&gt; p-1 -&gt; 0        data flows to next, arrives from previous
 *
 *   reduce-scatter step k = 0 .. p-2: rank r sends block (r - k - 1), receives block (r - k - 2) and reduces it;
 *                                     after the last step rank r holds block r reduced over all ranks
 *   allgather      step k = 0 .. p-2: rank r sends block (r - k) and receives block (r - k - 1);
 *                                     at step 0 it sends its own block r
 * </pre>
 */
public final class Ring
{
    private Ring()
    {
    }

    /** The rank data flows to. */
    public static int next(final int rank, final int size)
    {
        return rank + 1 == size ? 0 : rank + 1;
    }

    /** The rank data arrives from. */
    public static int previous(final int rank, final int size)
    {
        return rank == 0 ? size - 1 : rank - 1;
    }

    /** Reduce-scatter step {@code step}: the partial block this rank forwards to next. */
    public static int reduceScatterSendBlock(final int rank, final int step, final int size)
    {
        return Math.floorMod(rank - step - 1, size);
    }

    /** Reduce-scatter step {@code step}: the block that arrives from previous and is reduced here. */
    public static int reduceScatterRecvBlock(final int rank, final int step, final int size)
    {
        return Math.floorMod(rank - step - 2, size);
    }

    /** Allgather step {@code step}: the finished block this rank forwards to next. */
    public static int allgatherSendBlock(final int rank, final int step, final int size)
    {
        return Math.floorMod(rank - step, size);
    }

    /** Allgather step {@code step}: the finished block that arrives from previous. */
    public static int allgatherRecvBlock(final int rank, final int step, final int size)
    {
        return Math.floorMod(rank - step - 1, size);
    }
}
