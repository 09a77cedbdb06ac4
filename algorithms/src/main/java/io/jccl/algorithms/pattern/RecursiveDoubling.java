package io.jccl.algorithms.pattern;

/**
 * Recursive doubling and halving maths over q, the largest power of two not above the rank count p, with the
 * classic fold for the other p - q ranks (Thakur, Rabenseifner and Gropp 2005): the first 2(p - q) ranks pair up,
 * each even one hands its data to the odd one after it and sits out, and is sent the result at the end. The q ranks
 * that stay get virtual ranks 0 .. q-1, and each stands for a contiguous range of real blocks:
 * <pre>
 *   p = 6, q = 4, 2(p - q) = 4 ranks fold
 *   real rank        0    1    2    3    4    5
 *   virtual rank     -    0    -    1    2    3
 *   real blocks      -   0,1   -   2,3   4    5      [firstRealBlock(v), firstRealBlock(v + 1))
 * </pre>
 * At the step with distance {@code mask} (1, 2, 4, ... for doubling; q/2, ..., 1 for halving) virtual rank v talks
 * to {@code v ^ mask}.
 */
public final class RecursiveDoubling
{
    private RecursiveDoubling()
    {
    }

    /** q: the largest power of two not above {@code size}. */
    public static int powerOfTwoBelow(final int size)
    {
        return Integer.highestOneBit(size);
    }

    /** p - q: how many pairs fold. */
    public static int foldedPairs(final int size)
    {
        return size - Integer.highestOneBit(size);
    }

    /** True for the even rank of a folded pair: it hands its data to {@code rank + 1} and waits for the result. */
    public static boolean sitsOut(final int rank, final int size)
    {
        return rank < 2 * foldedPairs(size) && (rank & 1) == 0;
    }

    /** True for the odd rank of a folded pair: it takes {@code rank - 1}'s data and sends it the result. */
    public static boolean takesFold(final int rank, final int size)
    {
        return rank < 2 * foldedPairs(size) && (rank & 1) == 1;
    }

    /** Virtual rank of a rank that does not sit out. */
    public static int virtualRank(final int rank, final int size)
    {
        final int pairs = foldedPairs(size);
        return rank < 2 * pairs ? rank >> 1 : rank - pairs;
    }

    /** The real rank behind virtual rank {@code virtual}. */
    public static int realRank(final int virtual, final int size)
    {
        final int pairs = foldedPairs(size);
        return virtual < pairs ? 2 * virtual + 1 : virtual + pairs;
    }

    /** First real block virtual rank {@code virtual} stands for; {@code firstRealBlock(q, size) == size}. */
    public static int firstRealBlock(final int virtual, final int size)
    {
        final int pairs = foldedPairs(size);
        return virtual < pairs ? 2 * virtual : virtual + pairs;
    }

    /** The virtual rank {@code virtual} exchanges with at distance {@code mask}. */
    public static int partner(final int virtual, final int mask)
    {
        return virtual ^ mask;
    }

    /** First virtual rank of the aligned group of {@code mask} (a power of two) ranks that holds {@code virtual}. */
    public static int groupStart(final int virtual, final int mask)
    {
        return virtual & -mask;
    }
}
