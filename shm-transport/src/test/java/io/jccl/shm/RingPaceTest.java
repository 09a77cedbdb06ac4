package io.jccl.shm;

import io.jccl.Configuration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import static org.junit.jupiter.api.Assertions.*;

/**
 * What a sender reads from its chunks' copies into the ring, and which of its messages then go out of copies: the
 * arithmetic, in one JVM (PointToPointTest runs it between JVMs).
 */
@Timeout(30)
class RingPaceTest
{
    private static final long RING = 1 << 20;
    private static final long MIN_BYTES = 2_621_440;
    private static final int CHUNK = 256 * 1024;
    /** 256 KiB in 131 µs is 2 GB/s, below the default 5: the slow pace; in 13 µs, 20 GB/s. */
    private static final long SLOW_NANOS = 131_000;
    private static final long FAST_NANOS = 13_000;

    private static RingPace ringPace(final Configuration.Builder settings)
    {
        final Configuration configuration = settings.build();
        return new RingPace(configuration, new Log(configuration, 0), 2, RING, MIN_BYTES);
    }

    /** A message to rank 1 of {@code chunks} chunks of CHUNK bytes, those after the first ring's worth in nanos[c]. */
    private static void send(final RingPace pace, final int chunks, final long... nanos)
    {
        pace.begin(1);
        for (int c = 0; c < chunks; c++)
        {
            final long sent = (long) c * CHUNK;
            // the chunks that fill the ring go in fast at either pace: never timed
            pace.copied(1, CHUNK, sent < RING ? FAST_NANOS : nanos[Math.min(c - 4, nanos.length - 1)], sent);
        }
        pace.end(1);
    }

    @Test
    void theMedianChunkAfterTheFirstRingsWorthReadsThePace()
    {
        final RingPace pace = ringPace(Configuration.builder());
        assertFalse(pace.outOfCopy(1, MIN_BYTES), "no reading yet: the ring");
        send(pace, 10, SLOW_NANOS);
        assertTrue(pace.outOfCopy(1, MIN_BYTES), "the slow pace");
        // two chunks of six fast among slow ones: still the slow pace
        send(pace, 10, SLOW_NANOS, FAST_NANOS, SLOW_NANOS, FAST_NANOS, SLOW_NANOS, SLOW_NANOS);
        assertTrue(pace.outOfCopy(1, MIN_BYTES));
        // three of six: not most, the fast pace; a chunk the sender was descheduled in does not make it slow
        send(pace, 10, SLOW_NANOS, FAST_NANOS, SLOW_NANOS, FAST_NANOS, SLOW_NANOS, FAST_NANOS);
        assertFalse(pace.outOfCopy(1, MIN_BYTES));
        send(pace, 10, FAST_NANOS, FAST_NANOS, 50_000_000, FAST_NANOS, FAST_NANOS, FAST_NANOS);
        assertFalse(pace.outOfCopy(1, MIN_BYTES));
    }

    @Test
    void smallMessagesFewChunksAndSmallChunksReadNothing()
    {
        final RingPace pace = ringPace(Configuration.builder());
        assertFalse(pace.reads(MIN_BYTES - 1));
        assertTrue(pace.reads(MIN_BYTES));
        // a message whose chunks were mostly smaller: too few timed
        send(pace, 4 + RingPace.MIN_TIMED_CHUNKS - 1, SLOW_NANOS);
        assertFalse(pace.outOfCopy(1, MIN_BYTES), "too few chunks timed");
        pace.begin(1);
        for (int c = 0; c < 40; c++)
        {
            pace.copied(1, RingPace.MIN_TIMED_CHUNK_BYTES - 1, SLOW_NANOS, RING + c);
        }
        pace.end(1);
        assertFalse(pace.outOfCopy(1, MIN_BYTES), "chunks too small to time");
    }

    @Test
    void theSettingMovesTheSlowPaceAndZeroTurnsItOff()
    {
        final RingPace always = ringPace(Configuration.builder().set(Configuration.RING_SLOW_GBPS_PROP_NAME, "100"));
        send(always, 10, FAST_NANOS);
        assertTrue(always.outOfCopy(1, MIN_BYTES), "20 GB/s is below 100");
        final RingPace never = ringPace(Configuration.builder().set(Configuration.RING_SLOW_GBPS_PROP_NAME, "0"));
        send(never, 10, 10_000_000);
        assertFalse(never.outOfCopy(1, MIN_BYTES));
        for (final String bad : new String[] {"-1", "fast", "Infinity"})
        {
            final IllegalArgumentException ex = assertThrows(IllegalArgumentException.class,
                () -> ringPace(Configuration.builder().set(Configuration.RING_SLOW_GBPS_PROP_NAME, bad)));
            assertTrue(ex.getMessage().contains("JCCL_RING_SLOW_GBPS"), ex.getMessage());
        }
    }

    @Test
    void atTheSlowPaceOneMessageInProbeBytesGoesThroughTheRingAndAColdFastReadingIsConfirmed()
    {
        final RingPace pace = ringPace(Configuration.builder()
            .set(Configuration.PACE_PROBE_BYTES_PROP_NAME, String.valueOf(2 * MIN_BYTES)));
        send(pace, 10, SLOW_NANOS);
        assertTrue(pace.outOfCopy(1, MIN_BYTES));
        assertTrue(pace.outOfCopy(1, MIN_BYTES));
        assertFalse(pace.outOfCopy(1, MIN_BYTES), "two messages' bytes out of copies: one through the ring");
        // it finds the ring cold and reads fast: not trusted, the next one goes through the ring too
        send(pace, 10, FAST_NANOS);
        assertFalse(pace.outOfCopy(1, MIN_BYTES));
        send(pace, 10, SLOW_NANOS);
        assertTrue(pace.outOfCopy(1, MIN_BYTES), "the second read slow: copies again");
        assertTrue(pace.outOfCopy(1, MIN_BYTES));
        assertFalse(pace.outOfCopy(1, MIN_BYTES));
        send(pace, 10, FAST_NANOS);
        assertFalse(pace.outOfCopy(1, MIN_BYTES));
        send(pace, 10, FAST_NANOS);
        assertFalse(pace.outOfCopy(1, MIN_BYTES), "the second read fast too: the fast pace, the ring");
        assertFalse(pace.outOfCopy(1, MIN_BYTES));
        send(pace, 10, SLOW_NANOS);
        assertTrue(pace.outOfCopy(1, MIN_BYTES), "a warm ring that reads slow is believed at once");
    }

    @Test
    void withoutProbesOrCopiesNothingIsReadOrFollowed()
    {
        final Configuration noProbes = Configuration.builder().set(Configuration.PACE_PROBE_BYTES_PROP_NAME, "0")
            .build();
        assertFalse(new RingPace(noProbes, new Log(noProbes, 0), 2, RING, MIN_BYTES).reads(MIN_BYTES));
        final Configuration configuration = Configuration.builder().build();
        final RingPace noCopies = new RingPace(configuration, new Log(configuration, 0), 2, RING, 0);
        assertFalse(noCopies.reads(64L << 20));
        assertFalse(noCopies.outOfCopy(1, 64L << 20));
    }
}
