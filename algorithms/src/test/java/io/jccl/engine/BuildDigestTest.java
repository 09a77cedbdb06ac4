package io.jccl.engine;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.zip.ZipEntry;
import java.util.zip.ZipOutputStream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The digest of a build's runtime entries, from directories and jars. */
@Timeout(10)
class BuildDigestTest
{
    private static final Map<String, String> BUILD = new TreeMap<>(Map.of(
        "io/jccl/Configuration.class", "core",
        "io/jccl/shm/ShmTransport.class", "transport",
        "io/jccl/engine/model.json", "a resource",
        "io/jccl/tools/Main.class", "the launcher",
        "META-INF/MANIFEST.MF", "Manifest-Version: 1.0"));

    @TempDir
    Path directory;

    @Test
    void aJarAndItsDirectoryAgreeWhereverTheyLie() throws IOException
    {
        final long jar = digest(jar("a.jar", BUILD));
        assertEquals(jar, digest(tree("classes", BUILD)));
        assertEquals(jar, digest(jar("elsewhere.jar", BUILD)));
        // split over two locations, as the modules' jars are
        final Map<String, String> core = new TreeMap<>(BUILD);
        final Map<String, String> rest = new TreeMap<>();
        rest.put("io/jccl/shm/ShmTransport.class", core.remove("io/jccl/shm/ShmTransport.class"));
        assertEquals(jar, BuildDigest.of(new LinkedHashSet<>(List.of(jar("core.jar", core), tree("shm", rest))),
            List.of()).digest());
    }

    @Test
    void theRuntimesEntriesCountAndNothingElse() throws IOException
    {
        final long build = digest(jar("a.jar", BUILD));
        final Map<String, String> changed = new TreeMap<>(BUILD);
        changed.put("io/jccl/engine/model.json", "another resource");
        assertNotEquals(build, digest(jar("changed.jar", changed)));
        final Map<String, String> more = new TreeMap<>(BUILD);
        more.put("io/jccl/engine/Another.class", "");
        assertNotEquals(build, digest(jar("more.jar", more)));
        final Map<String, String> launcher = new TreeMap<>(BUILD);
        launcher.put("io/jccl/tools/Main.class", "another launcher");
        launcher.put("io/jccl/examples/Train.class", "an example");
        launcher.put("com/example/App.class", "the application");
        launcher.put("META-INF/MANIFEST.MF", "Manifest-Version: 1.0\nCreated-By: someone else");
        assertEquals(build, digest(jar("launcher.jar", launcher)));
    }

    @Test
    void codeFromAnUnknownPlaceAgreesWithTheSameAlone() throws IOException
    {
        final BuildDigest unknown = BuildDigest.of(Set.of(), List.of("io.jccl.Configuration"));
        assertEquals(unknown.digest(), BuildDigest.of(Set.of(), List.of("io.jccl.Configuration")).digest());
        assertNotEquals(unknown.digest(), digest(jar("a.jar", BUILD)));
        assertTrue(unknown.toString().startsWith("io.jccl.Configuration from an unknown place (digest "),
            unknown.toString());
    }

    @Test
    void aJarThatCannotBeReadStandsForItsPlace() throws IOException
    {
        final Path gone = directory.resolve("deleted.jar");
        final long digest = digest(gone);
        assertEquals(digest, digest(gone));
        assertNotEquals(digest, digest(directory.resolve("elsewhere.jar")));
        assertNotEquals(digest, digest(jar("deleted.jar", BUILD)));
    }

    @Test
    void thisJvmsBuildIsReadFromWhereItsClassesLie()
    {
        final BuildDigest build = BuildDigest.thisJvm();
        assertNotEquals(0, build.digest());
        assertTrue(build.sources().contains("algorithms"), build.sources());
        assertEquals(build.digest(), BuildDigest.thisJvm().digest());
    }

    private static long digest(final Path location)
    {
        return BuildDigest.of(Set.of(location), List.of()).digest();
    }

    private Path jar(final String name, final Map<String, String> entries) throws IOException
    {
        final Path jar = directory.resolve(name);
        try (OutputStream out = Files.newOutputStream(jar); ZipOutputStream zip = new ZipOutputStream(out))
        {
            for (final var entry : entries.entrySet())
            {
                zip.putNextEntry(new ZipEntry(entry.getKey()));
                zip.write(entry.getValue().getBytes(StandardCharsets.UTF_8));
                zip.closeEntry();
            }
        }
        return jar;
    }

    private Path tree(final String name, final Map<String, String> entries) throws IOException
    {
        final Path root = directory.resolve(name);
        for (final var entry : entries.entrySet())
        {
            final Path file = root.resolve(entry.getKey());
            Files.createDirectories(file.getParent());
            Files.writeString(file, entry.getValue());
        }
        return root;
    }
}
