package io.jccl.shm;

import io.jccl.spi.StreamingCopy;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import static org.junit.jupiter.api.Assertions.*;

/** The pieces a heap array's message is copied off-heap in (SingleCopy.stagePieces): each one streams. */
@Timeout(30)
class StagedPiecesTest
{
    @Test
    void piecesCoverTheMessageAndEachStreamsPastTheCaches()
    {
        assertEquals(1, SingleCopy.stagedPieces(SingleCopy.STAGED_HEAP_SEND_MIN_BYTES));
        assertEquals(1, SingleCopy.stagedPieces(5L << 20));
        assertEquals(3, SingleCopy.stagedPieces((8L << 20) + 8));
        assertEquals(25, SingleCopy.stagedPieces(SingleCopy.STAGED_HEAP_SEND_MAX_BYTES));
        for (long size = SingleCopy.STAGED_HEAP_SEND_MIN_BYTES; size <= SingleCopy.STAGED_HEAP_SEND_MAX_BYTES;
            size = size * 9 / 8 + 8)
        {
            final long bytes = size;
            final long pieces = SingleCopy.stagedPieces(bytes);
            long start = 0;
            for (int piece = 1; piece <= pieces; piece++)
            {
                final int number = piece;
                final long end = SingleCopy.stagedPieceEnd(bytes, pieces, piece);
                final long length = end - start;
                assertTrue(length >= StreamingCopy.MIN_BYTES, () -> bytes + " B: a piece of " + length + " B");
                assertTrue(number == pieces || end % 4096 == 0, () -> bytes + " B: a piece ends at " + end);
                start = end;
            }
            assertEquals(bytes, start);
            assertTrue(pieces == 1 || bytes / (pieces + 1) < StreamingCopy.MIN_BYTES + 4096,
                () -> bytes + " B in " + pieces + " pieces: one more would do");
        }
    }
}
