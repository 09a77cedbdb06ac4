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
 * Waiting: {@link #await()} has no deadline of its own, but never hangs: every wait of the progress thread is bounded
 * by the operation timeout and watches the peers' liveness, so each operation queued ahead of this one completes,
 * or fails, in bounded time.
 * <p>
 * Lifetime (as an MPI request): the object comes from a pool of the communicator and goes back to it once the caller
 * has seen it complete, through {@code test()} returning true or {@code await()} returning or throwing; do not use
 * it after that. Taking the {@link #future()} view takes the request out of the pool: it then stays valid for good.
 */
public interface CollectiveRequest extends Request
{
    /**
     * A future completed by the progress thread when the collective completes (exceptionally when it fails). Allocates
     * the first time it is called; after that the request is no longer recycled.
     */
    CompletableFuture<Void> future();
}
