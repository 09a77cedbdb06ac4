package io.jccl.shm;

import io.jccl.Configuration;
import io.jccl.JcclException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;

/** A segment larger than one mapping is refused before any file exists, with what makes it that large. */
@Timeout(10)
class JobSegmentSizeTest
{
    @Test
    void aSegmentBeyondOneMappingIsRefusedWithItsParts(@TempDir final Path dir) throws IOException
    {
        final SegmentDescriptor layout = new SegmentDescriptor(100, 1 << 20, 4 << 20, 8 << 20);
        final Path path = dir.resolve("too-large.seg");
        final JcclException refusal = assertThrows(JcclException.class, () -> JobSegment.create(path, layout,
            "too-large", new Log(Configuration.builder().build(), 0)));
        final long ring = ChannelDescriptor.length(1 << 20);
        assertEquals("the job segment would need " + JobSegment.mib(layout.totalLength()) + " for 100 ranks (rings " +
            JobSegment.mib(9900 * ring) + ", one per ordered pair of ranks (100 × 99 of " + JobSegment.mib(ring) +
            "); staging areas 400.0 MiB (100 × 4.0 MiB); symmetric memory 800.0 MiB (100 × 8.0 MiB)), more than " +
            "one mapping holds (2048.0 MiB): shrink it with JCCL_RING_BYTES, JCCL_STAGING_BYTES and " +
            "JCCL_SYMMETRIC_BYTES.", refusal.getMessage());
        try (var left = Files.list(dir))
        {
            assertFalse(left.findAny().isPresent(), "a file was made for a refused segment");
        }
    }
}
