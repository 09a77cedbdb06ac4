package io.jccl.shm;

import io.jccl.spi.CollectiveContext;

/**
 * Layout of a job segment: one file per job, mapped by every rank.
 * <pre>
 *   0 +---------------------------------------------------------------+
 *     | Header (HEADER_LENGTH): magic, version, layout, creator pid,   |
 *     | job id; the magic is written last, with a release store        |
 *     +---------------------------------------------------------------+  rankRecordsOffset
 *     | Rank record 0 .. N-1 (RankRecordDescriptor.LENGTH each):       |
 *     | pid, state, heartbeat, flags — each written only by its rank   |
 *     +---------------------------------------------------------------+  channelsOffset
 *     | Channel (src, dst) for every ordered pair, src-major:          |
 *     | ring of ringCapacity bytes + consumer trailer                  |
 *     | (ChannelDescriptor); the channel (r, r) is absent              |
 *     +---------------------------------------------------------------+  stagingOffset
 *     | Staging area of rank 0 .. N-1 (stagingBytes each): peers read  |
 *     | and write these directly in shared-memory collectives          |
 *     +---------------------------------------------------------------+  symmetricOffset
 *     | Symmetric memory of rank 0 .. N-1 (symmetricBytes each):       |
 *     | Communicator.allocateShared hands out slices of these          |
 *     +---------------------------------------------------------------+  totalLength
 * </pre>
 * Header fields (byte offsets):
 * <pre>
 *   0                   1                   2                   3
 *   0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 *  +---------------------------------------------------------------+
 *  |                        magic (8 bytes)                         |  0
 *  +-------------------------------+-------------------------------+
 *  |            version            |          world size           |  8
 *  +-------------------------------+-------------------------------+
 *  |                      total length (8)                          | 16
 *  |                      creator pid (8)                           | 24
 *  |                      ring capacity (8)                         | 32
 *  |                      staging bytes (8)                         | 40
 *  |                      symmetric bytes (8)                       | 48
 *  |                      creation time, epoch ms (8)               | 56
 *  +-------------------------------+-------------------------------+
 *  |        job id length          |   job id (up to 64 bytes)  ...  | 64
 *  +---------------------------------------------------------------+
 *  |            bootstrap word (8) at BOOTSTRAP_OFFSET, own lines   | 256
 *  +---------------------------------------------------------------+
 *  |  abort word (8) at ABORT_OFFSET, own lines: 0, or 1 + the rank  | 512
 *  |  that failed first; read by every collective, written once      |
 *  +---------------------------------------------------------------+
 *  |  idle ranks (8) at IDLE_RANKS_OFFSET, own lines: ranks in a     | 768
 *  |  long wait (IdleRanks), added to atomically by each             |
 *  +---------------------------------------------------------------+
 * </pre>
 * All regions start on 128-byte boundaries (staging and symmetric regions on 4 KiB pages).
 */
public final class SegmentDescriptor
{
    /** "JCCLSEG1" as a little-endian long. */
    public static final long MAGIC = 0x314745534C43434AL;
    /**
     * 2: rank records carry call signatures (mismatch detection), staging areas end in the LL region. 3: rank records
     * carry the segment address and single-copy capability, channel trailers the rendezvous words. 4: staging areas
     * end in the eager region and then an LL region of 64 slots (ranks of different builds would split a staging
     * area differently). 5: the header's idle-ranks word. 6: rank records carry the rank's CPU and the wait it yields
     * in. 7: the LL region has 256 slots, and an eager call takes as many of its slots as it fills. 8: the LL region
     * starts with 256 one-line slots. 9: and then 256 slots of 4 lines. 10: and then 256 slots of 10 lines.
     * 11: rank records carry the settings every rank must share. 12: and the digest of the rank's jccl build.
     */
    public static final int VERSION = 12;

    public static final int MAGIC_OFFSET = 0;
    public static final int VERSION_OFFSET = 8;
    public static final int WORLD_SIZE_OFFSET = 12;
    public static final int TOTAL_LENGTH_OFFSET = 16;
    public static final int CREATOR_PID_OFFSET = 24;
    public static final int RING_CAPACITY_OFFSET = 32;
    public static final int STAGING_BYTES_OFFSET = 40;
    public static final int SYMMETRIC_BYTES_OFFSET = 48;
    public static final int CREATION_TIME_OFFSET = 56;
    public static final int JOB_ID_LENGTH_OFFSET = 64;
    public static final int JOB_ID_OFFSET = 68;
    public static final int JOB_ID_MAX_LENGTH = 64;
    /** Written by the creator when every rank has attached: the number of attached ranks, then READY. */
    public static final int BOOTSTRAP_OFFSET = 256;
    public static final long BOOTSTRAP_READY = Long.MAX_VALUE;
    /**
     * Set by a rank whose communicator breaks (release store of 1 + its rank). Every collective loads it first: a
     * line nobody writes stays in every core's cache, so the load costs a cache hit until a failure.
     */
    public static final int ABORT_OFFSET = 512;
    /**
     * How many ranks are idle in a long wait ({@link IdleRanks}); two cache lines from the abort word, which every
     * collective reads.
     */
    public static final int IDLE_RANKS_OFFSET = 768;
    public static final int HEADER_LENGTH = 4096;

    public static final int ALIGNMENT = 128;
    public static final int PAGE = 4096;

    private final int worldSize;
    private final long ringCapacity;
    private final long stagingBytes;
    private final long symmetricBytes;
    private final long rankRecordsOffset;
    private final long channelsOffset;
    private final long stagingOffset;
    private final long symmetricOffset;
    private final long totalLength;

    public SegmentDescriptor(final int worldSize, final long ringCapacity, final long stagingBytes,
        final long symmetricBytes)
    {
        if (worldSize < 1)
        {
            throw new IllegalArgumentException("world size must be at least 1, not " + worldSize);
        }
        ChannelDescriptor.checkCapacity(ringCapacity);
        if (stagingBytes < 0 || stagingBytes % PAGE != 0)
        {
            throw new IllegalArgumentException("staging bytes must be a multiple of 4096, not " + stagingBytes);
        }
        if (symmetricBytes < 0 || symmetricBytes % PAGE != 0)
        {
            throw new IllegalArgumentException("symmetric bytes must be a multiple of 4096, not " + symmetricBytes);
        }
        this.worldSize = worldSize;
        this.ringCapacity = ringCapacity;
        this.stagingBytes = stagingBytes;
        this.symmetricBytes = symmetricBytes;
        this.rankRecordsOffset = HEADER_LENGTH;
        this.channelsOffset = align(rankRecordsOffset + (long) worldSize * RankRecordDescriptor.LENGTH, PAGE);
        final long channelCount = (long) worldSize * (worldSize - 1);
        this.stagingOffset = align(channelsOffset + channelCount * ChannelDescriptor.length(ringCapacity), PAGE);
        this.symmetricOffset = stagingOffset + worldSize * stagingBytes;
        this.totalLength = symmetricOffset + worldSize * symmetricBytes;
    }

    public int worldSize()
    {
        return worldSize;
    }

    public long ringCapacity()
    {
        return ringCapacity;
    }

    public long stagingBytes()
    {
        return stagingBytes;
    }

    public long symmetricBytes()
    {
        return symmetricBytes;
    }

    public long totalLength()
    {
        return totalLength;
    }

    public long rankRecordOffset(final int rank)
    {
        return rankRecordsOffset + (long) rank * RankRecordDescriptor.LENGTH;
    }

    /** Offset of the channel carrying messages from {@code source} to {@code dest} (source != dest). */
    public long channelOffset(final int source, final int dest)
    {
        if (source == dest)
        {
            throw new IllegalArgumentException("no channel from rank " + source + " to itself");
        }
        final long index = (long) source * (worldSize - 1) + (dest < source ? dest : dest - 1);
        return channelsOffset + index * ChannelDescriptor.length(ringCapacity);
    }

    public long stagingOffset(final int rank)
    {
        return stagingOffset + rank * stagingBytes;
    }

    public long symmetricOffset(final int rank)
    {
        return symmetricOffset + rank * symmetricBytes;
    }

    public static long align(final long value, final long alignment)
    {
        return (value + alignment - 1) & -alignment;
    }

    /**
     * Per-rank record: written only by its rank, read by all.
     * <pre>
     *   0 +------------------------------+
     *     | pid (8)                      |
     *     | state (8): ATTACHED, ...     |
     *     | failed peer (8): the rank    |   set with STATE_FAILED when the
     *     | blamed for this rank's error |   cause was a peer, else -1
     *     | segment address (8): where   |   written before ATTACHED; peers
     *     | this rank mapped the segment |   probe single copy by reading it
     *     | single copy (8): 0 unknown,  |   release-stored once, after the
     *     | SINGLE_COPY_YES or _NO       |   probe of every peer
     *     +------------------------------+ 40
     *     | agreed words (11 × 8): the   |   written before ATTACHED, then
     *     | jccl build's digest and the  |   only read (AgreedSettings)
     *     | settings every rank must     |
     *     | share                        |
     *     +------------------------------+ 128
     *     | heartbeat: System.nanoTime   |   own lines: stamped every
     *     | (8), written by a daemon     |   heartbeat interval
     *     +------------------------------+ 256
     *     | call signature 0 .. 3        |   the last SIGNATURE_SLOTS
     *     | (SIGNATURE_LENGTH each)      |   collectives this rank started,
     *     |                              |   slot = sequence % SLOTS
     *     +------------------------------+ 384
     *     | CPU (8): where the rank last |   (CoreMates) stored when it
     *     | ran                          |   changes: a line read by all
     *     +------------------------------+ 448
     *     | wait: segment offset of the  |   (CoreMates) stored when a
     *     | awaited word (8, 0: none),   |   wait first idles and when it
     *     | its value (8), kind (8): at  |   ends: hints, read by the ranks
     *     | least or equal, and whether  |   that share this rank's CPU
     *     | only reads are left; the     |
     *     | collective's sequence (8)    |
     *     +------------------------------+ 512
     *     | flag 0 .. FLAG_SLOTS-1,      |   one 64-byte line each: the
     *     | monotonic, release-stored    |   flag (8), then its payload
     *     |                              |   (7 × 8), stored before the flag
     *     +------------------------------+ LENGTH
     * </pre>
     * One call signature ({@link CallSignatures}), published before the collective moves any data:
     * <pre>
     *   0                   1                   2                   3
     *   0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
     *  +---------------------------------------------------------------+
     *  |   collective sequence (8): -1 while the slot is being written   |  0
     *  +---------------+---------------+---------------+---------------+
     *  | collective+1  |  datatype+1   |    op+1       |   (unused)    |  8
     *  +---------------+---------------+---------------+---------------+
     *  |                       root+1 (0: unrooted)                      | 12
     *  +---------------------------------------------------------------+
     *  |   count all ranks must agree on (8), -1 when not compared      | 16
     *  +---------------------------------------------------------------+ 24
     * </pre>
     */
    public static final class RankRecordDescriptor
    {
        public static final int PID_OFFSET = 0;
        public static final int STATE_OFFSET = 8;
        public static final int FAILED_PEER_OFFSET = 16;
        public static final int SEGMENT_ADDRESS_OFFSET = 24;
        public static final int SINGLE_COPY_OFFSET = 32;
        /** This rank can read and write every peer's memory ({@link CrossMemory}) and takes rendezvous messages. */
        public static final long SINGLE_COPY_YES = 1;
        public static final long SINGLE_COPY_NO = 2;
        /** {@link AgreedSettings}: the build's digest, then one word per setting every rank must share. */
        public static final int AGREED_SETTINGS_OFFSET = 40;
        public static final int AGREED_SETTINGS_WORDS = 11;
        public static final int HEARTBEAT_OFFSET = 128;
        public static final int SIGNATURES_OFFSET = 256;
        public static final int SIGNATURE_SLOTS = 4;
        public static final int SIGNATURE_LENGTH = 24;
        public static final int SIGNATURE_SEQUENCE_OFFSET = 0;
        public static final int SIGNATURE_KIND_OFFSET = 8;
        public static final int SIGNATURE_COUNT_OFFSET = 16;
        public static final int CPU_OFFSET = 384;
        public static final int WAIT_ADDRESS_OFFSET = 448;
        public static final int WAIT_VALUE_OFFSET = 456;
        public static final int WAIT_KIND_OFFSET = 464;
        public static final int WAIT_SEQUENCE_OFFSET = 472;
        public static final int FLAGS_OFFSET = 512;
        public static final int FLAG_STRIDE = 64;
        /** In a flag's line, the values published with the flag (a zero-copy buffer's segment offset). */
        public static final int FLAG_PAYLOAD_OFFSET = 8;
        public static final int LENGTH = FLAGS_OFFSET + CollectiveContext.FLAG_SLOTS * FLAG_STRIDE;

        /** The rank has not attached yet. */
        public static final long STATE_EMPTY = 0;
        public static final long STATE_ATTACHED = 1;
        /** Left normally through close(). */
        public static final long STATE_CLOSED = 2;
        /** Gave up: an error, an exception on the way out, System.exit during an operation. */
        public static final long STATE_FAILED = 3;

        private RankRecordDescriptor()
        {
        }

        /** Offset in the record of the signature slot that holds collective {@code sequence}. */
        public static int signatureOffset(final long sequence)
        {
            return SIGNATURES_OFFSET + (int) (sequence & (SIGNATURE_SLOTS - 1)) * SIGNATURE_LENGTH;
        }

        public static int flagOffset(final int slot)
        {
            return FLAGS_OFFSET + slot * FLAG_STRIDE;
        }

        /** Offset in a flag's line of payload word {@code word}, 0 to FLAG_PAYLOAD_WORDS − 1. */
        public static int payloadOffset(final int word)
        {
            if (word < 0 || word >= CollectiveContext.FLAG_PAYLOAD_WORDS)
            {
                throw new IllegalArgumentException("flag payload word " + word);
            }
            return FLAG_PAYLOAD_OFFSET + word * Long.BYTES;
        }

        public static String stateName(final long state)
        {
            return switch ((int) state)
            {
                case 0 -> "not attached";
                case 1 -> "attached";
                case 2 -> "closed";
                case 3 -> "failed";
                default -> "state " + state;
            };
        }
    }
}
