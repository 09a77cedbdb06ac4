package io.jccl;

import java.util.concurrent.CompletableFuture;

/**
 * A non-blocking collective in flight ({@code comm.iallreduce(...)} and the other {@code i...} calls). Unlike a
 * point-to-point {@link Request}, it progresses in the background, on the communicator's progress thread: nobody has
 * to test it for it to advance, so the caller computes meanwhile. Collectives started on one communicator run, and
 * complete, in the order they were started.
 * <p>
 * Its buffers belong to the operation until it completes: do not write the send buffer nor read the receive buffer
 * before {@link #test()} returned true or {@link #await()} returned.
 * <p>
 * Waiting: {@link #await()} has nothing else to do, so it runs the operations still queued, up to this one, on the
 * caller's thread, unless the progress thread is running one (as {@code MPI_Wait} progresses): a small collective
 * awaited at once then costs about what the blocking call does, rather than two thread wake-ups. A timed
 * {@link #await(long, java.util.concurrent.TimeUnit)} and {@link #test()} never run operations: a collective cannot
 * stop half-way at a deadline. {@code await()} has no deadline of its own, but never hangs: every wait for a peer,
 * on either thread, is bounded by the operation timeout and watches the peers' liveness, so each operation queued
 * ahead of this one completes, or fails, in bounded time.
 * <p>
 * Lifetime (as an MPI request): the object comes from a pool of the communicator and goes back to it once the caller
 * has seen it complete, through {@code test()} returning true or {@code await()} returning or throwing; do not use
 * it after that. Taking the {@link #future()} view takes the request out of the pool: it then stays valid for good.
 */
public interface CollectiveRequest extends Request
{
    /**
     * A future completed when the collective completes (exceptionally when it fails), by the thread that ran it: the
     * progress thread, or a caller inside {@code await()}, where dependent actions without an executor then run.
     * Allocates the first time it is called; after that the request is no longer recycled.
     */
    CompletableFuture<Void> future();
}
