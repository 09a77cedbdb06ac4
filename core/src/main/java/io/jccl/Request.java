package io.jccl;

import java.util.concurrent.TimeUnit;

/**
 * A non-blocking operation in flight. Completion is driven by {@link #test()} and {@link #await()} (and by any
 * other call on the same communicator), so a request that nobody tests makes no progress of its own.
 */
public interface Request
{
    /** Makes progress and returns true once the operation has completed. Throws if it failed. */
    boolean test();

    /** Blocks until completion, within the communicator's operation timeout. Throws if it failed. */
    void await();

    /** Blocks at most {@code timeout}; returns false when the time ran out before completion. */
    boolean await(long timeout, TimeUnit unit);

    /** Bytes received (receive requests) or sent (send requests); valid after completion. */
    long bytes();
}
