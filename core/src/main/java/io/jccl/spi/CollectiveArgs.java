package io.jccl.spi;

import io.jccl.Collective;
import io.jccl.DataType;
import io.jccl.ReduceOp;

/**
 * The arguments of one collective call, validated by the communicator before an algorithm sees them. One instance
 * per communicator is reused for every call (no allocation). Counts are in elements, offsets in bytes.
 *
 * <pre>
 * collective       send (count)                  recv (count)
 * BARRIER          -                             -
 * BROADCAST        -                             n on every rank (root's holds the data)
 * REDUCE           n                             n on root (recvBase/offset unset elsewhere)
 * ALLREDUCE        n                             n
 * GATHER           n                             size × n on root
 * GATHERV          counts[rank]                  counts[i] at displs[i] for each rank i, on root
 * SCATTER          size × n on root              n
 * SCATTERV         counts[i] at displs[i] on root  counts[rank]
 * ALLGATHER        n                             size × n
 * ALLGATHERV       counts[rank]                  counts[i] at displs[i] for each rank i
 * REDUCE_SCATTER   size × n                      n
 * REDUCE_SCATTERV  sum(counts)                   counts[rank]; block i of send starts at displs[i]
 * ALLTOALL         size × n (block j to rank j)  size × n (block i from rank i)
 * ALLTOALLV        sendCounts/sendDispls         recvCounts/recvDispls
 * </pre>
 * {@link #count} is n: the whole vector for BROADCAST/REDUCE/ALLREDUCE, one rank's block otherwise; for the v forms
 * it is informational only (this rank's count, or its total sent for ALLTOALLV), shown in diagnostics. In place: send
 * and receive describe the same memory; algorithms copy send to recv first (a no-op when they are the same) and then
 * read only recv and scratch — except where the table says otherwise.
 * Operator AVG reaches algorithms as SUM: the communicator divides afterwards.
 */
public final class CollectiveArgs
{
    public Collective collective;
    public DataType type;
    public ReduceOp op;
    public int root;
    public long count;

    public Object sendBase;
    public long sendOffset;
    public Object recvBase;
    public long recvOffset;

    /** Segment offsets when the views lie in symmetric memory ({@link io.jccl.Buf#segmentOffset()}), else -1. */
    public long sendSegmentOffset = -1;
    public long recvSegmentOffset = -1;

    /**
     * Most bytes one chunk of a chunked shared-memory algorithm carries, 0 for the algorithm's default: the
     * communicator sets it from {@code jccl.chunk.bytes}; identical on every rank.
     */
    public long chunkBytes;

    /**
     * Most bytes a rank copies for its peers in one call ({@code jccl.split.bytes}; Long.MAX_VALUE: no bound): where
     * the call allows declines ({@link #declinedCopyMaxBytes}), a single-copy algorithm declines a larger copy, so that
     * scratch memory stays bounded; the communicator sets it, identical on every rank.
     */
    public long maxCopyBytes = Long.MAX_VALUE;

    /**
     * Set by the selector: a single-copy algorithm may decline this call where copying this rank's buffers for its
     * peers would cost more than the algorithm the selector would choose otherwise, a copy of
     * {@link #declinedCopyMinBytes} up to (not including) this many bytes; 0 where it may not decline; identical on
     * every rank.
     */
    public long declinedCopyMaxBytes;

    /** Set by the selector with {@link #declinedCopyMaxBytes}: the smallest copy for peers that declines the call. */
    public long declinedCopyMinBytes;

    /**
     * Set by the communicator before it selects: a large call that takes the slow pace's choices, where its pace probe
     * found the machine between its two paces, the staged 512 KiB allgather within a few times single copy's time
     * ({@code PaceProbe.BETWEEN_PACES_MAX_RATIO}; 4.5x at the slow pace), so that lines one core has just written reach
     * the other at a moderate cost; or, while ranks are two a core, a large alltoall at a fast verdict whose staged
     * allreduce was slower than the fast pace's ({@code PaceProbe.SHARED_CORES_BETWEEN_PACES_RATIO}). Identical on
     * every rank.
     */
    public boolean betweenPaces;

    /**
     * Set by an algorithm that left the call unrun because some rank declined it ({@link #declinedCopyMaxBytes}), on
     * every rank alike: the communicator then runs a staged algorithm as the next collective.
     */
    public boolean declined;

    /**
     * v forms: per-rank counts and displacements in elements, of the buffer that holds every rank's block (recv for
     * GATHERV and ALLGATHERV, send for SCATTERV and REDUCE_SCATTERV).
     */
    public int[] counts;
    public int[] displs;
    public int[] sendCounts;
    public int[] sendDispls;
    public int[] recvCounts;
    public int[] recvDispls;

    /** Elements from the start of a v-form buffer to the end of the last non-empty block of its first {@code size}. */
    public static long vectorExtent(final int[] counts, final int[] displs, final int size)
    {
        long extent = 0;
        for (int i = 0; i < size; i++)
        {
            if (counts[i] > 0)
            {
                extent = Math.max(extent, (long)displs[i] + counts[i]);
            }
        }
        return extent;
    }

    /** Bytes of the whole vector as nccl-tests count them (see DESIGN.md section 7). */
    public long elementSize()
    {
        return type == null ? 1 : type.size();
    }

    public boolean inPlace()
    {
        return sendBase == recvBase && sendOffset == recvOffset;
    }

    public CollectiveArgs clear()
    {
        collective = null;
        type = null;
        op = null;
        root = 0;
        count = 0;
        sendBase = null;
        sendOffset = 0;
        recvBase = null;
        recvOffset = 0;
        sendSegmentOffset = -1;
        recvSegmentOffset = -1;
        chunkBytes = 0;
        maxCopyBytes = Long.MAX_VALUE;
        declinedCopyMaxBytes = 0;
        declinedCopyMinBytes = 0;
        betweenPaces = false;
        declined = false;
        counts = null;
        displs = null;
        sendCounts = null;
        sendDispls = null;
        recvCounts = null;
        recvDispls = null;
        return this;
    }

    @Override
    public String toString()
    {
        return collective.label() + "(count=" + count + ", " + (type == null ? "-" : type.label()) +
            (op == null ? "" : ", " + op.label()) + ", root=" + root + ")";
    }
}
