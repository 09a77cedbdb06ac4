package io.jccl.spi;

/**
 * What one rank knows about its peers' use of its staging area: which earlier operation every peer must have
 * finished (and so released the staging areas of) before this rank may write its area, or one of its two parts,
 * again. The staging protocol of {@link CollectiveContext}, as bookkeeping: the context waits on the peers'
 * {@link CollectiveContext#SLOT_STAGING_RELEASED} flags for the sequence this returns, and skips the wait when it
 * returns 0.
 * <p>
 * Two facts spare waits. An operation that writes one part of the area only needs the peers to have finished the
 * last operation that used that part: consecutive one-part operations that alternate parts need the one two back.
 * And a rank that has seen every peer's token of operation s knows every peer has finished operation s − 1, since a
 * rank starts an operation only once it has finished the one before: then waiting for s − 1 costs nothing, where
 * loading a peer's flag would cost a cache-line handoff (the peer has just written it). Together, a stream of
 * one-part exchanges (one-shot allreduces of one chunk) never waits on a flag for its staging.
 * <p>
 * Not thread-safe: owned by the rank's context, used by the one thread in a collective.
 */
public final class StagingLedger
{
    /** The parts an operation may claim alone ({@link CollectiveContext#acquireStagingPart}). */
    public static final int PARTS = 2;

    private final long[] partUsedBy = new long[PARTS];
    private long lastUse;
    private long peersFinished;

    /** The operation every peer must have released before this one writes any staging area; 0 when none. */
    public long toAcquire()
    {
        return lastUse > peersFinished ? lastUse : 0;
    }

    /** The operation every peer must have released before this one writes {@code part} alone; 0 when none. */
    public long toAcquirePart(final int part)
    {
        final long needed = partUsedBy[part];
        return needed > peersFinished ? needed : 0;
    }

    /** Operation {@code sequence} may have used every part of the staging areas. */
    public void released(final long sequence)
    {
        lastUse = sequence;
        for (int part = 0; part < PARTS; part++)
        {
            partUsedBy[part] = sequence;
        }
    }

    /** Operation {@code sequence} used only {@code part} of the staging areas (this rank's and its peers'). */
    public void releasedPart(final int part, final long sequence)
    {
        lastUse = sequence;
        partUsedBy[part] = sequence;
    }

    /** This rank has seen every peer's token of operation {@code sequence}: every peer has finished the one before. */
    public void peersStarted(final long sequence)
    {
        peersFinished = Math.max(peersFinished, sequence - 1);
    }
}
