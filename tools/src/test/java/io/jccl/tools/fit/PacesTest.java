package io.jccl.tools.fit;

import io.jccl.model.Pace;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

@Timeout(10)
class PacesTest
{
    /** The AMD VM's 2-rank probes: about 0.10 µs at its fast pace, 0.30 at its slow one, a few rows in between. */
    @Test
    void findsTwoPacesAndTheirShares()
    {
        final Random random = new Random(7);
        final double[] probes = new double[400];
        for (int i = 0; i < probes.length; i++)
        {
            probes[i] = i < 150 ? 0.10 * (1 + 0.2 * random.nextDouble()) : i < 160 ? 0.15 + 0.1 * random.nextDouble() :
                0.29 * (1 + 0.3 * random.nextDouble());
        }
        final Paces.Split split = Paces.split(2, probes, false);
        assertNotNull(split);
        assertTrue(split.threshold() > 0.12 && split.threshold() < 0.29, split.toString());
        assertEquals(400, split.fastRows() + split.slowRows());
        assertTrue(split.fastRows() >= 150 && split.fastRows() <= 160, split.toString());
        assertEquals(0.11, split.fastProbe(), 0.01);
        assertEquals(0.33, split.slowProbe(), 0.02);
    }

    /**
     * The AMD VM's 4-rank handoff probe in a sweep that ran a fifth of its rows between its paces (MODEL.md, session
     * 25): 60-90 µs at the fast pace, 95-135 between, 140-195 at the slow one. The groups' near tenths stand about
     * 1.2x apart, their near quarters about 1.6x.
     */
    @Test
    void aFifthOfTheRowsBetweenThePacesStillLeavesTwoPaces()
    {
        final Random random = new Random(9);
        final double[] probes = new double[415];
        for (int i = 0; i < probes.length; i++)
        {
            final double r = random.nextDouble();
            probes[i] = i < 130 ? 60 * Math.exp(Math.log(1.5) * r) : i < 215 ? 95 + 40 * r : 140 + 55 * r;
        }
        final Paces.Split split = Paces.split(4, probes, true);
        assertNotNull(split);
        assertTrue(split.threshold() > 90 && split.threshold() < 140, split.toString());
        assertTrue(split.fastRows() >= 130 && split.fastRows() <= 215, split.toString());
    }

    /** One pace: probes spread without a gap (4 ranks on 2 cores), or a few disturbed rows far off. */
    @Test
    void oneSpreadPaceOrAFewOutliersAreNotTwoPaces()
    {
        final Random random = new Random(8);
        final double[] spread = new double[300];
        for (int i = 0; i < spread.length; i++)
        {
            spread[i] = 1.4 * Math.exp(1.0 * random.nextDouble()); // 1.4-3.8 µs, as the 4-rank probes read
        }
        assertNull(Paces.split(4, spread, false));
        final double[] outliers = new double[300];
        for (int i = 0; i < outliers.length; i++)
        {
            outliers[i] = i < 20 ? 20 : 0.1 * (1 + 0.2 * random.nextDouble());
        }
        assertNull(Paces.split(2, outliers, false), "20 of 300 rows are not a pace");
        final double[] woken = new double[58];
        for (int i = 0; i < woken.length; i++)
        {
            woken[i] = i < 49 ? 0.37 * (1 + 0.1 * random.nextDouble()) : 60 + 10 * random.nextDouble();
        }
        assertNull(Paces.split(2, woken, false), "probes 170x apart: ranks woken from a park, not a pace");
        assertNull(Paces.split(2, new double[] {0.1}, false));
    }

    /** A point measured at both paces counts at each pace's median by the pace's share; else at its median. */
    @Test
    void pointsWeighEachPacesMedianByItsShare()
    {
        final List<Measurement> rows = new ArrayList<>();
        // 2 ranks: 6 rows at 0.1 (fast), 3 at 0.3 (slow): fast share 2/3
        for (final double[] row : new double[][] {{1.0, 0.1}, {1.2, 0.1}, {1.1, 0.1}, {5.0, 0.3}, {7.0, 0.3},
            {6.0, 0.3}})
        {
            rows.add(row(2, 1024, row[0], row[1]));
        }
        rows.add(row(2, 2048, 2.0, 0.1));
        rows.add(row(2, 2048, 3.0, 0.1));
        rows.add(row(2, 2048, 9.0, 0.1));
        // 4 ranks: no probe, one pace
        rows.add(row(4, 1024, 4.0, Double.NaN));
        rows.add(row(4, 1024, 8.0, Double.NaN));
        rows.add(row(4, 1024, 5.0, Double.NaN));

        final Paces paces = Paces.of(rows);
        assertEquals(1, paces.splits().size());
        assertEquals(2, paces.splits().get(0).ranks());
        assertEquals(6, paces.splits().get(0).fastRows());
        final List<Measurement> points = paces.expectedPerPoint(rows);
        assertEquals(3, points.size());
        assertEquals(2.0 / 3 * 1.1 + 1.0 / 3 * 6.0, points.get(0).micros(), 1e-12);
        assertEquals(3.0, points.get(1).micros(), "one pace measured: the median");
        assertEquals(5.0, points.get(2).micros(), "no probe: the median");
        assertEquals(Measurement.medianPerPoint(rows.subList(9, 12)), points.subList(2, 3));
    }

    /**
     * Where every row of a rank count has a handoff probe, the paces are its: 4 ranks on 2 cores, whose 8-byte probe
     * spreads over the waits for a core at either pace (1.4-3.8 µs), and whose 512 KiB allgather reads about 50 or 155
     * µs. A rank count with a row that has no handoff probe (an older sweep's) is split by the 8-byte probe.
     */
    @Test
    void theHandoffProbeSplitsWhereEveryRowHasOne()
    {
        final Random random = new Random(9);
        final List<Measurement> rows = new ArrayList<>();
        for (int i = 0; i < 60; i++)
        {
            final boolean fast = i % 3 != 0;
            rows.add(new Measurement("bench", "allgather", "shm_direct", true, 4, 2 << 20, "float32", "sum", 0,
                fast ? 160 : 600, false, false, 1.4 * Math.exp(random.nextDouble()),
                (fast ? 50 : 155) * (1 + 0.1 * random.nextDouble())));
        }
        final Paces paces = Paces.of(rows);
        assertEquals(1, paces.splits().size());
        final Paces.Split split = paces.splits().get(0);
        assertTrue(split.handoff());
        assertEquals(40, split.fastRows());
        assertEquals(20, split.slowRows());
        assertTrue(paces.describe().startsWith("4 ranks, the handoff probe at 5"), paces.describe());
        assertEquals(2.0 / 3 * 160 + 1.0 / 3 * 600, paces.expectedPerPoint(rows).get(0).micros(), 1e-9);
        assertEquals(40, paces.atPace(rows, Pace.FAST).size());

        rows.add(row(4, 2 << 20, 200, 1.0));
        final Paces olderRowsToo = Paces.of(rows);
        assertTrue(olderRowsToo.splits().isEmpty(), "the 8-byte probes spread without a gap at 4 ranks");
    }

    private static Measurement row(final int ranks, final long bytes, final double micros, final double probe)
    {
        return new Measurement("bench", "allreduce", "ring", true, ranks, bytes, "float32", "sum", 0, micros, false,
            false, probe);
    }
}
