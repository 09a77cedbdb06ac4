package io.jccl.it;

import io.jccl.launch.JobResult;
import io.jccl.spi.StreamingCopy;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/** Point-to-point between real rank JVMs started by the launcher. */
@Timeout(120)
class PointToPointTest
{
    @ParameterizedTest(name = "{0} on {1} ranks")
    @CsvSource({
        "small, 2", "small, 4",
        "large, 2", "large, 4",
        "tags, 2", "tags, 3",
        "nonblocking, 2", "nonblocking, 4",
        "buffers, 2", "buffers, 4",
        "badargs, 2", "badargs, 4"})
    void scenario(final String scenario, final int ranks)
    {
        final JobResult result = Jobs.launch(ranks, P2pRank.class, List.of(scenario),
            List.of("JCCL_RING_BYTES=1m"));
        Jobs.assertEveryRankFinished(result, scenario);
        assertFalse(Files.exists(Jobs.segment(result)), "segment left behind");
    }

    /** Streams of small messages through a 4 KiB ring, every byte checked ({@code P2pRank.stream}). */
    @ParameterizedTest(name = "stream of small messages on {0} ranks")
    @ValueSource(ints = {2, 4})
    void streamOfSmallMessages(final int ranks)
    {
        final JobResult result = Jobs.launch(ranks, P2pRank.class, List.of("stream"), List.of("JCCL_RING_BYTES=4k"));
        Jobs.assertEveryRankFinished(result, "stream");
    }

    /**
     * Single-copy (rendezvous) messages from off-heap buffers: every path of {@code P2pRank.singleCopy}, with the
     * log proving single copy was on (on Java 22 or newer) from the threshold set or by default, or off (turned off:
     * the same scenario on the ring). By default it starts at 32 KiB, or 256 KiB when ranks outnumber cores.
     */
    @ParameterizedTest(name = "single copy {1} on {0} ranks")
    @CsvSource({"2, on", "3, on", "4, on", "4, default", "2, off"})
    void singleCopy(final int ranks, final String mode)
    {
        final List<String> env = new ArrayList<>(List.of("JCCL_RING_BYTES=1m", "JCCL_DEBUG=INFO",
            "JCCL_DEBUG_SUBSYS=INIT"));
        if (!"default".equals(mode))
        {
            env.add("JCCL_SINGLE_COPY_BYTES=" + ("on".equals(mode) ? "262144" : "0"));
        }
        final String from = "on".equals(mode) || ranks > Runtime.getRuntime().availableProcessors() ? "256 KiB" :
            "32 KiB";
        final JobResult result = Jobs.launch(ranks, P2pRank.class, List.of("singlecopy"), env);
        Jobs.assertSucceeded(result);
        for (int r = 0; r < ranks; r++)
        {
            final int rank = r;
            assertTrue(result.output(r).stream().anyMatch(l -> l.contains("OK singlecopy rank " + rank)),
                () -> "rank " + rank + " did not finish: " + result.output(rank));
            // single copy needs Java 22 (the rank JVMs run the JDK this test runs on); without it the ring serves
            final String joined = "off".equals(mode) ? "single copy off" :
                Runtime.version().feature() >= 22 ? "single copy on from " + from : "single copy unavailable";
            assertTrue(result.output(r).stream().anyMatch(l -> l.contains(joined)),
                () -> "rank " + rank + " does not say '" + joined + "': " + result.output(rank));
        }
        assertFalse(Files.exists(Jobs.segment(result)), "segment left behind");
    }

    /**
     * While ranks outnumber cores, two ranks beside idle ones send as ranks with a core each: their 64 KiB messages go
     * single copy ({@code P2pRank.idlePair}; the trace names each single-copy send), every byte right, and the idle
     * ranks' wait ends in the barrier that ends the job.
     */
    @Test
    void ranksBesideIdleOnesSendSingleCopy()
    {
        assumeTrue(Runtime.getRuntime().availableProcessors() < 4, "4 ranks do not outnumber the cores here");
        assumeTrue(Runtime.version().feature() >= 22, "single copy needs Java 22");
        final JobResult result = Jobs.launch(4, P2pRank.class, List.of("idlepair"),
            List.of("JCCL_DEBUG=TRACE", "JCCL_DEBUG_SUBSYS=P2P"));
        Jobs.assertEveryRankFinished(result, "idlepair");
        for (int r = 0; r < 2; r++)
        {
            final int rank = r;
            final String sent = "sending 65536 bytes to rank " + (1 - r) + " single copy";
            assertTrue(result.output(r).stream().anyMatch(l -> l.contains(sent)),
                () -> "rank " + rank + " never says '" + sent + "': " + result.output(rank));
        }
    }

    /**
     * A message its receiver reduces goes through the ring below 512 KiB, where a rendezvous would make the sender
     * wait for the receiver's reduction: at 2 ranks a 64 KiB message travels single copy, a binomial reduce's
     * 128 KiB partial result does not, its 512 KiB one does ({@code P2pRank.forReduction}; the trace names each
     * single-copy send), and the root's sums are right either way. (Binomial forced: at 2 ranks the engine would
     * take single-copy reduce from 32 KiB to 512 KiB.)
     */
    @Test
    void messagesForReductionTakeTheRingBelow512KiB()
    {
        assumeTrue(Runtime.getRuntime().availableProcessors() >= 2, "2 ranks outnumber the cores here");
        assumeTrue(Runtime.version().feature() >= 22, "single copy needs Java 22");
        final JobResult result = Jobs.launch(2, P2pRank.class, List.of("forreduction"),
            List.of("JCCL_DEBUG=TRACE", "JCCL_DEBUG_SUBSYS=P2P", "JCCL_TUNING_FILE=none", "JCCL_ALGO=reduce:binomial"));
        Jobs.assertSucceeded(result);
        final List<String> sender = result.output(1);
        assertTrue(sender.stream().anyMatch(l -> l.contains("OK forreduction rank 1")),
            () -> String.join("\n", sender));
        for (final String line : List.of("sending 65536 bytes to rank 0 single copy",
            "sending 524288 bytes to rank 0 single copy"))
        {
            assertTrue(sender.stream().anyMatch(l -> l.contains(line)), () -> "no '" + line + "': " + sender);
        }
        assertFalse(sender.stream().anyMatch(l -> l.contains("sending 131072 bytes to rank 0 single copy")),
            () -> "the 128 KiB partial result went single copy: " + sender);
    }

    /**
     * The application's blocking send of a heap array of 2.5 MiB or more goes single copy out of an off-heap copy
     * while the ring to its receiver reads the slow pace, in a job of at most two ranks a core whose JVMs' large
     * copies stream past the caches ({@code P2pRank.stagedHeap}; the trace names each such send): not below 2.5 MiB,
     * not an isend, not at the fast pace, not beyond two ranks a core, not with {@code -XX:MaxVectorSize=32} (the INIT
     * log says why). Each rank reads the pace from the first 2.5 MiB it sends, the slow one with
     * {@code jccl.ring.slow.gbps} 1000000, the fast one with 0; with {@code jccl.pace.probe.bytes} 1 every other send
     * goes through the ring, which reads the pace again. The 8 MiB + 8 B messages are copied in three pieces
     * that the receiver reads while the sender copies. Every word arrives right either way.
     */
    @ParameterizedTest(name = "heap arrays' sends on {0} ranks at the {1} pace, MaxVectorSize {2}, probe bytes {3}")
    @CsvSource({"2, slow, default, default", "2, fast, default, default", "4, slow, default, default",
        "8, slow, default, default", "2, slow, 32, default", "2, slow, default, 1"})
    void heapArraysSendOutOfAnOffHeapCopyWhileTheRingReadsTheSlowPace(final int ranks, final String pace,
        final String vectorSize, final String probeBytes)
    {
        assumeTrue(Runtime.version().feature() >= 22, "single copy needs Java 22");
        final boolean narrowVectors = !vectorSize.equals("default");
        final boolean copies = pace.equals("slow") && ranks <= 2 * Runtime.getRuntime().availableProcessors() &&
            !narrowVectors && StreamingCopy.available();
        final boolean rereads = !probeBytes.equals("default");
        final List<String> jvmArgs = new ArrayList<>(List.of("-Xmx512m", "-XX:+UseSerialGC",
            "-XX:TieredStopAtLevel=1"));
        if (narrowVectors)
        {
            jvmArgs.add("-XX:MaxVectorSize=" + vectorSize);
        }
        final List<String> environment = new ArrayList<>(List.of("JCCL_DEBUG=TRACE", "JCCL_DEBUG_SUBSYS=P2P,INIT",
            "JCCL_TUNING_FILE=none", "JCCL_RING_SLOW_GBPS=" + (pace.equals("slow") ? "1000000" : "0")));
        if (rereads)
        {
            environment.add("JCCL_PACE_PROBE_BYTES=" + probeBytes);
        }
        final JobResult result = Jobs.launch(ranks, P2pRank.class, List.of("stagedheap"), environment, jvmArgs,
            Duration.ofSeconds(90));
        Jobs.assertSucceeded(result);
        final String copied = " single copy out of an off-heap copy of its heap array";
        for (int r = 0; r < ranks; r++)
        {
            final int rank = r;
            final List<String> output = result.output(r);
            assertTrue(output.stream().anyMatch(l -> l.contains("OK stagedheap rank " + rank)),
                () -> "rank " + rank + " did not finish: " + output);
            final List<String> sends = output.stream().filter(l -> l.contains(copied))
                .map(l -> l.substring(l.indexOf("sending "))).toList();
            final String to = " bytes to rank " + (r ^ 1) + copied;
            // 2.5 MiB and 8 MiB + 8 B twice each, the blocking send that meets the peer's, and rank 2k's truncated one
            final List<String> eligible = new ArrayList<>(List.of("sending 2621440" + to, "sending 2621440" + to,
                "sending 8388616" + to, "sending 8388616" + to, "sending 8388616" + to));
            if (r % 2 == 0)
            {
                eligible.add("sending 8388616" + to);
            }
            final List<String> expected = new ArrayList<>();
            for (int m = 0; copies && m < eligible.size(); m += rereads ? 2 : 1)
            {
                expected.add(eligible.get(m));
            }
            assertEquals(expected, sends, () -> "rank " + rank + ": " + output);
            if (copies)
            {
                assertTrue(output.stream().anyMatch(l -> l.contains("the slow pace from a message to rank " +
                    (rank ^ 1) + " through the ring")), () -> "rank " + rank + ": " + output);
            }
            if (narrowVectors)
            {
                assertTrue(output.stream().anyMatch(l -> l.contains("(heap arrays' sends keep the ring: this JVM's " +
                    "large copies do not stream past the caches, MaxVectorSize " + vectorSize + ", not 64)")),
                    () -> "rank " + rank + ": " + output);
            }
        }
    }

    /**
     * A collective's heap array message follows the engine's pace probe, whatever the ring reads
     * ({@code P2pRank.collectiveHeap}, {@code jccl.ring.slow.gbps} 0): a 2.5 MiB binomial broadcast's message goes
     * out of an off-heap copy when the probe reads the slow pace, through the ring when it reads the fast one.
     */
    @ParameterizedTest(name = "a collective's heap array at the {0} pace")
    @ValueSource(strings = {"slow", "fast"})
    void aCollectivesHeapArrayFollowsThePaceProbe(final String pace)
    {
        assumeTrue(Runtime.version().feature() >= 22, "single copy needs Java 22");
        assumeTrue(Runtime.getRuntime().availableProcessors() >= 2, "2 ranks outnumber the cores here");
        final JobResult result = Jobs.launch(2, P2pRank.class, List.of("collectiveheap"),
            List.of("JCCL_DEBUG=TRACE", "JCCL_DEBUG_SUBSYS=P2P", "JCCL_TUNING_FILE=none", "JCCL_RING_SLOW_GBPS=0",
                "JCCL_ALGO=broadcast:binomial", "JCCL_PACE_PROBE_BYTES=1",
                "JCCL_PACE_THRESHOLD_US=" + (pace.equals("slow") ? "0" : "1000000")),
            List.of("-Xmx512m"), Duration.ofSeconds(60));
        Jobs.assertSucceeded(result);
        final List<String> root = result.output(0);
        assertTrue(root.stream().anyMatch(l -> l.contains("OK collectiveheap rank 0")), () -> String.join("\n", root));
        final boolean copies = pace.equals("slow") && StreamingCopy.available();
        assertEquals(copies, root.stream().anyMatch(l -> l.contains("sending 2621440 bytes to rank 1 single copy " +
            "out of an off-heap copy of its heap array")), () -> String.join("\n", root));
    }

    /** The receiver of a stream of single-copy messages is killed: the sender names it within 2 s. */
    @Test
    void killedReceiverOfSingleCopyIsNamed()
    {
        final JobResult result = Jobs.launch(2, P2pRank.class, List.of("killcopy"), List.of());
        assertFalse(result.succeeded());
        assertEquals(128 + 9, result.exitCode(1), () -> String.join("\n", result.summary()));
        final Matcher m = result.output(0).stream().map(Pattern.compile("DETECTED peer=(\\d+) ms=(\\d+) " +
            "message=(.*)")::matcher).filter(Matcher::find).findFirst()
            .orElseThrow(() -> new AssertionError("rank 0 did not report the failure: " + result.output(0)));
        assertEquals(1, Integer.parseInt(m.group(1)), m.group(3));
        assertTrue(Long.parseLong(m.group(2)) < 2000, "rank 0 took " + m.group(2) + " ms");
        assertTrue(m.group(3).contains("rank 1") && m.group(3).contains("send #"), m.group(3));
        assertFalse(Files.exists(Jobs.segment(result)), "segment left behind");
    }

    /** kill -9 of one rank of four: every survivor names it within 2 s; the job fails; nothing stays in /dev/shm. */
    @ParameterizedTest(name = "kill -9 rank {0} of 4")
    @CsvSource({"3", "0", "1"})
    void killedRankIsNamedBySurvivors(final int victim)
    {
        final JobResult result = Jobs.launch(4, P2pRank.class, List.of("kill", Integer.toString(victim)),
            List.of());
        final long endMs = System.currentTimeMillis();
        assertFalse(result.succeeded());
        assertEquals(128 + 9, result.exitCode(victim), () -> String.join("\n", result.summary()));
        assertTrue(String.join("\n", result.summary()).contains("rank " + victim),
            () -> "summary does not name rank " + victim + ": " + result.summary());
        final Pattern detected = Pattern.compile("DETECTED peer=(\\d+) ms=(\\d+) message=(.*)");
        for (int r = 0; r < 4; r++)
        {
            if (r == victim)
            {
                continue;
            }
            final int rank = r;
            final Matcher m = result.output(r).stream().map(detected::matcher).filter(Matcher::find).findFirst()
                .orElseThrow(() -> new AssertionError("rank " + rank + " did not report the failure: " +
                result.output(rank)));
            assertEquals(victim, Integer.parseInt(m.group(1)), m.group(3));
            assertTrue(Long.parseLong(m.group(2)) < 2000, "rank " + r + " took " + m.group(2) + " ms");
            assertTrue(m.group(3).contains("rank " + victim) && m.group(3).contains("recv #"), m.group(3));
        }
        assertFalse(Files.exists(Jobs.segment(result)), "segment left behind");
        final long killedAtMs = result.output(victim).stream().filter(l -> l.startsWith("KILLING at="))
            .mapToLong(l -> Long.parseLong(l.substring("KILLING at=".length()))).findFirst()
            .orElseThrow(() -> new AssertionError("victim did not announce its kill: " + result.output(victim)));
        assertTrue(endMs - killedAtMs < 5000, "job ended " + (endMs - killedAtMs) + " ms after the kill");
    }

    /** SIGSTOP of one rank: alive but stuck; the survivors name it within 2 s and the job ends. */
    @Test
    void stoppedRankIsNamedBySurvivors()
    {
        final int victim = 2;
        final JobResult result = Jobs.launch(4, P2pRank.class, List.of("stop", Integer.toString(victim)),
            List.of());
        assertFalse(result.succeeded());
        final Pattern detected = Pattern.compile("DETECTED peer=(\\d+) ms=(\\d+) message=(.*)");
        for (int r = 0; r < 4; r++)
        {
            if (r == victim)
            {
                continue;
            }
            final int rank = r;
            final Matcher m = result.output(r).stream().map(detected::matcher).filter(Matcher::find).findFirst()
                .orElseThrow(() -> new AssertionError("rank " + rank + " did not report the stopped rank: " +
                result.output(rank)));
            assertEquals(victim, Integer.parseInt(m.group(1)), m.group(3));
            assertTrue(Long.parseLong(m.group(2)) < 2000, "rank " + r + " took " + m.group(2) + " ms");
            assertTrue(m.group(3).contains("stopped"), m.group(3));
        }
        assertFalse(Files.exists(Jobs.segment(result)), "segment left behind");
    }

    /** A segment directory too small for the job: a clear error naming the size and the settings, no SIGBUS. */
    @Test
    void tooSmallShmGivesClearError() throws Exception
    {
        final Path dir = Files.createTempDirectory("jccl-small-shm");
        final boolean mounted = new ProcessBuilder("mount", "-t", "tmpfs", "-o", "size=2m", "tmpfs", dir.toString())
            .inheritIO().start().waitFor() == 0;
        org.junit.jupiter.api.Assumptions.assumeTrue(mounted, "needs root to mount a small tmpfs");
        try
        {
            final JobResult result = Jobs.launch(2, P2pRank.class, List.of("small"),
                List.of("JCCL_SHM_DIR=" + dir, "JCCL_RING_BYTES=4m"));
            assertFalse(result.succeeded());
            final String rank0 = String.join("\n", result.output(0));
            assertTrue(rank0.contains("needs") && rank0.contains("MiB") && rank0.contains("JCCL_RING_BYTES") &&
                rank0.contains("JCCL_SHM_DIR"), rank0);
            assertFalse(rank0.contains("SIGBUS"), rank0);
            try (var files = Files.list(dir))
            {
                assertTrue(files.findAny().isEmpty(), "files left in the small tmpfs");
            }
        }
        finally
        {
            new ProcessBuilder("umount", dir.toString()).inheritIO().start().waitFor();
            Files.deleteIfExists(dir);
        }
    }

}
