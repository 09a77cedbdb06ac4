package io.jccl.engine;

import io.jccl.Collective;
import io.jccl.Configuration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The probe's settings, the ratio a comparison probe's verdict takes while ranks outnumber cores (the median of the
 * last three), and the calls a verdict between the paces sends to single copy while ranks are two a core.
 */
@Timeout(10)
class PaceProbeArithmeticTest
{
    @Test
    void theFirstProbesTakeTheirOwnRatio()
    {
        assertEquals(0.9, PaceProbe.medianOfThree(0.9, Double.NaN, Double.NaN));
        assertEquals(0.9, PaceProbe.medianOfThree(0.9, 0.6, Double.NaN));
    }

    @Test
    void oneStrayProbeIsOutvoted()
    {
        assertEquals(0.66, PaceProbe.medianOfThree(0.2, 0.67, 0.66));
        assertEquals(0.66, PaceProbe.medianOfThree(0.66, 0.2, 0.67));
        assertEquals(0.66, PaceProbe.medianOfThree(0.67, 0.66, 0.2));
        assertEquals(0.67, PaceProbe.medianOfThree(1.4, 0.67, 0.66));
        assertEquals(0.67, PaceProbe.medianOfThree(0.66, 1.4, 0.67));
        assertEquals(0.67, PaceProbe.medianOfThree(0.67, 0.66, 1.4));
    }

    @Test
    void aChangeOfPaceShowsInTheSecondProbeAfterIt()
    {
        assertTrue(PaceProbe.medianOfThree(1.0, 0.45, 0.46) <= PaceProbe.SHARED_CORES_FAST_RATIO);
        assertTrue(PaceProbe.medianOfThree(1.02, 1.0, 0.45) > PaceProbe.SHARED_CORES_FAST_RATIO);
    }

    @Test
    void betweenThePacesWhileSharingCoresAllgathersAndAlltoallsFromHalfAMebibyteTakeSingleCopy()
    {
        final long from = PaceProbe.SHARED_CORES_BETWEEN_PACES_MIN_BYTES;
        for (final Collective collective : new Collective[] {Collective.ALLGATHER, Collective.ALLTOALL})
        {
            assertTrue(PaceProbe.takesSingleCopyBetweenPacesWhileSharingCores(collective, from), collective.label());
            assertTrue(PaceProbe.takesSingleCopyBetweenPacesWhileSharingCores(collective, 8L << 20),
                collective.label());
            assertFalse(PaceProbe.takesSingleCopyBetweenPacesWhileSharingCores(collective, from - 1),
                collective.label());
        }
        for (final Collective collective : new Collective[] {Collective.ALLREDUCE, Collective.REDUCE_SCATTER,
            Collective.BROADCAST, Collective.REDUCE})
        {
            assertFalse(PaceProbe.takesSingleCopyBetweenPacesWhileSharingCores(collective, from), collective.label());
        }
    }

    @Test
    void theThresholdIsATimeOrUnset()
    {
        assertTrue(Double.isNaN(PaceProbe.settings(threshold("")).thresholdMicros()));
        assertEquals(12.5, PaceProbe.settings(threshold(" 12.5 ")).thresholdMicros());
        assertEquals(1e9, PaceProbe.settings(threshold("1e9")).thresholdMicros());
        for (final String bad : new String[] {"-1", "fast", "NaN"})
        {
            final IllegalArgumentException thrown = assertThrows(IllegalArgumentException.class,
                () -> PaceProbe.settings(threshold(bad)));
            assertTrue(thrown.getMessage().contains(Configuration.envName(Configuration.PACE_THRESHOLD_US_PROP_NAME)),
                thrown.getMessage());
        }
    }

    private static Configuration threshold(final String value)
    {
        return Configuration.builder().set(Configuration.PACE_THRESHOLD_US_PROP_NAME, value).build();
    }
}
