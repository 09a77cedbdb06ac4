package io.jccl.it;

import io.jccl.Collective;
import io.jccl.engine.PaceProbe;
import io.jccl.launch.JobResult;
import io.jccl.model.ModelParameters;
import io.jccl.model.Pace;
import io.jccl.model.TuningTable;
import io.jccl.model.TuningTable.PaceSplit;
import io.jccl.model.TuningTable.Rule;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * A tuning file that parts its choices by the machine's pace, in real rank JVMs: every rank probes at the same call,
 * chooses by the pace rank 0 measured, and so runs the same algorithm as every other rank at every call, whichever
 * pace each probe reads; before the first probe the choices for both paces hold. And without a tuning file, the
 * single-copy rule, which gives way at the fast pace.
 */
@Timeout(240)
class PaceProbeTest
{
    /** Allreduces of this size; a probe every {@link #PROBE_EVERY} of them. */
    private static final int BYTES = 16 * 1024;
    private static final int PROBE_EVERY = 4;

    @TempDir
    Path directory;

    /** Distinct allreduce algorithms for both paces, the fast one and the slow one, at {@code ranks}. */
    private static TuningTable file(final int ranks)
    {
        return new TuningTable(ModelParameters.shipped(), Map.of("source", "test"), List.of(
            new Rule(Collective.ALLREDUCE, ranks, 0, Long.MAX_VALUE, "recursive_doubling", 0),
            new Rule(Collective.ALLREDUCE, ranks, 0, Long.MAX_VALUE, "ring", 0, Pace.FAST),
            new Rule(Collective.ALLREDUCE, ranks, 0, Long.MAX_VALUE, "reduce_broadcast", 0, Pace.SLOW)),
            List.of(new PaceSplit(ranks, 60, 27, 130)));
    }

    @Test
    void aProbeThatReadsFastSwitchesEveryRankToTheFastChoices() throws IOException
    {
        final List<String> ran = ranEverywhere(launch(2, 12, "1e9", false), 2);
        assertEquals(expected(12, "ring", "fast"), ran);
    }

    @Test
    void aProbeThatReadsSlowSwitchesEveryRankToTheSlowChoices() throws IOException
    {
        final List<String> ran = ranEverywhere(launch(2, 12, "0", false), 2);
        assertEquals(expected(12, "reduce_broadcast", "slow"), ran);
    }

    /**
     * A threshold at the median of rank 0's own probes makes the pace flip from probe to probe; every rank must still
     * run the same algorithm at every call, 4 ranks on 2 cores included, on the world and on a duplicate of it. The
     * first job judges every probe slow; each next one takes the median of the probes of the one before, run with the
     * same calls (what ran before a probe moves its time: calibrated on other calls, every probe of a CI run read
     * above the threshold), until one job has run at both paces. Up to eight jobs: where the machine's own pace
     * changes between jobs, the median of one job's probes can lie beyond all of the next one's (a CI run of
     * 2026-12-04, 4 ranks: thresholds 0, 53.8, 178.7 and 66.4 µs, each job all at one pace).
     */
    @Test
    void whenThePaceFlipsEveryRankStillRunsTheSameAlgorithm() throws IOException
    {
        for (final int ranks : new int[] {2, 4})
        {
            String threshold = "0";
            boolean flipped = false;
            for (int job = 0; job < 8 && !flipped; job++)
            {
                final JobResult result = launch(ranks, 80, threshold, true);
                final List<String> ran = ranEverywhere(result, ranks);
                assertEquals(160, ran.size());
                int fast = 0;
                int slow = 0;
                for (final String line : ran)
                {
                    final String[] parts = line.split(" ");
                    final String pace = parts[parts.length - 1];
                    final String algorithm = parts[parts.length - 2];
                    assertEquals(switch (pace)
                    {
                        case "fast" -> "ring";
                        case "slow" -> "reduce_broadcast";
                        default -> "recursive_doubling";
                    }, algorithm, line);
                    fast += pace.equals("fast") ? 1 : 0;
                    slow += pace.equals("slow") ? 1 : 0;
                }
                System.out.printf("%d ranks, threshold %s µs: %d calls at the fast pace, %d at the slow one%n",
                    ranks, threshold, fast, slow);
                flipped = fast > 0 && slow > 0;
                final double[] probes = result.output(0).stream().filter(l -> l.startsWith("PROBE "))
                    .mapToDouble(l -> Double.parseDouble(l.substring(6))).sorted().toArray();
                assertEquals(2 * 80 / PROBE_EVERY, probes.length, "a probe every " + PROBE_EVERY + " calls");
                threshold = Double.toString(probes[probes.length / 2]);
            }
            assertTrue(flipped, ranks + " ranks: no job ran at both paces");
        }
    }

    /**
     * Non-blocking calls run on the progress thread's duplicate of the world, which probes the pace itself, with its
     * own warm-up, at the calls it counts: at 2 ranks and at 4 on 2 cores, every result is right (ranks that probed
     * at different calls, or chose by different paces, would hang or fail) and rank 0 logs the pace the duplicate's
     * first probe read, so the probes ran there.
     */
    @Test
    void nonBlockingCallsProbeThePaceOnTheProgressThread() throws IOException
    {
        for (final int ranks : new int[] {2, 4})
        {
            for (final String pace : new String[] {"fast", "slow"})
            {
                final JobResult result = launch(ranks, 24, pace.equals("fast") ? "1e9" : "0", "nonblocking",
                    List.of("JCCL_DEBUG=INFO", "JCCL_DEBUG_SUBSYS=COLL"));
                Jobs.assertSucceeded(result);
                for (int r = 0; r < ranks; r++)
                {
                    assertEquals(24, result.output(r).stream().filter(l -> l.startsWith("NB ")).count(), "rank " + r);
                }
                final String logged = "the " + pace + " pace from probe 1 (";
                assertTrue(result.output(0).stream().anyMatch(l -> l.contains(logged)),
                    ranks + " ranks: no '" + logged + "' in rank 0's output:\n" + Jobs.allOutput(result));
            }
        }
    }

    /**
     * Without a tuning file, at 2 ranks with single copy, the single-copy rule follows the pace: two-shot at the fast
     * pace, single copy at the slow one and before the first probe, on every rank alike. A threshold makes the probe
     * read one pace (every probe fast at 1e9 µs, slow at 0); without one, rank 0 compares the staged allgather with
     * single copy, and the calls follow whichever pace each probe read.
     */
    @Test
    void withoutATuningFileSingleCopyGivesWayToTwoShotAtTheFastPace() throws IOException
    {
        assumeTrue(Runtime.version().feature() >= 22, "single copy needs Java 22");
        assertEquals(expected(12, "shm_single_copy", "shm_twoshot", "fast"),
            ranEverywhere(launchShipped(12, "1e9"), 2));
        assertEquals(expected(12, "shm_single_copy", "shm_single_copy", "slow"),
            ranEverywhere(launchShipped(12, "0"), 2));
        final JobResult compared = launchShipped(40, null);
        final List<String> ran = ranEverywhere(compared, 2);
        for (final String line : ran)
        {
            final String pace = line.substring(line.lastIndexOf(' ') + 1);
            assertTrue(line.endsWith((pace.equals("fast") ? "shm_twoshot " : "shm_single_copy ") + pace), line);
        }
        assertEquals(40 / PROBE_EVERY, compared.output(0).stream().filter(l -> l.startsWith("PROBE ")).count());
        final String logged = "a " + PaceProbe.COMPARISON_BYTES + "-byte allgather staged and single copy";
        assertTrue(compared.output(0).stream().anyMatch(l -> l.contains(logged)),
            "no '" + logged + "' in rank 0's output:\n" + Jobs.allOutput(compared));
        // a forced algorithm does not depend on the pace: no probe
        final JobResult forced = launchShipped(12, null, "JCCL_ALGO=allreduce:ring");
        assertEquals(expected(12, "ring", "ring", "-"), ranEverywhere(forced, 2));
        assertEquals(0, forced.output(0).stream().filter(l -> l.startsWith("PROBE ")).count());
    }

    /**
     * {@link io.jccl.engine.ShmCommunicator#probePace} probes at once, on every rank: the first calls already choose at
     * the pace it read, and the next probe comes a full budget later.
     */
    @Test
    void probePaceProbesBeforeTheFirstCall() throws IOException
    {
        assumeTrue(Runtime.version().feature() >= 22, "single copy needs Java 22");
        final JobResult fast = launchShipped(2, 12, "1e9", BYTES, "probe-first");
        final List<String> expected = new ArrayList<>();
        for (int call = 0; call < 12; call++)
        {
            expected.add("RAN " + call + " shm_twoshot fast");
        }
        assertEquals(expected, ranEverywhere(fast, 2));
        for (int rank = 0; rank < 2; rank++)
        {
            assertTrue(fast.output(rank).contains("PROBED true"), Jobs.allOutput(fast));
        }
        assertEquals(1 + 12 / PROBE_EVERY, fast.output(0).stream().filter(l -> l.startsWith("PROBE ")).count());
        // one rank has no probe to run
        final JobResult alone = launchShipped(1, 4, null, BYTES, "probe-first");
        Jobs.assertSucceeded(alone);
        assertTrue(alone.output(0).contains("PROBED false"), Jobs.allOutput(alone));
    }

    /**
     * Without a tuning file, allreduces of the band around {@link PaceProbe#BAND_BYTES} follow the probe's band
     * comparison at the fast pace: single copy where it read single copy faster there, two-shot where not, and single
     * copy at the slow pace, on every rank alike, whichever the probes read.
     */
    @Test
    void withoutATuningFileTheBandFollowsItsOwnComparisonAtTheFastPace() throws IOException
    {
        assumeTrue(Runtime.version().feature() >= 22, "single copy needs Java 22");
        assertTrue(PaceProbe.inBand(Collective.ALLREDUCE, PaceProbe.BAND_MIN_BYTES));
        assertFalse(PaceProbe.inBand(Collective.ALLREDUCE, PaceProbe.BAND_MIN_BYTES - 1));
        assertFalse(PaceProbe.inBand(Collective.ALLREDUCE, PaceProbe.BAND_END_BYTES));
        assertFalse(PaceProbe.inBand(Collective.BROADCAST, PaceProbe.BAND_BYTES));
        final int bytes = PaceProbe.BAND_BYTES;
        final List<String> ran = ranEverywhere(launchShipped(40, null, bytes), 2);
        for (final String line : ran.subList(PROBE_EVERY - 1, ran.size()))
        {
            final boolean twoShot = line.endsWith(" fast");
            assertTrue(line.endsWith(" slow") || line.endsWith(" fast band") || twoShot, line);
            assertTrue(line.contains(twoShot ? " shm_twoshot " : " shm_single_copy "), line);
        }
    }

    /**
     * Without a tuning file, allreduces from {@link PaceProbe#LARGE_MIN_BYTES} follow the probe's large calls'
     * comparison: at the fast pace single copy where it read single copy well ahead there, two-shot where not, and
     * single copy at the slow pace, on every rank alike, whichever the probes read. Where single copy runs them and
     * the comparison put them between the paces, direct buffers' allreduces of 768 KiB take the single-copy two-shot,
     * a heap array's copy for its peers declines the call into two-shot at every size (384 KiB, whose copy the slow
     * pace keeps elsewhere: below the window of declines from 512 KiB), and heap arrays' sends keep the ring.
     */
    @Test
    void withoutATuningFileLargeCallsFollowTheirOwnComparison() throws IOException
    {
        assumeTrue(Runtime.version().feature() >= 22, "single copy needs Java 22");
        assertTrue(PaceProbe.inLarge(Collective.ALLREDUCE, PaceProbe.LARGE_MIN_BYTES));
        assertTrue(PaceProbe.inLarge(Collective.BROADCAST, 64L << 20));
        assertFalse(PaceProbe.inLarge(Collective.ALLREDUCE, PaceProbe.LARGE_MIN_BYTES - 1));
        assertFalse(PaceProbe.inLarge(Collective.REDUCE, PaceProbe.LARGE_BYTES));
        final List<String> direct = ranEverywhere(launchShipped(2, 40, null, 768 * 1024, "direct"), 2);
        final List<String> heap = ranEverywhere(launchShipped(2, 40, null, 384 * 1024, null), 2);
        for (final String line : direct.subList(PROBE_EVERY - 1, direct.size()))
        {
            final boolean twoShot = line.endsWith(" fast");
            final boolean between = line.endsWith(" between");
            assertFalse(line.endsWith(" copies"), line);
            assertTrue(line.contains(" slow") || line.contains(" fast large") || twoShot, line);
            assertTrue(line.contains(twoShot ? " shm_twoshot " : between ? " shm_single_copy_twoshot " :
                " shm_single_copy "), line);
        }
        for (final String line : heap.subList(PROBE_EVERY - 1, heap.size()))
        {
            final boolean singleCopy = (line.contains(" slow") || line.contains(" fast large")) &&
                !line.endsWith(" between");
            assertFalse(line.endsWith(" copies"), line);
            assertTrue(line.contains(" slow") || line.contains(" fast"), line);
            assertTrue(line.contains(singleCopy ? " shm_single_copy " : " shm_twoshot "), line);
        }
    }

    /**
     * Without a tuning file, 2-rank broadcasts of 4 KiB take binomial at the fast pace and, between the paces, at the
     * slow one too ({@link PaceProbe#BETWEEN_PACES_TREE_BROADCAST_END_BYTES}); at the slow pace elsewhere
     * {@code shm_eager}, on every rank alike. Broadcasts of 128 KiB take binomial's single-copy message at the slow
     * pace and where the large calls' comparison keeps single copy at the fast one
     * ({@link PaceProbe#PAIR_LARGE_BROADCAST_MIN_BYTES}), a staged algorithm elsewhere at the fast pace.
     */
    @Test
    void withoutATuningFileTwoRankBroadcastsFollowThePacesBetweenThem() throws IOException
    {
        assumeTrue(Runtime.version().feature() >= 22, "single copy needs Java 22");
        final int bytes = 4096;
        assertTrue(bytes < PaceProbe.BETWEEN_PACES_TREE_BROADCAST_END_BYTES);
        for (final String line : ranEverywhere(launchShipped(2, 48, null, bytes, "broadcast"), 2)
            .subList(PROBE_EVERY - 1, 48))
        {
            final boolean eager = line.endsWith(" slow");
            assertTrue(eager || line.endsWith(" slow between") || line.endsWith(" fast"), line);
            assertTrue(line.contains(eager ? " shm_eager " : " binomial "), line);
        }
        final int large = 128 * 1024;
        assertTrue(large >= PaceProbe.PAIR_LARGE_BROADCAST_MIN_BYTES && large < PaceProbe.LARGE_MIN_BYTES);
        for (final String line : ranEverywhere(launchShipped(2, 24, null, large, "broadcast"), 2)
            .subList(PROBE_EVERY - 1, 24))
        {
            final boolean staged = line.endsWith(" fast");
            assertTrue(staged || line.contains(" slow") || line.endsWith(" fast large"), line);
            assertEquals(!staged, line.contains(" binomial "), line);
        }
    }

    /**
     * Without a tuning file, 2-rank reduces from {@link PaceProbe#BETWEEN_PACES_STAGED_REDUCE_MIN_BYTES} take the fast
     * pace's choice ({@code shm_direct}) at the fast pace and, between the paces, at the slow one too; at the slow
     * pace elsewhere binomial (one single-copy message), on every rank alike.
     */
    @Test
    void withoutATuningFileReducesBetweenThePacesTakeTheFastPacesChoice() throws IOException
    {
        assumeTrue(Runtime.version().feature() >= 22, "single copy needs Java 22");
        final int bytes = 3 * 1024 * 1024;
        assertTrue(bytes >= PaceProbe.BETWEEN_PACES_STAGED_REDUCE_MIN_BYTES);
        final List<String> ran = ranEverywhere(launchShipped(2, 24, null, bytes, "reduce"), 2);
        for (final String line : ran.subList(PROBE_EVERY - 1, ran.size()))
        {
            final boolean slowChoice = line.endsWith(" slow");
            assertTrue(slowChoice || line.endsWith(" slow between") || line.endsWith(" fast"), line);
            assertTrue(line.contains(slowChoice ? " binomial " : " shm_direct "), line);
        }
    }

    /**
     * Without a tuning file, at 4 ranks on 2 cores, allreduces from 512 KiB take the single-copy two-shot at the slow
     * pace alone: the staged two-shot at the fast pace and before the first probe, on every rank alike. Without a
     * threshold rank 0 compares those two allreduces, and the calls follow whichever pace each probe read. Direct
     * buffers, which single copy reads in place (float[] it would copy, and such copies of 512 KiB decline:
     * {@link SingleCopyDeclineTest}).
     */
    @Test
    void withoutATuningFileFourRanksOnTwoCoresTakeTheSingleCopyTwoShotAtTheSlowPace() throws IOException
    {
        assumeTrue(Runtime.version().feature() >= 22, "single copy needs Java 22");
        assumeTrue(Runtime.getRuntime().availableProcessors() == 2, "4 ranks, two to a core");
        final int bytes = 512 * 1024;
        assertEquals(expected(8, "shm_twoshot", "shm_twoshot", "fast"),
            ranEverywhere(launchShipped(4, 8, "1e9", bytes, "direct"), 4));
        assertEquals(expected(8, "shm_twoshot", "shm_single_copy_twoshot", "slow"),
            ranEverywhere(launchShipped(4, 8, "0", bytes, "direct"), 4));
        final JobResult compared = launchShipped(4, 24, null, bytes, "direct");
        for (final String line : ranEverywhere(compared, 4))
        {
            final String pace = line.substring(line.lastIndexOf(' ') + 1);
            assertTrue(line.endsWith((pace.equals("slow") ? "shm_single_copy_twoshot " : "shm_twoshot ") + pace),
                line);
        }
        assertEquals(24 / PROBE_EVERY, compared.output(0).stream().filter(l -> l.startsWith("PROBE ")).count());
        final String logged = "a " + PaceProbe.SHARED_CORES_COMPARISON_BYTES + "-byte allreduce shm_twoshot and " +
            "shm_single_copy_twoshot";
        assertTrue(compared.output(0).stream().anyMatch(l -> l.contains(logged)),
            "no '" + logged + "' in rank 0's output:\n" + Jobs.allOutput(compared));
    }

    /**
     * Without a tuning file, at 4 ranks on 2 cores, alltoalls and allgathers of 512 KiB (blocks of 128 KiB) take
     * single copy at the slow pace and {@code shm_direct} at the fast one, on every rank alike, where the verdict takes
     * the median of the last three comparisons ({@link PaceProbe#SHARED_CORES_FAST_RATIO}), but single copy at a fast
     * verdict between the paces ({@link PaceProbe#SHARED_CORES_BETWEEN_PACES_RATIO}); and 8 MiB alltoalls of float[]
     * decline single copy's copies there, beyond the window of declined copies of the slow pace.
     */
    @Test
    void withoutATuningFileFourRanksOnTwoCoresAllgathersAndAlltoallsFollowTheMedianVerdict() throws IOException
    {
        assumeTrue(Runtime.version().feature() >= 22, "single copy needs Java 22");
        assumeTrue(Runtime.getRuntime().availableProcessors() == 2, "4 ranks, two to a core");
        for (final String collective : List.of("alltoall", "allgather"))
        {
            final JobResult direct = launchShipped(4, 24, null, 512 * 1024, collective);
            for (final String line : ranEverywhere(direct, 4).subList(PROBE_EVERY - 1, 24))
            {
                final boolean singleCopy = line.endsWith(" slow") || line.endsWith(" fast between");
                assertTrue(singleCopy || line.endsWith(" fast"), collective + ": " + line);
                assertTrue(line.contains(singleCopy ? " shm_single_copy " : " shm_direct "), collective + ": " + line);
            }
            final String logged = String.format(Locale.ROOT, "above %.2fx, between the paces, single copy for " +
                "allgathers and alltoalls from %d bytes", PaceProbe.SHARED_CORES_BETWEEN_PACES_RATIO,
                PaceProbe.SHARED_CORES_BETWEEN_PACES_MIN_BYTES);
            assertTrue(direct.output(0).stream().anyMatch(l -> l.contains(logged)),
                "no '" + logged + "' in rank 0's output:\n" + Jobs.allOutput(direct));
        }
        for (final String line : ranEverywhere(launchShipped(4, 24, null, 8 << 20, "heap-alltoall"), 4)
            .subList(PROBE_EVERY - 1, 24))
        {
            assertTrue(line.endsWith(" slow") || line.endsWith(" fast between") || line.endsWith(" fast"), line);
            // at the slow pace the copy goes ahead where the JVM's large copies stream past the caches
            assertTrue(line.endsWith(" slow") || line.contains(" shm_direct "), line);
        }
    }

    /**
     * A 2-rank job of {@link PaceRank} of {@link #BYTES} allreduces without a tuning file, with {@code env} added; a
     * null {@code threshold} leaves it unset.
     */
    private static JobResult launchShipped(final int calls, final String threshold, final String... env)
        throws IOException
    {
        return launchShipped(calls, threshold, BYTES, env);
    }

    /** The same with allreduces of {@code bytes}, a probe every {@link #PROBE_EVERY} of them. */
    private static JobResult launchShipped(final int calls, final String threshold, final int bytes,
        final String... env) throws IOException
    {
        return launchShipped(2, calls, threshold, bytes, null, env);
    }

    /** The same at {@code ranks} ranks, with {@link PaceRank}'s {@code mode} (null: none). */
    private static JobResult launchShipped(final int ranks, final int calls, final String threshold, final int bytes,
        final String mode, final String... env) throws IOException
    {
        final List<String> environment = new ArrayList<>(List.of("JCCL_PACE_PROBE_BYTES=" + PROBE_EVERY * bytes,
            "JCCL_DEBUG=INFO", "JCCL_DEBUG_SUBSYS=INIT"));
        environment.addAll(List.of(env));
        if (threshold != null)
        {
            environment.add("JCCL_PACE_THRESHOLD_US=" + threshold);
        }
        final List<String> args = new ArrayList<>(List.of(Integer.toString(calls), Integer.toString(bytes)));
        if (mode != null)
        {
            args.add(mode);
        }
        return Jobs.launch(ranks, PaceRank.class, args, environment);
    }

    private JobResult launch(final int ranks, final int calls, final String threshold, final boolean dup)
        throws IOException
    {
        return launch(ranks, calls, threshold, dup ? "dup" : null, List.of());
    }

    private JobResult launch(final int ranks, final int calls, final String threshold, final String mode,
        final List<String> env) throws IOException
    {
        final Path file = directory.resolve("tuning-" + ranks + ".json");
        file(ranks).write(file);
        final List<String> args = new ArrayList<>(List.of(Integer.toString(calls), Integer.toString(BYTES)));
        if (mode != null)
        {
            args.add(mode);
        }
        final List<String> environment = new ArrayList<>(List.of("JCCL_TUNING_FILE=" + file,
            "JCCL_PACE_PROBE_BYTES=" + PROBE_EVERY * BYTES, "JCCL_PACE_THRESHOLD_US=" + threshold));
        environment.addAll(env);
        return Jobs.launch(ranks, PaceRank.class, args, environment);
    }

    /** The RAN lines of rank 0, after checking that every rank printed the same ones. */
    private static List<String> ranEverywhere(final JobResult result, final int ranks)
    {
        Jobs.assertSucceeded(result);
        final List<String> first = ran(result, 0);
        assertFalse(first.isEmpty());
        for (int r = 1; r < ranks; r++)
        {
            assertEquals(first, ran(result, r), "rank " + r + " against rank 0");
        }
        return first;
    }

    private static List<String> ran(final JobResult result, final int rank)
    {
        return result.output(rank).stream().filter(l -> l.startsWith("RAN ")).toList();
    }

    /** Both paces' choice for the calls before the first probe, then {@code algorithm} at {@code pace}. */
    private static List<String> expected(final int calls, final String algorithm, final String pace)
    {
        return expected(calls, "recursive_doubling", algorithm, pace);
    }

    /** {@code before} for the calls before the first probe, then {@code algorithm} at {@code pace}. */
    private static List<String> expected(final int calls, final String before, final String algorithm,
        final String pace)
    {
        final List<String> lines = new ArrayList<>();
        for (int call = 0; call < calls; call++)
        {
            lines.add("RAN " + call + " " + (call < PROBE_EVERY - 1 ? before + " -" : algorithm + " " + pace));
        }
        assertTrue(lines.get(PROBE_EVERY - 1).endsWith(pace), "the call that fills the budget runs after its probe");
        return lines;
    }
}
