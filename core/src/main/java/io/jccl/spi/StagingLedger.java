package io.jccl.spi;

/**
 * What one rank knows about its peers' use of its staging area: which earlier operation every peer must have
 * finished (and so released the staging areas of) before this rank may write its area, or one of its two parts,
 * again: the staging protocol of {@link CollectiveContext}, whose default methods call this. It waits on the peers'
 * {@link CollectiveContext#SLOT_STAGING_RELEASED} flags only for an operation it does not know they have finished.
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

    /** {@link CollectiveContext#acquireStaging()}: waits (acquire) for what {@link #toAcquire()} names. */
    void acquire(final CollectiveContext context)
    {
        awaitReleased(context, toAcquire());
    }

    /** {@link CollectiveContext#acquireStagingPart}: waits (acquire) for what {@link #toAcquirePart} names. */
    void acquirePart(final CollectiveContext context, final int part)
    {
        awaitReleased(context, toAcquirePart(part));
    }

    /** {@link CollectiveContext#releaseStaging()}: records the use and publishes the release (release store). */
    void release(final CollectiveContext context)
    {
        final long sequence = context.sequence();
        released(sequence);
        context.setFlag(CollectiveContext.SLOT_STAGING_RELEASED, sequence);
    }

    /** {@link CollectiveContext#releaseStagingPart}: records the use of {@code part} and publishes the release. */
    void releasePart(final CollectiveContext context, final int part)
    {
        final long sequence = context.sequence();
        releasedPart(part, sequence);
        context.setFlag(CollectiveContext.SLOT_STAGING_RELEASED, sequence);
    }

    /** Waits (acquire) until every peer has released the staging areas of operation {@code needed} (0: none). */
    private static void awaitReleased(final CollectiveContext context, final long needed)
    {
        if (needed > 0)
        {
            final int rank = context.rank();
            for (int r = 0; r < context.size(); r++)
            {
                if (r != rank)
                {
                    context.waitFlag(r, CollectiveContext.SLOT_STAGING_RELEASED, needed);
                }
            }
        }
    }

    /** The operation every peer must have released before this one writes any staging area; 0 when none. */
    long toAcquire()
    {
        return lastUse > peersFinished ? lastUse : 0;
    }

    /** The operation every peer must have released before this one writes {@code part} alone; 0 when none. */
    long toAcquirePart(final int part)
    {
        final long needed = partUsedBy[part];
        return needed > peersFinished ? needed : 0;
    }

    /** Operation {@code sequence} may have used every part of the staging areas. */
    void released(final long sequence)
    {
        lastUse = sequence;
        for (int part = 0; part < PARTS; part++)
        {
            partUsedBy[part] = sequence;
        }
    }

    /** Operation {@code sequence} used only {@code part} of the staging areas (this rank's and its peers'). */
    void releasedPart(final int part, final long sequence)
    {
        lastUse = sequence;
        partUsedBy[part] = sequence;
    }

    /** This rank has seen every peer's token of operation {@code sequence}: every peer has finished the one before. */
    void peersStarted(final long sequence)
    {
        peersFinished = Math.max(peersFinished, sequence - 1);
    }
}
