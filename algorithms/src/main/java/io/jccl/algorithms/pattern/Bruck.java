package io.jccl.algorithms.pattern;

/**
 * Bruck / dissemination pattern: {@code ceil(lg p)} steps; at step k every rank exchanges with the ranks
 * {@code 2^k} ahead and behind it (mod p), so after the last step information from every rank has reached every
 * rank, for any p, power of two or not.
 * <pre>
 *   step k, distance d = 2^k:      rank r  --&gt;  r + d          r - d  --&gt;  rank r
 *   allgather (rotated blocks):    send blocks [0, min(d, p - d)) to r - d, receive them from r + d at [d, ...)
 *   alltoall (rotated blocks):     send the blocks whose index has bit k set to r + d, receive the same from r - d
 * </pre>
 * Stateless and allocation-free.
 */
public final class Bruck
{
    private Bruck()
    {
    }

    /** Steps for {@code size} ranks: {@code ceil(lg size)}, 0 for one rank. */
    public static int steps(final int size)
    {
        return size <= 1 ? 0 : 32 - Integer.numberOfLeadingZeros(size - 1);
    }

    /** Distance of step {@code step}: {@code 2^step}. */
    public static int distance(final int step)
    {
        return 1 << step;
    }

    /** The rank {@code distance} ahead of {@code rank}, mod {@code size}. */
    public static int ahead(final int rank, final int distance, final int size)
    {
        return (int)(((long)rank + distance) % size);
    }

    /** The rank {@code distance} behind {@code rank}, mod {@code size}. */
    public static int behind(final int rank, final int distance, final int size)
    {
        return (int)((((long)rank - distance) % size + size) % size);
    }

    /** Allgather: blocks sent and received at the step of {@code distance}: {@code min(distance, size - distance)}. */
    public static int allgatherBlocks(final int distance, final int size)
    {
        return Math.min(distance, size - distance);
    }

    /** Alltoall: whether the block at rotated index {@code index} moves at step {@code step}. */
    public static boolean movesAt(final int index, final int step)
    {
        return ((index >>> step) & 1) != 0;
    }
}
