package io.jccl.algorithms.shm;

import org.junit.jupiter.api.Test;

import java.util.Map;
import java.util.TreeMap;

import static io.jccl.algorithms.shm.LowLatencyProtocol.*;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The LL region's layout, for every publish size and every slot. */
class LowLatencyProtocolTest
{
    /**
     * Publishes of different slot sizes, or of different operations modulo {@code SLOTS}, never share a line: a writer
     * only waits for the readers of the slot it writes, so an overlap would let it overwrite lines still being read.
     */
    @Test
    void everySlotLiesInTheRegionAndNoTwoSlotsOverlap()
    {
        // start of each slot -> {slot index, end of its longest publish}
        final TreeMap<Long, long[]> slots = new TreeMap<>();
        for (long published = 1; published <= MAX_BYTES; published++)
        {
            final long lines = (published + LINE_PAYLOAD - 1) / LINE_PAYLOAD;
            for (long sequence = 1; sequence <= SLOTS; sequence++)
            {
                final long start = slotOffset(sequence, published);
                final long end = start + lines * LINE_BYTES;
                assertEquals(0, start % LINE_BYTES, "whole lines");
                assertTrue(start >= 0 && end <= REGION_BYTES, published + " bytes of operation " + sequence +
                    " at " + start + ".." + end + ", outside the region of " + REGION_BYTES);
                final long[] slot = slots.putIfAbsent(start, new long[]{sequence % SLOTS, end});
                if (slot != null)
                {
                    assertEquals(sequence % SLOTS, slot[0], "operations " + slot[0] + " and " + sequence +
                        " (mod " + SLOTS + ") share the slot at " + start);
                    slot[1] = Math.max(slot[1], end);
                }
            }
        }
        long previousEnd = 0;
        for (final Map.Entry<Long, long[]> slot : slots.entrySet())
        {
            assertTrue(slot.getKey() >= previousEnd, "the slot at " + slot.getKey() + " overlaps the one before it");
            previousEnd = slot.getValue()[1];
        }
    }

    /** Consecutive operations' publishes of one slot size lie back to back, where a reader's prefetcher finds them. */
    @Test
    void consecutiveOperationsOfOneSlotSizeAreBackToBack()
    {
        final long[][] sizesAndLines = {
            {1, 1}, {LINE_PAYLOAD, 1},
            {LINE_PAYLOAD + 1, SHORT_SLOT_LINES}, {SHORT_SLOT_LINES * LINE_PAYLOAD, SHORT_SLOT_LINES},
            {SHORT_SLOT_LINES * LINE_PAYLOAD + 1, MEDIUM_SLOT_LINES},
            {MEDIUM_SLOT_LINES * LINE_PAYLOAD, MEDIUM_SLOT_LINES},
            {MEDIUM_SLOT_LINES * LINE_PAYLOAD + 1, SLOT_LINES}, {MAX_BYTES, SLOT_LINES}};
        for (final long[] sizeAndLines : sizesAndLines)
        {
            for (long sequence = 1; sequence < SLOTS; sequence++)
            {
                assertEquals(sizeAndLines[1] * LINE_BYTES,
                    slotOffset(sequence, sizeAndLines[0]) - slotOffset(sequence - 1, sizeAndLines[0]),
                    sizeAndLines[0] + " bytes, operation " + sequence);
            }
        }
    }
}
