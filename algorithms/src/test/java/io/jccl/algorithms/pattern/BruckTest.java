package io.jccl.algorithms.pattern;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

@Timeout(10)
class BruckTest
{
    @Test
    void takesCeilingLogSteps()
    {
        final int[] expected = {0, 0, 1, 2, 2, 3, 3, 3, 3, 4};
        for (int size = 1; size < expected.length; size++)
        {
            assertEquals(expected[size], Bruck.steps(size), "size " + size);
            assertTrue(Bruck.distance(Bruck.steps(size)) >= size, "size " + size);
            assertTrue(size == 1 || Bruck.distance(Bruck.steps(size) - 1) < size, "size " + size);
        }
    }

    @Test
    void aheadAndBehindAreInverse()
    {
        for (int size = 1; size <= 9; size++)
        {
            for (int rank = 0; rank < size; rank++)
            {
                for (int step = 0; step < Bruck.steps(size); step++)
                {
                    final int distance = Bruck.distance(step);
                    final int ahead = Bruck.ahead(rank, distance, size);
                    assertTrue(ahead >= 0 && ahead < size);
                    assertEquals(rank, Bruck.behind(ahead, distance, size));
                }
            }
        }
    }

    @Test
    void allgatherBlocksAddUpToEveryOtherRank()
    {
        for (int size = 1; size <= 17; size++)
        {
            int held = 1;
            for (int step = 0; step < Bruck.steps(size); step++)
            {
                final int distance = Bruck.distance(step);
                assertEquals(distance, held, "size " + size + ": blocks held before step " + step);
                held += Bruck.allgatherBlocks(distance, size);
            }
            assertEquals(size, held, "size " + size);
        }
    }

    @Test
    void everyAlltoallBlockTravelsItsIndex()
    {
        for (int size = 1; size <= 17; size++)
        {
            for (int index = 0; index < size; index++)
            {
                int travelled = 0;
                for (int step = 0; step < Bruck.steps(size); step++)
                {
                    if (Bruck.movesAt(index, step))
                    {
                        travelled += Bruck.distance(step);
                    }
                }
                assertEquals(index, travelled, "size " + size + ", index " + index);
            }
        }
    }
}
