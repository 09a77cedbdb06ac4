package io.jccl.tools.tune;

import io.jccl.Collective;
import io.jccl.algorithms.AlgorithmRegistry;
import io.jccl.model.Pace;
import io.jccl.model.TuningTable;
import io.jccl.tools.fit.SyntheticData;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

@Timeout(30)
class TuneCommandTest
{
    private final ByteArrayOutputStream out = new ByteArrayOutputStream();
    private final ByteArrayOutputStream err = new ByteArrayOutputStream();
    private final TuneCommand command = new TuneCommand(new PrintStream(out, true, StandardCharsets.UTF_8),
        new PrintStream(err, true, StandardCharsets.UTF_8));

    @TempDir
    Path directory;

    @Test
    void writesATuningFileWhoseLookupsAreTheChosenAlgorithms() throws Exception
    {
        final Path results = SyntheticData.write(directory.resolve("results.csv"), 0.03, 21);
        final Path tuning = directory.resolve("sub/tuning.json");

        assertEquals(0, command.run(new String[] {"--from", results.toString(), "--out", tuning.toString()}));

        final TuningTable table = TuningTable.read(tuning);
        assertFalse(table.rules().isEmpty());
        assertEquals(results.toAbsolutePath().toString(), table.info().get("source"));
        // every collective × ranks of the sweep is covered from 0 bytes on, without gaps
        for (final Collective collective : new Collective[] {Collective.ALLREDUCE, Collective.REDUCE_SCATTER,
            Collective.ALLGATHER, Collective.BROADCAST})
        {
            for (final int ranks : new int[] {2, 4})
            {
                for (long bytes = 0; bytes <= 1L << 30; bytes = bytes * 2 + 1)
                {
                    assertNotNull(table.lookup(collective, ranks, bytes), collective + " " + ranks + " " + bytes);
                }
            }
        }
        for (final TuningTable.Rule rule : table.rules())
        {
            assertEquals(rule, table.lookup(rule.collective(), rule.ranks(), rule.minBytes()));
            assertEquals(rule, table.lookup(rule.collective(), rule.ranks(), rule.maxBytes() - 1));
        }
        assertTrue(text(out).contains("wrote " + tuning), text(out));
    }

    @Test
    void tunedSelectionIsWithinTenPercentOfTheBestAtNinetyPercentOfSizes() throws Exception
    {
        final Path results = SyntheticData.write(directory.resolve("results.csv"), 0.03, 22);
        for (final String choice : new String[] {"measured", "model"})
        {
            out.reset();
            assertEquals(0, command.run(new String[] {"--from", results.toString(), "--choose", choice,
                "--dry-run"}));
            final Matcher m = Pattern.compile("within 10% of the best measured algorithm at (\\d+) of (\\d+) sizes")
                .matcher(text(out));
            assertTrue(m.find(), text(out));
            final int good = Integer.parseInt(m.group(1));
            final int total = Integer.parseInt(m.group(2));
            assertEquals(8 * 21, total);
            assertTrue(good >= 0.9 * total, choice + ": " + good + " of " + total + "\n" + text(out));
            assertTrue(text(out).contains("dry run: would write"), text(out));
        }
    }

    /**
     * Several runs after --from are fitted and chosen from at the median per point, not at the fastest run: a run in
     * which ring looked three times faster leaves every choice within 10 % of the fastest at the median. (Among the
     * algorithms within it there, that run may still tip the choice to ring: within 10 % in more runs.)
     */
    @Test
    void tunesFromTheMedianOfSeveralRuns() throws Exception
    {
        final Path run = SyntheticData.write(directory.resolve("run.csv"), 0.03, 26);
        final Path outlier = Files.writeString(directory.resolve("outlier.csv"), withRingFaster(run, 3));
        final Path copy = Files.copy(run, directory.resolve("copy.csv"));
        final Path alone = directory.resolve("alone.json");
        final Path fromOutlier = directory.resolve("outlier.json");
        final Path median = directory.resolve("median.json");
        assertEquals(0, command.run(new String[] {"--from", run.toString(), "--out", alone.toString()}));
        assertEquals(0, command.run(new String[] {"--from", outlier.toString(), "--out", fromOutlier.toString()}));
        out.reset();
        assertEquals(0, command.run(new String[] {"--from", outlier.toString(), run.toString(), copy.toString(),
            "--out", median.toString()}));

        assertTrue(text(out).startsWith("jccl tune: " + outlier + ", " + run + ", " + copy + " (3 runs)"),
            text(out));
        assertTrue(TuningTable.read(fromOutlier).rules().stream().anyMatch(r -> "ring".equals(r.algorithm())),
            "a run in which ring looks three times faster chooses it somewhere");
        assertEquals(outlier.toAbsolutePath() + ", " + run.toAbsolutePath() + ", " + copy.toAbsolutePath(),
            TuningTable.read(median).info().get("source"));
        // each run alone: in the outlier run ring is ahead wherever it was measured and not chosen
        final Matcher byRun = runByRun(text(out));
        assertTrue(text(out).startsWith(" (where only some runs", byRun.end()), text(out));
        assertTrue(Integer.parseInt(byRun.group(2)) > 0, text(out));
        assertEquals("0", byRun.group(3), text(out));
        // the median of each point is the plain run's time
        for (final Path tuning : new Path[] {median, alone})
        {
            out.reset();
            assertEquals(0, command.run(new String[] {"--check", run.toString(), "--file", tuning.toString()}));
            assertTrue(text(out).contains("at " + 8 * 21 + " of " + 8 * 21 + " sizes"), tuning + "\n" + text(out));
        }
        out.reset();
        assertEquals(0, command.run(new String[] {"--check", run.toString(), "--file", fromOutlier.toString()}));
        assertFalse(text(out).contains("at " + 8 * 21 + " of " + 8 * 21 + " sizes"), text(out));
    }

    /**
     * Runs at two paces of the machine (told apart by the bench's probe_us) count at each pace's median weighted by
     * its share of the rows: two runs at the fast pace and one at a slow one, where every algorithm but ring takes
     * three times as long, choose ring wherever it is within 5/3 of the best at the fast pace, where the median (the
     * fast pace) does not; with --probe-max the fast pace alone is tuned for.
     */
    @Test
    void runsAtTwoPacesCountAtEachPaceByItsShare() throws Exception
    {
        final Path run = SyntheticData.write(directory.resolve("run.csv"), 0.03, 26);
        final Path fast = Files.writeString(directory.resolve("fast.csv"), withProbe(Files.readString(run), 0.1));
        final Path fastAgain = Files.copy(fast, directory.resolve("fast-again.csv"));
        final Path slow = Files.writeString(directory.resolve("slow.csv"), withProbe(slowPace(run), 0.3));
        final Path alone = directory.resolve("alone.json");
        final Path paced = directory.resolve("paced.json");
        final Path fastOnly = directory.resolve("fast-only.json");
        assertEquals(0, command.run(new String[] {"--from", run.toString(), "--out", alone.toString()}));
        out.reset();
        assertEquals(0, command.run(new String[] {"--from", fast.toString(), fastAgain.toString(), slow.toString(),
            "--out", paced.toString()}));

        final long rows = Files.readAllLines(run).size() - 1;
        final long rows2 = Files.readAllLines(run).stream().filter(l -> l.matches("[a-z_]+,[a-z_0-9]+,2,.*")).count();
        assertTrue(text(out).contains("2 ranks, the probe at 0.100 µs in " + 2 * rows2 + " rows (67 %) " +
            "and at 0.300 µs in " + rows2 + " (33 %)"), text(out));
        assertTrue(rows > rows2, "4-rank rows too, their paces found apart");
        final long ringAlone = rulesOf(alone, "ring");
        final long ringPaced = rulesOf(paced, "ring");
        assertTrue(ringPaced > ringAlone, "ring chosen in " + ringPaced + " rules against " + ringAlone + "\n" +
            text(out));

        assertEquals(0, command.run(new String[] {"--from", fast.toString(), fastAgain.toString(), slow.toString(),
            "--probe-max", "0.2", "--out", fastOnly.toString()}));
        assertEquals(TuningTable.read(alone).rules(), TuningTable.read(fastOnly).rules());
        assertTrue(text(err).contains("left out " + rows + " of " + rows + " rows measured with the probe above 0.2"),
            text(err));

        // judged by the same runs, the file made from them is right at the time to expect, and says how it does at
        // each point's median, the fast pace, where it chose ring against the fastest
        out.reset();
        assertEquals(0, command.run(new String[] {"--check", fast.toString(), fastAgain.toString(), slow.toString(),
            "--file", paced.toString()}));
        final Matcher expected = Pattern.compile("tuning file within 10% of the best measured algorithm at (\\d+) of " +
            "(\\d+) sizes").matcher(text(out));
        final Matcher atMedian = Pattern.compile("at each point's plain median instead, the pace most runs saw there: " +
            "within 10% at (\\d+) of (\\d+) sizes").matcher(text(out));
        assertTrue(expected.find() && atMedian.find(), text(out));
        assertEquals(expected.group(2), atMedian.group(2));
        assertTrue(Integer.parseInt(expected.group(1)) >= 0.9 * Integer.parseInt(expected.group(2)), text(out));
        assertTrue(Integer.parseInt(atMedian.group(1)) < Integer.parseInt(expected.group(1)), text(out));
    }

    /**
     * Runs told apart by the bench's handoff probe, the engine's own measurement of the pace: the file gets the
     * threshold between them at each rank count and rules for each pace, made from that pace's rows, beside the rules
     * for both. At the slow pace every algorithm but ring takes three times as long, so ring wins more sizes there.
     */
    @Test
    void runsToldApartByTheHandoffProbeGetRulesForEachPace() throws Exception
    {
        final Path run = SyntheticData.write(directory.resolve("run.csv"), 0.03, 26);
        final Path[] paces = atBothPaces(run);
        final Path fast = paces[0];
        final Path fastAgain = Files.copy(fast, directory.resolve("fast-again.csv"));
        final Path slow = paces[1];
        final Path paced = directory.resolve("paced.json");
        assertEquals(0, command.run(new String[] {"--from", fast.toString(), fastAgain.toString(), slow.toString(),
            "--out", paced.toString()}));

        final TuningTable table = TuningTable.read(paced);
        assertEquals(List.of(2, 4), table.paces().stream().map(TuningTable.PaceSplit::ranks).toList());
        final TuningTable.PaceSplit split = table.paceSplit(2);
        assertTrue(split.thresholdMicros() > 27 && split.thresholdMicros() < 130, split.toString());
        assertEquals(27, split.fastMicros());
        assertEquals(130, split.slowMicros());
        final long ringFast = ringSizes(table, Pace.FAST);
        final long ringSlow = ringSizes(table, Pace.SLOW);
        assertTrue(ringSlow > ringFast, "ring at " + ringSlow + " sizes at the slow pace against " + ringFast +
            " at the fast one\n" + text(out));
        // every collective with rules for both has rules for each pace too
        for (final TuningTable.Rule rule : table.rules())
        {
            for (final Pace pace : Pace.values())
            {
                assertTrue(table.hasRules(rule.collective(), rule.ranks(), pace), rule + " at " + pace);
            }
        }
        assertTrue(text(out).contains("at 2 ranks, choices for the slow pace alone"), text(out));
        // two runs at the fast pace, one at the slow: each pace says how many rows its choices rest on, and the slow
        // pace's one row per point is called out
        assertTrue(text(out).contains("its points rest on 2 rows each at the median: 0 of "), text(out));
        final Matcher oneRow = Pattern.compile("its points rest on 1 row each at the median: (\\d+) of (\\d+) on one " +
            "row, 0 on none \\(the time to expect stands in\\); one row per point lets a single disturbed row decide a " +
            "rule").matcher(text(out));
        assertTrue(oneRow.find(), text(out));
        assertEquals(oneRow.group(2), oneRow.group(1));
        // the points are those the tuner chooses from (2 ranks, the first rank count): every collective's, not
        // pingpong's
        final long points = Files.readAllLines(slow).stream().skip(1).map(line -> line.split(","))
            .filter(f -> f[2].equals("2") && !f[0].equals("pingpong")).map(f -> f[0] + "," + f[1] + "," + f[3])
            .distinct().count();
        assertEquals(Long.toString(points), oneRow.group(2), text(out));

        // judged by the same runs, each pace's choices against that pace's rows, beside the choices for both
        out.reset();
        assertEquals(0, command.run(new String[] {"--check", fast.toString(), fastAgain.toString(), slow.toString(),
            "--file", paced.toString()}));
        final Matcher atSlow = Pattern.compile("at the slow pace alone \\(.*\\): the file's choices for that pace " +
            "within 10% of the best measured at (\\d+) of (\\d+) sizes \\(.*\\), its choices for both paces at " +
            "(\\d+) of (\\d+)").matcher(text(out));
        assertTrue(atSlow.find(), text(out));
        assertEquals(atSlow.group(2), atSlow.group(4));
        assertTrue(Integer.parseInt(atSlow.group(1)) > Integer.parseInt(atSlow.group(3)), atSlow.group());
        assertTrue(text(out).contains("at the fast pace alone"), text(out));
    }

    /**
     * {@code run} as a sweep at the fast pace (fast.csv, the handoff probe at 27 µs in every row) and at the slow one
     * (slow.csv, {@link #slowPace}, at 130 µs).
     */
    private Path[] atBothPaces(final Path run) throws Exception
    {
        return new Path[] {
            Files.writeString(directory.resolve("fast.csv"), withColumn(Files.readString(run), "handoff_us", 27)),
            Files.writeString(directory.resolve("slow.csv"), withColumn(slowPace(run), "handoff_us", 130))};
    }

    /** The CSV {@code run} at a slow pace: every algorithm but ring takes three times as long. */
    private static String slowPace(final Path run) throws Exception
    {
        return Files.readAllLines(run).stream().map(line ->
        {
            final String[] cells = line.split(",", -1);
            if (!line.startsWith("collective,") && !"ring".equals(cells[1]))
            {
                cells[5] = String.valueOf(3 * Double.parseDouble(cells[5]));
            }
            return String.join(",", cells);
        }).collect(Collectors.joining("\n", "", "\n"));
    }

    /** The sizes, collectives and 2-rank powers of two from 64 B to 64 MiB, at which {@code table} chooses ring. */
    private static long ringSizes(final TuningTable table, final Pace pace)
    {
        long sizes = 0;
        for (final Collective collective : Collective.values())
        {
            for (long bytes = 64; bytes <= 64L << 20; bytes *= 2)
            {
                final TuningTable.Rule rule = table.lookup(collective, 2, bytes, pace);
                sizes += rule != null && rule.algorithm().equals("ring") ? 1 : 0;
            }
        }
        return sizes;
    }

    /** The rules of the tuning file {@code file} that choose {@code algorithm}. */
    private static long rulesOf(final Path file, final String algorithm) throws Exception
    {
        return TuningTable.read(file).rules().stream().filter(r -> algorithm.equals(r.algorithm())).count();
    }

    /** The CSV {@code results} with a probe_us column that reads {@code probe} in every row. */
    private static String withProbe(final String results, final double probe)
    {
        return withColumn(results, "probe_us", probe);
    }

    /** The CSV {@code results} with a column {@code name} that reads {@code value} in every row. */
    private static String withColumn(final String results, final String name, final double value)
    {
        return results.lines().map(line -> line + (line.startsWith("collective,") ? "," + name : "," + value))
            .collect(Collectors.joining("\n", "", "\n"));
    }

    /** A collective measured with one algorithm alone (allgatherv, alltoallv, ...) had nothing to choose: not judged. */
    @Test
    void checkLeavesOutCollectivesMeasuredWithOneAlgorithm() throws Exception
    {
        final Path made = SyntheticData.write(directory.resolve("made.csv"), 0.03, 24);
        final Path tuning = directory.resolve("tuning.json");
        assertEquals(0, command.run(new String[] {"--from", made.toString(), "--out", tuning.toString()}));
        final Path later = SyntheticData.write(directory.resolve("later.csv"), 0.03, 25);
        Files.writeString(later, "allgatherv,ring,4,1024,float32,3.000,3.000,3.000,100,0.341,0.256,\n" +
            "allgatherv,ring,4,4096,float32,5.000,5.000,5.000,100,0.819,0.614,\n", StandardOpenOption.APPEND);
        out.reset();

        assertEquals(0, command.run(new String[] {"--check", later.toString(), "--file", tuning.toString()}));
        assertFalse(text(out).contains("allgatherv"), text(out));
        assertFalse(text(out).contains("not counted"), text(out));
        assertTrue(text(out).contains("of " + 8 * 21 + " sizes"), text(out));
    }

    /** {@code results} with every ring row {@code factor} times faster. */
    private static String withRingFaster(final Path results, final double factor) throws Exception
    {
        return Files.readAllLines(results).stream().map(line ->
        {
            final String[] cells = line.split(",", -1);
            if ("ring".equals(cells[1]))
            {
                cells[5] = String.valueOf(Double.parseDouble(cells[5]) / factor);
            }
            return String.join(",", cells);
        }).collect(Collectors.joining("\n", "", "\n"));
    }

    /** Without --repeat, rank counts above the cores get more sweeps: their rows are the noisier. */
    @Test
    void sweepsRankCountsAboveTheCoresMoreOften()
    {
        assertEquals(TuneCommand.DEFAULT_REPEAT, TuneCommand.defaultRepeat(2, 2));
        assertEquals(TuneCommand.DEFAULT_REPEAT, TuneCommand.defaultRepeat(4, 8));
        assertEquals(TuneCommand.DEFAULT_OVERSUBSCRIBED_REPEAT, TuneCommand.defaultRepeat(4, 2));
        assertEquals(TuneCommand.DEFAULT_OVERSUBSCRIBED_REPEAT, TuneCommand.defaultRepeat(3, 2));
        assertTrue(TuneCommand.DEFAULT_OVERSUBSCRIBED_REPEAT > TuneCommand.DEFAULT_REPEAT);
    }

    /** Without --from, tune runs the bench sweep itself on real rank JVMs: a tiny one here, twice, every row kept. */
    @Test
    @Timeout(180)
    void measuresTheMachineItselfWithoutResults() throws Exception
    {
        final Path tuning = directory.resolve("tuning.json");
        final long tuneDirectoriesBefore = tuneDirectories();
        assertEquals(0, command.run(new String[] {"-n", "2", "--op", "allreduce", "--max-bytes", "128",
            "--repeat", "2", "--iters", "50", "--warmup", "5", "--out", tuning.toString()}), text(err));
        assertEquals(tuneDirectoriesBefore, tuneDirectories(), "the runs' CSVs and their directory are gone");

        assertTrue(text(err).contains("sweep 1 of 2 on 2 ranks") && text(err).contains("sweep 2 of 2 on 2 ranks"),
            text(err));
        final Path results = directory.resolve("tuning-bench.csv");
        final List<String> rows = Files.readAllLines(results).stream().skip(1).toList();
        final int algorithms = AlgorithmRegistry.instance().of(Collective.ALLREDUCE).size();
        assertEquals(2 * 3 * algorithms, rows.size(), "8, 32 and 128 bytes for each algorithm, twice: " + rows);
        assertTrue(rows.stream().allMatch(r -> r.startsWith("allreduce,") && r.contains(",2,")), rows.toString());

        final TuningTable table = TuningTable.read(tuning);
        assertEquals(results.toAbsolutePath().toString(), table.info().get("source"));
        for (final long bytes : new long[] {0, 8, 100, 128, 1L << 30})
        {
            assertNotNull(table.lookup(Collective.ALLREDUCE, 2, bytes), "allreduce at " + bytes + " bytes");
        }
        final Matcher m = Pattern.compile("within 10% of the best measured algorithm at (\\d+) of (\\d+) sizes")
            .matcher(text(out));
        assertTrue(m.find(), text(out));
        assertEquals(3, Integer.parseInt(m.group(2)));
        assertTrue(text(out).contains("wrote " + tuning), text(out));
        // in sample each of the two runs judges the choices alone too
        final Matcher byRun = runByRun(text(out));
        assertEquals(3, Integer.parseInt(byRun.group(1)) + Integer.parseInt(byRun.group(2)) +
            Integer.parseInt(byRun.group(3)), text(out));
    }

    /** The line that counts the sizes judged run by run: every run, some, none (groups 1-3); fails without one. */
    private static Matcher runByRun(final String text)
    {
        final Matcher m = Pattern.compile("run by run: within 10% of that run's fastest in every run at (\\d+) " +
            "sizes, in some at (\\d+), in none at (\\d+)").matcher(text);
        assertTrue(m.find(), text);
        return m;
    }

    /** The temporary directories tune's sweeps leave behind. */
    private static long tuneDirectories() throws java.io.IOException
    {
        try (java.util.stream.Stream<Path> entries = Files.list(Path.of(System.getProperty("java.io.tmpdir"))))
        {
            return entries.filter(p -> p.getFileName().toString().startsWith("jccl-tune")).count();
        }
    }

    /** A file made from one run, judged by another: what each size ran with the file, against the fastest. */
    @Test
    void checkJudgesATuningFileByResultsItWasNotMadeFrom() throws Exception
    {
        final Path made = SyntheticData.write(directory.resolve("made.csv"), 0.03, 24);
        final Path other = SyntheticData.write(directory.resolve("other.csv"), 0.03, 25);
        final Path tuning = directory.resolve("tuning.json");
        assertEquals(0, command.run(new String[] {"--from", made.toString(), "--out", tuning.toString()}));
        final String written = Files.readString(tuning);
        out.reset();

        assertEquals(0, command.run(new String[] {"--check", other.toString(), "--file", tuning.toString()}));
        assertEquals(written, Files.readString(tuning), "--check writes nothing");
        final String text = text(out);
        assertTrue(text.startsWith("jccl tune --check: " + tuning + " (made from " + made.toAbsolutePath() + ")"),
            text);
        final Matcher m = Pattern.compile("tuning file within 10% of the best measured algorithm at (\\d+) of (\\d+) " +
            "sizes").matcher(text);
        assertTrue(m.find(), text);
        assertEquals(8 * 21, Integer.parseInt(m.group(2)));
        assertTrue(Integer.parseInt(m.group(1)) >= 0.9 * 8 * 21, text);
        // each size shows the algorithm the file's rule names
        final TuningTable table = TuningTable.read(tuning);
        final String allreduce = text.substring(text.indexOf("allreduce, 4 ranks"));
        final Matcher row = Pattern.compile("\\n\\s+65536\\s+(\\S+)").matcher(allreduce);
        assertTrue(row.find(), allreduce);
        assertEquals(table.lookup(Collective.ALLREDUCE, 4, 65536).algorithm(), row.group(1));

        // several runs of a sweep after one --check: the median per point
        final Path third = SyntheticData.write(directory.resolve("third.csv"), 0.03, 27);
        out.reset();
        assertEquals(0, command.run(new String[] {"--check", other.toString(), third.toString(), made.toString(),
            "--file", tuning.toString()}));
        assertTrue(text(out).contains(" (3 runs)"), text(out));

        // the median, not the fastest of the runs: a run in which ring alone looked three times faster changes
        // nothing beside two copies of the other run, whatever the files are called
        final Path outlier = Files.writeString(directory.resolve("outlier.csv"), withRingFaster(other, 3));
        final Path copy = Files.copy(other, directory.resolve("copy.csv"));
        out.reset();
        assertEquals(0, command.run(new String[] {"--check", other.toString(), "--file", tuning.toString()}));
        final String alone = summary(text(out));
        out.reset();
        assertEquals(0, command.run(new String[] {"--check", other.toString(), outlier.toString(), copy.toString(),
            "--file", tuning.toString()}));
        assertEquals(alone, summary(text(out)));

        // ...but run by run, the file's choice is behind ring in the outlier run wherever ring was measured and not
        // chosen: "2 of 3" runs within 10 % at those sizes, and a line before the summary counts them
        final String judged = text(out);
        assertTrue(judged.contains("runs within 10%"), judged);
        final Matcher byRun = runByRun(judged);
        assertEquals('\n', judged.charAt(byRun.end()), judged);
        assertTrue(Integer.parseInt(byRun.group(2)) > 0, judged);
        assertTrue(judged.contains(" 2 of 3"), judged);
        assertEquals(byRun.end() + 1, judged.length() - summary(judged).length() - 1,
            "the summary stays the last line");
        out.reset();
        assertEquals(0, command.run(new String[] {"--check", other.toString(), "--file", tuning.toString()}));
        assertFalse(text(out).contains("run by run") || text(out).contains("runs within 10%"), "one run: " + text(out));
    }

    /**
     * --choices: the algorithms a run without --algo recorded, judged by the --algo all results: here a run that
     * chose the fastest algorithm everywhere but for 4-rank allreduces, where it chose the slowest.
     */
    @Test
    void checkJudgesTheChoicesRecordedInRunsWithoutAlgo() throws Exception
    {
        final Path results = SyntheticData.write(directory.resolve("results.csv"), 0.03, 28);
        final List<String> lines = Files.readAllLines(results);
        // collective,ranks,bytes -> the row of the recorded choice
        final java.util.Map<String, String[]> chosen = new java.util.LinkedHashMap<>();
        int slowAllreduces = 0;
        final java.util.Map<String, double[]> extremes = new java.util.HashMap<>();
        for (final String line : lines.subList(1, lines.size()))
        {
            final String[] cells = line.split(",", -1);
            final String point = cells[0] + "," + cells[2] + "," + cells[3];
            final double micros = Double.parseDouble(cells[5]);
            final boolean slowest = "allreduce".equals(cells[0]) && "4".equals(cells[2]);
            final String[] previous = chosen.get(point);
            if (previous == null || (slowest ? micros > Double.parseDouble(previous[5]) :
                micros < Double.parseDouble(previous[5])))
            {
                chosen.put(point, cells);
            }
            extremes.merge(point, new double[] {micros, micros},
                (a, b) -> new double[] {Math.min(a[0], b[0]), Math.max(a[1], b[1])});
        }
        for (final java.util.Map.Entry<String, double[]> point : extremes.entrySet())
        {
            if (point.getKey().startsWith("allreduce,4,") && point.getValue()[1] > 1.1 * point.getValue()[0])
            {
                slowAllreduces++;
            }
        }
        final Path run = Files.writeString(directory.resolve("default.csv"), lines.get(0) + "\n" +
            chosen.values().stream().map(cells -> String.join(",", cells)).collect(Collectors.joining("\n", "", "\n")));

        assertEquals(0, command.run(new String[] {"--check", results.toString(), "--choices", run.toString()}));
        final String text = text(out);
        assertTrue(text.startsWith("jccl tune --check: the choices recorded in " + run + " against " + results), text);
        assertTrue(slowAllreduces > 10, "the slowest allreduce is more than 10 % slower at most sizes");
        assertTrue(text.contains("the engine's choices within 10% of the best measured algorithm at " +
            (8 * 21 - slowAllreduces) + " of " + 8 * 21 + " sizes"), text);
        final String allreduce = text.substring(text.indexOf("allreduce, 4 ranks"));
        final Matcher row = Pattern.compile("\\n\\s+65536\\s+(\\S+)").matcher(allreduce);
        assertTrue(row.find(), allreduce);
        assertEquals(chosen.get("allreduce,4,65536")[1], row.group(1));

        // an --algo all sweep records no choice: every point ran several algorithms
        final Exception sweep = assertThrows(IllegalArgumentException.class,
            () -> command.run(new String[] {"--check", results.toString(), "--choices", results.toString()}));
        assertTrue(sweep.getMessage().contains("without --algo"), sweep.getMessage());
        final Exception both = assertThrows(io.jccl.tools.UsageException.class,
            () -> command.run(new String[] {"--check", results.toString(), "--choices", run.toString(), "--file",
                run.toString()}));
        assertTrue(both.getMessage().contains("not both"), both.getMessage());
        final Exception alone = assertThrows(io.jccl.tools.UsageException.class,
            () -> command.run(new String[] {"--choices", run.toString()}));
        assertTrue(alone.getMessage().contains("give the results with --check"), alone.getMessage());
    }

    /**
     * --choices where the results part the paces: each recorded row is judged at the pace its own probe read, against
     * that pace's rows. Here one run chose the fast pace's fastest algorithm everywhere and another, at the slow pace,
     * the slow pace's: both are right at their pace, where a judgement of every row at once, at the time to expect,
     * finds sizes where the runs' choices are slower.
     */
    @Test
    void checkJudgesRecordedChoicesAtThePaceEachRowRan() throws Exception
    {
        final Path run = SyntheticData.write(directory.resolve("run.csv"), 0.03, 27);
        final Path[] paces = atBothPaces(run);
        final Path fast = paces[0];
        final Path slow = paces[1];
        final Path fastChoices = Files.writeString(directory.resolve("fast-choices.csv"), fastestOf(fast));
        final Path slowChoices = Files.writeString(directory.resolve("slow-choices.csv"), fastestOf(slow));
        final Path slowAgain = Files.copy(slowChoices, directory.resolve("slow-choices-again.csv"));

        assertEquals(0, command.run(new String[] {"--check", fast.toString(), slow.toString(), "--choices",
            fastChoices.toString(), slowChoices.toString(), slowAgain.toString()}));
        final String text = text(out);
        for (final Pace pace : Pace.values())
        {
            final Matcher atPace = Pattern.compile("at the " + pace.label() + " pace alone \\(.*\\): the engine's " +
                "choices within 10% of the best measured at (\\d+) of (\\d+) sizes").matcher(text);
            assertTrue(atPace.find(), text);
            assertEquals(atPace.group(2), atPace.group(1), atPace.group());
            assertEquals(String.valueOf(8 * 21), atPace.group(2), atPace.group());
        }
        final Matcher pooled = Pattern.compile("the engine's choices within 10% of the best measured algorithm at " +
            "(\\d+) of (\\d+) sizes").matcher(text);
        assertTrue(pooled.find(), text);
        assertTrue(Integer.parseInt(pooled.group(1)) < Integer.parseInt(pooled.group(2)), pooled.group());
    }

    /**
     * --rules: what the engine's own rules choose without a tuning file, judged at each pace by that pace's rows (2
     * ranks on 2 cores: allgathers of 1 MiB take single copy at the slow pace alone, broadcasts of 4 KiB shm_eager
     * there and binomial at the fast pace); where the results show one pace, the rules before any probe.
     */
    @Test
    void checkJudgesTheRulesAtEachPaceByThatPacesRows() throws Exception
    {
        final Path run = SyntheticData.write(directory.resolve("run.csv"), 0.03, 29);
        final Path[] paces = atBothPaces(run);
        final Path fast = paces[0];
        final Path slow = paces[1];

        assertEquals(0, command.run(new String[] {"--check", fast.toString(), slow.toString(), "--rules", "--cores",
            "2"}));
        final String text = text(out);
        final int slowReport =
            text.indexOf("the engine's own rules without a tuning file, on 2 cores, at the slow pace");
        assertTrue(text.startsWith("jccl tune --check: the engine's own rules without a tuning file, on 2 cores, at " +
            "the fast pace, by the rows measured at it") && slowReport > 0, text);
        final String atFast = text.substring(0, slowReport);
        final String atSlow = text.substring(slowReport);
        assertEquals("shm_single_copy", choiceAt(atSlow, "allgather, 2 ranks", 1 << 20));
        assertNotEquals("shm_single_copy", choiceAt(atFast, "allgather, 2 ranks", 1 << 20));
        assertEquals("shm_eager", choiceAt(atSlow, "broadcast, 2 ranks", 4096));
        assertEquals("binomial", choiceAt(atFast, "broadcast, 2 ranks", 4096));
        for (final Pace pace : Pace.values())
        {
            assertTrue(Pattern.compile("\nat the " + pace.label() + " pace: the rules' choices within 10% of the " +
                "best measured at \\d+ of \\d+ sizes").matcher(text).find(), text);
        }
        assertFalse(text.contains("before any probe:"), text);

        out.reset();
        assertEquals(0, command.run(new String[] {"--check", run.toString(), "--rules", "--cores", "2"}));
        assertTrue(Pattern.compile("\nbefore any probe: the rules' choices within 10% of the best measured at \\d+ " +
            "of \\d+ sizes").matcher(text(out)).find(), text(out));
        // before a probe, 2 ranks with a core each take single copy
        assertEquals("shm_single_copy", choiceAt(text(out), "allgather, 2 ranks", 1 << 20));

        final Exception cores = assertThrows(io.jccl.tools.UsageException.class,
            () -> command.run(new String[] {"--check", run.toString(), "--cores", "2"}));
        assertTrue(cores.getMessage().contains("--cores goes with --check --rules"), cores.getMessage());
        final Exception both = assertThrows(io.jccl.tools.UsageException.class,
            () -> command.run(new String[] {"--check", run.toString(), "--rules", "--choices", run.toString()}));
        assertTrue(both.getMessage().contains("one of them"), both.getMessage());
    }

    /** The algorithm a --check report chose at {@code bytes} in the table after {@code header}. */
    private static String choiceAt(final String report, final String header, final long bytes)
    {
        final Matcher row = Pattern.compile("\\n\\s+" + bytes + "\\s+(\\S+)")
            .matcher(report.substring(report.indexOf(header + "\n")));
        assertTrue(row.find(), report);
        return row.group(1);
    }

    /** A run without --algo that chose, at each point of {@code results}, its fastest algorithm there. */
    private static String fastestOf(final Path results) throws Exception
    {
        final List<String> lines = Files.readAllLines(results);
        final java.util.Map<String, String[]> fastest = new java.util.LinkedHashMap<>();
        for (final String line : lines.subList(1, lines.size()))
        {
            final String[] cells = line.split(",", -1);
            fastest.merge(cells[0] + "," + cells[2] + "," + cells[3], cells,
                (a, b) -> Double.parseDouble(b[5]) < Double.parseDouble(a[5]) ? b : a);
        }
        return lines.get(0) + "\n" + fastest.values().stream().map(cells -> String.join(",", cells))
            .collect(Collectors.joining("\n", "", "\n"));
    }

    /** The last line of a --check: the share of sizes within 10 % of the best. */
    private static String summary(final String text)
    {
        final String[] lines = text.strip().split("\n");
        return lines[lines.length - 1];
    }

    @Test
    void checkTakesOnlyItsOwnOptions() throws Exception
    {
        final Path results = SyntheticData.write(directory.resolve("results.csv"), 0.03, 26);
        final Exception from = assertThrows(io.jccl.tools.UsageException.class,
            () -> command.run(new String[] {"--check", results.toString(), "--from", results.toString()}));
        assertTrue(from.getMessage().contains("takes only --file"), from.getMessage());
        final Exception file = assertThrows(io.jccl.tools.UsageException.class,
            () -> command.run(new String[] {"--file", results.toString()}));
        assertTrue(file.getMessage().contains("give the results with --check"), file.getMessage());
        final Exception missing = assertThrows(io.jccl.tools.UsageException.class,
            () -> command.run(new String[] {"--check", results.toString(), "--file",
                directory.resolve("none.json").toString()}));
        assertTrue(missing.getMessage().contains("no tuning file"), missing.getMessage());
    }

    @Test
    void sweepOptionsDoNotGoWithResults() throws Exception
    {
        final Path results = SyntheticData.write(directory.resolve("results.csv"), 0.03, 23);
        final Exception ex = assertThrows(io.jccl.tools.UsageException.class,
            () -> command.run(new String[] {"--from", results.toString(), "-n", "4", "--dry-run"}));
        assertTrue(ex.getMessage().contains("do not go with --from"), ex.getMessage());
        final Exception source = assertThrows(io.jccl.tools.UsageException.class,
            () -> command.run(new String[] {"--source", "jmh", "--dry-run"}));
        assertTrue(source.getMessage().contains("--from"), source.getMessage());
        assertThrows(io.jccl.tools.UsageException.class, () -> command.run(new String[] {"-n", "1"}));
    }

    @Test
    void resultsWithoutAlgorithmNamesCannotBeTuned() throws Exception
    {
        final Path results = directory.resolve("peers.csv");
        Files.writeString(results, "collective,ranks,bytes,avg_us,min_us,max_us,iters\n" +
            "pingpong,2,8,0.2,0.2,0.2,1\npingpong,2,64,0.25,0.2,0.2,1\npingpong,2,512,0.4,0.2,0.2,1\n" +
            "allreduce,2,64,0.5,0.5,0.5,1\n");
        final Exception ex = assertThrows(IllegalArgumentException.class,
            () -> command.run(new String[] {"--from", results.toString(), "--dry-run"}));
        assertTrue(ex.getMessage().contains("no collective with named algorithms"), ex.getMessage());
    }

    private static String text(final ByteArrayOutputStream bytes)
    {
        return bytes.toString(StandardCharsets.UTF_8);
    }
}
