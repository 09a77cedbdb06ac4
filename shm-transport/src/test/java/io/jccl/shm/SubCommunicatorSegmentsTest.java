package io.jccl.shm;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The launcher's cleanup removes a job's segment and its sub-communicators' segments, and nothing else. */
@Timeout(10)
class SubCommunicatorSegmentsTest
{
    @TempDir
    Path dir;

    @Test
    void removesTheJobAndItsGroupsOnly() throws IOException
    {
        for (final String name : List.of("jccl-0-abc.seg", "jccl-0-abc.s1.0.seg", "jccl-0-abc.s1.0.s2.1.seg.creating",
            "jccl-0-abcd.seg", "jccl-0-abcd.s1.0.seg", "jccl-0-abc.s1.0.txt", "other"))
        {
            Files.createFile(dir.resolve(name));
        }
        assertTrue(SegmentFiles.removeWithSubCommunicators(dir.resolve("jccl-0-abc.seg")));
        try (Stream<Path> left = Files.list(dir))
        {
            assertEquals(List.of("jccl-0-abc.s1.0.txt", "jccl-0-abcd.s1.0.seg", "jccl-0-abcd.seg", "other"),
                left.map(p -> p.getFileName().toString()).sorted().toList());
        }
    }
}
