package io.jccl.it;

import io.jccl.launch.JobResult;
import io.jccl.spi.StreamingCopy;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * Calls beyond {@code jccl.split.bytes}: a broadcast, reduce or allreduce runs as calls on parts of its vector, each at
 * most that size, and the last part holds the rest; a single-copy call whose heap copy for peers would be larger is
 * declined (so says the flight record) and runs staged; calls of that size or less run whole. 2 JVMs with a split of 4
 * MiB, no pace probe (so the choices are those of both paces); every result checked ({@link DeclineRank}), and every
 * rank must have started the same collectives, read from its flight record. With the JVM's default vectors and with
 * {@code -XX:MaxVectorSize=32}, where no copy streams past the caches and a heap array's parts decline too.
 */
@Timeout(120)
class SplitCallsTest
{
    private static final int MIB = 1 << 20;
    /** Floats in a part of 4 MiB. */
    private static final int PART = (4 * MIB) / Float.BYTES;

    @ParameterizedTest(name = "MaxVectorSize {0}")
    @ValueSource(strings = {"default", "32"})
    void largeCallsRunInPartsAndLargeCopiesDecline(final String vectorSize)
    {
        assumeTrue(Runtime.version().feature() >= 22, "single copy needs Java 22");
        assumeTrue(Runtime.getRuntime().availableProcessors() >= 2, "2 ranks, a core each");
        final String oddBytes = Integer.toString(8 * MIB + 12);
        final List<String> cases = List.of(
            // two whole parts and 3 floats; a heap array's 4 MiB copies lie beyond the window of declines, where they
            // stream past the caches
            "allreduce:" + oddBytes + ":heap",
            "allreduce:" + oddBytes + ":inplace",
            // the average divides the whole vector once its parts are summed
            "avg:" + oddBytes + ":direct",
            "broadcast:" + 9 * MIB + ":direct",
            // only the root passes a receive buffer; parts of 4 MiB go single copy (a 2-rank reduce's heap copy goes
            // ahead), the last, smaller, binomial
            "reduce:" + (9 * MIB + 4) + ":heap",
            // no larger than a part: whole
            "allreduce:" + 4 * MIB + ":heap",
            // blocks do not lie in one range: copies of 8 MiB decline, direct buffers need no copy
            "alltoall:" + 8 * MIB + ":heap",
            "alltoall:" + 8 * MIB + ":direct",
            "allgather:" + 16 * MIB + ":heap",
            "reduce_scatter:" + 8 * MIB + ":heap");
        final List<String> jvmArgs = new ArrayList<>(List.of("-Xmx512m", "-XX:+UseSerialGC",
            "-XX:TieredStopAtLevel=1"));
        if (!vectorSize.equals("default"))
        {
            jvmArgs.add("-XX:MaxVectorSize=" + vectorSize);
        }
        final JobResult result = Jobs.launch(2, DeclineRank.class, cases,
            List.of("JCCL_SPLIT_BYTES=4m", "JCCL_PACE_PROBE_BYTES=0"), jvmArgs, Duration.ofSeconds(90));
        Jobs.assertSucceeded(result);
        final List<String> parts = lines(result, 0, "PARTS ");
        assertEquals(lines(result, 1, "PARTS "), parts, "rank 1 against rank 0");
        // a heap array's part of 4 MiB: its copy goes ahead where it streams past the caches, else it declines
        final String copiedPart = vectorSize.equals("default") && StreamingCopy.available() ?
            PART + ":shm_single_copy" : PART + ":shm_single_copy:declined " + PART + ":shm_twoshot";
        assertEquals(List.of(
            "PARTS allreduce " + oddBytes + " heap " + copiedPart + " " + copiedPart + " 3:shm_ll",
            "PARTS allreduce " + oddBytes + " inplace " + copiedPart + " " + copiedPart + " 3:shm_ll",
            "PARTS avg " + oddBytes + " direct " + PART + ":shm_single_copy " + PART + ":shm_single_copy 3:shm_ll",
            "PARTS broadcast " + 9 * MIB + " direct " + PART + ":binomial " + PART + ":binomial " + MIB / 4 +
                ":binomial",
            "PARTS reduce " + (9 * MIB + 4) + " heap " + PART + ":shm_single_copy " + PART + ":shm_single_copy " +
                (MIB / 4 + 1) + ":binomial",
            "PARTS allreduce " + 4 * MIB + " heap " + copiedPart,
            "PARTS alltoall " + 8 * MIB + " heap " + MIB + ":shm_single_copy:declined " + MIB + ":shm_direct",
            "PARTS alltoall " + 8 * MIB + " direct " + MIB + ":shm_single_copy",
            "PARTS allgather " + 16 * MIB + " heap " + 2 * MIB + ":shm_single_copy:declined " + 2 * MIB +
                ":shm_direct",
            "PARTS reduce_scatter " + 8 * MIB + " heap " + MIB + ":shm_single_copy:declined " + MIB + ":shm_direct"),
            parts);
    }

    @Test
    void aSplitBelowTheMinimumIsRefused()
    {
        final JobResult result = Jobs.launch(2, DeclineRank.class, List.of(), List.of("JCCL_SPLIT_BYTES=1000"));
        assertFalse(result.succeeded(), () -> Jobs.allOutput(result));
        assertTrue(Jobs.allOutput(result).contains(
            "setting jccl.split.bytes (JCCL_SPLIT_BYTES) = 1000: at least 1048576 bytes, or 0 to run every call whole"),
            () -> Jobs.allOutput(result));
    }

    private static List<String> lines(final JobResult result, final int rank, final String prefix)
    {
        return new ArrayList<>(result.output(rank).stream().filter(l -> l.startsWith(prefix)).toList());
    }
}
