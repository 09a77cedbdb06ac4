package io.jccl.tools.tune;

import io.jccl.model.CostFormulas;
import io.jccl.model.ModelParameters;
import io.jccl.model.TuningTable;
import io.jccl.tools.fit.Measurement;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

@Timeout(10)
class TunerTest
{
    /** The LL allreduce measured fastest at every size it ran: no rule gives it sizes beyond the 1 KiB it carries. */
    @Test
    void noRuleRunsAnAlgorithmPastItsCapacity()
    {
        final List<Measurement> rows = new ArrayList<>();
        for (long bytes = 8; bytes <= 1024; bytes *= 2)
        {
            rows.add(new Measurement("test", "allreduce", "shm_ll", true, 2, bytes, "float32", "sum", 0, 0.1));
        }
        for (long bytes = 8; bytes <= 4096; bytes *= 2)
        {
            rows.add(new Measurement("test", "allreduce", "shm_twoshot", true, 2, bytes, "float32", "sum", 0, 1.0));
        }
        for (final Tuner.Choice choice : Tuner.Choice.values())
        {
            final Tuner.Result result = new Tuner(ModelParameters.shipped(), 4L << 20, choice).tune(rows);
            for (final TuningTable.Rule rule : result.rules())
            {
                if (rule.algorithm().equals("shm_ll"))
                {
                    assertTrue(rule.maxBytes() - 1 <= CostFormulas.LL_MAX_BYTES, choice + ": " + rule);
                }
            }
        }
    }

    /**
     * Where the measured fastest beats the model's choice by less than 10 %, the rule keeps the model's choice; where
     * by more, the measured fastest.
     */
    @Test
    void measuredRulesKeepTheModelsChoiceWithinTenPercent()
    {
        final List<Measurement> rows = new ArrayList<>();
        final long close = 64 * 1024;
        final long far = 1024 * 1024;
        final String modelled = modelsChoiceOfRingAndRabenseifner(close);
        final String other = modelled.equals("ring") ? "rabenseifner" : "ring";
        // at 64 KiB the other one is 5 % faster, at 1 MiB 30 % faster
        rows.add(allreduce(modelled, close, 100));
        rows.add(allreduce(other, close, 95));
        rows.add(allreduce(modelled, far, 1300));
        rows.add(allreduce(other, far, 1000));
        final List<TuningTable.Rule> rules = measuredTuner().tune(rows).rules();
        assertEquals(modelled, ruleAt(rules, close).algorithm(), rules.toString());
        assertEquals(other, ruleAt(rules, far).algorithm(), rules.toString());
    }

    /**
     * Of several runs, a candidate whose median is within 10 % of the fastest but that came within 10 % of its run's
     * fastest in fewer runs loses to one that did in more, though the model chose the first.
     */
    @Test
    void ofSeveralRunsTheCandidateWithinTenPercentInMoreRunsIsChosen()
    {
        final long close = 64 * 1024;
        final String modelled = modelsChoiceOfRingAndRabenseifner(close);
        final String other = modelled.equals("ring") ? "rabenseifner" : "ring";
        // the model's choice 100, 105 and 125 (median 105, within 10 % of 100), the other 104, 100 and 100: within
        // 10 % in two runs against three
        final double[] modelledTimes = {100, 105, 125};
        final double[] otherTimes = {104, 100, 100};
        final List<List<Measurement>> runs = new ArrayList<>();
        for (int run = 0; run < 3; run++)
        {
            runs.add(List.of(allreduce(modelled, close, modelledTimes[run]), allreduce(other, close, otherTimes[run])));
        }
        final List<Measurement> medians = Measurement.medianPerPoint(runs.stream().flatMap(List::stream).toList());

        final List<TuningTable.Rule> rules = measuredTuner().tune(medians, runs).rules();
        assertEquals(other, ruleAt(rules, close).algorithm(), rules.toString());
        // from the medians alone the model's choice stays, within 10 % of the fastest
        assertEquals(modelled, ruleAt(measuredTuner().tune(medians).rules(), close).algorithm());
    }

    private static Tuner measuredTuner()
    {
        return new Tuner(ModelParameters.shipped(), 4L << 20, Tuner.Choice.MEASURED);
    }

    private static String modelsChoiceOfRingAndRabenseifner(final long bytes)
    {
        final Tuner probe = new Tuner(ModelParameters.shipped(), 4L << 20, Tuner.Choice.MODEL);
        return ruleAt(probe.tune(List.of(allreduce("ring", bytes, 1), allreduce("rabenseifner", bytes, 1))).rules(),
            bytes).algorithm();
    }

    private static Measurement allreduce(final String algorithm, final long bytes, final double micros)
    {
        return new Measurement("test", "allreduce", algorithm, true, 2, bytes, "float32", "sum", 0, micros);
    }

    /** alltoallv has one algorithm: tune neither writes rules for it nor counts its sizes as well chosen. */
    @Test
    void collectivesOfOneAlgorithmAreNotTuned()
    {
        final List<Measurement> rows = new ArrayList<>();
        for (long bytes = 64; bytes <= 1 << 20; bytes *= 4)
        {
            rows.add(new Measurement("test", "alltoallv", "pairwise", true, 2, bytes, "float32", "sum", 0, 1));
            rows.add(new Measurement("test", "allgather", "ring", true, 2, bytes, "float32", "sum", 0, 1));
            rows.add(new Measurement("test", "allgather", "shm_direct", true, 2, bytes, "float32", "sum", 0, 2));
        }
        final Tuner.Result result = new Tuner(ModelParameters.shipped(), 4L << 20, Tuner.Choice.MEASURED).tune(rows);
        assertEquals(List.of("allgather"), result.quality().stream().map(g -> g.collective().label()).toList());
        assertTrue(result.rules().stream().allMatch(r -> r.collective().label().equals("allgather")),
            result.rules().toString());
    }

    private static TuningTable.Rule ruleAt(final List<TuningTable.Rule> rules, final long bytes)
    {
        return rules.stream().filter(r -> r.minBytes() <= bytes && bytes < r.maxBytes()).findFirst().orElseThrow();
    }
}
