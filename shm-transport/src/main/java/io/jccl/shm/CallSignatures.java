package io.jccl.shm;

import io.jccl.Collective;
import io.jccl.CollectiveMismatchException;
import io.jccl.DataType;
import io.jccl.ReduceOp;
import org.agrona.UnsafeApi;

import static io.jccl.shm.SegmentDescriptor.RankRecordDescriptor.*;

/**
 * Mismatch detection: every rank publishes the signature of each collective it starts (collective, datatype, op,
 * root, count; layout in {@link SegmentDescriptor.RankRecordDescriptor}) into its own record, and compares it with
 * its peers' signatures of the same sequence number. Publishing is four ordered stores; comparing reads the peers'
 * records, so it runs only where time is already lost: when a wait gets slow, when a collective message has the
 * wrong length, and before every collective in check mode ({@code jccl.check}).
 * <p>
 * A slot is rewritten every {@link SegmentDescriptor.RankRecordDescriptor#SIGNATURE_SLOTS} collectives; a reader
 * validates its copy seqlock-style (sequence, fields, sequence again), so a slot being rewritten reads as absent.
 */
final class CallSignatures
{
    /** What a peer's slot says about one collective. */
    static final int ABSENT = 0;
    static final int MATCH = 1;
    static final int MISMATCH = 2;
    /** The peer has rewritten the slot with a later collective: this one can no longer be compared. */
    static final int OVERWRITTEN = 3;

    private static final long WRITING = -1;

    private final long segment;
    private final SegmentDescriptor layout;
    private final int rank;
    private final int size;
    private final long ownRecord;

    private long latest;
    private long readKind;
    private long readCount;

    CallSignatures(final long segment, final SegmentDescriptor layout, final int rank)
    {
        this.segment = segment;
        this.layout = layout;
        this.rank = rank;
        this.size = layout.worldSize();
        this.ownRecord = segment + layout.rankRecordOffset(rank);
    }

    /** Packs what must agree between ranks, apart from the count, into one long. */
    static long kind(final Collective collective, final DataType type, final ReduceOp op, final int root)
    {
        return (collective.ordinal() + 1L) | (type == null ? 0 : type.ordinal() + 1L) << 8 |
            (op == null ? 0 : op.ordinal() + 1L) << 16 | (root < 0 ? 0 : root + 1L) << 32;
    }

    /** Publishes this rank's collective {@code sequence}: the slot reads as being written until the last store. */
    void publish(final long sequence, final long kind, final long count)
    {
        final long entry = ownRecord + signatureOffset(sequence);
        UnsafeApi.putLong(null, entry + SIGNATURE_SEQUENCE_OFFSET, WRITING);
        // Release: a reader that sees the new fields also sees WRITING, never the old sequence with new fields.
        UnsafeApi.putLongRelease(null, entry + SIGNATURE_KIND_OFFSET, kind);
        UnsafeApi.putLongRelease(null, entry + SIGNATURE_COUNT_OFFSET, count);
        // Release: the fields are visible before the sequence that validates them.
        UnsafeApi.putLongRelease(null, entry + SIGNATURE_SEQUENCE_OFFSET, sequence);
        latest = sequence;
    }

    /** The last sequence this rank published (0 before its first collective). */
    long latest()
    {
        return latest;
    }

    /** Compares {@code peer}'s signature of collective {@code sequence} with this rank's. */
    int compare(final int peer, final long sequence)
    {
        if (!read(rank, sequence))
        {
            return OVERWRITTEN;
        }
        final long kind = readKind;
        final long count = readCount;
        if (!read(peer, sequence))
        {
            return peerSequence(peer, sequence) > sequence ? OVERWRITTEN : ABSENT;
        }
        return kind == readKind && (count == readCount || count < 0 || readCount < 0) ? MATCH : MISMATCH;
    }

    /**
     * Compares the collectives this rank still holds signatures of with every peer's; returns the mismatch of the
     * earliest disagreeing one, or null.
     */
    CollectiveMismatchException findMismatch()
    {
        final long last = latest;
        for (long s = Math.max(1, last - SIGNATURE_SLOTS + 1); s <= last; s++)
        {
            for (int peer = 0; peer < size; peer++)
            {
                if (peer != rank && compare(peer, s) == MISMATCH)
                {
                    return mismatch(s);
                }
            }
        }
        return null;
    }

    /**
     * The first rank that has not started collective {@code sequence} (its signatures are all of earlier ones), or -1:
     * the rank a wait in that collective is late for, whichever rank the wait was on (in a ring, a rank waits on its
     * neighbour, which may itself wait on the late one).
     */
    int firstNotStarted(final long sequence)
    {
        for (int r = 0; r < size; r++)
        {
            if (r != rank && peerSequence(r, sequence) < sequence)
            {
                return r;
            }
        }
        return -1;
    }

    /**
     * "rank 2 has not called it yet (its last collective: #16)", or with several "ranks 2, 3 have not called it yet
     * (their last collectives: #16, none)": the ranks {@link #firstNotStarted} finds. Call only when it finds one.
     */
    String describeNotStarted(final long sequence)
    {
        final StringBuilder ranks = new StringBuilder();
        final StringBuilder lasts = new StringBuilder();
        int found = 0;
        for (int r = 0; r < size; r++)
        {
            final long last = r == rank ? sequence : peerSequence(r, sequence);
            if (last < sequence)
            {
                final String separator = found == 0 ? "" : ", ";
                ranks.append(separator).append(r);
                lasts.append(separator).append(last == 0 ? "none" : "#" + last);
                found++;
            }
        }
        return found == 1 ?
            "rank " + ranks + " has not called it yet (its last collective: " + lasts + ")" :
            "ranks " + ranks + " have not called it yet (their last collectives: " + lasts + ")";
    }

    /**
     * "rank 2 has started collective #6, allreduce(count=1024, float32, sum), which rank 0 has not called yet", when
     * {@code peer} has started a collective this rank has not: waiting on it for anything else, this rank waits on a
     * rank that most likely waits on this one. Null otherwise.
     */
    String describeAhead(final int peer)
    {
        final long ahead = latest + 1;
        if (peerSequence(peer, ahead) < ahead)
        {
            return null;
        }
        final StringBuilder sb = new StringBuilder("rank ").append(peer).append(" has started collective #")
            .append(ahead);
        if (read(peer, ahead))
        {
            describe(sb.append(", "), readKind, readCount);
        }
        return sb.append(", which rank ").append(rank).append(" has not called yet").toString();
    }

    /** "collective #17 mismatch: rank 0 allreduce(count=1024, float32, sum), rank 1 allreduce(count=1000, ...)". */
    CollectiveMismatchException mismatch(final long sequence)
    {
        final StringBuilder sb = new StringBuilder("collective #").append(sequence).append(" mismatch:");
        for (int r = 0; r < size; r++)
        {
            sb.append(r == 0 ? " rank " : ", rank ").append(r).append(' ');
            if (read(r, sequence))
            {
                describe(sb, readKind, readCount);
            }
            else
            {
                final long at = peerSequence(r, sequence);
                sb.append(at > sequence ? "moved on to collective #" + at : "has not called it yet (last #" + at + ")");
            }
        }
        sb.append(" (seen by rank ").append(rank).append(")");
        return new CollectiveMismatchException(sequence, sb.toString());
    }

    static void describe(final StringBuilder sb, final long kind, final long count)
    {
        final Collective collective = Collective.values()[(int) (kind & 0xFF) - 1];
        final int type = (int) (kind >>> 8 & 0xFF);
        final int op = (int) (kind >>> 16 & 0xFF);
        final long root = (kind >>> 32) - 1;
        sb.append(collective.label()).append('(');
        String sep = "";
        if (count >= 0 && collective != Collective.BARRIER)
        {
            sb.append("count=").append(count);
            sep = ", ";
        }
        if (type > 0)
        {
            sb.append(sep).append(DataType.values()[type - 1].label());
            sep = ", ";
        }
        if (op > 0)
        {
            sb.append(sep).append(ReduceOp.values()[op - 1].label());
            sep = ", ";
        }
        if (root >= 0)
        {
            sb.append(sep).append("root=").append(root);
        }
        sb.append(')');
    }

    /** Reads rank {@code r}'s signature of {@code sequence} into readKind/readCount; false when it holds another. */
    private boolean read(final int r, final long sequence)
    {
        final long entry = segment + layout.rankRecordOffset(r) + signatureOffset(sequence);
        // Acquire on every load: the fields are read after the first sequence load, the second after the fields.
        if (UnsafeApi.getLongAcquire(null, entry + SIGNATURE_SEQUENCE_OFFSET) != sequence)
        {
            return false;
        }
        readKind = UnsafeApi.getLongAcquire(null, entry + SIGNATURE_KIND_OFFSET);
        readCount = UnsafeApi.getLongAcquire(null, entry + SIGNATURE_COUNT_OFFSET);
        return UnsafeApi.getLongAcquire(null, entry + SIGNATURE_SEQUENCE_OFFSET) == sequence;
    }

    /** The highest sequence in {@code r}'s slots (a rank being rewritten counts as {@code near}). */
    private long peerSequence(final int r, final long near)
    {
        long highest = 0;
        for (int slot = 0; slot < SIGNATURE_SLOTS; slot++)
        {
            final long s = UnsafeApi.getLongAcquire(null, segment + layout.rankRecordOffset(r) + SIGNATURES_OFFSET +
                (long) slot * SIGNATURE_LENGTH + SIGNATURE_SEQUENCE_OFFSET);
            highest = Math.max(highest, s == WRITING ? near : s);
        }
        return highest;
    }
}
