package io.jccl.it;

import io.jccl.Configuration;
import io.jccl.shm.ShmTransport;
import org.agrona.UnsafeApi;
import org.jctools.queues.atomic.MpscAtomicArrayQueue;

import java.io.IOException;
import java.io.InputStream;
import java.net.URISyntaxException;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.stream.Stream;
import java.util.zip.ZipEntry;
import java.util.zip.ZipInputStream;

/**
 * One rank of {@link MismatchedSettingsTest}'s builds: rank 1 runs {@link SettingsRank} on a copy of the jccl build
 * the job was started with, unpacked into a directory and loaded by a class loader of its own: the same build
 * ({@code same}) or that build with one class file more ({@code changed}). The other ranks run it as started.
 */
public final class BuildRank
{
    /** The runtime's modules, which rank 1 copies: where a class of each was loaded from. */
    private static final List<Class<?>> RUNTIME = List.of(Configuration.class, ShmTransport.class,
        io.jccl.engine.ShmCommunicatorFactory.class);
    /** What else the copy needs, which it loads from where it lies: this test's classes, Agrona, JCTools. */
    private static final List<Class<?>> OTHERS = List.of(SettingsRank.class, UnsafeApi.class, MpscAtomicArrayQueue.class);

    private BuildRank()
    {
    }

    public static void main(final String[] args) throws Exception
    {
        if (Configuration.fromEnvironment().rank() != 1)
        {
            SettingsRank.main(new String[0]);
            return;
        }
        final boolean changed = args[0].equals("changed");
        final Path copies = Files.createTempDirectory("jccl-build");
        try
        {
            final List<URL> path = new ArrayList<>();
            for (final Path location : locations(RUNTIME))
            {
                final Path copy = copies.resolve("module" + path.size());
                unpack(location, copy);
                path.add(copy.toUri().toURL());
            }
            if (changed)
            {
                // one class file more in the engine's package: another build, whose code the JVM never runs
                final Path engine = Path.of(path.get(path.size() - 1).toURI()).resolve("io/jccl/engine");
                Files.copy(engine.resolve("ShmCommunicatorFactory.class"), engine.resolve("AnotherBuild.class"));
            }
            for (final Path location : locations(OTHERS))
            {
                path.add(location.toUri().toURL());
            }
            try (URLClassLoader loader = new URLClassLoader(path.toArray(URL[]::new),
                ClassLoader.getPlatformClassLoader()))
            {
                Thread.currentThread().setContextClassLoader(loader);
                loader.loadClass(SettingsRank.class.getName()).getMethod("main", String[].class)
                    .invoke(null, (Object) new String[0]);
            }
        }
        finally
        {
            try (Stream<Path> files = Files.walk(copies))
            {
                for (final Path file : files.sorted(Comparator.reverseOrder()).toList())
                {
                    Files.delete(file);
                }
            }
        }
    }

    private static Set<Path> locations(final List<Class<?>> classes) throws URISyntaxException
    {
        final Set<Path> locations = new LinkedHashSet<>();
        for (final Class<?> type : classes)
        {
            locations.add(Path.of(type.getProtectionDomain().getCodeSource().getLocation().toURI()));
        }
        return locations;
    }

    /** A class directory copied, or a jar unpacked, into {@code directory}. */
    private static void unpack(final Path location, final Path directory) throws IOException
    {
        if (Files.isDirectory(location))
        {
            try (Stream<Path> files = Files.walk(location))
            {
                for (final Path file : files.toList())
                {
                    Files.copy(file, directory.resolve(location.relativize(file).toString()));
                }
            }
            return;
        }
        try (InputStream in = Files.newInputStream(location); ZipInputStream zip = new ZipInputStream(in))
        {
            for (ZipEntry entry = zip.getNextEntry(); entry != null; entry = zip.getNextEntry())
            {
                final Path target = directory.resolve(entry.getName());
                if (entry.isDirectory())
                {
                    Files.createDirectories(target);
                }
                else
                {
                    Files.createDirectories(target.getParent());
                    Files.copy(zip, target);
                }
            }
        }
    }
}
