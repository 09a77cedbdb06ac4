package io.jccl.spi;

import io.jccl.Collective;

import java.util.Set;

/**
 * One algorithm: stateless, shared by all communicators of a process. Registered in the algorithms module's
 * registry with a stable id and name.
 */
public interface CollectiveAlgorithm
{
    /** Short name used in configuration and on the command line, e.g. {@code "ring"}, {@code "shm_oneshot"}. */
    String name();

    /** One sentence: how it works and when it is good. */
    String description();

    /** The collectives it implements. */
    Set<Collective> collectives();

    /**
     * Null when this algorithm can run the call on {@code size} ranks, else the reason it cannot
     * (e.g. "needs a staging area of 64 KiB per rank"), shown to the user who forced it.
     */
    default String unsupportedReason(final CollectiveArgs args, final int size, final CollectiveContext context)
    {
        return collectives().contains(args.collective) ? null : name() + " does not implement " +
            args.collective.label();
    }

    /**
     * Whether {@link #unsupportedReason} is null, without building the reason: for a selector's rule that asks on every
     * call and often hears no. An algorithm whose reasons are built per call overrides it.
     */
    default boolean supports(final CollectiveArgs args, final int size, final CollectiveContext context)
    {
        return unsupportedReason(args, size, context) == null;
    }

    /** Runs the collective. Every rank calls it with matching arguments. */
    void run(CollectiveContext context, CollectiveArgs args);
}
