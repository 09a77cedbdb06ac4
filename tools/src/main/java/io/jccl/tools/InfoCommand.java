package io.jccl.tools;

import io.jccl.Configuration;
import io.jccl.engine.BuildDigest;
import io.jccl.launch.JobLauncher;
import io.jccl.shm.SegmentFiles;
import io.jccl.spi.StreamingCopy;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.FileStore;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.stream.Stream;

/**
 * {@code ./jccl info}: the segment directory, its room, what rank JVMs can do, and every jccl segment in it with its
 * creator's state.
 */
public final class InfoCommand implements Command
{
    /** Where Linux shows its transparent huge page settings. */
    private static final Path TRANSPARENT_HUGE_PAGES = Path.of("/sys/kernel/mm/transparent_hugepage");

    private final PrintStream out;

    public InfoCommand(final PrintStream out)
    {
        this.out = out;
    }

    @Override

    public String name()
    {
        return "info";
    }

    @Override

    public String summary()
    {
        return "show the shm directory, its free space and the jccl segments in it";
    }

    @Override

    public String usage()
    {
        return """
            usage: ./jccl info [--shm-dir DIR]

            Shows the directory job segments go to (JCCL_SHM_DIR, default /dev/shm), its capacity and free space,
            what the rank JVMs can do (single copy, SIMD reduction kernels, copies that stream past the caches),
            where their class-data archives are (JCCL_CDS_DIR, default ~/.cache/jccl/cds), which memory lies on
            huge pages, and every jccl segment there: name, size, owner uid, creator pid, and whether the creator
            is alive.

              --shm-dir DIR   look at DIR instead
            """;
    }

    @Override

    public int run(final String[] args) throws IOException
    {
        final Configuration configuration = ShmDirOption.parse(args);
        final Path directory = SegmentFiles.directory(configuration);
        final String configured = configuration.get(Configuration.SHM_DIR_PROP_NAME, Configuration.SHM_DIR_DEFAULT);

        out.println("shm directory: " + directory);
        if (!directory.equals(Path.of(configured)))
        {
            out.println("  (" + configured + " is missing or not writable, so jccl uses java.io.tmpdir)");
        }
        final FileStore store = Files.getFileStore(directory);
        out.println("capacity: " + formatBytes(store.getTotalSpace()) + ", free: " +
            formatBytes(store.getUsableSpace()) + " (" + store.type() + ")");
        out.println(rankJvms());
        out.println("jccl build: " + BuildDigest.thisJvm() +
            "; ranks of different builds refuse each other at connect");
        out.println(classDataArchives(JobLauncher.defaultClassDataArchives()));
        out.println(hugePages(readSetting(TRANSPARENT_HUGE_PAGES.resolve("enabled")),
            readSetting(TRANSPARENT_HUGE_PAGES.resolve("shmem_enabled")), System.getenv("GLIBC_TUNABLES"),
            Runtime.version().feature() >= 22 && configuration.getBoolean(Configuration.HUGE_PAGES_PROP_NAME,
                Configuration.HUGE_PAGES_DEFAULT)));

        final List<ShmSegments.Segment> segments = ShmSegments.list(directory);
        if (segments.isEmpty())
        {
            out.println("no jccl segments");
            return 0;
        }
        out.println(segments.size() + (segments.size() == 1 ? " jccl segment:" : " jccl segments:"));
        final int nameWidth = Math.max(4, segments.stream().mapToInt(s -> s.name().length()).max().orElse(0));
        final String format = "  %-" + nameWidth + "s  %10s  %6s  %11s  %s%n";
        out.printf(Locale.ROOT, format, "NAME", "SIZE", "UID", "CREATOR PID", "CREATOR");
        for (final ShmSegments.Segment segment : segments)
        {
            out.printf(Locale.ROOT, format, segment.name(), formatBytes(segment.size()), segment.ownerUid(),
                segment.creatorPid() < 0 ? "-" : Long.toString(segment.creatorPid()), creatorText(segment.creator()));
        }
        return 0;
    }

    /**
     * What the rank JVMs the launcher starts (this java) can do: single copy needs Java 22 (and the peers' consent,
     * probed at connect); the SIMD reduction kernels Java 22 and the Vector API module, and the launcher has the JIT
     * compile them at their first call; and whether their large copies stream past the caches
     * ({@link StreamingCopy}), which heap arrays' large messages need to go single copy at the slow pace.
     */
    static String rankJvms()
    {
        final int feature = Runtime.version().feature();
        final Path java = Path.of(System.getProperty("java.home"), "bin", "java");
        final boolean java22 = feature >= 22;
        return "rank JVMs: Java " + feature + " (" + System.getProperty("java.home") + "); single copy: " +
            (java22 ? "yes (Java 22+; each rank probes its peers at connect)" : "no (needs Java 22)") +
            "; SIMD reduction kernels: " + (java22 && JobLauncher.hasVectorModule(java) ?
            "yes (" + JobLauncher.VECTOR_MODULE + "; compiled at their first call)" :
            "no (needs Java 22 and " + JobLauncher.VECTOR_MODULE + ")") +
            "; copies of 2.5 MB or more stream past the caches: " + (StreamingCopy.available() ?
            "yes (MaxVectorSize 64)" : "no (" + StreamingCopy.whyNot() + ")");
    }

    /**
     * Whether memory lies on transparent huge pages, under which the kernel's reads for single copy pin 512 times
     * fewer pages (PERFORMANCE.md, session 76): jccl's own copies for peers, the job segment, and the application's
     * direct buffers, which the C library's malloc advises only under {@code glibc.malloc.hugetlb=1} (or takes by
     * itself where the setting is {@code always}). {@code enabled} and {@code shmem} are the kernel's settings as read
     * (the bracketed word is the one in force), null where unknown; {@code jcclCopies}: whether the rank JVMs put
     * jccl's own copies there (Java 22+ and {@code jccl.huge.pages}).
     */
    static String hugePages(final String enabled, final String shmem, final String glibcTunables,
        final boolean jcclCopies)
    {
        final String mode = inForce(enabled);
        if (mode == null || mode.equals("never"))
        {
            return "huge pages: " + (mode == null ? "unknown (no " + TRANSPARENT_HUGE_PAGES + ")" :
                "off (transparent huge pages never)") + "; kernel reads pin every 4 KiB page";
        }
        final boolean tunable = glibcTunables != null && glibcTunables.matches(".*glibc\\.malloc\\.hugetlb=[12].*");
        final String shared = inForce(shmem);
        return "huge pages: transparent ones " + mode + "; jccl's copies for peers to read and scratch from 2 MiB on " +
            "them: " + (jcclCopies ? "yes" : "no (Java 22+ and jccl.huge.pages)") + "; the job segment on them: " +
            (shared != null && (shared.equals("always") || shared.equals("within_size") || shared.equals("force")) ?
            "yes" : "no (shmem_enabled " + (shared == null ? "unknown" : shared) + ")") +
            "; direct buffers from 2 MiB on them: " + (mode.equals("always") ? "yes (always)" : tunable ?
            "yes (GLIBC_TUNABLES " + glibcTunables + ")" : "no, but under GLIBC_TUNABLES=glibc.malloc.hugetlb=1") +
            " (kernel reads of them took 0.5-0.8x the time)";
    }

    /** The bracketed word of a kernel setting such as "always [madvise] never", or null. */
    private static String inForce(final String setting)
    {
        if (setting == null)
        {
            return null;
        }
        final int open = setting.indexOf('[');
        final int close = setting.indexOf(']', open + 1);
        return open >= 0 && close > open ? setting.substring(open + 1, close) : null;
    }

    private static String readSetting(final Path file)
    {
        try
        {
            return Files.readString(file).trim();
        }
        catch (final IOException ex)
        {
            return null;
        }
    }

    /** Where the launcher keeps the ranks' class-data archives, and how many there are. */
    static String classDataArchives(final Path directory) throws IOException
    {
        if (directory == null)
        {
            final String setting = System.getenv(JobLauncher.CLASS_DATA_ARCHIVES_ENV);
            return "class-data archives: off (" + (setting == null ? "no home directory" :
                JobLauncher.CLASS_DATA_ARCHIVES_ENV + "=" + setting) + ")";
        }
        long count = 0;
        long bytes = 0;
        if (Files.isDirectory(directory))
        {
            try (Stream<Path> files = Files.list(directory))
            {
                final String extension = JobLauncher.CLASS_DATA_ARCHIVE_EXTENSION;
                for (final Path file : files.filter(f -> f.toString().endsWith(extension)).toList())
                {
                    count++;
                    bytes += Files.size(file);
                }
            }
        }
        return "class-data archives: " + directory + " (" + count + (count == 1 ? " archive, " : " archives, ") +
            formatBytes(bytes) + "; the launcher's ranks start from them when their class path is jars)";
    }

    private static String creatorText(final ShmSegments.Creator creator)
    {
        return switch (creator)
        {
            case ALIVE -> "alive";
            case DEAD -> "dead";
            case PID_REUSED -> "dead (pid reused)";
            case UNKNOWN -> "unknown (header not written)";
        };
    }

    /** "512 B", "4.0 KiB", "24.0 MiB", "1.5 GiB". */
    static String formatBytes(final long bytes)
    {
        if (bytes < 1024)
        {
            return bytes + " B";
        }
        final String[] units = {"KiB", "MiB", "GiB", "TiB", "PiB"};
        double value = bytes / 1024.0;
        int unit = 0;
        while (value >= 1024 && unit < units.length - 1)
        {
            value /= 1024;
            unit++;
        }
        return String.format(Locale.ROOT, "%.1f %s", value, units[unit]);
    }
}
