package io.jccl.it;

import io.jccl.Collective;
import io.jccl.algorithms.AlgorithmRegistry;
import io.jccl.algorithms.TunedSelection;
import io.jccl.model.ModelParameters;
import io.jccl.model.TuningTable;
import io.jccl.model.TuningTable.Rule;
import io.jccl.launch.JobResult;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The engine's choices follow the tuning file (and the model where it says nothing), in real rank JVMs. */
@Timeout(180)
class TuningFileTest
{
    private static final long STAGING = 4L << 20;

    /** A distinctive algorithm per size range at 3 ranks, and rules for 2 ranks that 3 ranks must ignore. */
    private static final TuningTable FILE = new TuningTable(ModelParameters.shipped(), Map.of("source", "test"),
        List.of(
            new Rule(Collective.ALLREDUCE, 3, 0, 256, "recursive_doubling", 0),
            new Rule(Collective.ALLREDUCE, 3, 256, 8192, "ring", 1024),
            new Rule(Collective.ALLREDUCE, 3, 8192, 65536, "rabenseifner", 0),
            new Rule(Collective.ALLREDUCE, 3, 65536, Long.MAX_VALUE, "reduce_broadcast", 0),
            new Rule(Collective.BROADCAST, 3, 0, 1024, "chain", 0),
            new Rule(Collective.BROADCAST, 3, 1024, Long.MAX_VALUE, "scatter_allgather", 0),
            new Rule(Collective.ALLGATHER, 2, 0, Long.MAX_VALUE, "bruck", 0)));

    private static final List<String> CALLS = List.of("allreduce:12", "allreduce:252", "allreduce:256",
        "allreduce:4096", "allreduce:8188", "allreduce:8192", "allreduce:65532", "allreduce:65536",
        "allreduce:262144", "broadcast:64", "broadcast:1020", "broadcast:1024", "broadcast:100000",
        "allgather:1536", "allgather:3145728");

    @TempDir
    Path directory;

    @Test
    void everyCallRunsTheFilesAlgorithmAndTheModelsWhereTheFileSaysNothing() throws IOException
    {
        final Path file = directory.resolve("tuning.json");
        FILE.write(file);
        final JobResult result = Jobs.launch(3, TuningRank.class, CALLS, List.of("JCCL_TUNING_FILE=" + file));
        final Map<String, String> expected = expected(FILE, 3, null);
        // the file's own ranges, spelled out, so that a wrong expectation cannot pass unnoticed
        assertEquals(List.of("recursive_doubling", "recursive_doubling", "ring", "ring", "ring", "rabenseifner",
            "rabenseifner", "reduce_broadcast", "reduce_broadcast", "chain", "chain", "scatter_allgather",
            "scatter_allgather"), new ArrayList<>(expected.values()).subList(0, 13));
        assertRan(result, 3, expected);
    }

    @Test
    void forcingWinsOverTheFile() throws IOException
    {
        final Path file = directory.resolve("tuning.json");
        FILE.write(file);
        final JobResult result = Jobs.launch(3, TuningRank.class, CALLS,
            List.of("JCCL_TUNING_FILE=" + file, "JCCL_ALGO=allreduce:recursive_doubling"));
        final Map<String, String> expected = expected(FILE, 3, "recursive_doubling");
        assertEquals("scatter_allgather", expected.get("broadcast:100000"), "the file still rules broadcast");
        assertRan(result, 3, expected);
    }

    @Test
    void aSubCommunicatorChoosesAtItsOwnSize() throws IOException
    {
        final Path file = directory.resolve("tuning.json");
        FILE.write(file);
        // 4 ranks split into two pairs: the pairs use the file's 2-rank rules (Bruck allgather), and the model
        // with the file's parameters where it has none for 2 ranks
        final List<String> calls = List.of("allgather:1536", "allgather:65536", "allreduce:4096");
        final List<String> args = new ArrayList<>(List.of("split"));
        args.addAll(calls);
        final JobResult result = Jobs.launch(4, TuningRank.class, args, List.of("JCCL_TUNING_FILE=" + file));
        Jobs.assertSucceeded(result);
        final TunedSelection pair = TunedSelection.of(FILE, 2, AlgorithmRegistry.instance(), STAGING);
        final String allreduce = pair.choose(Collective.ALLREDUCE, 4096).name();
        assertFalse(allreduce.equals("ring") || allreduce.equals("rabenseifner"), "not the 3-rank rules: " + allreduce);
        for (int r = 0; r < 4; r++)
        {
            assertEquals(List.of("RAN allgather 1536 bruck", "RAN allgather 65536 bruck", "RAN allreduce 4096 " +
                allreduce), result.output(r).stream().filter(l -> l.startsWith("RAN ")).toList(), "rank " + r);
        }
    }

    @Test
    void withoutAFileTheShippedModelChooses()
    {
        // Single copy off: with it, large broadcasts and allgathers take their point-to-point algorithm before the
        // model is asked; and at 2 ranks broadcasts above 512 B are binomial and allreduces from 2 KiB to below 8 KiB
        // are recursive doubling (TunedSelectionTest covers these rules).
        final JobResult result = Jobs.launch(2, TuningRank.class, CALLS,
            List.of("JCCL_TUNING_FILE=none", "JCCL_SINGLE_COPY_BYTES=0"));
        final Map<String, String> expected = expected(TuningTable.shipped(), 2, null);
        expected.replaceAll(TuningFileTest::pairRules);
        assertRan(result, 2, expected);
    }

    /** The 2-rank rules' choice for {@code call} ("allreduce:4096"), else the model's {@code algorithm}. */
    private static String pairRules(final String call, final String algorithm)
    {
        final String[] parts = call.split(":");
        final long bytes = Long.parseLong(parts[1]);
        return switch (parts[0])
        {
            case "broadcast" -> bytes > 512 ? "binomial" : algorithm;
            case "allreduce" -> bytes >= 2048 && bytes < 8192 ? "recursive_doubling" : algorithm;
            default -> algorithm;
        };
    }

    @Test
    void aBrokenFileStopsTheRankWithItsName() throws IOException
    {
        final Path file = directory.resolve("broken.json");
        Files.writeString(file, "{\"format\": \"jccl-tuning 9\"}");
        final JobResult result = Jobs.launch(2, TuningRank.class, List.of("allreduce:8"),
            List.of("JCCL_TUNING_FILE=" + file));
        assertFalse(result.succeeded());
        final String output = Jobs.allOutput(result);
        assertTrue(output.contains(file.toString()) && output.contains("jccl-tuning 9"), output);
    }

    /** What each call must run: the forced allreduce algorithm, else the tuned choice (all test calls have one). */
    private static Map<String, String> expected(final TuningTable table, final int ranks, final String forcedAllreduce)
    {
        final TunedSelection selection = TunedSelection.of(table, ranks, AlgorithmRegistry.instance(), STAGING);
        final Map<String, String> expected = new LinkedHashMap<>();
        for (final String call : CALLS)
        {
            final Collective collective = Collective.parse(call.substring(0, call.indexOf(':')));
            final long bytes = Long.parseLong(call.substring(call.indexOf(':') + 1));
            expected.put(call, forcedAllreduce != null && collective == Collective.ALLREDUCE ? forcedAllreduce :
                selection.choose(collective, bytes).name());
        }
        return expected;
    }

    private static void assertRan(final JobResult result, final int ranks, final Map<String, String> expected)
    {
        Jobs.assertSucceeded(result);
        for (int r = 0; r < ranks; r++)
        {
            final List<String> ran = result.output(r).stream().filter(l -> l.startsWith("RAN ")).toList();
            final List<String> wanted = new ArrayList<>();
            expected.forEach((call, algorithm) -> wanted.add("RAN " + call.replace(':', ' ') + " " + algorithm));
            assertEquals(wanted, ran, "rank " + r);
        }
    }
}
