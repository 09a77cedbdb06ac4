package io.jccl.tools.bench;

import io.jccl.Collective;
import io.jccl.algorithms.AlgorithmRegistry;
import io.jccl.tools.Main;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code jccl bench} end to end on 2 real rank JVMs: ping-pong from 8 B to 64 KiB, every allreduce algorithm
 * checked up to 64 KiB, and symmetric buffers (--shared) read in place. Few iterations: this checks that the sweep
 * runs, agrees on its rows and computes right, not how fast anything is (the machine is shared).
 */
@Timeout(120)
class BenchSmokeTest
{
    private static final List<Long> SIZES = List.of(8L, 32L, 128L, 512L, 2048L, 8192L, 32768L);

    private final ByteArrayOutputStream out = new ByteArrayOutputStream();
    private final ByteArrayOutputStream err = new ByteArrayOutputStream();

    @Test
    void pingPongFrom8BytesTo64KiB()
    {
        final int exitCode = bench("-n", "2", "--op", "pingpong", "--max-bytes", "64k", "--format", "csv",
            "--iters", "200", "--warmup", "20");

        assertEquals(0, exitCode, errText());
        final List<String[]> rows = rows();
        assertEquals(SIZES.size(), rows.size(), outText());
        for (int i = 0; i < rows.size(); i++)
        {
            final String[] row = rows.get(i);
            assertEquals(CsvWriter.BACK_TO_BACK, row[14]);
            assertEquals("pingpong", row[0]);
            assertEquals("p2p", row[1]);
            assertEquals("2", row[2]);
            assertEquals(SIZES.get(i), Long.parseLong(row[3]));
            assertEquals("200", row[8]);
            assertEquals("", row[11], "not checked");
            assertSaneTimes(row);
            assertEquals(Long.parseLong(row[3]) / Double.parseDouble(row[5]) / 1e3, Double.parseDouble(row[9]),
                0.0015 + Double.parseDouble(row[9]) * 0.01, "algbw = bytes / one-way time");
            assertEquals(row[9], row[10], "busbw = algbw for ping-pong");
            // the probe after the row: an 8-byte pingpong, one way, of the order of the 8-byte row's
            final double probe = Double.parseDouble(row[15]);
            assertTrue(probe > 0 && probe < 1000 * Double.parseDouble(rows.get(0)[5]), "probe_us of " +
                String.join(",", row));
            // and a 512 KiB allgather through the staging areas: slower than the 8-byte probe, faster than 100 MB/s
            final double handoff = Double.parseDouble(row[16]);
            assertTrue(handoff > probe && handoff < 5_000, "handoff_us of " + String.join(",", row));
        }
    }

    @Test
    void everyAllreduceAlgorithmCheckedUpTo64KiB()
    {
        final int exitCode = bench("-n", "2", "--op", "allreduce", "--check", "--algo", "all", "--max-bytes", "64k",
            "--format", "csv", "--iters", "30", "--warmup", "3");

        assertEquals(0, exitCode, errText() + outText());
        final Set<String> algorithms = new LinkedHashSet<>();
        final List<String[]> rows = rows();
        for (final String[] row : rows)
        {
            assertEquals("allreduce", row[0]);
            algorithms.add(row[1]);
            assertEquals("float32", row[4]);
            assertEquals("0", row[11], "wrong elements of " + String.join(",", row));
            assertSaneTimes(row);
        }
        assertEquals(AlgorithmRegistry.instance().of(Collective.ALLREDUCE).keySet(), algorithms);
        // every size for every algorithm, but the low-latency protocol's, which carries at most 1 KiB per rank
        final long lowLatencySizes = SIZES.stream().filter(bytes -> bytes <= 1024).count();
        assertEquals((algorithms.size() - 1) * SIZES.size() + lowLatencySizes, rows.size(), outText());
        assertEquals(lowLatencySizes, rows.stream().filter(row -> row[1].equals("shm_ll")).count(), outText());
        // one note for the sizes it skipped, which names them and says why
        final List<String> skipNotes = errText().lines().filter(line -> line.contains("skipped")).toList();
        final List<String> skippedSizes = SIZES.stream().filter(bytes -> bytes > 1024)
            .map(BenchOptions::humanBytes).toList();
        assertEquals(1, skipNotes.size(), errText());
        assertTrue(skipNotes.get(0).startsWith(BenchSweep.NOTE_PREFIX + "allreduce shm_ll: skipped " +
            String.join(", ", skippedSizes) + ": at 2 KiB, ") &&
            skipNotes.get(0).endsWith("carries at most 1024 bytes per rank (low-latency protocol), not 2048"),
            errText());
    }

    @Test
    void sharedBuffersAreReadInPlace()
    {
        for (final String[] row : checkedRows(6, "-n", "2", "--op", "broadcast,allgather,alltoall", "--shared",
            "--min-bytes", "128k", "--max-bytes", "512k", "--iters", "20", "--warmup", "2"))
        {
            // private buffers of these sizes travel through the kernel (single copy); symmetric ones are read in place
            assertEquals("shm_direct", row[1], String.join(",", row));
        }
    }

    /**
     * With --sync every call starts after a barrier and is timed alone: a broadcast stream's calls overlap, one at a
     * time they cannot, and the rows say how they were timed. 3 ranks on 2 cores: the barriers run oversubscribed.
     */
    @Test
    void syncTimesOneCallAtATime()
    {
        for (final String[] row : checkedRows(3, "-n", "3", "--op", "broadcast,scatter,allreduce", "--sync",
            "--min-bytes", "24", "--max-bytes", "24", "--iters", "200", "--warmup", "20"))
        {
            assertEquals(CsvWriter.SYNC, row[14], String.join(",", row));
            assertEquals("200", row[8]);
        }
    }

    /**
     * Runs the bench with {@code args}, --check and CSV output, and returns its rows: {@code count} of them, each with
     * no wrong element and sane times.
     */
    private List<String[]> checkedRows(final int count, final String... args)
    {
        final String[] all = Arrays.copyOf(args, args.length + 3);
        all[args.length] = "--check";
        all[args.length + 1] = "--format";
        all[args.length + 2] = "csv";
        assertEquals(0, bench(all), errText() + outText());
        final List<String[]> rows = rows();
        assertEquals(count, rows.size(), outText());
        for (final String[] row : rows)
        {
            assertEquals("0", row[11], "wrong elements of " + String.join(",", row));
            assertSaneTimes(row);
        }
        return rows;
    }

    private static void assertSaneTimes(final String[] row)
    {
        final double avg = Double.parseDouble(row[5]);
        final double min = Double.parseDouble(row[6]);
        final double max = Double.parseDouble(row[7]);
        final String text = String.join(",", row);
        assertTrue(avg > 0 && avg < 1e6, "avg_us of " + text);
        assertTrue(min <= avg && avg <= max, "min <= avg <= max in " + text);
        assertTrue(Double.parseDouble(row[9]) >= 0 && Double.parseDouble(row[10]) >= 0, "bandwidths of " + text);
    }

    private int bench(final String... args)
    {
        final String[] all = new String[args.length + 1];
        all[0] = "bench";
        System.arraycopy(args, 0, all, 1, args.length);
        final PrintStream outStream = new PrintStream(out, true, StandardCharsets.UTF_8);
        final PrintStream errStream = new PrintStream(err, true, StandardCharsets.UTF_8);
        return new Main(outStream, errStream, Main.commands(outStream, errStream)).run(all);
    }

    private List<String[]> rows()
    {
        final List<String> lines = outText().lines().toList();
        assertEquals(CsvWriter.HEADER, lines.get(0));
        final List<String[]> rows = new ArrayList<>();
        for (final String line : lines.subList(1, lines.size()))
        {
            rows.add(line.split(",", -1));
        }
        return rows;
    }

    private String outText()
    {
        return out.toString(StandardCharsets.UTF_8);
    }

    private String errText()
    {
        return err.toString(StandardCharsets.UTF_8);
    }
}
