package io.jccl.tools;

import io.jccl.shm.SegmentDescriptor;
import io.jccl.shm.SegmentFiles;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** {@code jccl info} and {@code jccl clean} on dummy segments whose headers name dead and live creators. */
@Timeout(30)
class ShmCommandsTest
{
    @TempDir
    Path dir;

    private final ByteArrayOutputStream out = new ByteArrayOutputStream();

    private long deadPid;
    private final long livePid = ProcessHandle.current().pid();
    private Path deadSegment;
    private Path deadCreating;
    private Path liveSegment;
    private Path reusedPidSegment;
    private Path headerlessCreating;
    private Path unrelatedFile;

    @BeforeEach
    void createSegments() throws Exception
    {
        final Process exited = new ProcessBuilder("true").start();
        exited.waitFor();
        deadPid = exited.pid();
        final long now = System.currentTimeMillis();

        deadSegment = segment(SegmentFiles.fileName("dead"), deadPid, now, 8192);
        deadCreating = segment(SegmentFiles.fileName("dead2") + SegmentFiles.CREATING_SUFFIX, deadPid, 0, 4096);
        liveSegment = segment(SegmentFiles.fileName("live"), livePid, now, 4096);
        // this JVM started after the segment was made: the segment's creator was an earlier owner of this pid
        reusedPidSegment = segment(SegmentFiles.fileName("reused"), livePid,
            now - Duration.ofHours(1).toMillis(), 4096);
        headerlessCreating = dir.resolve(SegmentFiles.fileName("new") + SegmentFiles.CREATING_SUFFIX);
        Files.write(headerlessCreating, new byte[16]);
        unrelatedFile = dir.resolve("jccl-notes.txt");
        Files.writeString(unrelatedFile, "not a segment");
    }

    @Test
    void cleanRemovesOnlySegmentsWhoseCreatorIsDead() throws IOException
    {
        final int exitCode = new CleanCommand(print(out)).run(new String[] {"--shm-dir", dir.toString()});

        assertEquals(0, exitCode, text());
        assertFalse(Files.exists(deadSegment), text());
        assertFalse(Files.exists(deadCreating), text());
        assertFalse(Files.exists(reusedPidSegment), text());
        assertTrue(Files.exists(liveSegment), text());
        assertTrue(Files.exists(headerlessCreating), text());
        assertTrue(Files.exists(unrelatedFile), text());
        assertTrue(text().contains("removed " + deadSegment.getFileName() + ": creator pid " + deadPid +
            " is dead"), text());
        assertTrue(text().contains("kept    " + liveSegment.getFileName() + ": creator pid " + livePid +
            " is alive"), text());
        assertTrue(text().contains("kept    " + headerlessCreating.getFileName() + ": creator unknown"), text());
        assertTrue(text().contains("removed 3, kept 2"), text());
    }

    @Test
    void infoCountsTheClassDataArchives(@TempDir final Path archives) throws IOException
    {
        assertTrue(InfoCommand.classDataArchives(null).startsWith("class-data archives: off ("));
        assertTrue(InfoCommand.classDataArchives(archives.resolve("not yet")).startsWith("class-data archives: " +
            archives.resolve("not yet") + " (0 archives, 0 B;"), InfoCommand.classDataArchives(archives));
        Files.write(archives.resolve("a-1.jsa"), new byte[3 << 20]);
        Files.write(archives.resolve("b-2.jsa"), new byte[1 << 20]);
        Files.write(archives.resolve("b-job.tmp"), new byte[1 << 20]);
        assertTrue(InfoCommand.classDataArchives(archives).startsWith("class-data archives: " + archives +
            " (2 archives, 4.0 MiB;"), InfoCommand.classDataArchives(archives));
    }

    @Test
    void infoSaysWhichMemoryLiesOnHugePages()
    {
        assertTrue(InfoCommand.hugePages(null, null, null, true).startsWith("huge pages: unknown ("));
        assertTrue(InfoCommand.hugePages("always madvise [never]", "[never]", null, true)
            .startsWith("huge pages: off (transparent huge pages never)"));
        final String madvise = InfoCommand.hugePages("always [madvise] never",
            "always within_size advise [never] deny force", null, true);
        assertTrue(madvise.startsWith("huge pages: transparent ones madvise; jccl's copies for peers to read and " +
            "scratch from 2 MiB on them: yes;"), madvise);
        assertTrue(madvise.contains("the job segment on them: no (shmem_enabled never)"), madvise);
        assertTrue(madvise.contains("direct buffers from 2 MiB on them: no, but under " +
            "GLIBC_TUNABLES=glibc.malloc.hugetlb=1"), madvise);
        final String tuned = InfoCommand.hugePages("always [madvise] never", "[advise]",
            "glibc.malloc.arena_max=2:glibc.malloc.hugetlb=1", false);
        assertTrue(tuned.contains("direct buffers from 2 MiB on them: yes (GLIBC_TUNABLES " +
            "glibc.malloc.arena_max=2:glibc.malloc.hugetlb=1)"), tuned);
        assertTrue(tuned.contains("the job segment on them: no (shmem_enabled advise)"), tuned);
        assertTrue(tuned.contains("on them: no (Java 22+ and jccl.huge.pages)"), tuned);
        final String always = InfoCommand.hugePages("[always] madvise never", "[within_size]", null, true);
        assertTrue(always.contains("the job segment on them: yes") &&
            always.contains("direct buffers from 2 MiB on them: yes (always)"), always);
    }

    @Test
    void infoListsEverySegmentWithItsCreator() throws IOException
    {
        final int exitCode = new InfoCommand(print(out)).run(new String[] {"--shm-dir", dir.toString()});

        assertEquals(0, exitCode, text());
        assertTrue(text().startsWith("shm directory: " + dir + "\ncapacity: "), text());
        assertTrue(text().contains("\nrank JVMs: Java " + Runtime.version().feature() + " "), text());
        assertTrue(text().contains("SIMD reduction kernels: " + (Runtime.version().feature() >= 22 ? "yes" : "no")),
            text());
        assertTrue(text().contains("; copies of 2.5 MB or more stream past the caches: " +
            (io.jccl.spi.StreamingCopy.available() ? "yes (MaxVectorSize 64)\n" : "no (")), text());
        // the build the launcher's ranks run, which they compare at connect
        assertTrue(text().contains("\njccl build: " + io.jccl.engine.BuildDigest.thisJvm() + "; "), text());
        assertTrue(text().contains("5 jccl segments:"), text());
        assertTrue(text().matches("(?s).*" + deadSegment.getFileName() + " +8\\.0 KiB +" + SegmentFiles.uid() +
            " +" + deadPid + " +dead\n.*"), text());
        assertTrue(text().matches("(?s).*" + liveSegment.getFileName() + " +4\\.0 KiB +\\d+ +" + livePid +
            " +alive\n.*"), text());
        assertTrue(text().contains("dead (pid reused)"), text());
        assertFalse(text().contains(unrelatedFile.getFileName().toString()), text());
        assertTrue(Files.exists(deadSegment), "info must not remove anything");
    }

    @Test
    void formatsSizes()
    {
        assertEquals("512 B", InfoCommand.formatBytes(512));
        assertEquals("4.0 KiB", InfoCommand.formatBytes(4096));
        assertEquals("1.5 MiB", InfoCommand.formatBytes(3L << 19));
        assertEquals("2.0 GiB", InfoCommand.formatBytes(2L << 30));
    }

    /** A file with just enough of a segment header: creator pid and creation time, little-endian. */
    private Path segment(final String name, final long creatorPid, final long creationTimeMs, final int length)
        throws IOException
    {
        final ByteBuffer header = ByteBuffer.allocate(length).order(ByteOrder.LITTLE_ENDIAN);
        header.putLong(SegmentDescriptor.CREATOR_PID_OFFSET, creatorPid);
        header.putLong(SegmentDescriptor.CREATION_TIME_OFFSET, creationTimeMs);
        final Path path = dir.resolve(name);
        Files.write(path, header.array());
        return path;
    }

    private static PrintStream print(final ByteArrayOutputStream bytes)
    {
        return new PrintStream(bytes, true, StandardCharsets.UTF_8);
    }

    private String text()
    {
        return out.toString(StandardCharsets.UTF_8);
    }
}
