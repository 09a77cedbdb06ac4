package io.jccl.shm;

/**
 * A single-producer, single-consumer channel from one rank to another: a ring of records followed by the
 * consumer's trailer.
 * <pre>
 *   0 +---------------------------------------------------------------+
 *     | ring: records, each 64-byte aligned, written by the producer   |
 *     +---------------------------------------------------------------+ capacity
 *     | padding (128) — keeps the consumer's line two lines away       |
 *     | consumer head: bytes consumed, monotonic, release-stored (8)   | capacity + HEAD_OFFSET
 *     | rendezvous accepted: id, release-stored by the consumer (8)    | capacity + ACCEPTED_OFFSET
 *     | consumer's buffer address for the producer to write, 0 = none  | capacity + ACCEPTED_OFFSET + 8
 *     | rendezvous chunks claimed (8), atomically added by both ends:  | capacity + CLAIMED_OFFSET
 *     |   low 32 bits by the consumer (from the first chunk on),       |
 *     |   high 32 bits by the producer (from the last chunk back)      |
 *     | rendezvous bytes copied, atomically added by both ends (8)     | capacity + COPIED_OFFSET
 *     | rendezvous bytes ready in the producer's buffer while it still | capacity + READY_OFFSET
 *     |   copies a heap array's message there, release-stored by the   |
 *     |   producer (8)                                                 |
 *     | padding to TRAILER_LENGTH                                      |
 *     +---------------------------------------------------------------+ capacity + TRAILER_LENGTH
 * </pre>
 * Each trailer word sits on its own pair of cache lines.
 * Record:
 * <pre>
 *   0                   1                   2                   3
 *   0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 *  +---------------------------------------------------------------+
 *  |   header word: record sequence x SEQUENCE_SPREAD (mod 2^64)   |  0: release-stored last
 *  +-------------------------------+-------------------------------+
 *  |              tag              | flags (4 bits), chunk length  |  8: FIRST, LAST, PADDING, RENDEZVOUS;
 *  |                               | in bytes (28 bits) above them |     the chunk's bytes
 *  +-------------------------------+-------------------------------+
 *  |     message length (FIRST record of a multi-record message)   | 16
 *  +---------------------------------------------------------------+
 *  |                        payload ...                            | 24
 *  +---------------------------------------------------------------+
 * </pre>
 * The header word carries the record's sequence number, so the consumer polls the one word where the next record
 * must appear and needs no separate flag: a message of up to {@link #INLINE_PAYLOAD} bytes travels in one cache
 * line. Sequence numbers grow forever (they are never reset), so stale headers from earlier laps never match and
 * the consumer never clears the ring. The word it polls may also hold stale payload of an earlier lap, as records
 * differ in length: the sequence is spread over all 64 bits by an odd multiplier ({@link #headerWord}), so that
 * stale data passes for the next record only if it holds that exact 64-bit value. (Until session 30 the word held
 * the sequence's low 32 bits beside the chunk length, and a 2-rank soak of small messages took a stale pair of
 * float32 and int32 elements for record 704,450, whose int32 half equalled that sequence:
 * {@code jccl soak -n 2 --max-bytes 256 --seed 44}, "message truncated" after 2.2 million calls.) A message larger
 * than one chunk streams as several records, back-pressured by the consumer head.
 * <p>
 * Line-flagged records (LL128-style): a record of 2 to {@link #FLAGGED_LINES_MAX} lines ({@link #lineFlagged})
 * carries its header word again in the last word of every line after the first, and the rest of each such line is
 * payload:
 * <pre>
 *   line 0: | header word | tag, flags | message length | payload (40)                    |
 *   line k: | payload (56)                                                 | header word |  k = 1 .. lines - 1
 * </pre>
 * The producer zeroes those flag words, publishes line 0 (release) and then writes the lines in order, each
 * flag word release-stored after its payload; the record has arrived when every flag equals its header word. Line
 * 0 thus travels while the producer still writes line 1, where with the header released last the consumer would
 * fetch the header and only then the lines: a 48-384 B pingpong takes 0.81-0.95x the time (2 ranks, median of 10
 * alternating runs). At 16 lines there was no gain (768 B: 1.03x), so larger records are plain; perf/lines.c, the two
 * formats in C between two processes, gains at 4 lines (0.81-0.99x), is mixed at 2, 3 and 8 and loses at 16.
 * The zeroing comes before the header's release, so an old payload word that happens to equal the header word is
 * gone before the consumer can see the header: a flag matches only once its line is written.
 * <p>
 * Single copy (rendezvous): a large message from an off-heap buffer travels as one record flagged
 * {@link #FLAG_RENDEZVOUS} whose payload is the producer's buffer address, a rendezvous id and the bytes ready there
 * (the length, but see below); the message length is in the length field. The consumer matches it to a receive, resets
 * CLAIMED and COPIED, publishes its own buffer address (0 when it is on the heap) and then the id in ACCEPTED. From
 * then on both ends take chunks of {@link #rendezvousChunk(long)} bytes by adding 1 to their half of CLAIMED, the
 * consumer from the first chunk on, the producer from the last one back, until the two counts add up to the number of
 * chunks: the consumer reads its chunks out of the producer's memory, the producer writes its chunks into the
 * consumer's buffer ({@link CrossMemory}), and each adds the bytes it copied to COPIED. Claiming from opposite ends
 * gives each end the same part of every message when both run (which keeps each part's lines in the cache of the core
 * that copied them the call before: a 2-rank broadcast of 128 KiB in C takes twice as long when the halves swap ends
 * every call), and still lets one end copy everything when the other is late. The message has arrived, and the
 * producer's buffer is free, when COPIED equals the length. The producer writes no other record to this channel until
 * then, so one set of trailer words serves every rendezvous.
 * <p>
 * A heap array's message goes out of an off-heap copy (SingleCopy's staged sends), which the producer announces
 * before it has made it: the record's READY word then holds 0 instead of the length, the producer zeroes the
 * trailer's READY before the record and release-stores there how many bytes it has copied after each piece, and the
 * consumer claims only chunks that lie wholly within them (so it reads the first pieces while the producer copies
 * the next). The producer claims chunks only once it has copied the whole message.
 */
public final class ChannelDescriptor
{
    public static final int HEADER_WORD_OFFSET = 0;
    public static final int TAG_OFFSET = 8;
    public static final int FLAGS_OFFSET = 12;
    public static final int MESSAGE_LENGTH_OFFSET = 16;
    public static final int PAYLOAD_OFFSET = 24;
    public static final int RECORD_ALIGNMENT = 64;
    /** Payload bytes that share the header's cache line. */
    public static final int INLINE_PAYLOAD = RECORD_ALIGNMENT - PAYLOAD_OFFSET;
    /** Where, in each line after the first of a line-flagged record, the flag word sits; payload fills the rest. */
    public static final int LINE_FLAG_OFFSET = RECORD_ALIGNMENT - 8;
    public static final int LINE_PAYLOAD = LINE_FLAG_OFFSET;
    /** Lines of the largest line-flagged record. */
    public static final int FLAGGED_LINES_MAX = 8;
    public static final int FLAGGED_PAYLOAD_MAX = INLINE_PAYLOAD + (FLAGGED_LINES_MAX - 1) * LINE_PAYLOAD;

    public static final int FLAG_FIRST = 1;
    public static final int FLAG_LAST = 2;
    public static final int FLAG_PADDING = 4;
    public static final int FLAG_RENDEZVOUS = 8;
    /** The flags' bits of the word at {@link #FLAGS_OFFSET}; the chunk length fills the bits above them. */
    private static final int FLAG_BITS = 4;
    private static final int FLAG_MASK = (1 << FLAG_BITS) - 1;

    /**
     * Odd, so that the header words of distinct sequences differ (a bijection of 64-bit words) and none is 0, the
     * word of a fresh ring; 2^64 / φ, whose multiples of small numbers look like no integer or float data.
     */
    private static final long SEQUENCE_SPREAD = 0x9E37_79B9_7F4A_7C15L;

    /**
     * Payload of a rendezvous record: the producer's buffer address, the rendezvous id, and the bytes of the message
     * ready in that buffer (the length; 0 while the producer still copies a heap array's message there, and then
     * READY in the trailer says how far it has got).
     */
    public static final int RENDEZVOUS_ADDRESS_OFFSET = PAYLOAD_OFFSET;
    public static final int RENDEZVOUS_ID_OFFSET = PAYLOAD_OFFSET + 8;
    public static final int RENDEZVOUS_READY_OFFSET = PAYLOAD_OFFSET + 16;
    public static final int RENDEZVOUS_PAYLOAD = 24;

    public static final int HEAD_OFFSET = 128;
    public static final int ACCEPTED_OFFSET = 256;
    public static final int CONSUMER_ADDRESS_OFFSET = ACCEPTED_OFFSET + 8;
    public static final int CLAIMED_OFFSET = 384;
    public static final int COPIED_OFFSET = 512;
    public static final int READY_OFFSET = 640;
    /** CLAIMED's increment for a chunk claimed by the consumer (from the front) and by the producer (from the back). */
    public static final long CLAIM_FRONT = 1;
    public static final long CLAIM_BACK = 1L << 32;
    /** A CLAIMED value that leaves no chunk to claim (a truncated receive accepts with it). */
    public static final long CLAIMED_ALL = 1L << 30;
    public static final int TRAILER_LENGTH = 768;

    /** Smallest piece of a rendezvous of 512 KiB or more, and largest of any, that one end copies at a time. */
    public static final long RENDEZVOUS_CHUNK_MIN = 256 * 1024;
    public static final long RENDEZVOUS_CHUNK_MAX = 1024 * 1024;

    public static final long MIN_CAPACITY = 4096;
    public static final long MAX_CAPACITY = 1L << 30;

    private ChannelDescriptor()
    {
    }

    public static long length(final long capacity)
    {
        return capacity + TRAILER_LENGTH;
    }

    public static long headOffset(final long capacity)
    {
        return capacity + HEAD_OFFSET;
    }

    /** Bytes a record with {@code payload} bytes occupies in the ring. */
    public static int recordLength(final int payload)
    {
        return lineFlagged(payload) ? flaggedLines(payload) * RECORD_ALIGNMENT :
            (PAYLOAD_OFFSET + payload + RECORD_ALIGNMENT - 1) & -RECORD_ALIGNMENT;
    }

    /** True when a record of {@code payload} bytes is line-flagged: 2 to {@link #FLAGGED_LINES_MAX} lines. */
    public static boolean lineFlagged(final int payload)
    {
        return payload > INLINE_PAYLOAD && payload <= FLAGGED_PAYLOAD_MAX;
    }

    /** Lines of a line-flagged record of {@code payload} bytes. */
    public static int flaggedLines(final int payload)
    {
        return 1 + (payload - INLINE_PAYLOAD + LINE_PAYLOAD - 1) / LINE_PAYLOAD;
    }

    /**
     * Bytes one end copies per claim: an eighth of the message, so both ends share the work, within
     * [{@link #RENDEZVOUS_CHUNK_MIN}, {@link #RENDEZVOUS_CHUNK_MAX}], so each system call moves enough to pay for
     * itself; but at most half the message, so that both ends copy even the smallest: one 64 KiB chunk left the
     * sender idle, and a 64 KiB pingpong took as long as a 128 KiB one (5.6-5.8 against 4.6-6.2 µs; two chunks of
     * 32 KiB, 3.3-4.4). Messages up to 512 KiB thus go in two chunks, one per end: with 64 KiB chunks a 512 KiB
     * pingpong took 26-28 µs and a broadcast 20-25, in two chunks 16-18 and 15-17 (median of 9, both orders).
     */
    public static long rendezvousChunk(final long messageLength)
    {
        final long eighth = (messageLength / 8 + 4095) & -4096L;
        final long half = (messageLength / 2 + 4095) & -4096L;
        return Math.max(Math.min(RENDEZVOUS_CHUNK_MIN, half), Math.min(RENDEZVOUS_CHUNK_MAX, eighth));
    }

    /** The header word of record {@code sequence} (1, 2, ...): never 0, and no two sequences share one. */
    public static long headerWord(final long sequence)
    {
        return sequence * SEQUENCE_SPREAD;
    }

    /**
     * Tag, flags and chunk length as the one word written at {@link #TAG_OFFSET} (native little-endian order: tag
     * first, then the int at {@link #FLAGS_OFFSET}). A chunk is at most a quarter of the largest ring, 2^28 bytes.
     */
    public static long tagAndFlags(final int tag, final int flags, final int chunkLength)
    {
        return ((long) (flags | chunkLength << FLAG_BITS) << 32) | (tag & 0xFFFF_FFFFL);
    }

    /** The flags of the int at {@link #FLAGS_OFFSET}. */
    public static int flags(final int flagsAndLength)
    {
        return flagsAndLength & FLAG_MASK;
    }

    /** The chunk length of the int at {@link #FLAGS_OFFSET}. */
    public static int chunkLength(final int flagsAndLength)
    {
        return flagsAndLength >>> FLAG_BITS;
    }

    public static void checkCapacity(final long capacity)
    {
        if (capacity < MIN_CAPACITY || capacity > MAX_CAPACITY || Long.bitCount(capacity) != 1)
        {
            throw new IllegalArgumentException("ring capacity must be a power of two between " + MIN_CAPACITY +
                " and " + MAX_CAPACITY + " bytes, not " + capacity + " (setting jccl.ring.bytes / JCCL_RING_BYTES)");
        }
    }
}
