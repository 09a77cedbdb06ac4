package io.jccl.algorithms.pattern;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.stream.IntStream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

@Timeout(10)
class BinomialTreeTest
{
    @Test
    void matchesTheBinomialTreeOfEightRanks()
    {
        final BinomialTree tree = BinomialTree.BINOMIAL;
        assertEquals(3, tree.childCount(0, 8));
        assertEquals(4, tree.child(0, 8, 0));
        assertEquals(2, tree.child(0, 8, 1));
        assertEquals(1, tree.child(0, 8, 2));
        assertEquals(2, tree.childCount(4, 8));
        assertEquals(6, tree.child(4, 8, 0));
        assertEquals(5, tree.child(4, 8, 1));
        assertEquals(7, tree.child(6, 8, 0));
        assertEquals(0, tree.childCount(7, 8));
        assertEquals(-1, tree.parent(0));
        assertEquals(6, tree.parent(7));
        assertEquals(4, tree.parent(6));
        assertEquals(4, tree.parent(5));
        assertEquals(2, tree.parent(3));
        assertEquals(8, tree.subtreeEnd(4, 8));
        assertEquals(4, tree.subtreeEnd(2, 8));
        assertEquals(6, tree.subtreeEnd(4, 6));
        assertEquals(5, tree.subtreeEnd(4, 5));
        assertEquals(1, tree.childCount(4, 6));
    }

    @Test
    void binomialChildrenLieAtThePowersOfTwoBelowTheLowestSetBit()
    {
        // radix 2 takes bit arithmetic instead of the digit loops: check it against the definition, every rank of
        // every size up to 130 and some near the int range's end
        final BinomialTree tree = BinomialTree.BINOMIAL;
        final int[] sizes = IntStream.concat(IntStream.rangeClosed(1, 130),
            IntStream.of(Integer.MAX_VALUE, Integer.MAX_VALUE - 1, (1 << 30) + 1, 1 << 30, (1 << 30) - 1)).toArray();
        for (final int n : sizes)
        {
            for (int relative = 0; relative < Math.min(n, 130); relative++)
            {
                final String where = "size " + n + ", relative " + relative;
                assertEquals(relative == 0 ? -1 : relative & (relative - 1), tree.parent(relative), where);
                // children: relative + d for each power of two d below relative's lowest set bit (any d for the
                // root), largest first, while relative + d < n
                final long bound = relative == 0 ? 1L << 31 : Integer.lowestOneBit(relative);
                int count = 0;
                for (long d = bound >> 1; d >= 1; d >>= 1)
                {
                    if (relative + d < n)
                    {
                        assertEquals(relative + d, tree.child(relative, n, count), where + ", child " + count);
                        count++;
                    }
                }
                assertEquals(count, tree.childCount(relative, n), where);
                final int r = relative;
                final int children = count;
                assertThrows(IndexOutOfBoundsException.class, () -> tree.child(r, n, children), where);
            }
        }
    }

    @Test
    void childrenPartitionEverySubtreeForAnyRadixAndSize()
    {
        for (int radix = 2; radix <= 5; radix++)
        {
            final BinomialTree tree = new BinomialTree(radix);
            for (int size = 1; size <= 40; size++)
            {
                assertEquals(size, tree.subtreeEnd(0, size));
                for (int relative = 0; relative < size; relative++)
                {
                    final String where = "radix " + radix + ", size " + size + ", relative " + relative;
                    final int end = tree.subtreeEnd(relative, size);
                    assertTrue(end > relative && end <= size, where);

                    // children, in decreasing order, tile (relative, end) with their own subtrees
                    int covered = end;
                    for (int i = 0, children = tree.childCount(relative, size); i < children; i++)
                    {
                        final int child = tree.child(relative, size, i);
                        assertEquals(covered, tree.subtreeEnd(child, size), where + ", child " + child);
                        assertEquals(relative, tree.parent(child), where + ", child " + child);
                        covered = child;
                    }
                    assertEquals(relative + 1, covered, where);

                    if (relative != 0)
                    {
                        final int parent = tree.parent(relative);
                        assertTrue(parent < relative && tree.subtreeEnd(parent, size) >= end, where);
                    }
                }
            }
        }
    }

    @Test
    void depthIsTheNumberOfNonZeroDigitsAndAtMostTheCeilingOfTheLogarithm()
    {
        for (int radix = 2; radix <= 4; radix++)
        {
            final BinomialTree tree = new BinomialTree(radix);
            for (int size = 1; size <= 64; size++)
            {
                int levels = 0;
                for (long span = 1; span < size; span *= radix)
                {
                    levels++;
                }
                for (int relative = 0; relative < size; relative++)
                {
                    int depth = 0;
                    for (int at = relative; at != 0; at = tree.parent(at))
                    {
                        depth++;
                    }
                    int nonZeroDigits = 0;
                    for (int rest = relative; rest != 0; rest /= radix)
                    {
                        nonZeroDigits += rest % radix != 0 ? 1 : 0;
                    }
                    final String where = "radix " + radix + ", size " + size + ", relative " + relative;
                    assertEquals(nonZeroDigits, depth, where);
                    assertTrue(depth <= levels, where);
                }
            }
        }
    }

    @Test
    void mapsRanksRelativeToTheRoot()
    {
        for (int size = 1; size <= 9; size++)
        {
            for (int root = 0; root < size; root++)
            {
                assertEquals(0, BinomialTree.relativeRank(root, root, size));
                for (int rank = 0; rank < size; rank++)
                {
                    final int relative = BinomialTree.relativeRank(rank, root, size);
                    assertTrue(relative >= 0 && relative < size);
                    assertEquals(rank, BinomialTree.absoluteRank(relative, root, size));
                }
            }
        }
    }

    @Test
    void rejectsARadixBelowTwo()
    {
        assertThrows(IllegalArgumentException.class, () -> new BinomialTree(1));
        assertThrows(IndexOutOfBoundsException.class, () -> BinomialTree.BINOMIAL.child(7, 8, 0));
    }
}
