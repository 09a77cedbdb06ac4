package io.jccl.it;

import io.jccl.launch.JobResult;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** split and dup between real rank JVMs: numbering, isolation, groups at work at the same time, cleanup. */
@Timeout(150)
class SubCommunicatorTest
{
    @ParameterizedTest(name = "{0} on {1} ranks")
    @CsvSource({"groups, 4", "groups, 3", "undefined, 3", "dup, 2", "dup, 4", "nested, 4", "nested, 3"})
    void scenario(final String scenario, final int ranks) throws IOException
    {
        final JobResult result = Jobs.launch(ranks, SubCommunicatorRank.class, List.of(scenario),
            List.of("JCCL_TIMEOUT_MS=60000", "JCCL_PEER_TIMEOUT_MS=15000"));
        Jobs.assertEveryRankFinished(result, scenario);
        // neither the job's segment nor any group's is left in the directory
        final Path segment = Jobs.segment(result);
        final String prefix = segment.getFileName().toString().replace(".seg", "");
        try (Stream<Path> files = Files.list(segment.getParent()))
        {
            assertEquals(List.of(), files.filter(p -> p.getFileName().toString().startsWith(prefix)).toList());
        }
    }
}
