package io.jccl.launch;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.util.List;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Which JVM arguments a job's ranks get for the class-data archive, and how the archives are kept; one JVM. */
@Timeout(30)
class ClassDataArchiveTest
{
    private static final List<String> JVM_ARGS = List.of("--add-exports", "java.base/jdk.internal.misc=ALL-UNNAMED");

    @TempDir
    Path home;
    @TempDir
    Path archives;
    @TempDir
    Path jars;

    private Path java;
    private String classPath;

    /** A runtime with what the archive looks at (bin/java, release, lib/modules, the base archive) and two jars. */
    @BeforeEach
    void runtimeAndJars() throws IOException
    {
        java = Files.createDirectories(home.resolve("bin")).resolve("java");
        Files.writeString(java, "");
        Files.writeString(home.resolve("release"), "JAVA_VERSION=\"25\"\n");
        Files.createDirectories(home.resolve("lib/server"));
        Files.writeString(home.resolve("lib/modules"), "modules");
        Files.writeString(home.resolve("lib/server/classes.jsa"), "base archive");
        classPath = Files.writeString(jars.resolve("a.jar"), "a") + File.pathSeparator +
            Files.writeString(jars.resolve("b.jar"), "b");
    }

    @Test
    void rankZeroWritesTheArchiveAndTheLauncherPutsItInPlaceForEveryRankOfTheNextJob() throws IOException
    {
        final ClassDataArchive first = ClassDataArchive.forJob(archives, java, classPath, JVM_ARGS, "job1");
        final Path archive = first.archive();
        assertTrue(archive.getFileName().toString().matches("[0-9a-f]{16}-[0-9a-f]{16}\\.jsa"), archive.toString());
        final String written = first.jvmArgs(0).get(0);
        // not in the archives' directory: a JVM that cannot write its archive exits with 1
        assertTrue(written.startsWith("-XX:ArchiveClassesAtExit=" +
            Path.of(System.getProperty("java.io.tmpdir")).toAbsolutePath().resolve("jccl-cds-")), written);
        assertTrue(written.endsWith("-job1.tmp"), "rank 0 writes a file of its own job: " + written);
        assertEquals(List.of(written, "-Xlog:cds*=off"), first.jvmArgs(0));
        assertEquals(List.of(), first.jvmArgs(1), "the other ranks of the first job run without");

        // what rank 0 would write at its exit
        final Path temporary = Path.of(written.substring(written.indexOf('=') + 1));
        Files.writeString(temporary, "archive");
        first.finish(true);
        assertEquals(List.of(archive), files(), "the written file copied and renamed into place");
        assertEquals("archive", Files.readString(archive));
        assertFalse(Files.exists(temporary));

        final ClassDataArchive second = ClassDataArchive.forJob(archives, java, classPath, JVM_ARGS, "job2");
        assertEquals(archive, second.archive());
        for (int rank = 0; rank < 3; rank++)
        {
            assertEquals(List.of("-XX:SharedArchiveFile=" + archive, "-Xlog:cds*=off"), second.jvmArgs(rank));
        }
        second.finish(true);
        assertEquals(List.of(archive), files());
    }

    @Test
    void aFailedRankZeroPublishesNothingAndLeavesNothingBehind() throws IOException
    {
        final ClassDataArchive job = ClassDataArchive.forJob(archives, java, classPath, JVM_ARGS, "job1");
        final String written = job.jvmArgs(0).get(0);
        final Path temporary = Path.of(written.substring(written.indexOf('=') + 1));
        Files.writeString(temporary, "half an archive");
        job.finish(false);
        assertEquals(List.of(), files());
        assertFalse(Files.exists(temporary));

        // rank 0 killed before it wrote anything
        ClassDataArchive.forJob(archives, java, classPath, JVM_ARGS, "job2").finish(true);
        assertEquals(List.of(), files());
    }

    @Test
    void aRebuiltJarNamesANewArchiveWhichReplacesTheOldOne() throws IOException
    {
        final Path old = publish("job1");
        Files.setLastModifiedTime(jars.resolve("b.jar"), FileTime.fromMillis(System.currentTimeMillis() + 5_000));
        final ClassDataArchive rebuilt = ClassDataArchive.forJob(archives, java, classPath, JVM_ARGS, "job2");
        assertNotEquals(old, rebuilt.archive());
        assertEquals(old.getFileName().toString().substring(0, 17),
            rebuilt.archive().getFileName().toString().substring(0, 17), "the same family");
        final Path fresh = publish("job3");
        assertEquals(List.of(fresh), files(), "the stale archive deleted");

        // another class path, another JDK or other JVM arguments: another family, kept beside this one
        final Path other = publishFor(List.of("-Xmx1g"), "job4");
        assertEquals(2, files().size());
        assertNotEquals(fresh.getFileName().toString().substring(0, 16),
            other.getFileName().toString().substring(0, 16));
    }

    @Test
    void anArchiveDirectoryDeletedDuringTheJobIsMadeAgain() throws IOException
    {
        final ClassDataArchive job = ClassDataArchive.forJob(archives, java, classPath, JVM_ARGS, "job1");
        final String written = job.jvmArgs(0).get(0);
        Files.writeString(Path.of(written.substring(written.indexOf('=') + 1)), "archive");
        Files.delete(archives);
        job.finish(true);
        assertEquals(List.of(job.archive()), files());
    }

    @Test
    void theLeastRecentlyUsedArchivesGoBeyondTheMostKept() throws IOException
    {
        final long now = System.currentTimeMillis();
        final List<Path> others = new java.util.ArrayList<>();
        for (int i = 0; i < ClassDataArchive.MAX_ARCHIVES; i++)
        {
            final Path other = Files.writeString(archives.resolve(String.format("%016x-0000000000000000.jsa", i)),
                "archive " + i);
            Files.setLastModifiedTime(other, FileTime.fromMillis(now - 3_600_000L * (i + 1)));
            others.add(other);
        }
        // mapping an archive dates it: the oldest becomes the newest
        final Path oldest = others.get(ClassDataArchive.MAX_ARCHIVES - 1);
        Files.move(oldest, archives.resolve(
            ClassDataArchive.forJob(archives, java, classPath, JVM_ARGS, "probe").archive().getFileName()));
        final Path mapped = ClassDataArchive.forJob(archives, java, classPath, JVM_ARGS, "job1").archive();
        assertTrue(Files.getLastModifiedTime(mapped).toMillis() >= now, "dated when mapped");

        final Path published = publishFor(List.of("-Xmx1g"), "job2");
        final List<Path> kept = files();
        assertEquals(ClassDataArchive.MAX_ARCHIVES, kept.size());
        assertTrue(kept.contains(published) && kept.contains(mapped), kept.toString());
        assertFalse(kept.contains(others.get(ClassDataArchive.MAX_ARCHIVES - 2)), "the least recently used went");
    }

    @Test
    void noArchiveWhereHotSpotCannotMakeOneOrTheUserChoseSharing() throws IOException
    {
        final Path classes = Files.createDirectories(jars.resolve("classes"));
        Files.writeString(classes.resolve("A.class"), "");
        assertNone(ClassDataArchive.forJob(archives, java, classPath + File.pathSeparator + classes, JVM_ARGS, "j"),
            "a directory on the class path");
        assertNone(ClassDataArchive.forJob(archives, java, classPath + File.pathSeparator + jars.resolve("no.jar"),
            JVM_ARGS, "j"), "a missing jar");
        assertNone(ClassDataArchive.forJob(null, java, classPath, JVM_ARGS, "j"), "no directory");
        assertNone(ClassDataArchive.forJob(archives, java, "", JVM_ARGS, "j"), "no class path");
        for (final String choice : List.of("-Xshare:off", "-XX:SharedArchiveFile=my.jsa", "-XX:AOTCache=app.aot",
            "-XX:ArchiveClassesAtExit=my.jsa", "-XX:+AutoCreateSharedArchive", "-XX:-UseSharedSpaces"))
        {
            assertNone(ClassDataArchive.forJob(archives, java, classPath, List.of("-Xmx1g", choice), "j"), choice);
        }
        // with these HotSpot would end rank 0 with exit code 1, or not write, or drop the user's recording
        for (final String arg : List.of("-agentlib:jdwp=transport=dt_socket,server=y,suspend=n",
            "-agentpath:/opt/profiler/libasyncProfiler.so=start", "-javaagent:otel.jar", "-Xrunjdwp:server=y",
            "--limit-modules=java.base", "--limit-modules", "--upgrade-module-path=mods", "--patch-module=m=p",
            "-XX:+RecordDynamicDumpInfo", "-XX:StartFlightRecording=filename=rank.jfr",
            // files of options, which may hold any of those
            "@rank.options", "-XX:VMOptionsFile=rank.options", "-XX:Flags=.hotspotrc"))
        {
            assertNone(ClassDataArchive.forJob(archives, java, classPath, List.of("-Xmx1g", arg), "j"), arg);
        }
        Files.delete(home.resolve("lib/server/classes.jsa"));
        assertNone(ClassDataArchive.forJob(archives, java, classPath, JVM_ARGS, "j"), "no base archive");
        assertEquals(List.of(), files());
    }

    private Path publish(final String jobId) throws IOException
    {
        return publishFor(JVM_ARGS, jobId);
    }

    private Path publishFor(final List<String> jvmArgs, final String jobId) throws IOException
    {
        final ClassDataArchive job = ClassDataArchive.forJob(archives, java, classPath, jvmArgs, jobId);
        final String written = job.jvmArgs(0).get(0);
        Files.writeString(Path.of(written.substring(written.indexOf('=') + 1)), "archive of " + jobId);
        job.finish(true);
        return job.archive();
    }

    private static void assertNone(final ClassDataArchive archive, final String why)
    {
        assertNull(archive.archive(), why);
        assertEquals(List.of(), archive.jvmArgs(0), why);
        assertEquals(List.of(), archive.jvmArgs(1), why);
    }

    private List<Path> files() throws IOException
    {
        try (Stream<Path> files = Files.list(archives))
        {
            return files.sorted().toList();
        }
    }
}
