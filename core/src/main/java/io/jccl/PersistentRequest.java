package io.jccl;

/**
 * A point-to-point operation set up once and started as often as wanted (MPI's persistent requests:
 * {@link Communicator#sendInit}, {@link Communicator#recvInit}, MPI_Start): for a loop that exchanges the same buffers
 * with the same peers every step, such as a stencil's halo, without allocating a request a step. Each start runs the
 * operation once, as {@code isend} or {@code irecv} would; {@link #test()}, {@link #await()} and the communicator's
 * {@code waitAny} and {@code waitAll} complete it. Before its first start, and once a start has completed, the request
 * is complete: it may be started again.
 */
public interface PersistentRequest extends Request
{
    /**
     * Starts the operation again, with the buffer, peer and tag it was set up with (MPI_Start). The buffer belongs to
     * the operation until it completes. Throws {@link IllegalStateException} when the last start has not completed.
     */
    void start();
}
