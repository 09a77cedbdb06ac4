package io.jccl.engine;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The ratio a comparison probe's verdict takes while ranks outnumber cores: the median of the last three. */
@Timeout(10)
class PaceProbeRatioTest
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
}
