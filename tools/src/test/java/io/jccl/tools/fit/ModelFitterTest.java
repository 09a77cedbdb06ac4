package io.jccl.tools.fit;

import io.jccl.model.CostFormulas;
import io.jccl.model.CostModel;
import io.jccl.model.ModelParameters;
import io.jccl.model.Parameter;
import io.jccl.model.Regime;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.List;
import java.util.Locale;
import java.util.stream.Stream;

import static io.jccl.tools.fit.PiecewiseFitTest.assertWithin;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

@Timeout(20)
class ModelFitterTest
{
    private static final long STAGING = 4L << 20;

    @Test
    void recoversEveryIdentifiableParameterWithinFivePercentFromNoisyData()
    {
        final ModelParameters truth = SyntheticResults.truth();
        final ModelFitter.Result result = fit(SyntheticResults.csv(truth, 0.02, 1));
        final ModelParameters fitted = result.parameters();

        // stage 1: regimes and their α, β from pingpong
        assertArrayEquals(truth.breakpoints(), fitted.breakpoints());
        for (int r = 0; r < truth.regimeCount(); r++)
        {
            assertWithin(truth.regimes().get(r).beta(), fitted.regimes().get(r).beta(), 0.05);
        }
        assertWithin(truth.regimes().get(0).alpha(), fitted.regimes().get(0).alpha(), 0.05);
        assertWithin(truth.regimes().get(1).alpha(), fitted.regimes().get(1).alpha(), 0.05);
        // stage 2: γ of float32 sum (and γ_m of the last regime, refitted in stage 3 with the shared-memory rows
        // that reduce), σ and σ_o from the message-passing collectives
        assertWithin(truth.gamma("float32", "sum"), fitted.gamma("float32", "sum"), 0.05);
        final int last = truth.regimeCount() - 1;
        assertWithin(truth.value(Parameter.REDUCE_MEMORY, last), fitted.value(Parameter.REDUCE_MEMORY, last), 0.05);
        assertWithin(truth.sync(), fitted.sync(), 0.05);
        assertWithin(truth.syncOversubscribed(), fitted.syncOversubscribed(), 0.05);
        assertWithin(truth.callOversubscribed(), fitted.callOversubscribed(), 0.05);
        // stage 3: α_f, and β_c, β_r of the regimes where the shared-memory terms matter (vectors from 4 KiB)
        // a flag step costs α_f + σ: the shared-memory rows see the sum, and σ's error moves α_f by as much
        assertWithin(truth.flag() + truth.sync(), fitted.flag() + fitted.sync(), 0.05);
        for (int r = 1; r < truth.regimeCount(); r++)
        {
            final Regime expected = truth.regimes().get(r);
            assertWithin(expected.copy(), fitted.regimes().get(r).copy(), 0.05);
            assertWithin(expected.read(), fitted.regimes().get(r).read(), 0.05);
            assertWithin(expected.kernel(), fitted.regimes().get(r).kernel(), 0.05);
        }
        assertWithin(truth.kernelCall(), fitted.kernelCall(), 0.05);
        assertWithin(truth.flagSyncOversubscribed(), fitted.flagSyncOversubscribed(), 0.05);
    }

    @Test
    void predictsEverySeriesOfTheTruthClosely()
    {
        final ModelFitter.Result result = fit(SyntheticResults.csv(SyntheticResults.truth(), 0.02, 2));
        // pingpong + 4 collectives × their algorithms × 2 rank counts
        assertEquals(1 + 2 * SyntheticResults.SWEEP.values().stream().mapToInt(List::size).sum(),
            result.series().size());
        for (final ModelFitter.Series series : result.series())
        {
            assertTrue(series.medianError() < 0.05, series.key().label() + ": median error " + series.medianError());
            assertTrue(series.r2() > 0.99, series.key().label() + ": R² " + series.r2());
        }
        assertTrue(result.unmodelled().isEmpty());
    }

    @Test
    void confidenceIntervalsCoverTheTruth()
    {
        final ModelParameters truth = SyntheticResults.truth();
        final ModelFitter.Result result = fit(SyntheticResults.csv(truth, 0.02, 3));
        for (final ModelFitter.Estimate e : result.estimates())
        {
            if (e.parameter() == Parameter.ALPHA && e.regime() < 2 || e.parameter() == Parameter.BETA)
            {
                final double expected = truth.value(e.parameter(), e.regime());
                assertTrue(Math.abs(e.value() - expected) <= e.ci95(),
                    e + ": 95 % interval misses " + expected);
            }
        }
    }

    @Test
    void withoutRowsThatCopyOrReadLocallyThoseParametersAreDerivedAndSaidSo()
    {
        // shm_* rows, and Bruck allgather with its final rotation, are the ones with β_c, β_r, β_k, α_f or α_k terms
        final String csv = SyntheticResults.csv(SyntheticResults.truth(), 0.01, 4).lines()
            .filter(line -> !line.contains(",shm_") && !line.contains(",bruck,")).reduce("", (a, b) -> a + b + "\n");
        final ModelFitter.Result result = fit(csv);
        final ModelParameters fitted = result.parameters();
        assertEquals(fitted.regimes().get(0).alpha(), fitted.flag(), 1e-12);
        for (final Regime r : fitted.regimes())
        {
            assertEquals(r.beta() / 2, r.copy(), 1e-15);
            assertEquals(r.beta() / 2, r.read(), 1e-15);
            assertEquals(2 * r.beta(), r.kernel(), 1e-15);
        }
        assertEquals(ModelParameters.KERNEL_CALL_DEFAULT, fitted.kernelCall());
        assertTrue(result.estimates().stream().filter(e -> e.parameter() == Parameter.COPY)
            .noneMatch(ModelFitter.Estimate::fitted));
        assertWithin(SyntheticResults.truth().gamma("float32", "sum"), fitted.gamma("float32", "sum"), 0.05);
    }

    @Test
    void withoutPingpongOneRegimeIsFittedFromTheCollectives()
    {
        final ModelParameters truth = new ModelParameters(List.of(new Regime(0, 0.7, SyntheticResults.ns(0.09),
            SyntheticResults.ns(0.03), SyntheticResults.ns(0.04))), 0.1, SyntheticResults.truth().gammas());
        final String csv = SyntheticResults.csv(truth, 0.01, 5).lines()
            .filter(line -> !line.startsWith("pingpong")).reduce("", (a, b) -> a + b + "\n");
        final ModelFitter.Result result = fit(csv);
        assertEquals(null, result.pointToPoint());
        assertEquals(1, result.parameters().regimeCount());
        assertWithin(0.7, result.parameters().regimes().get(0).alpha(), 0.05);
        assertWithin(truth.regimes().get(0).beta(), result.parameters().regimes().get(0).beta(), 0.05);
        assertFalse(result.alphaBetaOrigin().startsWith("pingpong"));
    }

    /**
     * A 4-rank pingpong on 2 cores, slower by the waits for a core, beside the 2-rank one: α and β come from the
     * 2-rank rows alone; with only the 4-rank rows the fit says what its α holds.
     */
    @Test
    void pointToPointComesFromThePingpongOfTheFewestRanks()
    {
        final ModelParameters truth = SyntheticResults.truth();
        final String csv = SyntheticResults.csv(truth, 0.01, 7);
        final StringBuilder oversubscribed = new StringBuilder();
        csv.lines().filter(line -> line.startsWith("pingpong,")).forEach(line ->
        {
            final String[] f = line.split(",");
            final double micros = 1.5 + 2 * Double.parseDouble(f[5]);
            oversubscribed.append(String.format(Locale.ROOT, "pingpong,p2p,4,%s,%s,%.6g,%.6g,%.6g,100,0,0,0%n", f[3],
                f[4], micros, micros, micros));
        });
        final ModelFitter.Result both = fit(csv + oversubscribed);
        for (int r = 0; r < truth.regimeCount(); r++)
        {
            assertWithin(truth.regimes().get(r).beta(), both.parameters().regimes().get(r).beta(), 0.05);
        }
        assertWithin(truth.regimes().get(0).alpha(), both.parameters().regimes().get(0).alpha(), 0.05);
        assertFalse(both.alphaBetaOrigin().contains("cores"), both.alphaBetaOrigin());

        final String fourOnly = csv.lines().filter(line -> !line.startsWith("pingpong,"))
            .reduce("", (a, b) -> a + b + "\n") + oversubscribed;
        final ModelFitter.Result four = fit(fourOnly);
        assertTrue(four.alphaBetaOrigin().contains("4 ranks on 2 cores: alpha includes waits for a core"),
            four.alphaBetaOrigin());
    }

    /**
     * Broadcasts timed back to back pipeline from call to call: here ten times faster than the latency the formulas
     * price. They are predicted, not fitted, and the step costs come out as the other collectives say.
     */
    @Test
    void rootedCollectivesArePredictedButNotFitted()
    {
        final ModelParameters truth = SyntheticResults.truth();
        final ModelFitter.Result result = fit(scaleTimes(SyntheticResults.csv(truth, 0.01, 8), "broadcast,", 0.1));
        assertEquals(List.of("broadcast"), result.predictedOnly());
        assertWithin(truth.syncOversubscribed(), result.parameters().syncOversubscribed(), 0.05);
        assertWithin(truth.flagSyncOversubscribed(), result.parameters().flagSyncOversubscribed(), 0.05);
        assertWithin(truth.regimes().get(1).read(), result.parameters().regimes().get(1).read(), 0.05);
        assertTrue(result.series().stream().anyMatch(series -> "broadcast".equals(series.key().collective()) &&
            series.medianError() > 5), "the broadcast rows are predicted, at the latency the formulas price");
        assertTrue(fit(SyntheticResults.csv(truth, 0.01, 8)).predictedOnly().contains("broadcast"));

        // timed one call at a time (bench --sync), the broadcast rows are latencies, and fitted
        final String synced = SyntheticResults.csv(truth, 0.01, 8).lines().map(line -> line +
            (line.startsWith("collective,") ? ",op,memory,timing" : line.startsWith("broadcast,") ? ",,private,sync" :
            ",,private,back_to_back")).reduce("", (a, b) -> a + b + "\n");
        final ModelFitter.Result sync = fit(synced);
        assertTrue(sync.predictedOnly().isEmpty(), sync.predictedOnly().toString());
        assertTrue(sync.series().stream().filter(series -> series.key().sync())
            .allMatch(series -> series.medianError() < 0.05 && series.key().label().endsWith(", one call at a time")));
    }

    @Test
    void otherLibrariesRowsAreModelledWithTheClassicAlgorithm()
    {
        final String csv = "impl,collective,ranks,bytes,avg_us,min_us,max_us,iters\n" +
            "mpi,pingpong,2,8,0.2,0.2,0.2,10\nmpi,pingpong,2,64,0.21,0.2,0.2,10\nmpi,pingpong,2,512,0.26,0.2,0.2,10\n" +
            "mpi,pingpong,2,4096,0.62,0.2,0.2,10\nmpi,allreduce,2,4096,1.5,1,2,10\n";
        final ModelFitter.Result result = new ModelFitter(STAGING, SyntheticResults.CORES).fit("mpi",
            ResultsReader.readCsv(csv, "file").measurements(), 0);
        final ModelFitter.Series allreduce = result.series().get(1);
        assertEquals("ring", allreduce.key().algorithm());
        assertFalse(allreduce.key().algorithmNamed());
        assertEquals("mpi", allreduce.key().source());
    }

    /**
     * Measurements on shared buffers are series of their own, predicted with the zero-copy formulas where the
     * algorithm has one: the synthetic truth's zero-copy rows, beside its private ones, come out as closely.
     */
    @Test
    void sharedBufferRowsArePredictedWithTheZeroCopyFormulas()
    {
        final ModelParameters truth = SyntheticResults.truth();
        final CostModel model = new CostModel(truth, STAGING, SyntheticResults.CORES);
        // the private rows, with the bench's op and memory columns
        final StringBuilder csv = new StringBuilder();
        SyntheticResults.csv(truth, 0.01, 6).lines().forEach(line -> csv.append(line)
            .append(line.startsWith("collective,") ? ",op,memory\n" : ",,private\n"));
        for (final String[] path : new String[][] {{"allgather", "shm_direct"}, {"broadcast", "shm_direct"},
            {"allreduce", "shm_twoshot"}, {"reduce_scatter", "shm_direct"}, {"allreduce", "ring"}})
        {
            for (long bytes = 64; bytes <= 64L << 20; bytes *= 4)
            {
                final double micros = model.predict(CostFormulas.find(path[0], path[1], true), 2, bytes, "float32",
                    "sum", 0);
                csv.append(String.format(Locale.ROOT, "%s,%s,2,%d,float32,%.6g,%.6g,%.6g,100,0,0,,,shared%n",
                    path[0], path[1], bytes, micros, micros, micros));
            }
        }
        final ModelFitter.Result result = fit(csv.toString());
        final List<ModelFitter.Series> shared = result.series().stream().filter(s -> s.key().shared()).toList();
        assertEquals(5, shared.size());
        for (final ModelFitter.Series series : shared)
        {
            assertTrue(series.key().label().endsWith(", shared buffers"), series.key().label());
            assertEquals(CostFormulas.hasZeroCopyPath(series.key().collective(), series.key().algorithm()),
                series.formula().text().contains("(shared buffers"), series.formula().text());
            assertTrue(series.medianError() < 0.05, series.key().label() + ": median error " + series.medianError());
        }
    }

    /**
     * One pingpong timed during a disturbance, five times its time, is left out of the point-to-point fit, said so,
     * and still predicted: the regimes, α and β come out as they are. (Fitted with the rest, that one point put the
     * second regime's α 6 % high.)
     */
    @Test
    void aDisturbedPingpongIsLeftOutOfThePointToPointFitAndStillPredicted()
    {
        final ModelParameters truth = SyntheticResults.truth();
        final ModelFitter.Result result =
            fit(scaleTimes(SyntheticResults.csv(truth, 0.02, 1), "pingpong,p2p,2,16384,", 5));

        assertEquals(List.of(16384L), result.disturbed().stream().map(Measurement::bytes).toList());
        assertTrue(result.alphaBetaOrigin().contains("1 more left out as disturbed"), result.alphaBetaOrigin());
        assertArrayEquals(truth.breakpoints(), result.parameters().breakpoints());
        for (int r = 0; r < truth.regimeCount(); r++)
        {
            assertWithin(truth.regimes().get(r).beta(), result.parameters().regimes().get(r).beta(), 0.05);
        }
        assertWithin(truth.regimes().get(1).alpha(), result.parameters().regimes().get(1).alpha(), 0.05);
        final ModelFitter.Series pingpong = result.series().stream()
            .filter(series -> series.key().collective().equals("pingpong")).findFirst().orElseThrow();
        assertTrue(pingpong.points().stream().anyMatch(point -> point.measurement().bytes() == 16384 &&
            point.measurement().micros() > 4 * point.predicted()), "the disturbed row is predicted, its error shown");
    }

    @Test
    void disturbedRowsAreThoseSlowerThanTwiceTheNextLargerSizesOfTheirSeries()
    {
        // a dip where single copy starts (32 KiB faster than 16 KiB) is no disturbance; 1 KiB at 9 µs is, against
        // the next sizes' 2.0-3.9 µs; of two runs of 8 KiB only the slow one is
        final List<Measurement> rows = List.of(pingpong(8, 0.25), pingpong(1024, 9.0), pingpong(2048, 3.9),
            pingpong(4096, 2.0), pingpong(8192, 2.2), pingpong(8192, 30.0), pingpong(16384, 3.1),
            pingpong(32768, 2.9), pingpong(65536, 4.2));
        assertEquals(List.of(pingpong(1024, 9.0), pingpong(8192, 30.0)), ModelFitter.disturbed(rows));
        assertEquals(List.of(), ModelFitter.disturbed(List.of(pingpong(16384, 3.1), pingpong(32768, 2.9))));
        // one odd fast size condemns none below it (a one-shot allreduce of 64 B once took 0.145 µs)
        assertEquals(List.of(), ModelFitter.disturbed(List.of(allreduce(8, 0.43), allreduce(16, 0.54),
            allreduce(32, 0.44), allreduce(64, 0.145), allreduce(128, 0.42), allreduce(256, 0.45))));
        // series are judged apart: the allreduce's 8 B is slower than the pingpong's larger sizes, and no matter
        assertEquals(List.of(pingpong(1024, 9.0), pingpong(8192, 30.0)),
            ModelFitter.disturbed(Stream.concat(rows.stream(), Stream.of(allreduce(8, 5.0))).toList()));
    }

    private static Measurement allreduce(final long bytes, final double micros)
    {
        return new Measurement("synthetic", "allreduce", "shm_oneshot", true, 2, bytes, "float32", "sum", 0, micros);
    }

    /** The CSV with the times (avg, min, max) of the rows starting with {@code prefix} multiplied by {@code factor}. */
    private static String scaleTimes(final String csv, final String prefix, final double factor)
    {
        return csv.lines().map(line ->
        {
            if (!line.startsWith(prefix))
            {
                return line;
            }
            final String[] f = line.split(",", -1);
            for (int i = 5; i <= 7; i++)
            {
                f[i] = String.format(Locale.ROOT, "%.6g", factor * Double.parseDouble(f[i]));
            }
            return String.join(",", f);
        }).reduce("", (a, b) -> a + b + "\n");
    }

    private static Measurement pingpong(final long bytes, final double micros)
    {
        return new Measurement("synthetic", "pingpong", "p2p", true, 2, bytes, "int8", "", 0, micros);
    }

    private static ModelFitter.Result fit(final String csv)
    {
        final ResultsReader.Results read = ResultsReader.readCsv(csv, "synthetic");
        assertTrue(read.skipped().isEmpty(), read.skipped().toString());
        return new ModelFitter(STAGING, SyntheticResults.CORES).fit("synthetic", read.measurements(), 0);
    }
}
