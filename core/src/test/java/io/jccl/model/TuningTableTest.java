package io.jccl.model;

import io.jccl.Collective;
import io.jccl.Configuration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

@Timeout(10)
class TuningTableTest
{
    @TempDir
    Path directory;

    private static final List<TuningTable.Rule> RULES = List.of(
        new TuningTable.Rule(Collective.ALLREDUCE, 4, 0, 65536, "shm_oneshot", 0),
        new TuningTable.Rule(Collective.ALLREDUCE, 4, 65536, Long.MAX_VALUE, "ring", 262144),
        new TuningTable.Rule(Collective.ALLREDUCE, 2, 0, Long.MAX_VALUE, "shm_twoshot", 0),
        new TuningTable.Rule(Collective.BROADCAST, 4, 1024, 4096, "binomial", 0));

    private static TuningTable table()
    {
        return new TuningTable(ModelParameters.shipped(), Map.of("host", "box", "source", "r.csv"), RULES);
    }

    @Test
    void lookupsReturnWhatTheFileSays()
    {
        final TuningTable table = table();
        assertEquals("shm_oneshot", table.lookup(Collective.ALLREDUCE, 4, 0).algorithm());
        assertEquals("shm_oneshot", table.lookup(Collective.ALLREDUCE, 4, 65535).algorithm());
        assertEquals("ring", table.lookup(Collective.ALLREDUCE, 4, 65536).algorithm());
        assertEquals(262144, table.lookup(Collective.ALLREDUCE, 4, 1L << 40).chunkBytes());
        assertEquals("shm_twoshot", table.lookup(Collective.ALLREDUCE, 2, 8).algorithm());
        assertEquals("binomial", table.lookup(Collective.BROADCAST, 4, 1024).algorithm());
        // not covered: other rank counts, sizes outside the ranges, other collectives
        assertNull(table.lookup(Collective.ALLREDUCE, 8, 8));
        assertNull(table.lookup(Collective.BROADCAST, 4, 4096));
        assertNull(table.lookup(Collective.BROADCAST, 4, 1023));
        assertNull(table.lookup(Collective.ALLGATHER, 4, 8));
        // the same rule object every time: nothing allocated
        assertSame(table.lookup(Collective.ALLREDUCE, 4, 100), table.lookup(Collective.ALLREDUCE, 4, 200));
    }

    @Test
    void roundTripsThroughTheFile() throws Exception
    {
        final Path file = directory.resolve("nested/tuning.json");
        table().write(file);
        final TuningTable read = TuningTable.read(file);
        assertEquals(table().rules(), read.rules());
        assertEquals(table().info(), read.info());
        final ModelParameters expected = ModelParameters.shipped();
        for (int r = 0; r < expected.regimeCount(); r++)
        {
            for (final Parameter p : Parameter.values())
            {
                if (p != Parameter.GAMMA)
                {
                    assertEquals(expected.value(p, r), read.model().value(p, r), 1e-5 * expected.value(p, r) + 1e-15,
                        p.symbol());
                }
            }
        }
        assertTrue(Files.readString(file).contains("\"format\": \"jccl-tuning 1\""));
        assertEquals(read.toJson(), TuningTable.parse(read.toJson()).toJson());
    }

    @Test
    void everyPerRegimeParameterRoundTripsThroughJson()
    {
        final ModelParameters shipped = ModelParameters.shipped();
        ModelParameters changed = shipped;
        for (final Parameter p : Parameter.values())
        {
            if (p.perRegime())
            {
                changed = changed.with(p, shipped.regimeCount() - 1, 0.125 + p.ordinal() / 1024.0);
            }
        }
        final ModelParameters read = ModelParameters.fromJson(changed.toJson());
        for (final Parameter p : Parameter.values())
        {
            if (p.perRegime())
            {
                assertEquals(0.125 + p.ordinal() / 1024.0, read.value(p, shipped.regimeCount() - 1), 1e-12,
                    p.symbol());
            }
        }
    }

    @Test
    void filesWrittenBeforeTheNewerParametersLoadWithTheirDefaults()
    {
        final ModelParameters read = ModelParameters.fromJson(Map.of(
            "regimes", List.of(Map.of("from_bytes", 0, "alpha_us", 0.2, "beta_ns_per_byte", 0.1,
                "copy_ns_per_byte", 0.03, "read_ns_per_byte", 0.05)),
            "flag_us", 0.08, "gamma_ns_per_byte", Map.of("default", 0.06)));
        assertEquals(0, read.regimes().get(0).nu());
        assertEquals(0, read.regimes().get(0).reduceMemory());
        assertEquals(ModelParameters.nsPerByte(0.2), read.regimes().get(0).kernel(), 1e-15);
        assertEquals(ModelParameters.KERNEL_CALL_DEFAULT, read.kernelCall());
        assertEquals(0, read.sync());
        assertEquals(0, read.syncOversubscribed());
        assertEquals(0, read.callOversubscribed());
    }

    @Test
    void loadFindsTheConfiguredFileOrFallsBackToTheShippedModel() throws Exception
    {
        final Path file = directory.resolve("t.json");
        table().write(file);
        final Configuration configured = Configuration.builder().set(TuningTable.FILE_PROP_NAME, file.toString())
            .build();
        assertEquals(file, TuningTable.path(configured));
        assertEquals(RULES.size(), TuningTable.load(configured).rules().size());

        final Configuration missing = Configuration.builder()
            .set(TuningTable.FILE_PROP_NAME, directory.resolve("none.json").toString()).build();
        assertThrows(NoSuchFileException.class, () -> TuningTable.load(missing));

        assertEquals(Path.of(System.getProperty("user.home"), ".jccl", "tuning.json"), TuningTable.defaultPath());
    }

    @Test
    void badFilesSayWhatIsWrong() throws Exception
    {
        final Path file = directory.resolve("bad.json");
        Files.writeString(file, "{\"format\": \"jccl-tuning 9\", \"rules\": []}");
        final IllegalArgumentException ex = assertThrows(IllegalArgumentException.class, () -> TuningTable.read(file));
        assertTrue(ex.getMessage().contains(file.toString()) && ex.getMessage().contains("jccl-tuning 9"),
            ex.getMessage());
        assertThrows(IllegalArgumentException.class, () -> new TuningTable(ModelParameters.shipped(), Map.of(),
            List.of(new TuningTable.Rule(Collective.ALLREDUCE, 2, 0, 100, "ring", 0),
                new TuningTable.Rule(Collective.ALLREDUCE, 2, 50, 200, "ring", 0))));
    }

    @Test
    void modelRulesNeverRunPastWhatTheirAlgorithmServes()
    {
        for (final int ranks : new int[] {2, 3, 4, 8})
        {
            for (final Collective collective : List.of(Collective.BROADCAST, Collective.ALLREDUCE,
                Collective.ALLGATHER, Collective.REDUCE_SCATTER, Collective.ALLTOALL))
            {
                final List<String> candidates = CostFormulas.algorithms(collective.label());
                for (final TuningTable.Rule rule : TuningTable.modelRules(CostModel.shipped(), collective, ranks,
                    candidates))
                {
                    final CostFormula formula = CostFormulas.find(collective.label(), rule.algorithm());
                    assertTrue(rule.maxBytes() == Long.MAX_VALUE ? formula.serves(ranks, Long.MAX_VALUE) :
                        formula.serves(ranks, rule.maxBytes() - 1), rule.toString());
                }
            }
        }
    }

    @Test
    void modelRulesChooseTheModelsFastestAtEverySizeTheyAreEvaluatedAt()
    {
        final List<Long> sizes = new java.util.ArrayList<>();
        for (int step = 0; step <= 4 * 36; step++)
        {
            sizes.add(Math.round(Math.pow(2.0, step / 4.0)));
        }
        for (final Collective collective : Collective.values())
        {
            final List<String> candidates = new java.util.ArrayList<>(CostFormulas.all().stream()
                .filter(formula -> formula.collective().equals(collective.label())).map(CostFormula::algorithm)
                .toList());
            // each formula alone too: a lone formula is not evaluated, unless it stops at a size
            final List<List<String>> candidateLists = new java.util.ArrayList<>();
            candidates.forEach(candidate -> candidateLists.add(List.of(candidate)));
            candidates.add(1, "no_formula");
            candidateLists.add(candidates);
            for (final int cores : new int[] {1, 2, 8})
            {
                final CostModel model = new CostModel(ModelParameters.shipped(), Configuration.STAGING_BYTES_DEFAULT,
                    cores);
                for (final int ranks : new int[] {1, 2, 3, 4, 8})
                {
                    for (final List<String> list : candidateLists)
                    {
                        assertModelRulesAreFastest(model, collective, ranks, list, sizes);
                    }
                }
            }
        }
    }

    private static void assertModelRulesAreFastest(final CostModel model, final Collective collective, final int ranks,
        final List<String> candidates, final List<Long> sizes)
    {
        final int cores = model.cores();
        final List<TuningTable.Rule> rules = TuningTable.modelRules(model, collective, ranks, candidates);
        final List<Long> evaluated = new java.util.ArrayList<>(sizes);
        for (final String candidate : candidates)
        {
            final CostFormula formula = CostFormulas.find(collective.label(), candidate);
            if (formula != null && formula.capacity().maxBytes(ranks) < sizes.get(sizes.size() - 1))
            {
                evaluated.add(formula.capacity().maxBytes(ranks) + 1);
            }
        }
        for (final long bytes : evaluated)
        {
            final String fastest = model.fastest(collective.label(), ranks, bytes, "float32", "sum",
                candidates);
            final String chosen = rules.stream()
                .filter(rule -> rule.minBytes() <= bytes && bytes < rule.maxBytes())
                .map(TuningTable.Rule::algorithm).findFirst().orElse(null);
            assertEquals(fastest, chosen, collective + " at " + ranks + " ranks on " + cores +
                " cores, " + bytes + " B, of " + candidates + ": " + rules);
        }
    }

    @Test
    void modelChoicesFillWhatTheFileDoesNotCover()
    {
        final TuningTable filled = table().withModelChoices(4, Map.of(
            Collective.ALLREDUCE, List.of("ring", "recursive_doubling"),
            Collective.ALLGATHER, List.of("ring", "bruck", "recursive_doubling")));
        // the file's allreduce rules at 4 ranks stay
        assertEquals("shm_oneshot", filled.lookup(Collective.ALLREDUCE, 4, 8).algorithm());
        // allgather comes from the model, at every size
        final CostModel model = CostModel.shipped();
        for (long bytes = 1; bytes < 1L << 32; bytes *= 3)
        {
            final TuningTable.Rule rule = filled.lookup(Collective.ALLGATHER, 4, bytes);
            final String fastest = model.fastest("allgather", 4, bytes, "float32", "sum",
                List.of("ring", "bruck", "recursive_doubling"));
            final double chosen = model.predict("allgather", rule.algorithm(), 4, bytes, "float32", "sum");
            final double best = model.predict("allgather", fastest, 4, bytes, "float32", "sum");
            // rules switch at quarter octaves: within one step of the switch the choice may lag
            assertTrue(chosen <= best * 1.2, bytes + ": " + rule.algorithm() + " against " + fastest);
        }
    }

    @Test
    void rulesOfOnePaceRoundTripAndFallBackToTheRulesForBoth() throws Exception
    {
        final List<TuningTable.Rule> rules = new java.util.ArrayList<>(RULES);
        rules.add(new TuningTable.Rule(Collective.ALLREDUCE, 2, 0, 8192, "shm_oneshot", 0, Pace.FAST));
        rules.add(new TuningTable.Rule(Collective.ALLREDUCE, 2, 8192, Long.MAX_VALUE, "shm_twoshot", 0, Pace.FAST));
        rules.add(new TuningTable.Rule(Collective.ALLGATHER, 2, 0, Long.MAX_VALUE, "shm_direct", 0, Pace.SLOW));
        final TuningTable table = new TuningTable(ModelParameters.shipped(), Map.of("host", "box"), rules,
            List.of(new TuningTable.PaceSplit(2, 61.5, 27, 131)));
        final Path file = directory.resolve("paces.json");
        table.write(file);
        assertTrue(Files.readString(file).contains("\"format\": \"jccl-tuning 2\""));
        final TuningTable read = TuningTable.read(file);
        assertEquals(table, read);
        assertEquals(61.5, read.paceSplit(2).thresholdMicros());
        assertNull(read.paceSplit(4));
        // each pace's own rules where it has them for a collective, the rules for both elsewhere
        assertEquals("shm_oneshot", read.lookup(Collective.ALLREDUCE, 2, 4096, Pace.FAST).algorithm());
        assertEquals("shm_twoshot", read.lookup(Collective.ALLREDUCE, 2, 4096, Pace.SLOW).algorithm());
        assertEquals("shm_twoshot", read.lookup(Collective.ALLREDUCE, 2, 4096).algorithm());
        assertEquals("shm_direct", read.lookup(Collective.ALLGATHER, 2, 4096, Pace.SLOW).algorithm());
        assertNull(read.lookup(Collective.ALLGATHER, 2, 4096, Pace.FAST));
        assertNull(read.lookup(Collective.ALLGATHER, 2, 4096));
        // the model fills what the rules for both leave open, and leaves the pace rules as they are
        final TuningTable complete = read.withModelChoices(2, Map.of(Collective.ALLGATHER, List.of("ring", "bruck")));
        assertTrue(complete.lookup(Collective.ALLGATHER, 2, 4096) != null);
        assertEquals("shm_direct", complete.lookup(Collective.ALLGATHER, 2, 4096, Pace.SLOW).algorithm());
        assertEquals(read.paces(), complete.paces());
    }

    @Test
    void aRuleOfOnePaceNeedsASplitAtItsRankCount()
    {
        final IllegalArgumentException ex = assertThrows(IllegalArgumentException.class, () -> new TuningTable(
            ModelParameters.shipped(), Map.of(), List.of(
                new TuningTable.Rule(Collective.ALLREDUCE, 4, 0, Long.MAX_VALUE, "ring", 0, Pace.FAST)),
            List.of(new TuningTable.PaceSplit(2, 60, 27, 130))));
        assertTrue(ex.getMessage().contains("fast pace at 4 ranks"), ex.getMessage());
        assertThrows(IllegalArgumentException.class, () -> TuningTable.parse(table().toJson()
            .replace("\"chunk_bytes\": 0", "\"chunk_bytes\": 0, \"pace\": \"medium\"")));
    }
}
