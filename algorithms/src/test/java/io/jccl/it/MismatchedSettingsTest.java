package io.jccl.it;

import io.jccl.Collective;
import io.jccl.launch.JobResult;
import io.jccl.model.ModelParameters;
import io.jccl.model.TuningTable;
import io.jccl.model.TuningTable.Rule;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Ranks whose settings differ where every rank must share them (they decide algorithms, parts and pace probes), or
 * whose jccl builds differ, fail to connect, every one of them, at once, naming the setting and the values, or the
 * builds; ranks that share them run. 2 JVMs, {@link SettingsRank} ({@link BuildRank} for the builds).
 */
@Timeout(120)
class MismatchedSettingsTest
{
    private static final String REFUSAL = "settings that every rank must share differ: ";

    @TempDir
    Path directory;

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', value = {
        "jccl.split.bytes | 1m | jccl.split.bytes 67108864 here, 1048576 on rank 1 | " +
            "jccl.split.bytes 1048576 here, 67108864 on rank 0",
        "jccl.chunk.bytes | 64k | jccl.chunk.bytes 0 here, 65536 on rank 1 | jccl.chunk.bytes 65536 here, 0 on rank 0",
        "jccl.staging.bytes | 8m | jccl.staging.bytes 4194304 here, 8388608 on rank 1 | " +
            "jccl.staging.bytes 8388608 here, 4194304 on rank 0",
        "jccl.algo | allreduce:ring | jccl.algo unset here, rank 1's differs | " +
            "jccl.algo 'allreduce:ring' here, rank 0's differs",
        "jccl.single.copy.bytes | 1m | jccl.single.copy.bytes unset here, rank 1's differs | " +
            "jccl.single.copy.bytes '1048576' here, rank 0's differs",
        "jccl.pace.probe.bytes | 0 | jccl.pace.probe.bytes 268435456 here, 0 on rank 1 | " +
            "jccl.pace.probe.bytes 0 here, 268435456 on rank 0",
        "jccl.pace.threshold.us | 40 | jccl.pace.threshold.us unset here, rank 1's differs | " +
            "jccl.pace.threshold.us '40.0' here, rank 0's differs"})
    void ranksThatDifferAreRefusedNamingTheSetting(final String name, final String value, final String onRank0,
        final String onRank1)
    {
        final JobResult result = Jobs.launch(2, SettingsRank.class, List.of("1:" + name + "=" + value),
            List.of("JCCL_TUNING_FILE=none"));
        assertRefused(result, onRank0, onRank1);
    }

    @Test
    void ranksWithDifferentTuningFilesAreRefused() throws IOException
    {
        final Path file = directory.resolve("tuning.json");
        new TuningTable(ModelParameters.shipped(), Map.of("source", "test"),
            List.of(new Rule(Collective.ALLREDUCE, 2, 0, Long.MAX_VALUE, "ring", 0))).write(file);
        final JobResult result = Jobs.launch(2, SettingsRank.class, List.of("1:jccl.tuning.file=" + file),
            List.of("JCCL_TUNING_FILE=none"));
        assertRefused(result, "jccl.tuning.file none here, rank 1's differs",
            "jccl.tuning.file " + file + " here, rank 0's differs");
    }

    @Test
    void ranksThatShareTheSettingsRun()
    {
        // the same values spelled differently on each rank: 1048576 and 1m; the forced choices in another order and
        // case
        final JobResult result = Jobs.launch(2, SettingsRank.class,
            List.of("0:jccl.split.bytes=1048576", "1:jccl.split.bytes=1m",
                "0:jccl.algo=allreduce:ring,barrier:shm_flags", "1:jccl.algo= Barrier:shm_flags, allreduce:RING"),
            List.of("JCCL_TUNING_FILE=none"));
        Jobs.assertSucceeded(result);
        for (int r = 0; r < 2; r++)
        {
            assertTrue(result.output(r).contains("ALLREDUCE RIGHT"), () -> Jobs.allOutput(result));
        }
    }

    @Test
    void ranksOfDifferentBuildsAreRefused()
    {
        final JobResult result = Jobs.launch(2, BuildRank.class, List.of("changed"), List.of("JCCL_TUNING_FILE=none"));
        for (int r = 0; r < 2; r++)
        {
            final List<String> refusals = result.output(r).stream().filter(l -> l.startsWith("REFUSED ")).toList();
            assertEquals(1, refusals.size(), () -> Jobs.allOutput(result));
            assertTrue(refusals.get(0).startsWith("REFUSED rank " + r + ": jccl builds differ: rank " + (1 - r) +
                " runs other jccl code than this rank's, "), () -> Jobs.allOutput(result));
            // rank 1 runs its copy, unpacked into directories
            assertTrue(refusals.get(0).contains(r == 1 ? "jccl-build" : "(digest "), () -> Jobs.allOutput(result));
        }
        assertFalse(Files.exists(Jobs.segment(result)), "segment left behind");
    }

    @Test
    void aCopyOfTheSameBuildRuns()
    {
        // the digest is of the code, not of where it lies: rank 1's directories hold what rank 0's jars or directories
        // hold
        final JobResult result = Jobs.launch(2, BuildRank.class, List.of("same"), List.of("JCCL_TUNING_FILE=none"));
        Jobs.assertSucceeded(result);
        for (int r = 0; r < 2; r++)
        {
            assertTrue(result.output(r).contains("ALLREDUCE RIGHT"), () -> Jobs.allOutput(result));
        }
    }

    private static void assertRefused(final JobResult result, final String onRank0, final String onRank1)
    {
        final String[] expected = {onRank0, onRank1};
        for (int r = 0; r < 2; r++)
        {
            final List<String> refusals = result.output(r).stream().filter(l -> l.startsWith("REFUSED ")).toList();
            assertEquals(1, refusals.size(), () -> Jobs.allOutput(result));
            assertTrue(refusals.get(0).contains("rank " + r + ": " + REFUSAL + expected[r] + ". "),
                () -> Jobs.allOutput(result));
        }
        assertFalse(Files.exists(Jobs.segment(result)), "segment left behind");
    }
}
