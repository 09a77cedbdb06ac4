package io.jccl.shm;

import io.jccl.Collective;
import io.jccl.DataType;
import io.jccl.ReduceOp;
import org.agrona.BufferUtil;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.nio.ByteBuffer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

/** Signatures of three ranks published into one piece of memory laid out like a segment. */
@Timeout(10)
class CallSignaturesTest
{
    private final SegmentDescriptor layout = new SegmentDescriptor(3, 4096, 0, 0);
    private final ByteBuffer memory = BufferUtil.allocateDirectAligned((int) layout.totalLength(), 4096);
    private final long address = BufferUtil.address(memory);
    private final CallSignatures[] ranks = {
        new CallSignatures(address, layout, 0), new CallSignatures(address, layout, 1),
        new CallSignatures(address, layout, 2)};

    private static long allreduce(final DataType type, final ReduceOp op)
    {
        return CallSignatures.kind(Collective.ALLREDUCE, type, op, -1);
    }

    @Test
    void matchingCallsAgree()
    {
        for (final CallSignatures r : ranks)
        {
            r.publish(1, allreduce(DataType.FLOAT32, ReduceOp.SUM), 1024);
        }
        assertEquals(CallSignatures.MATCH, ranks[0].compare(1, 1));
        assertEquals(CallSignatures.MATCH, ranks[2].compare(0, 1));
        assertNull(ranks[1].findMismatch());
    }

    @Test
    void peerNotThereYetIsAbsentAndLaterOverwritten()
    {
        ranks[0].publish(1, allreduce(DataType.FLOAT32, ReduceOp.SUM), 8);
        assertEquals(CallSignatures.ABSENT, ranks[0].compare(1, 1));
        for (long s = 1; s <= 5; s++)
        {
            ranks[1].publish(s, CallSignatures.kind(Collective.BARRIER, null, null, -1), 0);
        }
        // rank 1 is at #5: its slot of #1 now holds #5
        assertEquals(CallSignatures.OVERWRITTEN, ranks[0].compare(1, 1));
    }

    @Test
    void everyKindOfMismatchIsNamedWithWhatEachRankCalled()
    {
        ranks[0].publish(1, CallSignatures.kind(Collective.BROADCAST, DataType.FLOAT64, null, 0), 10);
        ranks[1].publish(1, CallSignatures.kind(Collective.BROADCAST, DataType.FLOAT64, null, 2), 10);
        ranks[2].publish(1, CallSignatures.kind(Collective.BROADCAST, DataType.FLOAT64, null, 0), 10);
        assertEquals(CallSignatures.MISMATCH, ranks[0].compare(1, 1));
        assertEquals(CallSignatures.MATCH, ranks[0].compare(2, 1));
        assertEquals("collective #1 mismatch: rank 0 broadcast(count=10, float64, root=0), " +
            "rank 1 broadcast(count=10, float64, root=2), rank 2 broadcast(count=10, float64, root=0) " +
            "(seen by rank 2)",
            ranks[2].findMismatch().getMessage());

        ranks[0].publish(2, allreduce(DataType.INT32, ReduceOp.MIN), 4);
        ranks[1].publish(2, allreduce(DataType.INT32, ReduceOp.MAX), 4);
        assertEquals(CallSignatures.MISMATCH, ranks[0].compare(1, 2));
        assertEquals("collective #2 mismatch: rank 0 allreduce(count=4, int32, min), " +
            "rank 1 allreduce(count=4, int32, max), rank 2 has not called it yet (last #1) (seen by rank 0)",
            ranks[0].mismatch(2).getMessage());
        assertEquals(2, ranks[0].mismatch(2).sequence());
    }

    @Test
    void ranksThatHaveNotCalledACollectiveAreNamedAndTheFirstIsBlamed()
    {
        for (long s = 1; s <= 3; s++)
        {
            ranks[0].publish(s, allreduce(DataType.FLOAT32, ReduceOp.SUM), 8);
        }
        ranks[1].publish(1, allreduce(DataType.FLOAT32, ReduceOp.SUM), 8);
        ranks[1].publish(2, allreduce(DataType.FLOAT32, ReduceOp.SUM), 8);
        assertEquals(1, ranks[0].firstNotStarted(3));
        assertEquals("ranks 1, 2 have not called it yet (their last collectives: #2, none)",
            ranks[0].describeNotStarted(3));
        // at #2 rank 1 is there, rank 2 not
        assertEquals(2, ranks[0].firstNotStarted(2));
        assertEquals(2, ranks[1].firstNotStarted(2));

        // rank 1 catches up and moves past #3; rank 2 alone is late
        for (long s = 3; s <= 7; s++)
        {
            ranks[1].publish(s, CallSignatures.kind(Collective.BARRIER, null, null, -1), 0);
        }
        assertEquals(2, ranks[0].firstNotStarted(3));
        assertEquals("rank 2 has not called it yet (its last collective: none)", ranks[0].describeNotStarted(3));
        ranks[2].publish(3, allreduce(DataType.FLOAT32, ReduceOp.SUM), 8);
        assertEquals(-1, ranks[0].firstNotStarted(3));
        assertEquals(0, ranks[1].firstNotStarted(4));
    }

    @Test
    void countsOfMinusOneAreNotCompared()
    {
        ranks[0].publish(1, CallSignatures.kind(Collective.ALLTOALLV, DataType.INT8, null, -1), -1);
        ranks[1].publish(1, CallSignatures.kind(Collective.ALLTOALLV, DataType.INT8, null, -1), -1);
        assertEquals(CallSignatures.MATCH, ranks[0].compare(1, 1));
        final StringBuilder sb = new StringBuilder();
        CallSignatures.describe(sb, CallSignatures.kind(Collective.ALLTOALLV, DataType.INT8, null, -1), -1);
        assertEquals("alltoallv(int8)", sb.toString());
    }
}
