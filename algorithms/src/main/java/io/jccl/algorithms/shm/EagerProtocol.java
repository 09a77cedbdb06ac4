package io.jccl.algorithms.shm;

import io.jccl.spi.CollectiveContext;
import io.jccl.spi.Memory;
import org.agrona.UnsafeApi;

/**
 * The eager protocol of the shared-memory algorithms, after NCCL's Simple: the payload is copied into slots, each
 * vouched for by its own sequence word, release-stored after the slot's part; a reader that acquire-loads a slot's word
 * copies that part out, while the writer fills the next slot. A call of {@code k} slots
 * ({@link #slotsFor}) takes slots {@code (s·k + j) mod SLOTS}, j = 0 .. k − 1, so a stream of calls of one size cycles
 * through all of them, and a writer (a broadcast root) runs up to {@code SLOTS/k − 1} calls ahead of its readers, where
 * the staging protocol makes every call wait until every reader has released the call before. It serves what is too
 * large for the low-latency protocol's lines, up to the whole region ({@link #MAX_BYTES}).
 * <p>
 * Layout: the {@link #REGION_BYTES} before the low-latency region at the end of each staging area, when the area has
 * at least {@link #MIN_STAGING_BYTES} ({@link ShmProtocol#halfStagingBytes} leaves it out of the chunk halves):
 * <pre>
 *   stagingAddress(r) + stagingBytes - LowLatencyProtocol.regionBytes - REGION_BYTES
 *   +-------------------------------------------------------------------+
 *   | slot 0: payload (SLOT_PAYLOAD)                   | line: seq (8) |
 *   | slot 1                                           |               |
 *   | ...                                                               |
 *   | slot SLOTS - 1                                                    |
 *   +-------------------------------------------------------------------+  the low-latency region follows
 * </pre>
 * Slot reuse follows the low-latency protocol's flags: a reader release-stores
 * {@link LowLatencyProtocol#SLOT_LL_DONE} = the sequence once it has read all of a call, and a writer whose slot last
 * carried operation {@code u} (its sequence word) waits, unless it already knows, until every peer's flag is at least
 * {@code u} ({@link LowLatencyProtocol#awaitSlotFree}). Calls of different sizes place their slots differently, so the
 * writer always reads the slot's word rather than assume which call wrote it last.
 */
final class EagerProtocol
{
    /**
     * Payload bytes of a slot. With 4 ranks on 2 cores the root's running ahead is what counts: 128 KiB took 14-18
     * µs against shm_direct's 23-25 and binomial's 23-28, 256 KiB 29-31 against 47-57 (2026-11-24); 512 KiB and 1 MiB
     * gained too (0.65-0.8x shm_direct), at 4 and 8 MiB of slots per rank. With a core per rank, single-copy messages
     * win from 64 KiB where the machine has them (binomial, 2 ranks, 128 KiB: 5.6 µs against 10.8) and the eager
     * slots where it does not (shm_direct 15.2).
     */
    static final long SLOT_PAYLOAD = 256 * 1024;

    /** The sequence word of a slot, on a line of its own after the payload. */
    static final long SEQUENCE_OFFSET = SLOT_PAYLOAD;

    static final long SLOT_BYTES = SLOT_PAYLOAD + ShmProtocol.CACHE_LINE;

    /** Slots per rank: a writer of one-slot calls runs up to SLOTS − 1 operations ahead of its slowest reader. */
    static final int SLOTS = 8;

    /**
     * The largest call: every slot. Calls of more than one slot run fewer calls ahead, or none, but their slots
     * pipeline: 4 ranks on 2 cores at the fast pace, 512 KiB / 1 MiB / 2 MiB took 34 / 68-98 / 144-147 µs against
     * shm_direct's 68-87 / 135-139 / 275 and Open MPI's about 100 / - / 430 (two runs; PERFORMANCE.md, session 27). At
     * the slow pace single copy is faster from 128 KiB, and the eager slots still beat shm_direct.
     */
    static final long MAX_BYTES = SLOTS * SLOT_PAYLOAD;

    static final long REGION_BYTES = SLOTS * SLOT_BYTES;

    /**
     * Smaller staging areas have no eager region: it would take too much of the chunk halves. In the default staging
     * area (4 MiB) the region left halves of 0.96 MiB (0.85 since the LL region has 256 slots), where they had 1.84
     * MiB beside 32 KiB slots; in runs that alternated 4 and 6 MiB areas (halves of 0.96 and 1.96 MiB), the staged
     * collectives at 2 and 4 ranks from 512 KiB to 32 MiB took 0.63-1.35x (median 0.93x) the time with the smaller
     * halves.
     */
    static final long MIN_STAGING_BYTES = 4L << 20;

    private EagerProtocol()
    {
    }

    /** Null when a call moving {@code bytes} can use the eager protocol, else why not. */
    static String reason(final String name, final CollectiveContext context, final long bytes)
    {
        if (bytes > MAX_BYTES)
        {
            return name + " carries at most " + MAX_BYTES + " bytes (eager protocol), not " + bytes;
        }
        if (regionBytes(context) == 0)
        {
            return name + " needs a staging area of at least " + MIN_STAGING_BYTES + " bytes per rank, this job " +
                "has " + context.stagingBytes();
        }
        return null;
    }

    /** Bytes before the low-latency region that belong to the eager protocol: {@link #REGION_BYTES}, or none. */
    static long regionBytes(final CollectiveContext context)
    {
        return context.stagingBytes() >= MIN_STAGING_BYTES ? REGION_BYTES : 0;
    }

    /** Slots a call of {@code bytes} (at least 1, at most {@link #MAX_BYTES}) takes. */
    static int slotsFor(final long bytes)
    {
        return (int)((bytes + SLOT_PAYLOAD - 1) / SLOT_PAYLOAD);
    }

    /**
     * Copies {@code bytes} into this rank's slots of the current operation, slot by slot, each once its readers are
     * done with it and stamped (release) before the next.
     */
    static void publish(final CollectiveContext context, final Object base, final long offset, final long bytes)
    {
        final long sequence = context.sequence();
        final int slots = slotsFor(bytes);
        for (int j = 0; j < slots; j++)
        {
            final long slot = slotAddress(context, context.rank(), sequence, slots, j);
            final long part = Math.min(SLOT_PAYLOAD, bytes - j * SLOT_PAYLOAD);
            // 0: no call is known to be SLOTS back, as calls of other sizes put their slots elsewhere
            LowLatencyProtocol.awaitSlotFree(context, slot + SEQUENCE_OFFSET, 0);
            Memory.copyToShared(base, offset + j * SLOT_PAYLOAD, slot, part);
            // Release: the part is visible before the sequence that vouches for it.
            UnsafeApi.putLongRelease(null, slot + SEQUENCE_OFFSET, sequence);
        }
    }

    /** Copies {@code bytes} out of {@code peer}'s slots of the current operation, each once it carries the sequence. */
    static void read(final CollectiveContext context, final int peer, final Object base, final long offset,
        final long bytes)
    {
        final long sequence = context.sequence();
        final int slots = slotsFor(bytes);
        for (int j = 0; j < slots; j++)
        {
            final long slot = slotAddress(context, peer, sequence, slots, j);
            LowLatencyProtocol.arrived(context, peer, slot + SEQUENCE_OFFSET, sequence);
            Memory.copy(null, slot, base, offset + j * SLOT_PAYLOAD, Math.min(SLOT_PAYLOAD, bytes - j * SLOT_PAYLOAD));
        }
    }

    /** Address of {@code rank}'s slot {@code j} of the {@code slots} that operation {@code sequence} takes. */
    private static long slotAddress(final CollectiveContext context, final int rank, final long sequence,
        final int slots, final int j)
    {
        return context.stagingAddress(rank) + context.stagingBytes() - LowLatencyProtocol.regionBytes(context) -
            REGION_BYTES + ((sequence * slots + j) % SLOTS) * SLOT_BYTES;
    }
}
