package io.jccl.shm;

import io.jccl.Collective;
import io.jccl.DataType;
import io.jccl.ReduceOp;
import io.jccl.spi.CollectiveAlgorithm;
import io.jccl.spi.CollectiveArgs;
import io.jccl.spi.CollectiveContext;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

@Timeout(10)
class FlightRecorderTest
{
    private static final long ALLREDUCE = CallSignatures.kind(Collective.ALLREDUCE, DataType.FLOAT32, ReduceOp.SUM,
        -1);
    private static final long BROADCAST = CallSignatures.kind(Collective.BROADCAST, DataType.INT8, null, 1);

    private static CollectiveAlgorithm named(final String name)
    {
        return new CollectiveAlgorithm()
        {
            @Override
            public String name()
            {
                return name;
            }

            @Override
            public String description()
            {
                return name;
            }

            @Override
            public Set<Collective> collectives()
            {
                return Set.of();
            }

            @Override
            public void run(final CollectiveContext context, final CollectiveArgs args)
            {
            }
        };
    }

    @Test
    void keepsTheLastOperationsOldestFirst()
    {
        final FlightRecorder recorder = new FlightRecorder(3, false);
        final CollectiveAlgorithm ring = named("ring");
        assertEquals(4, recorder.capacity(), "rounded up to a power of two");
        for (int s = 1; s <= 6; s++)
        {
            recorder.begin(s, ALLREDUCE, 8, ring);
            if (s == 1 || s == 5)
            {
                recorder.waiting(0, System.nanoTime());
            }
            recorder.done();
        }
        recorder.begin(7, BROADCAST, 16, named("binomial"));
        recorder.waiting(1, System.nanoTime());
        final String[] lines = recorder.dump("P ").split("\n");
        assertEquals("P flight recorder: last 4 of 7 operations, oldest first (start and end times with " +
            "JCCL_DEBUG=INFO)", lines[0]);
        assertEquals("P   allreduce #4 count=8 float32 sum algorithm=ring: done", lines[1]);
        assertTrue(lines[2].matches("P   allreduce #5 count=8 float32 sum algorithm=ring: done, last waited on rank 0, " +
            "\\d+\\.\\d{3} ms ago"), lines[2]);
        assertEquals("P   allreduce #6 count=8 float32 sum algorithm=ring: done", lines[3], "the wait of #1 is not #6's");
        recorder.failed();
        final String last = recorder.dump("").split("\n")[4];
        assertTrue(last.matches("  broadcast #7 count=16 int8 root=1 algorithm=binomial: FAILED waiting on rank 1, " +
            "waiting since \\d+\\.\\d{3} ms ago, ended \\d+\\.\\d{3} ms ago"), last);
    }

    @Test
    void timedRecordsStartAndEnd()
    {
        final FlightRecorder recorder = new FlightRecorder(64, true);
        recorder.begin(1, FlightRecorder.pointToPoint(FlightRecorder.SEND, DataType.INT32), 4, null);
        recorder.done();
        recorder.begin(1, FlightRecorder.pointToPoint(FlightRecorder.IRECV, DataType.INT64), 2, null);
        final String[] lines = recorder.dump("").split("\n");
        assertTrue(lines[1].matches("  send #1 count=4 int32: done, started \\d+\\.\\d{3} ms ago, " +
            "ended \\d+\\.\\d{3} ms ago"), lines[1]);
        assertTrue(lines[2].matches("  irecv #1 count=2 int64: posted, started \\d+\\.\\d{3} ms ago"), lines[2]);
        assertFalse(lines[1].contains("algorithm"));
    }

    @Test
    void marksADeclinedCall()
    {
        final FlightRecorder recorder = new FlightRecorder(8, false);
        recorder.begin(1, ALLREDUCE, 8, named("shm_single_copy"));
        recorder.declined();
        recorder.begin(2, ALLREDUCE, 8, named("shm_twoshot"));
        recorder.done();
        final String[] lines = recorder.dump("").split("\n");
        assertEquals("  allreduce #1 count=8 float32 sum algorithm=shm_single_copy: declined, run again as the next " +
            "operation", lines[1]);
        assertEquals("  allreduce #2 count=8 float32 sum algorithm=shm_twoshot: done", lines[2]);
        for (int s = 3; s <= 10; s++)
        {
            recorder.begin(s, ALLREDUCE, 8, named("shm_twoshot"));
            recorder.done();
        }
        assertFalse(recorder.dump("").contains("declined"), "a slot reused by a call that ran is done");
    }

    @Test
    void refusesSizesOutOfRange()
    {
        assertThrows(IllegalArgumentException.class, () -> new FlightRecorder(0, false));
        assertThrows(IllegalArgumentException.class, () -> new FlightRecorder(1 << 21, false));
    }
}
