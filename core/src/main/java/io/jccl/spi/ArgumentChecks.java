package io.jccl.spi;

import io.jccl.Buf;
import io.jccl.Communicator;
import io.jccl.DataType;
import io.jccl.ReduceOp;

/**
 * The argument checks of every public communicator call, in one place: each throws
 * {@link IllegalArgumentException} with a message that names the argument, before any byte moves and without
 * touching the communicator's state, so a refused call leaves the communicator usable.
 */
public final class ArgumentChecks
{
    private ArgumentChecks()
    {
    }

    /** A buffer must be present; one that is written must not be read-only. */
    public static void checkBuffer(final Buf buf, final String role, final boolean written)
    {
        if (buf == null)
        {
            throw new IllegalArgumentException(role + " is null");
        }
        if (written && buf.isReadOnly())
        {
            throw new IllegalArgumentException(role + " is read-only");
        }
    }

    /** {@code rank} names one of the {@code size} ranks; {@code role} is "root", "destination rank", ... */
    public static void checkRank(final int rank, final int size, final String role)
    {
        if (rank < 0 || rank >= size)
        {
            throw new IllegalArgumentException(role + " " + rank + " is outside 0.." + (size - 1));
        }
    }

    public static void checkTag(final int tag)
    {
        if (tag < 0)
        {
            throw new IllegalArgumentException("tag " + tag + " is negative: user tags are >= 0");
        }
    }

    /** A receive's or probe's tag: a user tag or {@link Communicator#ANY_TAG}. */
    public static void checkReceiveTag(final int tag)
    {
        if (tag < 0 && tag != Communicator.ANY_TAG)
        {
            throw new IllegalArgumentException("tag " + tag + " is negative and not ANY_TAG (" +
                Communicator.ANY_TAG + "): user tags are >= 0");
        }
    }

    public static void checkOp(final ReduceOp op)
    {
        if (op == null)
        {
            throw new IllegalArgumentException("reduction op is null");
        }
    }

    /** {@code op} reduces elements of {@code type}: bitwise operators take integer types only. */
    public static void checkOp(final ReduceOp op, final DataType type)
    {
        checkOp(op);
        if (!op.reduces(type))
        {
            throw new IllegalArgumentException(op.label() + " reduces integer types (int8, int32, int64, uint8, " +
                "uint32, uint64), not " + type.label());
        }
    }

    public static void checkType(final DataType type)
    {
        if (type == null)
        {
            throw new IllegalArgumentException("type is null");
        }
    }

    /** A count of elements: not negative, and not so large that its bytes overflow a long. */
    public static void checkCount(final long count, final DataType type)
    {
        if (count < 0)
        {
            throw new IllegalArgumentException("negative count " + count);
        }
        if (count > Long.MAX_VALUE / type.size())
        {
            throw new IllegalArgumentException("count " + count + " of " + type.label() + " overflows a byte count");
        }
    }

    public static void checkSameType(final Buf send, final Buf recv)
    {
        if (send.type() != recv.type())
        {
            throw new IllegalArgumentException("send buffer holds " + send.type().label() + ", receive buffer " +
                recv.type().label());
        }
    }

    public static void checkAtLeast(final Buf buf, final long count, final String role)
    {
        if (buf.count() < count)
        {
            throw new IllegalArgumentException(role + " holds " + buf.count() + " elements, " + count +
                " are needed");
        }
    }

    /** Send and receive are either the same memory (in place) or apart. */
    public static void checkNoPartialOverlap(final Buf send, final Buf recv)
    {
        checkNoPartialOverlap(send, recv, "buffers");
    }

    /** {@link #checkNoPartialOverlap(Buf, Buf)} where the message names what they hold ("values", "indices"). */
    public static void checkNoPartialOverlap(final Buf send, final Buf recv, final String what)
    {
        if (send.overlaps(recv) && !send.sameStart(recv))
        {
            throw new IllegalArgumentException("send and receive " + what + " overlap without being the same memory " +
                "(in place means passing the same buffer)");
        }
    }

    public static void checkApart(final Buf send, final Buf recv, final String collective)
    {
        if (send.overlaps(recv))
        {
            // the roles are joined only here: every collective call passes this check, and must not allocate
            throw overlap(collective + " send", "receive buffers");
        }
    }

    /** Two buffers share no byte; the message names each by its role. */
    public static void checkApart(final Buf a, final String aRole, final Buf b, final String bRole)
    {
        if (a.overlaps(b))
        {
            throw overlap(aRole, bRole);
        }
    }

    private static IllegalArgumentException overlap(final String aRole, final String bRole)
    {
        return new IllegalArgumentException(aRole + " and " + bRole + " overlap");
    }

    /**
     * In place for allgather and reduce_scatter means the small buffer is this rank's block of the large one
     * (MPI_IN_PLACE); any other overlap is refused.
     */
    public static void checkOwnBlockOrApart(final Buf whole, final Buf block, final int rank, final long blockCount,
        final String role)
    {
        checkBlockOrApart(whole, block, rank * blockCount, role);
    }

    /** As {@link #checkOwnBlockOrApart}, for this rank's block at element {@code blockStart} of {@code whole}. */
    public static void checkBlockOrApart(final Buf whole, final Buf block, final long blockStart, final String role)
    {
        if (whole.overlaps(block) &&
            !(block.base() == whole.base() && block.offset() == whole.offset() + blockStart * whole.type().size()))
        {
            throw new IllegalArgumentException(role + " overlaps the other buffer without being exactly this " +
                "rank's block of it (in place means passing that block)");
        }
    }

    /**
     * Validates per-rank counts and displacements (in elements) against a buffer of {@code capacity} elements;
     * returns the displacements, or, when {@code displs} is null, {@code scratch} (of {@code size} entries) filled
     * with displacements packed in rank order: the caller's scratch, so that no call allocates.
     */
    public static int[] checkLayout(final int[] counts, final int[] displs, final int size, final long capacity,
        final String name, final String role, final int[] scratch)
    {
        checkCounts(counts, size, name);
        if (displs != null && displs.length != size)
        {
            throw new IllegalArgumentException("displacements must have one entry per rank (" + size + "), not " +
                displs.length);
        }
        long packed = 0;
        for (int r = 0; r < size; r++)
        {
            final long start = displs == null ? packed : displs[r];
            if (start < 0)
            {
                throw new IllegalArgumentException("displacement[" + r + "] is negative: " + displs[r]);
            }
            if (start > Integer.MAX_VALUE)
            {
                throw new IllegalArgumentException(name + ": block " + r + " starts at element " + start +
                    ", beyond what an int displacement holds");
            }
            packed += counts[r];
            if (start + counts[r] > capacity)
            {
                throw new IllegalArgumentException(role + " holds " + capacity + " elements; block " + r + " needs [" +
                    start + ", " + (start + counts[r]) + ")");
            }
        }
        if (displs != null)
        {
            return displs;
        }
        long at = 0;
        for (int r = 0; r < size; r++)
        {
            scratch[r] = (int) at;
            at += counts[r];
        }
        return scratch;
    }

    /** A buffer of {@code buf.count()} elements holds this rank's {@code counts[rank]} of a v form's blocks. */
    public static void checkOwnCount(final Buf buf, final int[] counts, final int rank, final String role)
    {
        if (buf.count() < counts[rank])
        {
            throw new IllegalArgumentException(role + " (counts[" + rank + "]) holds " + buf.count() + " elements, " +
                counts[rank] + " are needed");
        }
    }

    /** Per-rank counts: one entry per rank, none negative. */
    public static void checkCounts(final int[] counts, final int size, final String name)
    {
        if (counts == null || counts.length != size)
        {
            throw new IllegalArgumentException(name + " must have one entry per rank (" + size + ")" +
                (counts == null ? ", not null" : ", not " + counts.length));
        }
        for (int r = 0; r < size; r++)
        {
            if (counts[r] < 0)
            {
                throw new IllegalArgumentException(name + "[" + r + "] is negative: " + counts[r]);
            }
        }
    }

    /** The sum of per-rank counts, as a long (an int sum could overflow). */
    public static long sum(final int[] counts)
    {
        long total = 0;
        for (final int c : counts)
        {
            total += c;
        }
        return total;
    }
}
