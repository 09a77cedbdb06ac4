package io.jccl.it;

import io.jccl.launch.JobLauncher;
import io.jccl.launch.JobResult;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * Ranks the launcher starts compile the SIMD kernel they call in C2 within their first calls, and wait for it
 * ({@link JobLauncher#VECTOR_JVM_ARGS}): {@code -XX:+PrintCompilation} shows the float32 kernel's blocking ({@code b})
 * tier-4 compilation before a rank's third 64 KiB allreduce has returned; without the two commands on the kernels
 * this fails, as the JVM's default thresholds take many more calls. The JVM echoes none of its compile commands.
 */
@Timeout(120)
class VectorKernelsJitTest
{
    private static final int CALLS = 3;
    /** A PrintCompilation line: time, id, flags (b: blocking), tier, method. */
    private static final Pattern C2_BLOCKING = Pattern.compile(
        "\\s\\d+\\s+%?\\s*b\\s+4\\s+" + Pattern.quote(JobLauncher.VECTOR_KERNELS_CLASS + "::float32") + "\\s");

    @Test
    void firstCallsCompileTheKernelInC2AndWaitForIt()
    {
        assumeTrue(Runtime.version().feature() >= 22 &&
            JobLauncher.hasVectorModule(Path.of(System.getProperty("java.home"), "bin", "java")),
            "the SIMD kernels need Java 22 and " + JobLauncher.VECTOR_MODULE);
        final JobResult result = Jobs.launch(2, VectorKernelsJitRank.class, List.of(Integer.toString(CALLS)),
            List.of(), List.of("-Xmx256m", "-XX:+UseSerialGC", "-XX:+PrintCompilation"), Duration.ofSeconds(90));
        Jobs.assertSucceeded(result);
        for (int rank = 0; rank < 2; rank++)
        {
            final List<String> lines = result.output(rank);
            int compiled = -1;
            int done = -1;
            for (int i = 0; i < lines.size(); i++)
            {
                if (compiled < 0 && C2_BLOCKING.matcher(lines.get(i)).find())
                {
                    compiled = i;
                }
                if (lines.get(i).contains(VectorKernelsJitRank.DONE + " " + CALLS))
                {
                    done = i;
                }
                assertFalse(lines.get(i).startsWith("CompileCommand:"), "rank " + rank + " echoed " + lines.get(i));
            }
            final int rankShown = rank;
            assertTrue(done >= 0, () -> "rank " + rankShown + " did not finish its calls:\n" + String.join("\n",
                lines));
            final int compiledAt = compiled;
            final int doneAt = done;
            assertTrue(compiledAt >= 0 && compiledAt < doneAt, () -> "rank " + rankShown + ": no blocking C2 " +
                "compilation of the float32 kernel before its " + CALLS + " calls returned (line " + compiledAt +
                ", calls done at line " + doneAt + "):\n" + String.join("\n", lines.stream()
                .filter(l -> l.contains("VectorApiReductions") || l.contains(VectorKernelsJitRank.DONE)).toList()));
        }
    }
}
