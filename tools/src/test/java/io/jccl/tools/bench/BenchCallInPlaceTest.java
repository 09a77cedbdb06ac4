package io.jccl.tools.bench;

import io.jccl.Buf;
import io.jccl.Communicator;
import io.jccl.DataType;
import io.jccl.ReduceOp;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.lang.reflect.Proxy;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The buffers an in-place call hands the communicator, as Communicator's MPI_IN_PLACE rules say. */
@Timeout(30)
class BenchCallInPlaceTest
{
    private static final int RANKS = 4;
    private static final int ROOT = 2;
    private static final long COUNT = 16;
    private static final long BLOCK = COUNT / RANKS;

    private final ByteBuffer send = ByteBuffer.allocateDirect(1024).order(ByteOrder.nativeOrder());
    private final ByteBuffer recv = ByteBuffer.allocateDirect(1024).order(ByteOrder.nativeOrder());
    private final BenchCall.Regions regions = new BenchCall.Regions(new UnsafeBuffer(send), new UnsafeBuffer(recv),
        Buf.of(send, DataType.FLOAT32), Buf.of(recv, DataType.FLOAT32));

    @Test
    void reductionsAndScansSendTheirReceiveBuffer()
    {
        for (final BenchOp op : List.of(BenchOp.ALLREDUCE, BenchOp.REDUCE, BenchOp.SCAN, BenchOp.EXSCAN))
        {
            final List<Object> args = run(op, 1);
            final Buf s = (Buf) args.get(0);
            final Buf r = (Buf) args.get(1);
            assertTrue(s.sameStart(r) && s.count() == COUNT && r.count() == COUNT, op.label());
            assertTrue(r.sameStart(recvRegion()), op.label());
        }
    }

    @Test
    void allgatherAndAGatherOrGathervRootSendTheirBlockOfTheReceiveBuffer()
    {
        assertBlock(run(BenchOp.ALLGATHER, 1), 0, recvRegion(), 1);
        for (final BenchOp gather : List.of(BenchOp.GATHER, BenchOp.GATHERV))
        {
            assertBlock(run(gather, ROOT), 0, recvRegion(), ROOT);
            final Buf nonRootSend = (Buf) run(gather, 1).get(0);
            assertTrue(nonRootSend.sameStart(sendRegion()) && nonRootSend.count() == BLOCK, gather.label());
        }
    }

    @Test
    void reduceScatterAndAScatterOrScattervRootReceiveIntoTheirBlockOfTheSendBuffer()
    {
        assertBlock(run(BenchOp.REDUCE_SCATTER, 1), 1, sendRegion(), 1);
        for (final BenchOp scatter : List.of(BenchOp.SCATTER, BenchOp.SCATTERV))
        {
            assertBlock(run(scatter, ROOT), 1, sendRegion(), ROOT);
            final Buf nonRootRecv = (Buf) run(scatter, 1).get(1);
            assertTrue(nonRootRecv.sameStart(recvRegion()) && nonRootRecv.count() == BLOCK, scatter.label());
        }
    }

    @Test
    void theOthersHaveNoInPlaceForm()
    {
        for (final BenchOp op : BenchOp.values())
        {
            final boolean has = switch (op)
            {
                case ALLREDUCE, REDUCE, ALLGATHER, GATHER, GATHERV, REDUCE_SCATTER, SCATTER, SCATTERV, SCAN, EXSCAN -> true;
                default -> false;
            };
            assertEquals(has, BenchCall.hasInPlace(op), op.label());
            if (!has)
            {
                final BenchCall call = BenchCall.create(op, communicator(1, new ArrayList<>()), regions, COUNT, 1, 0,
                    ROOT, ReduceOp.SUM);
                assertThrows(IllegalArgumentException.class, call::inPlace, op.label());
            }
        }
        assertFalse(BenchCall.hasInPlace(BenchOp.BROADCAST));
    }

    /** Argument {@code which} of the call is block {@code rank} of {@code region}. */
    private static void assertBlock(final List<Object> args, final int which, final Buf region, final int rank)
    {
        final Buf buf = (Buf) args.get(which);
        assertTrue(buf.sameStart(region.slice(rank * BLOCK, BLOCK)) && buf.count() == BLOCK, buf.toString());
    }

    /** The arguments with which rank {@code rank}'s in-place call of {@code op} reaches the communicator. */
    private List<Object> run(final BenchOp op, final int rank)
    {
        final List<Object> args = new ArrayList<>();
        BenchCall.create(op, communicator(rank, args), regions, COUNT, 1, 0, ROOT, ReduceOp.SUM).inPlace().run(0);
        return args;
    }

    private Buf sendRegion()
    {
        return regions.sendBuf();
    }

    private Buf recvRegion()
    {
        return regions.recvBuf();
    }

    /** A communicator of {@link #RANKS} ranks that records the arguments of the one collective called on it. */
    private static Communicator communicator(final int rank, final List<Object> args)
    {
        return (Communicator) Proxy.newProxyInstance(Communicator.class.getClassLoader(),
            new Class<?>[] {Communicator.class}, (proxy, method, methodArgs) -> switch (method.getName())
            {
                case "rank" -> rank;
                case "size" -> RANKS;
                default ->
                {
                    args.addAll(Arrays.asList(methodArgs));
                    yield method.getReturnType() == long.class ? 0L : null;
                }
            });
    }
}
