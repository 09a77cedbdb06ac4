package io.jccl.shm;

import io.jccl.Configuration;
import io.jccl.JcclException;
import io.jccl.PeerFailedException;
import io.jccl.spi.Memory;
import io.jccl.spi.StreamingCopy;
import org.agrona.BufferUtil;
import org.agrona.UnsafeApi;

import java.nio.ByteBuffer;

import static io.jccl.shm.ChannelDescriptor.*;
import static io.jccl.shm.SegmentDescriptor.RankRecordDescriptor.*;

/**
 * Single-copy point-to-point messages (the rendezvous protocol of {@link ChannelDescriptor}): a large message from
 * an off-heap buffer is announced by one record, and then copied once, straight from the sender's buffer into the
 * receiver's, by both ends at the same time ({@link CrossMemory}). The two-copy path through the ring needs the
 * receiver to pull every line the sender just wrote across cores; here the receiver reads the sender's own lines,
 * which stay clean, and the sender's core copies half the message instead of waiting.
 * <p>
 * Used for a message when this build and JVM have {@link CrossMemory}, the message is at least
 * {@link Configuration#SINGLE_COPY_BYTES_PROP_NAME} bytes from off-heap memory, and both ends passed the probe at
 * connect (each reads every peer's segment magic through the kernel and publishes the result in its rank record).
 * A heap array's blocking send goes out of an off-heap copy of it at the slow pace ({@link #offerStaged}): a
 * collective's while the engine's probe reads it, the application's while its own messages through the ring do
 * ({@link RingPace}). The send is announced before the copy is made, which the receiver reads piece by piece as it
 * lands ({@link #stagePieces}).
 * <p>
 * One instance per transport, used by its one thread.
 */
final class SingleCopy
{
    /**
     * The default threshold while ranks outnumber cores. There a rendezvous waits until its receiver is scheduled,
     * where the ring lets the sender hand a message over and go on; but a large message through the ring makes both
     * ends take turns on the cores once per ring's worth. 4 ranks on 2 cores, medians of 3 alternating runs: with
     * single copy from 32 KiB binomial reduce of 32 and 128 KiB took 1.6-6x the ring's time; from 256 KiB pingpong
     * took 0.38-0.61x the time from 256 KiB to 8 MiB, binomial reduce 0.65-0.73x from 512 KiB to 8 MiB. While the
     * ranks not idle have a core each ({@link IdleRanks}), the application's own messages take
     * {@link #BESIDE_IDLE_THRESHOLD_BYTES} (a collective's messages keep this one: their receivers are the ranks in the
     * collective).
     */
    static final long OVERSUBSCRIBED_THRESHOLD_BYTES = 256 * 1024;
    /**
     * The application's messages' threshold while ranks outnumber cores but the ranks not idle have a core each. Not
     * the 32 KiB of ranks that have cores: the idle ranks still wake from their parks now and then, and a rendezvous
     * of 32 KiB, which only ties the ring where nothing interrupts it, took 5-23 µs against the ring's 6-12 in a
     * 8-rank pingpong (3 runs). From 64 KiB it takes half the ring's time or less: 4-rank pingpong of 64 and 128 KiB
     * 5.1 and 6.8 µs against 11.5 and 20.6 (medians of 4 alternating runs); 8 ranks, 128 KiB, 6-10 µs against the
     * ring's 19-24, but for the first single-copy size of a bench sweep (PERFORMANCE.md, session 13).
     */
    static final long BESIDE_IDLE_THRESHOLD_BYTES = 64 * 1024;
    /**
     * The smallest message its receiver reduces ({@code sendForReduction}) that goes by rendezvous. A rendezvous
     * makes the sender wait until the receiver has reduced its previous message and accepted this one, and the half
     * of it that the sender copies lands in the sender's cache, which the receiver's reduction then reads across
     * cores; through the ring the sender hands the message over and goes on, and the receiver's copy out leaves it in
     * its own cache. 2 ranks, binomial reduce, medians of 4 alternating runs against single copy from 32 KiB: 32-256
     * KiB 0.58-0.86x the time back to back and 0.76-0.97x one call at a time (`--sync`), 512 KiB-2 MiB 1.09-1.31x.
     */
    static final long FOR_REDUCTION_THRESHOLD_BYTES = 512 * 1024;
    /**
     * The smallest blocking send of a heap array that goes single copy out of an off-heap copy at the slow pace
     * ({@link #stageHeapSends}): the smallest copy that streams past the caches ({@link StreamingCopy}), since the
     * receiver must read the copy from another core. Through the ring, a message larger than the ring makes both ends
     * take turns once per ring's worth, and at the slow pace each turn costs a slow handoff; the copy lets the
     * receiver read it all through the kernel without waiting on the sender. 2 ranks, 2026-12-05 (PERFORMANCE.md,
     * session 55), {@code perf/Designs.java broadcast} of {@code float[]} by binomial, means of the samples at the
     * slow pace, through the ring / staged: 1 MiB 438 / 619 µs, 2 MiB 953-991 / 1239-1265, 2.25 MiB 1088 / 1414,
     * 2.5 MiB 1233 / 524, 3 MiB 1431-1445 / 602-632, 4 MiB 1871 / 805; a 2-rank binomial reduce of 3 and 4 MiB,
     * medians 1275 / 705 and 1812 / 1005. (The step between 2.25 and 2.5 MiB is the copy's: session 56.)
     */
    static final long STAGED_HEAP_SEND_MIN_BYTES = StreamingCopy.MIN_BYTES;
    /**
     * The largest heap array's send that goes out of an off-heap copy ({@link #STAGED_HEAP_SEND_MIN_BYTES}), and so
     * the copy's largest size: the collectives split larger calls into parts of
     * {@link Configuration#SPLIT_BYTES_PROP_NAME} (64 MiB by default) anyway.
     */
    static final long STAGED_HEAP_SEND_MAX_BYTES = 64L << 20;
    /**
     * The most ranks a core of a job whose heap arrays' sends go out of an off-heap copy at the slow pace: measured at
     * 2 ranks with a core each and at 4 ranks on 2 cores, where a binomial reduce of {@code float[]} at 4-32 MiB took
     * 0.46-0.59x its time through the ring (PERFORMANCE.md, session 55); not beyond, where the engine's rules for the
     * slow pace stop too.
     */
    static final int STAGED_HEAP_SEND_MAX_RANKS_PER_CORE = 2;

    private final int rank;
    private final int size;
    private final long base;
    private final SegmentDescriptor layout;
    private final CrossMemory memory;
    /** Whether copies for peers to read lie on huge pages ({@link Configuration#HUGE_PAGES_PROP_NAME}). */
    private final boolean hugePages;
    private final long threshold;
    /** The application's threshold while the ranks not idle have a core each; else {@link #threshold}. */
    private final long besideIdleThreshold;
    private final IdleRanks idleRanks;
    /** Per peer: 0 until its rank record says whether it takes rendezvous messages, then YES or NO. */
    private final long[] peerCapability;
    private final long[] peerPid;
    /** Next rendezvous id of the channel to each peer. */
    private final long[] nextId;
    private boolean enabled;
    /**
     * The smallest heap array's blocking send that goes out of an off-heap copy at the slow pace: the larger of
     * {@link #STAGED_HEAP_SEND_MIN_BYTES} and the threshold; 0 in a job of more than
     * {@link #STAGED_HEAP_SEND_MAX_RANKS_PER_CORE} ranks a core, where none does.
     */
    private final long stagedHeapSendMinBytes;
    /** Whether the collectives' blocking sends of heap arrays go out of {@link #staging} ({@link #stageHeapSends}). */
    private boolean stageHeapSends;
    /** Off-heap copy of a heap array's message, which the kernel can read; grown to the largest message staged. */
    private ByteBuffer staging;
    private long stagingAddress;
    /** Off-heap bounce buffer for receives into heap arrays (the kernel needs a stable address). */
    private ByteBuffer bounce;
    private long bounceAddress;

    /** The threshold without {@code jccl.single.copy.bytes}, in a job whose ranks outnumber its cores or not. */
    static long defaultThreshold(final boolean oversubscribed)
    {
        return oversubscribed ? OVERSUBSCRIBED_THRESHOLD_BYTES : Configuration.SINGLE_COPY_BYTES_DEFAULT;
    }

    SingleCopy(final Configuration configuration, final int rank, final long base, final SegmentDescriptor layout,
        final int cores, final IdleRanks idleRanks)
    {
        this.rank = rank;
        this.base = base;
        this.layout = layout;
        this.size = layout.worldSize();
        final boolean thresholdSet = configuration.get(Configuration.SINGLE_COPY_BYTES_PROP_NAME) != null;
        this.threshold = configuration.getLong(Configuration.SINGLE_COPY_BYTES_PROP_NAME,
            defaultThreshold(size > cores));
        this.idleRanks = thresholdSet ? null : idleRanks;
        this.besideIdleThreshold = this.idleRanks != null ? BESIDE_IDLE_THRESHOLD_BYTES : threshold;
        this.stagedHeapSendMinBytes = size <= STAGED_HEAP_SEND_MAX_RANKS_PER_CORE * cores ?
            Math.max(threshold, STAGED_HEAP_SEND_MIN_BYTES) : 0;
        this.memory = threshold > 0 && size > 1 ? CrossMemory.load() : null;
        this.hugePages = configuration.getBoolean(Configuration.HUGE_PAGES_PROP_NAME,
            Configuration.HUGE_PAGES_DEFAULT);
        this.peerCapability = new long[size];
        this.peerPid = new long[size];
        this.nextId = new long[size];
    }

    /**
     * After bootstrap: reads every peer's segment magic through the kernel and publishes whether this rank takes
     * part. The transport then waits for every peer's answer ({@link #allDecided()}), because algorithm choices
     * depend on whether all ranks take part.
     *
     * @return why single copy is off on this rank, or null when it is on
     */
    String probe()
    {
        String whyNot = null;
        if (threshold <= 0)
        {
            whyNot = "off (" + Configuration.SINGLE_COPY_BYTES_PROP_NAME + " = 0)";
        }
        else if (size == 1)
        {
            whyNot = "off (one rank)";
        }
        else if (memory == null)
        {
            whyNot = "unavailable: " + CrossMemory.whyNot();
        }
        else
        {
            final ByteBuffer word = BufferUtil.allocateDirectAligned(64, 64);
            final long wordAddress = BufferUtil.address(word);
            for (int r = 0; r < size && whyNot == null; r++)
            {
                if (r == rank)
                {
                    continue;
                }
                final long record = base + layout.rankRecordOffset(r);
                peerPid[r] = UnsafeApi.getLong(null, record + PID_OFFSET);
                final long peerSegment = UnsafeApi.getLong(null, record + SEGMENT_ADDRESS_OFFSET);
                final long result = memory.read(peerPid[r], wordAddress, peerSegment + SegmentDescriptor.MAGIC_OFFSET,
                    8);
                if (result < 0 || UnsafeApi.getLong(null, wordAddress) != SegmentDescriptor.MAGIC)
                {
                    whyNot = "unavailable: the kernel refused to read rank " + r + "'s memory (" +
                        (result < 0 ? errnoName(-result) : "wrong data") + "; process_vm_readv needs the " +
                        "same user and ptrace permission, see /proc/sys/kernel/yama/ptrace_scope)";
                }
            }
        }
        enabled = whyNot == null;
        // Release: the pids above were read before; peers read this word with acquire before their first offer.
        UnsafeApi.putLongRelease(null, base + layout.rankRecordOffset(rank) + SINGLE_COPY_OFFSET,
            enabled ? SINGLE_COPY_YES : SINGLE_COPY_NO);
        return whyNot;
    }

    /**
     * Whether every rank of the job takes part: false until every peer has published its probe's result (which
     * they do right after bootstrap), so callers that must agree across ranks wait for {@link #allDecided()}.
     */
    boolean everyRank()
    {
        if (!enabled)
        {
            return false;
        }
        for (int r = 0; r < size; r++)
        {
            if (r != rank && !peerTakesPart(r))
            {
                return false;
            }
        }
        return true;
    }

    /** Whether every peer has published its probe's result. */
    boolean allDecided()
    {
        for (int r = 0; r < size; r++)
        {
            if (r != rank && UnsafeApi.getLongAcquire(null,
                base + layout.rankRecordOffset(r) + SINGLE_COPY_OFFSET) == 0)
            {
                return false;
            }
        }
        return true;
    }

    long threshold()
    {
        return threshold;
    }

    /**
     * Whether a message of {@code bytes} from {@code (base, offset)} to {@code dest} goes by rendezvous; an
     * application's message ({@code pointToPoint}, not a collective's) from the lower threshold while the ranks not
     * idle have a core each, a message its receiver reduces ({@code forReduction}) from
     * {@link #FOR_REDUCTION_THRESHOLD_BYTES}.
     */
    boolean offer(final int dest, final Object base, final long bytes, final boolean pointToPoint,
        final boolean forReduction)
    {
        return enabled && base == null && bytes >= besideIdleThreshold &&
            (bytes >= threshold || pointToPoint && idleRanks.coreEach()) &&
            (!forReduction || bytes >= FOR_REDUCTION_THRESHOLD_BYTES) && peerTakesPart(dest);
    }

    /**
     * Whether the engine's probe read the slow pace, where the collectives' blocking sends of heap arrays go single
     * copy out of an off-heap copy ({@link #offerStaged}) in a job where they do ({@link #stagedHeapSendMinBytes()}).
     */
    void stageHeapSends(final boolean slowPace)
    {
        stageHeapSends = slowPace && stagedHeapSendMinBytes > 0 && StreamingCopy.available();
    }

    /** {@link #stagedHeapSendMinBytes}: 0 where heap arrays' sends never go out of an off-heap copy. */
    long stagedHeapSendMinBytes()
    {
        return stagedHeapSendMinBytes;
    }

    /** Whether the engine's probe last read the slow pace, where the collectives' heap arrays go out of copies. */
    boolean stagesHeapSends()
    {
        return stageHeapSends;
    }

    /**
     * Whether a blocking send of {@code bytes} from a heap array to {@code dest} can go single copy out of an off-heap
     * copy of it ({@link #beginStaged}) at the slow pace: from {@link #stagedHeapSendMinBytes} (above
     * {@link #FOR_REDUCTION_THRESHOLD_BYTES}) up to {@link #STAGED_HEAP_SEND_MAX_BYTES}, where this JVM's large copies
     * stream past the caches. Blocking sends alone: one send at a time owns the copy, until its receiver has read it.
     * Whether it does is the pace's word: the engine's probe for a collective's ({@link #stagesHeapSends()}), the
     * receiver's ring for the application's ({@link RingPace}).
     */
    boolean offerStaged(final int dest, final long bytes)
    {
        return enabled && stagedHeapSendMinBytes > 0 && StreamingCopy.available() &&
            bytes >= stagedHeapSendMinBytes && bytes <= STAGED_HEAP_SEND_MAX_BYTES && peerTakesPart(dest);
    }

    /**
     * {@code capacity} bytes of zeroed memory, 4 KiB-aligned, for copies that peers may read through the kernel: from
     * 2 MiB on, on transparent huge pages where single copy is on and {@link Configuration#HUGE_PAGES_PROP_NAME} allows
     * ({@link CrossMemory#allocateForReads}). 2 ranks, a peer's 4 MiB read through the kernel took 0.6x the time from
     * huge pages (PERFORMANCE.md, sessions 43 and 76).
     */
    ByteBuffer allocateForPeers(final int capacity)
    {
        return memory != null && hugePages ? memory.allocateForReads(capacity) :
            BufferUtil.allocateDirectAligned(capacity, 4096);
    }

    /**
     * Makes send {@code op}, of a heap array, go out of the off-heap copy ({@link #staging}), which it announces
     * before it is made ({@link #stagePieces}). The copy grows to the largest message staged (allocating only then).
     */
    void beginStaged(final SendOp op)
    {
        if (staging == null || staging.capacity() < op.bytes)
        {
            staging = allocateForPeers((int) op.bytes);
            stagingAddress = BufferUtil.address(staging);
        }
        op.stagedFrom = op.base;
        op.stagedFromOffset = op.offset;
        op.base = null;
        op.offset = stagingAddress;
    }

    /**
     * Zeroes the READY word of the channel to {@code dest} before a staged send's record, whose release publishes it:
     * the receiver reads the copy only as far as the word says ({@link ChannelDescriptor}).
     */
    void clearReady(final int dest)
    {
        UnsafeApi.putLong(null, trailer(rank, dest) + READY_OFFSET, 0);
    }

    /** The number of pieces a staged message of {@code bytes} is copied in ({@link #stagePieces}). */
    static long stagedPieces(final long bytes)
    {
        return Math.max(1, bytes / (StreamingCopy.MIN_BYTES + 4096));
    }

    /** Where piece {@code piece} (1 to {@code pieces}) of a staged message of {@code bytes} ends: page-aligned. */
    static long stagedPieceEnd(final long bytes, final long pieces, final long piece)
    {
        return piece == pieces ? bytes : bytes / pieces * piece & -4096L;
    }

    /**
     * Copies a staged send's message off-heap in pieces of at least {@link StreamingCopy#MIN_BYTES}, each streaming
     * past the caches, and release-stores after each how many bytes are there, so that the receiver reads the first
     * pieces while this end copies the next.
     */
    private int stagePieces(final SendOp op)
    {
        final long pieces = stagedPieces(op.bytes);
        final long ready = trailer(rank, op.dest) + READY_OFFSET;
        long copied = 0;
        for (long piece = 1; piece <= pieces; piece++)
        {
            final long end = stagedPieceEnd(op.bytes, pieces, piece);
            Memory.copy(op.stagedFrom, op.stagedFromOffset + copied, null, op.offset + copied, end - copied);
            copied = end;
            // Release: the piece's bytes are in the copy before the count that lets the receiver read them.
            UnsafeApi.putLongRelease(null, ready, copied);
        }
        op.stagedFrom = null;
        return (int) pieces;
    }

    private boolean peerTakesPart(final int peer)
    {
        long capability = peerCapability[peer];
        if (capability == 0)
        {
            // Acquire: pairs with the release store at the end of the peer's probe.
            capability = UnsafeApi.getLongAcquire(null,
                base + layout.rankRecordOffset(peer) + SINGLE_COPY_OFFSET);
            peerCapability[peer] = capability;
        }
        return capability == SINGLE_COPY_YES;
    }

    long nextId(final int dest)
    {
        return ++nextId[dest];
    }

    /** Copies {@code bytes} at {@code remote} in {@code peer} to {@code local} here (collectives' direct reads). */
    void read(final int peer, final long local, final long remote, final long bytes)
    {
        check(memory.read(peerPid[peer], local, remote, bytes), peer, true);
    }

    // ================================================================================================ sender

    /**
     * Advances a rendezvous send whose record is in the ring: once the receiver has accepted it, copies chunks
     * into the receiver's buffer until none is left to claim; done when every byte has been copied by either end.
     *
     * @return the number of chunks this end copied, or 1 when the send finished
     */
    int progressSend(final SendOp op)
    {
        int work = op.stagedFrom != null ? stagePieces(op) : 0;
        final long trailer = trailer(rank, op.dest);
        // Acquire: the receiver's buffer address and the reset counters are read after the id.
        if (UnsafeApi.getLongAcquire(null, trailer + ACCEPTED_OFFSET) != op.rendezvousId)
        {
            return work;
        }
        final long remote = UnsafeApi.getLong(null, trailer + CONSUMER_ADDRESS_OFFSET);
        if (remote != 0)
        {
            work += copyChunks(trailer, op.dest, op.bytes, op.bytes, null, op.offset, remote, false);
        }
        // Acquire: the receiver's reads of our buffer are complete before we hand it back to the application.
        if (UnsafeApi.getLongAcquire(null, trailer + COPIED_OFFSET) == op.bytes)
        {
            op.done = true;
            return 1;
        }
        return work;
    }

    // ============================================================================================== receiver

    /**
     * Accepts the rendezvous record the reader stands on for receive {@code op}: resets the counters, publishes
     * the receive buffer for the sender to write into, and then the id. A truncated receive accepts with every
     * chunk claimed and copied, so the sender finishes at once.
     */
    void accept(final int source, final ChannelReader reader, final RecvOp op)
    {
        final long trailer = trailer(source, rank);
        op.rendezvousId = reader.rendezvousId();
        op.remoteAddress = reader.rendezvousAddress();
        op.remoteReady = reader.rendezvousReady();
        if (op.truncated)
        {
            UnsafeApi.putLong(null, trailer + CLAIMED_OFFSET, CLAIMED_ALL);
            UnsafeApi.putLong(null, trailer + COPIED_OFFSET, op.length);
        }
        else
        {
            UnsafeApi.putLong(null, trailer + CLAIMED_OFFSET, 0);
            UnsafeApi.putLong(null, trailer + COPIED_OFFSET, 0);
        }
        UnsafeApi.putLong(null, trailer + CONSUMER_ADDRESS_OFFSET, op.base == null ? op.offset : 0);
        // Release: the counters and the address are visible before the id that lets the sender start.
        UnsafeApi.putLongRelease(null, trailer + ACCEPTED_OFFSET, op.rendezvousId);
    }

    /**
     * Copies chunks out of the sender's buffer until none is left to claim; done when every byte has been copied
     * by either end.
     *
     * @return the number of chunks this end copied, or 1 when the receive finished
     */
    int progressRecv(final int source, final RecvOp op)
    {
        final long trailer = trailer(source, rank);
        int work = 0;
        if (!op.truncated)
        {
            if (op.remoteReady < op.length)
            {
                // Acquire: pairs with the sender's release after each piece it copied (stagePieces).
                op.remoteReady = UnsafeApi.getLongAcquire(null, trailer + READY_OFFSET);
            }
            work = copyChunks(trailer, source, op.length, op.remoteReady, op.base, op.offset, op.remoteAddress, true);
        }
        // Acquire: the bytes the sender wrote into our buffer are visible once its count is.
        if (UnsafeApi.getLongAcquire(null, trailer + COPIED_OFFSET) == op.length)
        {
            op.received = op.truncated ? 0 : op.length;
            op.done = true;
            return 1;
        }
        return work;
    }

    /**
     * Claims and copies chunks of a message of {@code length} bytes between this end's buffer
     * {@code (localBase, localOffset)} and {@code remote} (the peer's), reading (the consumer, from the first chunk
     * on) when {@code read}, else writing (the producer, from the last chunk back). The consumer claims only chunks
     * within the first {@code ready} bytes (all of them but while the producer still copies a heap array's message
     * into its buffer), and then by compare-and-set, so as not to take a chunk that is not there yet. A heap buffer
     * (receives only: the sender never announces one) is read into through the bounce buffer, chunk by chunk, since
     * the kernel needs an address the GC does not move.
     */
    private int copyChunks(final long trailer, final int peer, final long length, final long ready,
        final Object localBase, final long localOffset, final long remote, final boolean read)
    {
        final long chunk = rendezvousChunk(length);
        final long chunks = (length + chunk - 1) / chunk;
        final long readyChunks = ready >= length ? chunks : ready / chunk;
        if (localBase != null && bounce == null)
        {
            bounce = BufferUtil.allocateDirectAligned((int) RENDEZVOUS_CHUNK_MAX, 4096);
            bounceAddress = BufferUtil.address(bounce);
        }
        int work = 0;
        final long increment = read ? CLAIM_FRONT : CLAIM_BACK;
        while (true)
        {
            final long claims;
            if (readyChunks == chunks)
            {
                claims = UnsafeApi.getAndAddLong(null, trailer + CLAIMED_OFFSET, increment);
            }
            else
            {
                claims = UnsafeApi.getLongVolatile(null, trailer + CLAIMED_OFFSET);
                if ((claims & 0xFFFF_FFFFL) >= readyChunks)
                {
                    break;
                }
                if (!UnsafeApi.compareAndSetLong(null, trailer + CLAIMED_OFFSET, claims, claims + increment))
                {
                    continue;
                }
            }
            final long front = claims & 0xFFFF_FFFFL;
            final long back = claims >>> 32;
            if (front + back >= chunks)
            {
                break;
            }
            final long at = (read ? front : chunks - 1 - back) * chunk;
            final long bytes = Math.min(chunk, length - at);
            if (localBase != null)
            {
                check(memory.read(peerPid[peer], bounceAddress, remote + at, bytes), peer, true);
                UnsafeApi.copyMemory(null, bounceAddress, localBase, localOffset + at, bytes);
            }
            else
            {
                check(read ? memory.read(peerPid[peer], localOffset + at, remote + at, bytes) :
                    memory.write(peerPid[peer], localOffset + at, remote + at, bytes), peer, read);
            }
            UnsafeApi.getAndAddLong(null, trailer + COPIED_OFFSET, bytes);
            work++;
        }
        return work;
    }

    private void check(final long result, final int peer, final boolean read)
    {
        if (result >= 0)
        {
            return;
        }
        final int errno = (int) -result;
        if (errno == 3)
        {
            throw new PeerFailedException(peer, "rank " + peer + " (pid " + peerPid[peer] + ") exited during a " +
                "single-copy transfer " + (read ? "from" : "to") + " it");
        }
        throw new JcclException("single-copy transfer " + (read ? "from" : "to") + " rank " + peer + " failed: " +
            errnoName(errno) + " (set " + Configuration.SINGLE_COPY_BYTES_PROP_NAME + "=0 to use the two-copy path)");
    }

    private long trailer(final int source, final int dest)
    {
        return base + layout.channelOffset(source, dest) + layout.ringCapacity();
    }

    private static String errnoName(final long errno)
    {
        return switch ((int) errno)
        {
            case 1 -> "EPERM";
            case 3 -> "ESRCH";
            case 12 -> "ENOMEM";
            case 14 -> "EFAULT";
            case 38 -> "ENOSYS";
            default -> "errno " + errno;
        };
    }
}
