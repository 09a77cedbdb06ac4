package io.jccl.shm;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

@Timeout(10)
class FlightRecorderTest
{
    @Test
    void keepsTheLastOperationsOldestFirst()
    {
        final FlightRecorder recorder = new FlightRecorder(3, false);
        assertEquals(4, recorder.capacity(), "rounded up to a power of two");
        for (int s = 1; s <= 6; s++)
        {
            recorder.begin("allreduce", s, 8, "float32", "ring", FlightRecorder.STARTED);
            recorder.done();
        }
        recorder.begin("broadcast", 7, 16, "int8", "binomial", FlightRecorder.STARTED);
        recorder.waiting(1, System.nanoTime());
        final String[] lines = recorder.dump("P ").split("\n");
        assertEquals("P flight recorder: last 4 of 7 operations, oldest first (start and end times with " +
            "JCCL_DEBUG=INFO)", lines[0]);
        assertEquals("P   allreduce #4 count=8 float32 algorithm=ring: done", lines[1]);
        assertEquals("P   allreduce #6 count=8 float32 algorithm=ring: done", lines[3]);
        assertTrue(lines[4].startsWith("P   broadcast #7 count=16 int8 algorithm=binomial: waiting on rank 1, " +
            "waiting since "), lines[4]);
        recorder.failed();
        assertTrue(recorder.dump("")
            .contains("broadcast #7 count=16 int8 algorithm=binomial: FAILED waiting on rank 1"));
        recorder.done();
        assertTrue(recorder.dump("").contains("FAILED"), "a failure stays recorded");
    }

    @Test
    void timedRecordsStartAndEnd()
    {
        final FlightRecorder recorder = new FlightRecorder(64, true);
        recorder.begin("send", 1, 4, "int32", null, FlightRecorder.STARTED);
        recorder.done();
        final String line = recorder.dump("").split("\n")[1];
        assertTrue(line.matches("  send #1 count=4 int32: done, started \\d+\\.\\d{3} ms ago, " +
            "ended \\d+\\.\\d{3} ms ago"),
            line);
        assertFalse(line.contains("algorithm"));
    }

    @Test
    void refusesSizesOutOfRange()
    {
        assertThrows(IllegalArgumentException.class, () -> new FlightRecorder(0, false));
        assertThrows(IllegalArgumentException.class, () -> new FlightRecorder(1 << 21, false));
    }
}
