package io.jccl.it;

import io.jccl.Buf;
import io.jccl.Communicator;
import io.jccl.DataType;
import io.jccl.Jccl;
import io.jccl.LocCollectives;
import io.jccl.LocOp;
import io.jccl.PersistentRequest;
import io.jccl.ReduceOp;

import java.lang.management.ManagementFactory;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Blocking calls allocate nothing once warm: every collective (the v forms with null displacements, which the
 * communicator packs), MINLOC and MAXLOC ({@link LocCollectives}), and a point-to-point exchange (blocking, and by
 * persistent requests), each called {@link #CALLS} times after {@link #WARM_UP} calls (enough for C2 to compile the
 * path), on 1 KiB of float32 (and larger calls below), in {@link #WINDOWS} windows. Prints one line per call:
 * {@code ALLOCATED name bytes of windows [...]}, bytes the least of the windows.
 */
public final class AllocationRank
{
    private static final int WARM_UP = 20_000;
    private static final int CALLS = 5_000;
    /**
     * Windows of {@link #CALLS} calls; the least counts. A call that allocates does so in every window, while the
     * runtime now and then allocates a burst of its own on a thread (NonBlockingRank's resources scenario).
     */
    private static final int WINDOWS = 3;
    private static final int N = 256;
    /**
     * Calls of this size take the large-message paths: single copy and memmove for direct buffers, and for arrays the
     * copies of an operand the kernel may not read (the GC moves it) into the staging areas.
     */
    private static final int LARGE_BYTES = 256 * 1024;
    private static final int SCAN_BYTES = 64 * 1024;

    private AllocationRank()
    {
    }

    public static void main(final String[] args)
    {
        try (Communicator comm = Jccl.connect())
        {
            final int p = comm.size();
            final int me = comm.rank();
            final int peer = (me + 1) % p;
            final int from = (me + p - 1) % p;
            final Buf block = Buf.of(new float[N]);
            final Buf out = Buf.of(new float[N]);
            final Buf all = Buf.of(new float[N * p]);
            final Buf all2 = Buf.of(new float[N * p]);
            final int[] counts = new int[p];
            Arrays.fill(counts, N);
            final Map<String, Runnable> calls = new LinkedHashMap<>();
            calls.put("barrier", comm::barrier);
            calls.put("broadcast", () -> comm.broadcast(block, 0));
            calls.put("reduce", () -> comm.reduce(block, out, ReduceOp.SUM, 0));
            calls.put("allreduce", () -> comm.allreduce(block, out, ReduceOp.SUM));
            calls.put("gather", () -> comm.gather(block, all, 0));
            calls.put("gatherv", () -> comm.gatherv(block, all, counts, null, 0));
            calls.put("scatter", () -> comm.scatter(all, block, 0));
            calls.put("scatterv", () -> comm.scatterv(all, block, counts, null, 0));
            calls.put("allgather", () -> comm.allgather(block, all));
            calls.put("allgatherv", () -> comm.allgatherv(block, all, counts, null));
            calls.put("reduce_scatter", () -> comm.reduceScatter(all, block, ReduceOp.SUM));
            calls.put("reduce_scatterv", () -> comm.reduceScatterv(all, block, counts, ReduceOp.SUM));
            calls.put("alltoall", () -> comm.alltoall(all, all2));
            calls.put("alltoallv", () -> comm.alltoallv(all, counts, null, all2, counts, null));
            calls.put("scan", () -> comm.scan(block, out, ReduceOp.SUM));
            calls.put("exscan", () -> comm.exscan(block, out, ReduceOp.SUM));
            calls.put("sendRecv", () -> comm.sendRecv(block, peer, 3, out, from, 3));
            calls.put("sendRecv_any_source", () -> comm.sendRecv(block, peer, 5, out, Communicator.ANY_SOURCE, 5));
            calls.put("sendRecv_any_tag", () -> comm.sendRecv(block, peer, 6, out, from, Communicator.ANY_TAG));
            // persistent requests, started again each call and completed by waitAll: no request allocated
            final PersistentRequest[] persistent = {comm.recvInit(out, from, 7), comm.sendInit(block, peer, 7)};
            calls.put("persistent_exchange", () ->
            {
                comm.startAll(persistent);
                comm.waitAll(persistent);
            });
            final Buf largeSend = Buf.of(ByteBuffer.allocateDirect(LARGE_BYTES), DataType.FLOAT32);
            final Buf largeRecv = Buf.of(ByteBuffer.allocateDirect(LARGE_BYTES), DataType.FLOAT32);
            calls.put("sendRecv_256k", () -> comm.sendRecv(largeSend, peer, 4, largeRecv, from, 4));
            calls.put("allreduce_256k", () -> comm.allreduce(largeSend, largeRecv, ReduceOp.SUM));
            final Buf largeArray = Buf.of(new float[LARGE_BYTES / Float.BYTES]);
            final Buf largeArrayOut = Buf.of(new float[LARGE_BYTES / Float.BYTES]);
            calls.put("allreduce_256k_array", () -> comm.allreduce(largeArray, largeArrayOut, ReduceOp.SUM));
            final Buf arrayBlock = largeArray.slice(0, LARGE_BYTES / Float.BYTES / p);
            calls.put("allgather_256k_array", () -> comm.allgather(arrayBlock, largeArrayOut));
            // beyond the low-latency scan's 1 KiB, where ranks that share cores pass the prefix down a chain
            final Buf scanBlock = largeArray.slice(0, SCAN_BYTES / Float.BYTES);
            final Buf scanOut = largeArrayOut.slice(0, SCAN_BYTES / Float.BYTES);
            calls.put("scan_64k_array", () -> comm.scan(scanBlock, scanOut, ReduceOp.SUM));
            // MINLOC and MAXLOC: 64 pairs by the paths of more than a few pairs (float64, and float32 for the
            // reduce-scatter), 8 float64 pairs by those of a few; reduce-scatterv of blocks of 64, 32, 16, ... pairs,
            // float32 and float64, which take the v collectives, and of 8, 4, 2, ... float64 pairs, padded to 8 for an
            // alltoall
            final LocCollectives loc = LocCollectives.of(comm);
            final Buf values = Buf.of(new double[64 * p]);
            final Buf indices = Buf.of(new int[64 * p]);
            final Buf someValues = values.slice(0, 64);
            final Buf someIndices = indices.slice(0, 64);
            final Buf fewValues = values.slice(0, 8);
            final Buf fewIndices = indices.slice(0, 8);
            final Buf pairValues = Buf.of(new float[64 * p]);
            final Buf pairValuesOut = Buf.of(new float[64]);
            final Buf pairIndicesOut = Buf.of(new int[64]);
            calls.put("loc_allreduce", () -> loc.allreduce(someValues, someIndices, LocOp.MAXLOC));
            calls.put("loc_reduce_scatter", () -> loc.reduceScatter(pairValues, indices, pairValuesOut, pairIndicesOut,
                LocOp.MINLOC));
            final int[] uneven = new int[p];
            for (int r = 0; r < p; r++)
            {
                uneven[r] = 64 >> r;
            }
            final Buf mineOut = pairValuesOut.slice(0, uneven[comm.rank()]);
            final Buf mineIndicesOut = pairIndicesOut.slice(0, uneven[comm.rank()]);
            final Buf wideOut = Buf.of(new double[uneven[comm.rank()]]);
            calls.put("loc_reduce_scatterv", () -> loc.reduceScatterv(pairValues, indices, mineOut, mineIndicesOut,
                uneven, LocOp.MAXLOC));
            calls.put("loc_reduce_scatterv_float64", () -> loc.reduceScatterv(values, indices, wideOut,
                mineIndicesOut, uneven, LocOp.MINLOC));
            final int[] few = new int[p];
            for (int r = 0; r < p; r++)
            {
                few[r] = 8 >> r;
            }
            calls.put("loc_reduce_scatterv_few", () -> loc.reduceScatterv(values, indices, wideOut, mineIndicesOut,
                few, LocOp.MAXLOC));
            calls.put("loc_scan", () -> loc.scan(someValues, someIndices, LocOp.MAXLOC));
            calls.put("loc_exscan_few", () -> loc.exscan(fewValues, fewIndices, LocOp.MINLOC));
            final com.sun.management.ThreadMXBean threads =
                (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
            final long thread = Thread.currentThread().threadId();
            for (final Map.Entry<String, Runnable> call : calls.entrySet())
            {
                final Runnable run = call.getValue();
                for (int i = 0; i < WARM_UP; i++)
                {
                    run.run();
                }
                final long[] windows = new long[WINDOWS];
                for (int w = 0; w < WINDOWS; w++)
                {
                    final long before = threads.getThreadAllocatedBytes(thread);
                    for (int i = 0; i < CALLS; i++)
                    {
                        run.run();
                    }
                    windows[w] = threads.getThreadAllocatedBytes(thread) - before;
                }
                System.out.println("ALLOCATED " + call.getKey() + " " + Arrays.stream(windows).min().orElseThrow() +
                    " of windows " + Arrays.toString(windows));
            }
        }
    }
}
