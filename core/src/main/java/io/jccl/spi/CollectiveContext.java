package io.jccl.spi;

/**
 * What an algorithm runs on: the ranks, blocking messages on the collective channel, the shared segment's staging
 * areas and flags, and local scratch memory. Memory is addressed as {@code (base, offset)}: a Java array and a
 * byte offset from {@code Unsafe.arrayBaseOffset}, or {@code null} and an absolute address.
 * <p>
 * Every wait is bounded by the operation timeout and watches the peers: a dead or stuck peer makes it throw
 * {@link io.jccl.PeerFailedException}. Implementations allocate nothing on these paths.
 *
 * <h2>Message passing</h2>
 * Messages on the collective channel never mix with user point-to-point messages; between two ranks they arrive
 * in the order sent. A receive must name exactly the byte count that the matching send sent.
 *
 * <h2>Shared memory</h2>
 * Each rank owns a staging area of {@link #stagingBytes()} bytes that every rank can read and write, and
 * {@link #FLAG_SLOTS} flags that only the owner writes ({@link #setFlag}, a release store) and everybody reads
 * ({@link #getFlag}, {@link #waitFlag}, acquire loads). Flag values must only grow: use {@link #token(int)}, which
 * is unique per (operation, step) and larger than every token of earlier operations, so a flag never needs a reset.
 * A slot nobody waits on may instead hold a value (an address) that peers read only after a growing flag announced
 * it.
 * <p>
 * Staging protocol, followed by every algorithm that touches staging areas:
 * <ol>
 *   <li>call {@link #acquireStaging()} before the first write to any staging area: it returns once every rank has
 *       released the staging areas from earlier operations;</li>
 *   <li>call {@link #releaseStaging()} once this rank will neither read nor write any staging area again in this
 *       operation (it publishes {@link #SLOT_STAGING_RELEASED}).</li>
 * </ol>
 * <p>
 * An operation that uses one of the two parts of every staging area alone (which half, the algorithm's layout says)
 * calls {@link #acquireStagingPart} and {@link #releaseStagingPart} instead, and one that has seen every peer's token
 * of the current operation says so with {@link #peersStarted()}: the context then skips waits it knows are met
 * ({@link StagingLedger}).
 * <p>
 * Reuse of staging inside one operation (chunk loops) is the algorithm's own business, with flags and tokens. An
 * operation that ends by waiting until every peer has finished with this rank's area (single copy's copies for
 * peers) acquires it but need not release it: nobody reads the area after the operation, so no later one waits on it.
 */
public interface CollectiveContext
{
    /** Flags per rank. */
    int FLAG_SLOTS = 8;

    /** Words of payload that travel in each flag's cache line ({@link #setFlagPayload}). */
    int FLAG_PAYLOAD_WORDS = 7;

    /** Reserved by {@link #releaseStaging()}; algorithms use slots 1 to {@link #FLAG_SLOTS} - 1. */
    int SLOT_STAGING_RELEASED = 0;

    /** Steps per operation that {@link #token(int)} can tell apart. */
    int MAX_STEPS = 1 << 20;

    int rank();

    int size();

    // ------------------------------------------------------------------------------------------------ messages

    void send(int peer, Object base, long offset, long bytes);

    /**
     * {@link #send} of a message that its receiver reduces into its own vector once it has it (a reduction tree's
     * partial result): a transport may hand it over eagerly where it would otherwise wait for the receiver, so that
     * this rank's next message travels while the receiver reduces.
     */
    default void sendForReduction(final int peer, final Object base, final long offset, final long bytes)
    {
        send(peer, base, offset, bytes);
    }

    void recv(int peer, Object base, long offset, long bytes);

    /** Sends to {@code dest} and receives from {@code source} at once; safe when both sides call it together. */
    void sendRecv(
        int dest, Object sendBase, long sendOffset, long sendBytes,
        int source, Object recvBase, long recvOffset, long recvBytes);

    /**
     * Point-to-point messages of at least this many bytes from off-heap memory travel single-copy between every pair
     * of this job's ranks (the receiver reads the sender's buffer, the sender writes part into the receiver's); 0
     * when single copy is off on any rank. The same on every rank, so algorithm choices may depend on it.
     */
    default long singleCopyBytes()
    {
        return 0;
    }

    /**
     * Whether, at the slow pace, heap arrays' large messages go single copy out of an off-heap copy that streams past
     * the caches ({@link StreamingCopy}), as rank 0's JVM found and its last pace probe told every rank: false at the
     * fast pace, before the first probe and where nothing probes. The same on every rank, so algorithm choices may
     * depend on it. (Between the paces, where the probe finds them, the collectives' heap arrays' messages keep the
     * ring, and this stays true: the choices made for it measured as fast there, 2-rank reduces of 4-6 MiB by binomial
     * 0.90-0.98x single copy's time; PERFORMANCE.md, session 61.)
     */
    default boolean copiesStream()
    {
        return false;
    }

    /**
     * Copies {@code bytes} from {@code remoteAddress} in {@code peer}'s private memory to {@code localAddress} here,
     * in one pass through the kernel (cross-memory attach): only while {@link #singleCopyBytes()} is above 0. The
     * peer must keep that memory valid and unchanged until it knows this rank has finished reading.
     */
    default void readPeer(final int peer, final long remoteAddress, final long localAddress, final long bytes)
    {
        throw new UnsupportedOperationException("single copy is off");
    }

    // ------------------------------------------------------------------------------------------- shared memory

    /** Absolute address of {@code rank}'s staging area (base {@code null}). 64-byte aligned. */
    long stagingAddress(int rank);

    /** Size of each staging area. */
    long stagingBytes();

    /**
     * Absolute address, in this rank's mapping of the job's segment, of the byte at {@code segmentOffset}
     * ({@link io.jccl.Buf#segmentOffset()}): every rank maps the whole segment, so an offset a peer publishes for its
     * own buffer in symmetric memory is found here.
     */
    long segmentAddress(long segmentOffset);

    /** Release-stores {@code value} into this rank's flag {@code slot}. */
    void setFlag(int slot, long value);

    /** Acquire-loads {@code peer}'s flag {@code slot}. */
    long getFlag(int peer, int slot);

    /**
     * Stores {@code value} (plain) in payload word {@code word} (0 to {@link #FLAG_PAYLOAD_WORDS} − 1), which follows
     * this rank's flag {@code slot} in the same cache line; the next {@link #setFlag} of that slot publishes it, and a
     * peer that has acquired the flag then reads it with {@link #getFlagPayload} at no further cache-line transfer.
     */
    void setFlagPayload(int slot, int word, long value);

    /** Payload word {@code word} of {@code peer}'s flag {@code slot}: read it after acquiring the flag it goes with. */
    long getFlagPayload(int peer, int slot, int word);

    /** Waits until {@code peer}'s flag {@code slot} is at least {@code atLeast}; returns the value seen. */
    long waitFlag(int peer, int slot, long atLeast);

    /**
     * Waits until the 8-byte word at {@code address}, in shared memory written by {@code peer}, equals
     * {@code expected} (acquire loads): the low-latency protocol's flag inside the data.
     */
    void waitWord(int peer, long address, long expected);

    /**
     * Says that this rank has written everything its peers need from it in the current collective, so its waits from
     * here to the collective's end only read (a barrier after its arrival, a one-shot exchange after its publish). A
     * hint for the waits of ranks that share cores: those of ranks still writing go first. Optional.
     */
    default void onlyReadsLeft()
    {
    }

    /** Sequence number of the current collective, identical on every rank and growing by one per collective. */
    long sequence();

    /** A flag value for {@code step} (0 to {@link #MAX_STEPS} - 1) of the current operation. */
    default long token(final int step)
    {
        return sequence() * MAX_STEPS + step;
    }

    /** This rank's record of which earlier operations its peers have finished with the staging areas. */
    StagingLedger stagingLedger();

    /** Waits until every rank has released the staging areas used by earlier operations. */
    default void acquireStaging()
    {
        stagingLedger().acquire(this);
    }

    /** Tells the peers this rank is done with all staging areas for the current operation. */
    default void releaseStaging()
    {
        stagingLedger().release(this);
    }

    /**
     * {@link #acquireStaging()} for an operation that writes and reads only {@code part} (0 or 1) of the staging
     * areas: waits until every rank has released the last operation that used that part.
     */
    default void acquireStagingPart(final int part)
    {
        stagingLedger().acquirePart(this, part);
    }

    /** {@link #releaseStaging()} for an operation that used only {@code part} of the staging areas. */
    default void releaseStagingPart(final int part)
    {
        stagingLedger().releasePart(this, part);
    }

    /**
     * This rank has seen a token of the current operation from every peer (acquire): every peer has finished the
     * operations before it, and released their staging.
     */
    default void peersStarted()
    {
        stagingLedger().peersStarted(sequence());
    }

    // ------------------------------------------------------------------------------------------------- scratch

    /**
     * Off-heap scratch memory private to this rank, at least {@code bytes} long and 64-byte aligned; {@code index}
     * (0 to 3) selects one of four independent areas. Contents are undefined; valid until the next call with the
     * same index. Grows on demand, so only the first large call allocates.
     */
    long scratch(int index, long bytes);
}
