import java.io.RandomAccessFile;
import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.VarHandle;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * perf/oversubscribed-barrier.c in Java: the floor of a collective while ranks outnumber cores, for processes that are
 * JVMs. N JVMs (started by this one, unpinned, as jccl's ranks) each raise their own flag (its own 128-byte line of a
 * file in /dev/shm) to round e and wait until every other flag has reached e; mode 0 yields after SPINS polls, mode 1
 * (what jccl's CoreMates does) yields at once while a process that has not arrived last ran on its CPU
 * (sched_getcpu, through the foreign-function API) and otherwise spins up to SPINS polls. Before raising its flag each
 * JVM does LINES lines of work, one word incremented in each line of a private array, a page and a line apart; with no
 * more JVMs than cores and SPINS large none yields, which gives the same work without switches. The same loop as the C
 * program, statement for statement, so that the two differ by the runtime alone.
 * <p>
 * Run with JDK 22 or newer:
 * <pre>
 *   J=/usr/lib/jvm/temurin-25-jdk-amd64/bin/java
 *   $J --enable-native-access=ALL-UNNAMED perf/OversubscribedBarrier.java [PROCESSES (4)] [ROUNDS (1000000)] \
 *      [SPINS (mode 1: 300; mode 0: 0)] [MODE (1)] [LINES (0)]
 * </pre>
 */
public final class OversubscribedBarrier
{
    private static final VarHandle LONG = ValueLayout.JAVA_LONG.varHandle();
    private static final long STRIDE = 128;
    private static final long CPUS = 4096;
    private static final long RESULTS = 8192;
    /** Flags, then CPUs, then each rank's result: a page each. */
    private static final long FILE_BYTES = 3 * 4096;

    public static void main(final String[] args) throws Throwable
    {
        if (args.length > 0 && args[0].equals("--rank"))
        {
            rank(args);
            return;
        }
        final int n = args.length > 0 ? Integer.parseInt(args[0]) : 4;
        final long rounds = args.length > 1 ? Long.parseLong(args[1]) : 1_000_000;
        final int mode = args.length > 3 ? Integer.parseInt(args[3]) : 1;
        final long spins = args.length > 2 ? Long.parseLong(args[2]) : mode == 1 ? 300 : 0;
        final int lines = args.length > 4 ? Integer.parseInt(args[4]) : 0;
        if (n < 2 || n > 30 || rounds < 10 || mode < 0 || mode > 1 || lines < 0 || lines > 65536)
        {
            System.err.println("usage: OversubscribedBarrier [PROCESSES 2-30] [ROUNDS >= 10] [SPINS] [MODE 0|1] " +
                "[LINES 0-65536]");
            System.exit(2);
        }
        final Path file = Files.createTempFile(Path.of("/dev/shm"), "jccl-oversubscribed-barrier", "");
        try
        {
            try (RandomAccessFile raf = new RandomAccessFile(file.toFile(), "rw"))
            {
                raf.setLength(FILE_BYTES);
            }
            final String java = ProcessHandle.current().info().command().orElse("java");
            // the ranks run this file too; the source launcher names it
            final String source = System.getProperty("jdk.launcher.sourcefile");
            final List<Process> ranks = new ArrayList<>();
            for (int r = 0; r < n; r++)
            {
                ranks.add(new ProcessBuilder(java, "--enable-native-access=ALL-UNNAMED", "-XX:+UseSerialGC", source,
                    "--rank", file.toString(), Integer.toString(r), Integer.toString(n), Long.toString(rounds),
                    Long.toString(spins), Integer.toString(mode), Integer.toString(lines)).inheritIO().start());
            }
            // a rank that fails leaves the others waiting for its flag for ever: stop them
            while (ranks.stream().anyMatch(Process::isAlive) && !failed(ranks))
            {
                Thread.sleep(50);
            }
            if (failed(ranks))
            {
                ranks.forEach(Process::destroyForcibly);
                throw new IllegalStateException("a rank failed: see its output above");
            }
            try (Arena arena = Arena.ofConfined(); FileChannel channel = FileChannel.open(file))
            {
                final MemorySegment results = channel.map(FileChannel.MapMode.READ_ONLY, 0, FILE_BYTES, arena);
                double micros = 0;
                double yields = 0;
                for (int r = 0; r < n; r++)
                {
                    micros += results.get(ValueLayout.JAVA_DOUBLE, RESULTS + r * 16L) / n;
                    yields += results.get(ValueLayout.JAVA_DOUBLE, RESULTS + r * 16L + 8) / n;
                }
                System.out.printf(Locale.ROOT, "%d JVMs on %d cores, mode %d (%s), %d spins, %d lines of work: %.3f us " +
                    "per barrier, %.2f yields per process%n", n, Runtime.getRuntime().availableProcessors(), mode,
                    mode == 0 ? "every waiter yields" : "yield to a process on my CPU", spins, lines, micros, yields);
            }
        }
        finally
        {
            Files.deleteIfExists(file);
        }
    }

    /** Whether a rank has exited with an error. */
    private static boolean failed(final List<Process> ranks)
    {
        return ranks.stream().anyMatch(p -> !p.isAlive() && p.exitValue() != 0);
    }

    private static void rank(final String[] args) throws Throwable
    {
        final Path file = Path.of(args[1]);
        final int r = Integer.parseInt(args[2]);
        final int n = Integer.parseInt(args[3]);
        final long rounds = Long.parseLong(args[4]);
        final long spins = Long.parseLong(args[5]);
        final int mode = Integer.parseInt(args[6]);
        final int lines = Integer.parseInt(args[7]);
        // the work's lines, a page and a line apart (each in its own page and cache set)
        final int workStride = (4096 + 64) / Long.BYTES;
        final long[] work = new long[Math.max(1, lines * workStride)];
        final Linker linker = Linker.nativeLinker();
        final MethodHandle getCpu = linker.downcallHandle(linker.defaultLookup().find("sched_getcpu").orElseThrow(),
            FunctionDescriptor.of(ValueLayout.JAVA_INT));
        final MemorySegment m;
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE))
        {
            m = channel.map(FileChannel.MapMode.READ_WRITE, 0, FILE_BYTES, Arena.global());
        }
        long cpu = (int)getCpu.invokeExact();
        LONG.setOpaque(m, CPUS + r * STRIDE, cpu);
        long start = 0;
        long yields = 0;
        for (long e = 1; e <= rounds; e++)
        {
            if (e == rounds / 10)
            {
                start = System.nanoTime(); // the first tenth warms up
                yields = 0;
            }
            for (int i = 0; i < lines; i++)
            {
                work[i * workStride]++;
            }
            LONG.setRelease(m, r * STRIDE, e);
            long polls = 0;
            for (;;)
            {
                int behind = 0;
                int behindHere = 0;
                for (int q = 0; q < n; q++)
                {
                    if ((long)LONG.getAcquire(m, q * STRIDE) < e)
                    {
                        behind++;
                        if ((long)LONG.getOpaque(m, CPUS + q * STRIDE) == cpu)
                        {
                            behindHere++;
                        }
                    }
                }
                if (behind == 0)
                {
                    break;
                }
                if (++polls <= spins && (mode == 0 || behindHere == 0))
                {
                    continue;
                }
                polls = 0;
                Thread.yield();
                yields++;
                final long now = (int)getCpu.invokeExact();
                if (mode == 1 && now != cpu)
                {
                    cpu = now;
                    LONG.setOpaque(m, CPUS + r * STRIDE, cpu);
                }
            }
        }
        final long timed = rounds - rounds / 10;
        m.set(ValueLayout.JAVA_DOUBLE, RESULTS + r * 16L, (System.nanoTime() - start) / 1e3 / timed);
        m.set(ValueLayout.JAVA_DOUBLE, RESULTS + r * 16L + 8, (double)yields / timed);
    }
}
