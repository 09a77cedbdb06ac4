package io.jccl;

/**
 * A group of ranks (separate JVM processes) that exchange data through shared memory.
 * <p>
 * Obtain one with {@link Jccl#connect()} inside a rank started by the launcher ({@code ./jccl run}). Every rank of
 * the group must call the same collectives in the same order with matching arguments; ranks that do not get a
 * {@link CollectiveMismatchException} saying what each rank called (when a wait gets slow, or before any data
 * moves in check mode, {@code JCCL_CHECK=1}). Counts follow MPI: a
 * {@link Buf} carries its element count and {@link DataType}; collectives check that the views are large enough
 * before any byte moves and throw {@link IllegalArgumentException} otherwise, leaving the communicator usable.
 * <p>
 * Threading: a communicator is used by one thread at a time. Calls from a second thread while one is in progress
 * are refused with {@link IllegalStateException}.
 * <p>
 * Failures: a peer that dies or stops responding turns every wait into a {@link PeerFailedException} naming the
 * peer, the operation and its sequence number; waits are bounded by the operation timeout
 * ({@code JCCL_TIMEOUT_MS}).
 * <p>
 * Java objects rather than buffers (settings, metrics, a shuffle's maps): {@link ObjectCollectives#of(Communicator)}.
 * MPI's MINLOC and MAXLOC, reductions of (value, index) pairs: {@link LocCollectives#of(Communicator)}.
 */
public interface Communicator extends AutoCloseable
{
    /** This process's rank, 0 to {@link #size()} - 1. */
    int rank();

    /** Number of ranks in the group. */
    int size();

    // ---------------------------------------------------------------------------------------------------------------
    // Point-to-point. Messages from one source with one tag arrive in the order they were sent. A message goes to
    // the receive posted first among those that match it (its source or ANY_SOURCE, and its tag or ANY_TAG).
    // ---------------------------------------------------------------------------------------------------------------

    /**
     * The source of a receive that takes a message with its tag from any rank (MPI_ANY_SOURCE): the first whose
     * message it finds, this rank included. {@link #lastSource()} and {@link ReceiveRequest#source()} tell which.
     */
    int ANY_SOURCE = -1;

    /**
     * The tag of a receive that takes a message with any tag (MPI_ANY_TAG): the first of its source's (or sources')
     * messages, whatever their tags. {@link #lastTag()} and {@link ReceiveRequest#tag()} tell which. It matches user
     * messages only, never the communicator's own collective traffic.
     */
    int ANY_TAG = -1;

    /** Sends the whole view to {@code dest}; returns when the buffer may be reused. Tags are {@code >= 0}. */
    void send(Buf buf, int dest, int tag);

    /**
     * Receives the next message from {@code source} (or {@link #ANY_SOURCE}) with {@code tag} (or {@link #ANY_TAG})
     * into {@code buf} and returns its length in bytes, which may be shorter than the view. A message longer than the
     * view is an error (truncation).
     */
    long recv(Buf buf, int source, int tag);

    /**
     * Sends and receives at once; never deadlocks against a matching sendRecv on the peer. Returns bytes received.
     * {@code source} may be {@link #ANY_SOURCE} and {@code recvTag} {@link #ANY_TAG}.
     */
    long sendRecv(Buf sendBuf, int dest, int sendTag, Buf recvBuf, int source, int recvTag);

    /**
     * The rank whose message the last blocking receive ({@link #recv}, or the receive of {@link #sendRecv}) of this
     * communicator took, or the last {@link #probe} or {@link #iprobe} found: with {@link #ANY_SOURCE}, the sender
     * it matched. {@link #ANY_SOURCE} before the first.
     */
    int lastSource();

    /**
     * The tag of the message the last blocking receive took or the last probe found, as {@link #lastSource()} tells
     * its sender: with {@link #ANY_TAG}, the tag it matched. {@link #ANY_TAG} before the first.
     */
    int lastTag();

    /**
     * Waits until a message with {@code tag} (or {@link #ANY_TAG}) from {@code source} (or {@link #ANY_SOURCE}) has
     * arrived and returns its length in bytes, without receiving it (MPI_Probe): a {@code recv} from
     * {@link #lastSource()} with {@link #lastTag()} then takes this message, into a buffer sized for it. Messages of
     * other tags that arrived before it are buffered.
     */
    long probe(int source, int tag);

    /** As {@link #probe}, but returns -1 at once when no such message has arrived yet (MPI_Iprobe). */
    long iprobe(int source, int tag);

    /** Starts a send; the buffer must not be modified until the request completes. */
    Request isend(Buf buf, int dest, int tag);

    /**
     * Posts a receive from {@code source} (or {@link #ANY_SOURCE}) with {@code tag} (or {@link #ANY_TAG}); the buffer
     * must not be read until the request completes.
     */
    ReceiveRequest irecv(Buf buf, int source, int tag);

    /**
     * Sets up a send of {@code buf} to {@code dest} with {@code tag} that {@link PersistentRequest#start()} starts as
     * often as wanted (MPI_Send_init): nothing is sent until the first start, and no start allocates.
     */
    PersistentRequest sendInit(Buf buf, int dest, int tag);

    /**
     * Sets up a receive into {@code buf} from {@code source} (or {@link #ANY_SOURCE}) with {@code tag} (or
     * {@link #ANY_TAG}) that {@link PersistentRequest#start()} posts as often as wanted (MPI_Recv_init).
     */
    PersistentReceiveRequest recvInit(Buf buf, int source, int tag);

    /** Starts every one of {@code requests} in turn (MPI_Startall); null entries are skipped. */
    default void startAll(final PersistentRequest... requests)
    {
        for (final PersistentRequest request : requests)
        {
            if (request != null)
            {
                request.start();
            }
        }
    }

    /**
     * Waits until one of {@code requests} completes, sets its entry to null (as MPI_Waitany sets it to
     * MPI_REQUEST_NULL) and returns its index, so that calling again with the same array waits for the next one. A
     * persistent request ({@link #sendInit}, {@link #recvInit}) keeps its entry, and is skipped from then on, until
     * started again (MPI's inactive request). Null entries are skipped; with none left it returns -1 at once. The
     * requests must be this communicator's: its {@link #isend}, {@link #irecv}, persistent and non-blocking
     * collective requests. A request that failed goes the same way, and its failure is thrown here as its
     * {@link Request#test()} would throw it. Keep a reference of your own to a request whose {@code bytes()},
     * {@code source()} or {@code tag()} you need afterwards. Bounded by the operation timeout, watching the peers'
     * liveness, as every wait.
     */
    int waitAny(Request... requests);

    /**
     * As {@link #waitAny}, but never waits (MPI_Testany): makes progress once and returns the index of a completed
     * request, its entry set to null (a persistent request's left, inactive), or -1 when none has completed (or none
     * is left).
     */
    int testAny(Request... requests);

    /**
     * Waits until at least one of {@code requests} completes, then completes every other one that has completed by
     * then too (MPI_Waitsome): writes their indices into {@code indices}, in the order found, and returns how many,
     * or -1 when no request is left. Each entry goes as {@link #waitAny} says (set to null; a persistent request's
     * left, inactive). {@code indices} must have room for every request. A failed request throws its failure; the
     * entries of requests completed before it in the same call are null, as they would be.
     */
    int waitSome(int[] indices, Request... requests);

    /**
     * As {@link #waitSome}, but never waits (MPI_Testsome): returns 0 when none has completed, -1 when none is left.
     */
    int testSome(int[] indices, Request... requests);

    /**
     * Waits until every one of {@code requests} has completed (MPI_Waitall), in whatever order they complete, each
     * entry going as {@link #waitAny} says. A failed request throws; the entries not yet completed stay.
     */
    void waitAll(Request... requests);

    /**
     * Makes progress and returns whether every one of {@code requests} has completed (MPI_Testall). Unlike
     * MPI_Testall, it sets the entry of each request that has completed to null at once (a persistent request's stays,
     * inactive), also when others have not, since a completed collective's request goes back to its pool: call it
     * again with the same array until it returns true.
     */
    boolean testAll(Request... requests);

    // ---------------------------------------------------------------------------------------------------------------
    // Collectives. In place: for broadcast-like and reduce-like calls pass the same Buf as send and receive; for
    // allgather and gather pass as send this rank's block of the receive buffer (recv.slice(rank × n, n)); for
    // reduce_scatter and scatter pass as receive this rank's block of the send buffer (MPI_IN_PLACE semantics). The
    // v forms of gather and scatter take the root's block at its displacement (recv.slice(displs[root], n)).
    // ---------------------------------------------------------------------------------------------------------------

    /** Returns once every rank has entered the barrier. */
    void barrier();

    /** Copies {@code buf} of rank {@code root} into {@code buf} of every other rank. */
    void broadcast(Buf buf, int root);

    /**
     * Reduces every rank's {@code send} element-wise into {@code recv} of {@code root} ({@code recv} may be null
     * elsewhere).
     */
    void reduce(Buf send, Buf recv, ReduceOp op, int root);

    /** Reduces every rank's {@code send} element-wise into every rank's {@code recv} (same count). */
    void allreduce(Buf send, Buf recv, ReduceOp op);

    /** In-place allreduce. */
    default void allreduce(final Buf buf, final ReduceOp op)
    {
        allreduce(buf, buf, op);
    }

    /** Concatenates every rank's {@code send} (n elements each) into {@code recv} of {@code root} (size × n). */
    void gather(Buf send, Buf recv, int root);

    /**
     * Gather with a count per rank: rank i sends {@code counts[i]} elements, placed in {@code recv} of {@code root}
     * at {@code displs[i]} (in elements). Every rank passes the same {@code counts}; {@code displs} matter at the root
     * and may be null: blocks are then packed in rank order. {@code recv} may be null elsewhere.
     */
    void gatherv(Buf send, Buf recv, int[] counts, int[] displs, int root);

    /** Splits {@code send} of {@code root} (size × n) into n-element blocks, block i to rank i's {@code recv}. */
    void scatter(Buf send, Buf recv, int root);

    /**
     * Scatter with a count per rank: rank i receives in {@code recv} the {@code counts[i]} elements of {@code send}
     * of {@code root} at {@code displs[i]} (in elements). Every rank passes the same {@code counts}; {@code displs}
     * matter at the root and may be null: blocks are then packed in rank order. {@code send} may be null elsewhere.
     */
    void scatterv(Buf send, Buf recv, int[] counts, int[] displs, int root);

    /** Concatenates every rank's {@code send} (n elements each) into every rank's {@code recv} (size × n). */
    void allgather(Buf send, Buf recv);

    /**
     * Allgather with a count per rank: rank i contributes {@code counts[i]} elements, placed in {@code recv} at
     * {@code displs[i]} (in elements). {@code displs} may be null: blocks are then packed in rank order.
     */
    void allgatherv(Buf send, Buf recv, int[] counts, int[] displs);

    /** Reduces {@code send} (size × n elements) and leaves block i of the result in rank i's {@code recv} (n). */
    void reduceScatter(Buf send, Buf recv, ReduceOp op);

    /** Reduce-scatter with a count per rank: rank i receives {@code counts[i]} elements of the reduced vector. */
    void reduceScatterv(Buf send, Buf recv, int[] counts, ReduceOp op);

    /** Block j of {@code send} (n elements) goes to rank j, landing in block i (this rank) of its {@code recv}. */
    void alltoall(Buf send, Buf recv);

    /** Alltoall with per-peer counts and displacements (in elements); null displacements mean packed blocks. */
    void alltoallv(Buf send, int[] sendCounts, int[] sendDispls, Buf recv, int[] recvCounts, int[] recvDispls);

    /**
     * Inclusive prefix reduction (MPI_Scan): {@code recv} of rank r := the element-wise reduction of {@code send} of
     * ranks 0, 1, ..., r, in rank order (same count on every rank). AVG divides rank r's sum by r + 1. A running
     * total: where each rank's items start in a global numbering is the exclusive form, {@link #exscan}.
     */
    void scan(Buf send, Buf recv, ReduceOp op);

    /** In-place inclusive scan. */
    default void scan(final Buf buf, final ReduceOp op)
    {
        scan(buf, buf, op);
    }

    /**
     * Exclusive prefix reduction (MPI_Exscan): {@code recv} of rank r := the element-wise reduction of {@code send}
     * of ranks 0, ..., r − 1, in rank order; rank 0's {@code recv} is left as it was (MPI leaves it undefined, and
     * it is rank 0's input after an in-place call). AVG divides rank r's sum by r.
     */
    void exscan(Buf send, Buf recv, ReduceOp op);

    /** In-place exclusive scan. */
    default void exscan(final Buf buf, final ReduceOp op)
    {
        exscan(buf, buf, op);
    }

    // ---------------------------------------------------------------------------------------------------------------
    // Non-blocking collectives: the same contracts as the blocking forms, run in the background by the communicator's
    // progress thread on a private duplicate of this communicator (so they never match blocking calls on this one),
    // in the order they were started. Every rank must start the same non-blocking collectives in the same order. The
    // first call creates the duplicate and the thread (collective over the ranks, a few milliseconds).
    // ---------------------------------------------------------------------------------------------------------------

    /** Non-blocking {@link #barrier()}. */
    CollectiveRequest ibarrier();

    /** Non-blocking {@link #broadcast(Buf, int)}. */
    CollectiveRequest ibroadcast(Buf buf, int root);

    /** Non-blocking {@link #reduce(Buf, Buf, ReduceOp, int)}. */
    CollectiveRequest ireduce(Buf send, Buf recv, ReduceOp op, int root);

    /** Non-blocking {@link #allreduce(Buf, Buf, ReduceOp)}. */
    CollectiveRequest iallreduce(Buf send, Buf recv, ReduceOp op);

    /** Non-blocking in-place allreduce. */
    default CollectiveRequest iallreduce(final Buf buf, final ReduceOp op)
    {
        return iallreduce(buf, buf, op);
    }

    /** Non-blocking {@link #gather(Buf, Buf, int)}. */
    CollectiveRequest igather(Buf send, Buf recv, int root);

    /** Non-blocking {@link #gatherv}; the arrays must not change until completion. */
    CollectiveRequest igatherv(Buf send, Buf recv, int[] counts, int[] displs, int root);

    /** Non-blocking {@link #scatter(Buf, Buf, int)}. */
    CollectiveRequest iscatter(Buf send, Buf recv, int root);

    /** Non-blocking {@link #scatterv}; the arrays must not change until completion. */
    CollectiveRequest iscatterv(Buf send, Buf recv, int[] counts, int[] displs, int root);

    /** Non-blocking {@link #allgather(Buf, Buf)}. */
    CollectiveRequest iallgather(Buf send, Buf recv);

    /** Non-blocking {@link #allgatherv(Buf, Buf, int[], int[])}; the arrays must not change until completion. */
    CollectiveRequest iallgatherv(Buf send, Buf recv, int[] counts, int[] displs);

    /** Non-blocking {@link #reduceScatter(Buf, Buf, ReduceOp)}. */
    CollectiveRequest ireduceScatter(Buf send, Buf recv, ReduceOp op);

    /** Non-blocking {@link #reduceScatterv}; {@code counts} must not change until completion. */
    CollectiveRequest ireduceScatterv(Buf send, Buf recv, int[] counts, ReduceOp op);

    /** Non-blocking {@link #alltoall(Buf, Buf)}. */
    CollectiveRequest ialltoall(Buf send, Buf recv);

    /** Non-blocking {@link #alltoallv}; the arrays must not change until completion. */
    CollectiveRequest ialltoallv(Buf send, int[] sendCounts, int[] sendDispls, Buf recv, int[] recvCounts,
        int[] recvDispls);

    /** Non-blocking {@link #scan(Buf, Buf, ReduceOp)}. */
    CollectiveRequest iscan(Buf send, Buf recv, ReduceOp op);

    /** Non-blocking {@link #exscan(Buf, Buf, ReduceOp)}. */
    CollectiveRequest iexscan(Buf send, Buf recv, ReduceOp op);

    // ---------------------------------------------------------------------------------------------------------------
    // Sub-communicators (collective over this communicator; every rank must call them in the same order).
    // ---------------------------------------------------------------------------------------------------------------

    /**
     * Splits the ranks into groups by {@code color}: each group gets a new communicator of its own, with its own
     * shared-memory segment, so that collectives of different groups run at the same time without interfering.
     * Within a group, ranks are numbered by {@code key}, ties broken by rank in this communicator. A rank that passes
     * a negative color (MPI_UNDEFINED) joins no group and gets {@code null}. The new communicator is independent of
     * this one: close each when done, in any order.
     */
    Communicator split(int color, int key);

    /** A new communicator of the same ranks in the same order, whose traffic never matches this one's. */
    default Communicator dup()
    {
        return split(0, rank());
    }

    // ---------------------------------------------------------------------------------------------------------------
    // Shared memory and algorithm control.
    // ---------------------------------------------------------------------------------------------------------------

    /**
     * Allocates {@code count} elements in this rank's part of the job segment ("symmetric memory"): collectives on
     * such buffers skip staging copies, because peers can read them directly. Every rank must allocate the same
     * sequence of sizes. Collectives take it until the communicator closes; the memory stays mapped while a view of
     * it is reachable. {@link Buf#asByteBuffer()} reads and writes it, {@link #peerView} reaches a peer's twin.
     */
    Buf allocateShared(long count, DataType type);

    /**
     * The twin of {@code own}, a buffer this rank allocated with {@link #allocateShared} (or a slice of one), in rank
     * {@code peer}'s symmetric memory: MPI's shared-memory window ({@code MPI_Win_allocate_shared} and
     * {@code MPI_Win_shared_query}). Its {@link Buf#asByteBuffer()} reads and writes the peer's memory directly, with
     * loads and stores, no copy and no call into jccl. Read-only when {@code own} is; {@code own} itself for this rank.
     * <p>
     * Ordering: what a rank writes before {@link #barrier()} is visible to every rank after its own barrier returns
     * (the barrier's flags are release stores and acquire loads); between barriers, a rank must not read bytes
     * another rank writes. Finer synchronisation takes atomics on the buffer, e.g. {@code getAndAdd},
     * {@code compareAndSet}, {@code setRelease} and {@code getAcquire} through
     * {@code MethodHandles.byteBufferViewVarHandle} on aligned elements. Pass collectives this rank's own buffers,
     * not peer views.
     *
     * @throws IllegalArgumentException when {@code own} is not symmetric memory this rank allocated from this
     *                                  communicator, or {@code peer} is not a rank
     */
    Buf peerView(Buf own, int peer);

    /**
     * A view of this communicator whose collectives use the named algorithms, e.g. {@code "ring"} or
     * {@code "allreduce:ring,broadcast:binomial"}; a collective that a named algorithm cannot serve throws,
     * saying why. The view shares state with this communicator; closing it does nothing.
     */
    Communicator withAlgorithm(String algorithms);

    /** Leaves the group. Peers still waiting on this rank get an error; the segment disappears with the last rank. */
    @Override
    void close();
}
