package io.jccl.engine;

import io.jccl.Configuration;
import io.jccl.shm.AgreedSettings;
import io.jccl.shm.ShmTransport;

import java.io.IOException;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.CodeSource;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.TreeMap;
import java.util.stream.Stream;
import java.util.zip.CRC32;
import java.util.zip.ZipEntry;
import java.util.zip.ZipFile;

/**
 * The jccl code a rank runs, as a digest that every rank of a job must share
 * ({@link io.jccl.shm.AgreedSettings#build}): ranks of different builds may run different protocols, or choose
 * algorithms by different rules, under call signatures that agree, and then wait out the timeout or read each other's
 * memory wrongly, as NCCL refuses ranks of different versions. The digest covers the class files and resources of the
 * runtime's packages (modules {@code core}, {@code shm-transport} and {@code algorithms}; not {@code io.jccl.tools},
 * {@code io.jccl.examples} or {@code io.jccl.jmh}) wherever this rank loaded them from, jars or directories: each
 * entry's name, size and CRC-32, in name order. So two copies of one build agree wherever they lie, and a jar and its
 * unpacked directory agree. Computed once per JVM, at its first connect: a jar's entries are read from its central
 * directory (7.5 ms the first time, from the launcher's jars), a directory's files are read whole (185 files, 0.8 MB,
 * in 28-37 ms; PERFORMANCE.md, session 53).
 */
public final class BuildDigest
{
    /** A class of each runtime module: where each was loaded from. */
    private static final List<Class<?>> MODULES = List.of(Configuration.class, ShmTransport.class, BuildDigest.class);
    private static final String ROOT = "io/jccl/";
    private static final List<String> NOT_RUNTIME = List.of("io/jccl/tools/", "io/jccl/examples/", "io/jccl/jmh/");

    private static volatile BuildDigest thisJvm;

    /** {@link AgreedSettings#hash} of the entries' names, sizes and CRCs; never 0. */
    private final long digest;
    /** Where the code came from, for messages. */
    private final String sources;

    private BuildDigest(final long digest, final String sources)
    {
        this.digest = digest;
        this.sources = sources;
    }

    /** This JVM's jccl build. */
    public static BuildDigest thisJvm()
    {
        BuildDigest build = thisJvm;
        if (build == null)
        {
            final Set<Path> locations = new LinkedHashSet<>();
            final List<String> unknown = new ArrayList<>();
            for (final Class<?> module : MODULES)
            {
                final Path location = location(module);
                if (location == null)
                {
                    unknown.add(module.getName());
                }
                else
                {
                    locations.add(location);
                }
            }
            build = of(locations, unknown);
            thisJvm = build;
        }
        return build;
    }

    /**
     * The digest of the runtime's entries at {@code locations} (jars or class directories), and of the names of the
     * module classes whose location is unknown ({@code unknown}). Ranks whose code lies where it cannot be read, or
     * nowhere known, agree with the ranks of the same places alone.
     */
    static BuildDigest of(final Set<Path> locations, final List<String> unknown)
    {
        final TreeMap<String, Long> entries = new TreeMap<>();
        final List<String> unreadable = new ArrayList<>(unknown);
        for (final Path location : locations)
        {
            try
            {
                if (Files.isDirectory(location))
                {
                    addDirectory(location, entries);
                }
                else
                {
                    addJar(location, entries);
                }
            }
            catch (final IOException ex)
            {
                // a jar deleted or replaced since this JVM opened it: the place stands for the code
                unreadable.add(location.toString());
            }
        }
        // one line per entry, in name order, then the places that could not be read
        final StringBuilder listing = new StringBuilder();
        for (final var entry : entries.entrySet())
        {
            listing.append(entry.getKey()).append(' ').append(Long.toHexString(entry.getValue())).append('\n');
        }
        for (final String name : unreadable)
        {
            listing.append("unreadable ").append(name).append('\n');
        }
        final StringBuilder sources = new StringBuilder();
        for (final Path location : locations)
        {
            sources.append(sources.isEmpty() ? "" : ", ").append(location);
        }
        for (final String name : unknown)
        {
            sources.append(sources.isEmpty() ? "" : ", ").append(name).append(" from an unknown place");
        }
        return new BuildDigest(AgreedSettings.hash(listing.toString()), sources.toString());
    }

    /** 64 bits of the runtime entries' names, sizes and CRCs; never 0. */
    public long digest()
    {
        return digest;
    }

    /** Where the code came from: the jars or class directories, comma-separated. */
    public String sources()
    {
        return sources;
    }

    /** The sources, then the digest in hexadecimal. */
    @Override
    public String toString()
    {
        return sources + " (digest " + Long.toHexString(digest) + ")";
    }

    private static Path location(final Class<?> type)
    {
        final CodeSource source = type.getProtectionDomain().getCodeSource();
        if (source == null || source.getLocation() == null)
        {
            return null;
        }
        try
        {
            return Path.of(source.getLocation().toURI());
        }
        catch (final URISyntaxException | IllegalArgumentException | java.nio.file.FileSystemNotFoundException ex)
        {
            return null;
        }
    }

    private static boolean runtime(final String name)
    {
        if (!name.startsWith(ROOT) || name.endsWith("/"))
        {
            return false;
        }
        for (final String other : NOT_RUNTIME)
        {
            if (name.startsWith(other))
            {
                return false;
            }
        }
        return true;
    }

    private static void addJar(final Path jar, final TreeMap<String, Long> entries) throws IOException
    {
        try (ZipFile zip = new ZipFile(jar.toFile()))
        {
            for (final var it = zip.entries(); it.hasMoreElements(); )
            {
                final ZipEntry entry = it.nextElement();
                if (runtime(entry.getName()))
                {
                    entries.put(entry.getName(), entry.getCrc() << 32 ^ entry.getSize());
                }
            }
        }
    }

    private static void addDirectory(final Path directory, final TreeMap<String, Long> entries) throws IOException
    {
        final Path root = directory.resolve(ROOT);
        if (!Files.isDirectory(root))
        {
            return;
        }
        final CRC32 crc = new CRC32();
        try (Stream<Path> files = Files.walk(root))
        {
            for (final Path file : (Iterable<Path>) files.filter(Files::isRegularFile)::iterator)
            {
                final String name = directory.relativize(file).toString().replace(file.getFileSystem()
                    .getSeparator(), "/");
                if (runtime(name))
                {
                    final byte[] bytes = Files.readAllBytes(file);
                    crc.reset();
                    crc.update(bytes);
                    entries.put(name, crc.getValue() << 32 ^ bytes.length);
                }
            }
        }
    }
}
