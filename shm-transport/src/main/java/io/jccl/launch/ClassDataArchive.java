package io.jccl.launch;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.FileTime;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

/**
 * A class-data-sharing archive of a job's rank JVMs (HotSpot's dynamic AppCDS archive): the classes a rank loads, and
 * the {@code java.lang.invoke} classes it generates for lambdas, method handles and memory-segment accessors, mapped
 * ready-made from a file instead of being parsed, verified and generated again in every rank of every job.
 * <p>
 * Besides class loading, it frees the JIT at start: without it a rank generates those classes with the class-file
 * API, whose methods then fill the single C2 thread of a 2-core machine for some 200 ms, and the first call of a SIMD
 * reduction kernel waits behind them (PERFORMANCE.md, session 43).
 * <p>
 * One archive per Java runtime, class path and JVM arguments, named by two hashes: {@code FAMILY-STAMP.jsa}. FAMILY
 * hashes the {@code java} executable, the class path and the JVM arguments; STAMP the runtime's {@code release} file
 * and {@code lib/modules}, and the size and modification time of every class-path jar. A rebuilt jar or an updated JDK
 * thus names a new archive, and publishing one deletes its family's older ones, and the least recently used archives
 * beyond {@value #MAX_ARCHIVES}. HotSpot checks the same things when it maps an archive and silently runs without one
 * that does not match; the names only keep a stale archive from being tried, and from being kept forever.
 * <p>
 * When the archive does not exist yet, rank 0 writes it at its exit ({@code -XX:ArchiveClassesAtExit}) to a file of
 * its own job in {@code java.io.tmpdir}, which the launcher copies into the directory and renames into place when rank
 * 0 exited 0: jobs that start meanwhile never map a half-written archive, and two first jobs of one family do not
 * write the same file. The other ranks of that job run without. Writing costs rank 0 a few hundred milliseconds at its
 * exit, once per family and stamp. Not in the archives' directory itself: HotSpot ends a JVM that cannot write its
 * archive with exit code 1, so a directory that another user owns, or that is deleted while the job runs, would fail
 * the job; the temporary directory is there and writable for the JVM's own files anyway.
 * <p>
 * Used only where it can work: a HotSpot runtime with its base archive ({@code lib/server/classes.jsa}), a class path
 * of jar files only (HotSpot does not archive a class path holding a non-empty directory), and JVM arguments, on
 * the command line or in the environment, with which HotSpot writes one without changing how the job runs
 * ({@link #keepsFromArchive}). Its log messages are turned off: an archive that cannot be used or written leaves the
 * job as it would run without one.
 */
final class ClassDataArchive
{
    /** The launcher's environment variable naming the archives' directory; {@code off} or empty turns them off. */
    static final String DIR_ENV = "JCCL_CDS_DIR";
    /** The archives' file name extension. */
    static final String EXTENSION = ".jsa";
    /** Less free space than this where the archive goes and none is written (one took 7-8 MB here). */
    private static final long MIN_FREE_BYTES = 256L << 20;
    /** Most archives kept in the directory: publishing one more deletes the least recently used. */
    static final int MAX_ARCHIVES = 32;
    /** HotSpot's class-data-sharing messages, off: ranks print nothing about the archive. */
    private static final String QUIET = "-Xlog:cds*=off";
    private static final ClassDataArchive NONE = new ClassDataArchive(null, null);

    /** The archive the ranks map, or null when this job uses none. */
    private final Path archive;
    /** Where rank 0 writes the archive at its exit (in {@code java.io.tmpdir}), or null when it does not. */
    private final Path written;

    private ClassDataArchive(final Path archive, final Path written)
    {
        this.archive = archive;
        this.written = written;
    }

    /**
     * The default directory of the archives: {@value #DIR_ENV} when set (null when it is {@code off} or empty),
     * else {@code $XDG_CACHE_HOME/jccl/cds}, else {@code ~/.cache/jccl/cds}.
     */
    static Path defaultDirectory()
    {
        final String configured = System.getenv(DIR_ENV);
        if (configured != null)
        {
            return configured.isBlank() || "off".equalsIgnoreCase(configured.trim()) ? null :
                Path.of(configured.trim()).toAbsolutePath();
        }
        final String cache = System.getenv("XDG_CACHE_HOME");
        if (cache != null && !cache.isBlank())
        {
            return Path.of(cache, "jccl", "cds").toAbsolutePath();
        }
        final String home = System.getProperty("user.home");
        return home == null || home.isBlank() ? null : Path.of(home, ".cache", "jccl", "cds");
    }

    /**
     * The archive of one job: the one to map when it exists, else the file rank 0 writes; {@link #jvmArgs(int)}
     * empty when the job cannot use one.
     *
     * @param directory      the archives' directory, or null for none.
     * @param javaExecutable the ranks' {@code bin/java}.
     * @param classPath      the ranks' class path.
     * @param rankJvmArgs    every JVM argument of the ranks: jccl's, the user's, and those of the environment
     *                       ({@link JvmOptionVariables}).
     * @param jobId          the job, naming the file rank 0 writes.
     */
    static ClassDataArchive forJob(final Path directory, final Path javaExecutable, final String classPath,
        final List<String> rankJvmArgs, final String jobId)
    {
        if (directory == null || classPath == null || classPath.isEmpty())
        {
            return NONE;
        }
        final Path home = JobLauncher.runtimeHome(javaExecutable);
        if (home == null || !Files.isRegularFile(home.resolve("lib/server/classes.jsa")) ||
            rankJvmArgs.stream().anyMatch(ClassDataArchive::keepsFromArchive))
        {
            return NONE;
        }
        final String[] entries = classPath.split(File.pathSeparator);
        try
        {
            final MessageDigest family = sha256();
            family.update(javaExecutable.toAbsolutePath().normalize().toString().getBytes(StandardCharsets.UTF_8));
            family.update((byte)0);
            family.update(classPath.getBytes(StandardCharsets.UTF_8));
            for (final String arg : rankJvmArgs)
            {
                family.update((byte)0);
                family.update(arg.getBytes(StandardCharsets.UTF_8));
            }
            final MessageDigest stamp = sha256();
            stamp.update(Files.readAllBytes(home.resolve("release")));
            stampFile(stamp, home.resolve("lib/modules"));
            for (final String entry : entries)
            {
                final Path jar = Path.of(entry);
                if (!Files.isRegularFile(jar))
                {
                    return NONE;
                }
                stampFile(stamp, jar);
            }
            final String familyName = hex(family);
            final Path archive = directory.resolve(familyName + "-" + hex(stamp) + EXTENSION);
            if (Files.isRegularFile(archive))
            {
                markUsed(archive);
                return new ClassDataArchive(archive, null);
            }
            Files.createDirectories(directory);
            final Path temporary = Path.of(System.getProperty("java.io.tmpdir")).toAbsolutePath();
            if (!Files.isWritable(directory) || !Files.isWritable(temporary) ||
                Files.getFileStore(directory).getUsableSpace() < MIN_FREE_BYTES ||
                Files.getFileStore(temporary).getUsableSpace() < MIN_FREE_BYTES)
            {
                return NONE;
            }
            return new ClassDataArchive(archive, temporary.resolve("jccl-cds-" + familyName + "-" + jobId + ".tmp"));
        }
        catch (final IOException | RuntimeException ex)
        {
            // an unreadable runtime or jar, an unwritable directory: run without an archive
            return NONE;
        }
    }

    /** The JVM arguments {@code rank} adds for the archive: map it, or write it (rank 0), or none. */
    List<String> jvmArgs(final int rank)
    {
        if (written != null)
        {
            return rank == 0 ? List.of("-XX:ArchiveClassesAtExit=" + written, QUIET) : List.of();
        }
        return archive == null ? List.of() : List.of("-XX:SharedArchiveFile=" + archive, QUIET);
    }

    /** The archive this job maps or writes; null when it has none. */
    Path archive()
    {
        return archive;
    }

    /**
     * After the job: puts the archive rank 0 wrote in place when rank 0 exited 0 and deletes its family's other
     * files; in every case removes what rank 0 left behind. Never throws: without it the next job writes one again.
     */
    void finish(final boolean rank0Succeeded)
    {
        if (written == null)
        {
            return;
        }
        final String family = archive.getFileName().toString();
        final String prefix = family.substring(0, family.indexOf('-') + 1);
        // copied beside the archive first (the temporary directory may be another file system), then renamed
        final Path copy = archive.resolveSibling(prefix + written.getFileName());
        try
        {
            if (rank0Succeeded && Files.isRegularFile(written))
            {
                Files.createDirectories(archive.getParent());
                Files.copy(written, copy, StandardCopyOption.REPLACE_EXISTING);
                Files.move(copy, archive, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
                try (DirectoryStream<Path> files = Files.newDirectoryStream(archive.getParent(), prefix + "*"))
                {
                    for (final Path file : files)
                    {
                        if (!file.equals(archive))
                        {
                            // a stale stamp, or a copy a killed launcher left
                            Files.deleteIfExists(file);
                        }
                    }
                }
                deleteLeastRecentlyUsed(archive.getParent());
            }
        }
        catch (final IOException | RuntimeException ex)
        {
            // the directory is not writable or is full, or another job's archive took its place: nothing to do
        }
        finally
        {
            try
            {
                Files.deleteIfExists(copy);
                Files.deleteIfExists(written);
            }
            catch (final IOException ignore)
            {
                // a file in the temporary directory, or a copy the next publication of this family deletes
            }
        }
    }

    /** Dates an archive a job maps, so that the least recently used are the ones {@link #MAX_ARCHIVES} drops. */
    private static void markUsed(final Path archive)
    {
        try
        {
            Files.setLastModifiedTime(archive, FileTime.fromMillis(System.currentTimeMillis()));
        }
        catch (final IOException ignore)
        {
            // another user's archive in a shared directory: it ages as it would unused
        }
    }

    /** Keeps the {@link #MAX_ARCHIVES} most recently used archives of {@code directory}. */
    private static void deleteLeastRecentlyUsed(final Path directory) throws IOException
    {
        final List<Path> archives;
        try (Stream<Path> files = Files.list(directory))
        {
            archives = files.filter(file -> file.getFileName().toString().endsWith(EXTENSION)).toList();
        }
        if (archives.size() <= MAX_ARCHIVES)
        {
            return;
        }
        final Map<Path, Long> used = new HashMap<>();
        for (final Path file : archives)
        {
            used.put(file, Files.getLastModifiedTime(file).toMillis());
        }
        final List<Path> oldestFirst = new ArrayList<>(archives);
        oldestFirst.sort(Comparator.comparingLong(used::get));
        for (final Path file : oldestFirst.subList(0, archives.size() - MAX_ARCHIVES))
        {
            Files.deleteIfExists(file);
        }
    }

    /**
     * Whether a JVM argument keeps the job from an archive. The user's own choice of sharing stands. HotSpot ends a
     * JVM that writes an archive with exit code 1 when it runs a JVMTI agent (a debugger's {@code jdwp}, a profiler, a
     * Java agent) or limits or upgrades the modules, and refuses {@code RecordDynamicDumpInfo} beside it; it turns
     * sharing off for a patched module, and Flight Recorder off while it writes (a recording the user asked for would
     * be lost). Arguments that mention any of them run without an archive (PERFORMANCE.md, session 44), and so do
     * argument files ({@code @file}, {@code -XX:VMOptionsFile}, {@code -XX:Flags}), whose options are not seen here.
     */
    private static boolean keepsFromArchive(final String arg)
    {
        return arg.startsWith("-Xshare") || arg.startsWith("-XX:AOT") || arg.contains("SharedArchiveFile") ||
            arg.contains("ArchiveClassesAtExit") || arg.contains("AutoCreateSharedArchive") ||
            arg.contains("UseSharedSpaces") || arg.contains("RecordDynamicDumpInfo") ||
            arg.startsWith("-javaagent") || arg.startsWith("-agentlib") || arg.startsWith("-agentpath") ||
            arg.startsWith("-Xrun") || arg.contains("StartFlightRecording") ||
            arg.startsWith("--limit-modules") || arg.startsWith("--upgrade-module-path") ||
            arg.startsWith("--patch-module") || arg.startsWith("@") || arg.startsWith("-XX:VMOptionsFile") ||
            arg.startsWith("-XX:Flags");
    }

    private static void stampFile(final MessageDigest digest, final Path file) throws IOException
    {
        final BasicFileAttributes attributes = Files.readAttributes(file, BasicFileAttributes.class);
        digest.update((file.toAbsolutePath().normalize() + "\0" + attributes.size() + "\0" +
            attributes.lastModifiedTime().toMillis() + "\0").getBytes(StandardCharsets.UTF_8));
    }

    private static MessageDigest sha256()
    {
        try
        {
            return MessageDigest.getInstance("SHA-256");
        }
        catch (final NoSuchAlgorithmException ex)
        {
            throw new IllegalStateException(ex);
        }
    }

    private static String hex(final MessageDigest digest)
    {
        return HexFormat.of().formatHex(digest.digest(), 0, 8);
    }
}
