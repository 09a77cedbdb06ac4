package io.jccl.it;

import io.jccl.launch.JobResult;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.nio.file.Files;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertFalse;

/** Symmetric memory read and written in place across rank JVMs: {@code peerView} and {@code Buf.asByteBuffer}. */
@Timeout(120)
class SharedWindowsTest
{
    /**
     * Loads and stores into peers' memory, ordered by barriers; atomics from every rank on one counter; a collective
     * on memory written through the views; a view read after close; the refusals. On 4 ranks they outnumber the
     * cores.
     */
    @ParameterizedTest(name = "{0} ranks")
    @ValueSource(ints = {1, 2, 4})
    void ranksReadAndWriteEachOthersSymmetricMemory(final int ranks)
    {
        final JobResult result = Jobs.launch(ranks, SharedWindowRank.class, List.of(), List.of());
        Jobs.assertEveryRankFinished(result, "window");
        assertFalse(Files.exists(Jobs.segment(result)), "segment left behind");
    }
}
