package io.jccl.it;

import io.jccl.Collective;
import io.jccl.DataType;
import io.jccl.ReduceOp;

/**
 * One case of the contract suite: a collective call forced to one algorithm, its datatype, op, count, root,
 * in-place flag, buffer kinds and seed. Every rank builds the same list of cases, so each case is identified by its
 * index as well as by its label.
 *
 * @param index      position in the job's case list.
 * @param collective the collective called.
 * @param algorithm  the algorithm forced with {@code withAlgorithm("collective:algorithm")}.
 * @param type       element type (null for barrier).
 * @param op         reduction op (null for data movement and barrier).
 * @param count      n: the whole vector for broadcast, reduce and allreduce, one rank's block for the other block
 *                   collectives, the base block size of the v forms but reduce_scatterv, whose total it is,
 *                   the number of back-to-back calls for barrier.
 * @param root       root rank (for barrier: the rank that arrives late); -1 when the collective has none.
 * @param inPlace    the Communicator's in-place form of the call.
 * @param sendKind   memory of the send buffer.
 * @param recvKind   memory of the receive buffer.
 * @param inexact    random floats checked with a tolerance, rather than values whose reduction is exact.
 * @param layout     placement of the blocks of the v forms.
 * @param seed       seed of every rank's input.
 */
record ContractCase(
    int index,
    Collective collective,
    String algorithm,
    DataType type,
    ReduceOp op,
    long count,
    int root,
    boolean inPlace,
    Kind sendKind,
    Kind recvKind,
    boolean inexact,
    Layout layout,
    long seed)
{
    /** Where a buffer lives. */
    enum Kind
    {
        /** A Java primitive array (short[] for the 16-bit floats). */
        ARRAY,
        /** A direct ByteBuffer. */
        DIRECT,
        /** Symmetric memory from {@code Communicator.allocateShared}. */
        SHARED
    }

    /** Placement of the per-rank blocks of gatherv, scatterv, allgatherv and alltoallv. */
    enum Layout
    {
        /** Packed in rank order; null displacements are passed. */
        PACKED,
        /** Rank order with gaps between the blocks; explicit displacements. */
        GAPS,
        /** Reverse rank order with gaps; explicit displacements. */
        REVERSED
    }

    /** The spec passed to {@code Communicator.withAlgorithm}. */
    String algorithmSpec()
    {
        return collective.label() + ":" + algorithm;
    }

    /** "collective algorithm dtype op count root inplace" and the rest of what identifies the case. */
    String label()
    {
        return collective.label() + " " + algorithm + " " + (type == null ? "-" : type.label()) + " " +
            (op == null ? "-" : op.label()) + " count=" + count + " root=" + (root < 0 ? "-" : root) + " " +
            (inPlace ? "in-place" : "out-of-place") + " [case #" + index + ", send=" + kindLabel(sendKind) +
            " recv=" + kindLabel(recvKind) + (inexact ? ", inexact floats" : "") +
            (layout == Layout.PACKED ? "" : ", " + layout.name().toLowerCase(java.util.Locale.ROOT) + " layout") +
            "]";
    }

    private static String kindLabel(final Kind kind)
    {
        return kind == null ? "-" : kind.name().toLowerCase(java.util.Locale.ROOT);
    }
}
