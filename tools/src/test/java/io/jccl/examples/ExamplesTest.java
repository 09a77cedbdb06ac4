package io.jccl.examples;

import io.jccl.launch.JobLauncher;
import io.jccl.launch.JobResult;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.time.Duration;
import java.util.Arrays;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Every example runs as real rank JVMs (what {@code ./jccl run -n N -- CLASS ARGS} does), on small sizes, and passes
 * its own checks: exit status 0 and the line saying so, and no rank prints a JVM warning.
 */
@Timeout(150)
class ExamplesTest
{
    @ParameterizedTest(name = "{0} on {1} ranks")
    @CsvSource(delimiter = '|', value = {
        "DataParallelTraining | 2 | --steps 12 --inputs 64 --hidden 256 --batch 8 --bucket-bytes 16k --measure-rounds 3 | largest relative loss difference",
        "DataParallelTraining | 4 | --steps 12 --inputs 64 --hidden 256 --batch 8 --bucket-bytes 16k --measure-rounds 3 | largest relative loss difference",
        "DataParallelTraining | 2 | --steps 3 --inputs 64 --hidden 128 --batch 4 --measure-rounds 1 | final weights identical on all 2 ranks: yes",
        "TensorParallelMlp | 2 | --inputs 64 --hidden 128 --outputs 32 --batch 4 | every shard matches the unsharded MLP",
        "TensorParallelMlp | 4 | --tp 2 --inputs 64 --hidden 128 --outputs 32 --batch 4 | 2 data-parallel replicas x 2 tensor-parallel shards",
        "ShardedStep | 3 | --params 10007 --samples 8 --steps 10 | unsharded training on one process",
        "MoeDispatch | 4 | --tokens 1000 --dim 16 | every token came back transformed by its expert",
        "Bf16Gradients | 3 | --count 100003 | both within bfloat16's rounding bounds",
        "WorkQueue | 4 | --width 200 --rows 60 --iterations 500 | every row matches the image computed on one rank",
        "HeatStencil | 4 | --rows 61 --cols 40 --steps 150 --report 50 | every cell matches the grid computed on one rank",
        "WordCount | 3 | --words 30000 --vocabulary 4000 --top 3 | every count matches the count on one rank",
        "SharedTable | 3 | --entries 100003 --lookups 200000 --block 1000 --rounds 2 | every lookup matches the table computed on one rank",
        "OverlapBenchmark | 2 | --sizes 64k,1m --rounds 3 | hidden"})
    void runsAndPassesItsChecks(final String example, final int ranks, final String args, final String expected)
    {
        final JobResult result = JobLauncher.builder()
            .ranks(ranks)
            .mainClass("io.jccl.examples." + example)
            .args(Arrays.asList(args.trim().split(" +")))
            .jvmArgs(List.of("-Xmx512m", "-XX:+UseSerialGC"))
            .environment("JCCL_TIMEOUT_MS", "60000")
            .environment("JCCL_PEER_TIMEOUT_MS", "15000")
            .captureOutput(true)
            .timeout(Duration.ofSeconds(120))
            .build()
            .run();
        final String output = String.join("\n", result.output(0));
        assertTrue(result.succeeded(), () -> "job failed: " + result.summary() + "\n" + output);
        assertTrue(output.contains(expected.trim()), output);
        if (example.equals("DataParallelTraining") && output.contains("loss difference"))
        {
            assertTrue(output.contains(" ok;"), output);
        }
        for (int rank = 0; rank < ranks; rank++)
        {
            // JVM warnings are noise in every rank's output: JCTools' plain queues drew one from Java 24 on
            final List<String> warnings =
                result.output(rank).stream().filter(line -> line.startsWith("WARNING")).toList();
            assertTrue(warnings.isEmpty(), "rank " + rank + " printed " + warnings);
        }
    }
}
