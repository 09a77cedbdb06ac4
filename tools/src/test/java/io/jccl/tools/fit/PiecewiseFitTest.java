package io.jccl.tools.fit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

@Timeout(10)
class PiecewiseFitTest
{
    /** Two regimes with a jump at 8 KiB (small-message protocol, then chunked), 2 % noise, 8 B to 64 MiB. */
    @Test
    void recoversAlphaBetaAndBreakpointOfTwoRegimes()
    {
        final double[][] points = points(new long[] {0, 8192}, new double[] {0.25, 3.0},
            new double[] {0.2e-3, 0.08e-3}, 0.02, 7);
        final PiecewiseFit.Result result = PiecewiseFit.fit(points[0], points[1], 0);

        assertEquals(2, result.segments().size());
        assertEquals(8192, result.segments().get(1).fromBytes());
        assertWithin(0.25, result.segments().get(0).alpha(), 0.05);
        assertWithin(0.2e-3, result.segments().get(0).beta(), 0.05);
        assertWithin(3.0, result.segments().get(1).alpha(), 0.05);
        assertWithin(0.08e-3, result.segments().get(1).beta(), 0.05);
        for (final PiecewiseFit.Segment s : result.segments())
        {
            assertTrue(s.r2() > 0.99, "R² " + s.r2());
            assertTrue(s.medianError() < 0.03, "median error " + s.medianError());
            // the 95 % intervals hold the truth
            assertTrue(s.alphaError() > 0 && s.betaError() > 0);
        }
    }

    /** Three regimes, the last a change of slope only (data leaving the caches), found at the right powers of two. */
    @Test
    void findsThreeRegimesAtPowersOfTwo()
    {
        final double[][] points = points(new long[] {0, 4096, 4 << 20}, new double[] {0.2, 1.5, 0},
            new double[] {0.1e-3, 0.05e-3, 0.12e-3}, 0.02, 11);
        final PiecewiseFit.Result result = PiecewiseFit.fit(points[0], points[1], 0);

        assertEquals(3, result.segments().size());
        assertArrayEquals(new long[] {0, 4096, 4 << 20},
            result.segments().stream().mapToLong(PiecewiseFit.Segment::fromBytes).toArray());
        assertWithin(0.2, result.segments().get(0).alpha(), 0.05);
        assertWithin(1.5, result.segments().get(1).alpha(), 0.05);
        assertWithin(0.1e-3, result.segments().get(0).beta(), 0.05);
        assertWithin(0.05e-3, result.segments().get(1).beta(), 0.05);
        assertWithin(0.12e-3, result.segments().get(2).beta(), 0.05);
        // the last regime's latency is negligible against its times: at most 1 % of the smallest one
        assertTrue(result.segments().get(2).alpha() < 0.01 * 0.12e-3 * (4 << 20));
    }

    /** Over many noisy sweeps (2 %), the three regimes are found exactly in at least 9 of 10. */
    @Test
    void breakpointsAreFoundInMostNoisySweeps()
    {
        int right = 0;
        for (int seed = 100; seed < 140; seed++)
        {
            final double[][] points = points(new long[] {0, 4096, 4 << 20}, new double[] {0.2, 1.5, 0},
                new double[] {0.1e-3, 0.05e-3, 0.12e-3}, 0.02, seed);
            final long[] found = PiecewiseFit.fit(points[0], points[1], 0).segments().stream()
                .mapToLong(PiecewiseFit.Segment::fromBytes).toArray();
            right += java.util.Arrays.equals(new long[] {0, 4096, 4 << 20}, found) ? 1 : 0;
        }
        assertTrue(right >= 36, right + " of 40");
    }

    /**
     * A regime whose bandwidth falls as the data outgrows a cache is a line steeper than its chord from the origin:
     * single copy from 512 KiB to 8 MiB on the machines here, about −15 µs + m / 14.8 GB/s. Its negative intercept is
     * recovered (α ≥ 0 would bend the line and miss by 20 %), and no regime predicts a negative time where it starts.
     */
    @Test
    void recoversTheNegativeInterceptOfARegimeFarFromZeroBytes()
    {
        final double[][] points = points(new long[] {0, 4096, 512 << 10, 8 << 20},
            new double[] {0.2, 1.5, -15, 0}, new double[] {0.1e-3, 0.04e-3, 0.0675e-3, 0.11e-3}, 0.01, 5);
        final PiecewiseFit.Result result = PiecewiseFit.fit(points[0], points[1], 4);

        final PiecewiseFit.Segment cache = result.segments().get(2);
        assertEquals(512 << 10, cache.fromBytes());
        assertWithin(-15, cache.alpha(), 0.2);
        assertWithin(0.0675e-3, cache.beta(), 0.05);
        assertTrue(cache.r2() > 0.99 && cache.medianError() < 0.02, cache.toString());
        for (final PiecewiseFit.Segment s : result.segments())
        {
            assertTrue(s.predict(s.fromBytes()) >= -1e-9, s.toString());
        }
    }

    /** Where the data would pull a regime's line below 0 at its start, the line is held at 0 there instead. */
    @Test
    void timeWhereARegimeStartsIsNeverNegative()
    {
        // 4 KiB to 16 KiB nearly flat, then a steep rise: an unconstrained line through them crosses 0 before 4 KiB
        final double[] bytes = {4096, 8192, 16384, 32768};
        final double[] micros = {1.0, 1.1, 1.2, 40};
        final PiecewiseFit.Segment s = PiecewiseFit.fit(bytes, micros, 1).segments().get(0);
        assertEquals(0, s.fromBytes());
        assertTrue(s.alpha() >= 0, s.toString());
        final double[] later = {1, 2, 4, 8, 4096, 8192, 16384, 32768};
        final double[] laterMicros = {0.1, 0.1, 0.1, 0.1, 1.0, 1.1, 1.2, 40};
        for (final PiecewiseFit.Segment segment : PiecewiseFit.fit(later, laterMicros, 2).segments())
        {
            assertTrue(segment.predict(segment.fromBytes()) >= -1e-9, segment.toString());
        }
    }

    @Test
    void oneLineIsOneRegime()
    {
        final double[][] points = points(new long[] {0}, new double[] {0.5}, new double[] {0.1e-3}, 0.01, 3);
        final PiecewiseFit.Result result = PiecewiseFit.fit(points[0], points[1], 0);

        assertEquals(1, result.segments().size());
        assertWithin(0.5, result.segments().get(0).alpha(), 0.05);
        assertWithin(0.1e-3, result.segments().get(0).beta(), 0.05);
    }

    @Test
    void forcedRegimeCountIsHonoured()
    {
        final double[][] points = points(new long[] {0}, new double[] {0.5}, new double[] {0.1e-3}, 0.01, 3);
        assertEquals(2, PiecewiseFit.fit(points[0], points[1], 2).segments().size());
    }

    @Test
    void exactDataGivesExactParametersAndTightIntervals()
    {
        final double[] bytes = {8, 64, 512, 4096};
        final double[] micros = new double[bytes.length];
        for (int i = 0; i < bytes.length; i++)
        {
            micros[i] = 0.3 + 0.002 * bytes[i];
        }
        final PiecewiseFit.Segment s = PiecewiseFit.fit(bytes, micros, 1).segments().get(0);
        assertEquals(0.3, s.alpha(), 1e-9);
        assertEquals(0.002, s.beta(), 1e-12);
        assertEquals(1.0, s.r2(), 1e-9);
        assertEquals(0.0, s.medianError(), 1e-9);
    }

    /** R² of log T: 1 for exact predictions, 0 for the best constant (the geometric mean), in between for misses. */
    @Test
    void rSquaredIsThatOfLogTime()
    {
        final double[] measured = {1, 10, 100};
        assertEquals(1.0, PiecewiseFit.logR2(measured, measured.clone()), 1e-12);
        assertEquals(0.0, PiecewiseFit.logR2(measured, new double[] {10, 10, 10}), 1e-12);
        // 10 % high at every point: ln²(1.1) each, against a spread of 2·ln²(10)
        final double expected = 1 - 3 * Math.pow(Math.log(1.1), 2) / (2 * Math.pow(Math.log(10), 2));
        assertEquals(expected, PiecewiseFit.logR2(measured, new double[] {1.1, 11, 110}), 1e-12);
    }

    @Test
    void boundaryIsThePowerOfTwoBetweenMeasuredSizes()
    {
        assertEquals(4096, PiecewiseFit.boundary(2048, 8192));
        assertEquals(4096, PiecewiseFit.boundary(2048, 4096));
        assertEquals(1000, PiecewiseFit.boundary(999, 1000));
    }

    @Test
    void studentQuantiles()
    {
        assertEquals(12.706, WeightedLeastSquares.t95(1), 1e-3);
        assertEquals(2.571, WeightedLeastSquares.t95(5), 0.01);
        assertEquals(2.042, WeightedLeastSquares.t95(30), 0.01);
        assertEquals(1.984, WeightedLeastSquares.t95(100), 0.01);
    }

    /** Pingpong points from 8 B to 64 MiB (×2) of the given regimes with relative noise {@code noise}. */
    static double[][] points(
        final long[] starts, final double[] alphas, final double[] betas, final double noise, final long seed)
    {
        final Random random = new Random(seed);
        final List<double[]> list = new ArrayList<>();
        for (long bytes = 8; bytes <= 64L << 20; bytes *= 2)
        {
            int r = 0;
            while (r + 1 < starts.length && bytes >= starts[r + 1])
            {
                r++;
            }
            list.add(new double[] {bytes, (alphas[r] + betas[r] * bytes) * Math.exp(noise * random.nextGaussian())});
        }
        return new double[][] {list.stream().mapToDouble(p -> p[0]).toArray(),
            list.stream().mapToDouble(p -> p[1]).toArray()};
    }

    static void assertWithin(final double expected, final double actual, final double relative)
    {
        assertTrue(Math.abs(actual - expected) <= relative * Math.abs(expected),
            "expected " + expected + " within " + 100 * relative + " %, got " + actual);
    }
}
