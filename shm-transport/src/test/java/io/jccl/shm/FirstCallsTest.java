package io.jccl.shm;

import io.jccl.launch.JobLauncher;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * No call of a foreign function generates code: the JDK links a method handle at its first call and customizes its
 * invoker at its 128th from code that has not inlined it, which allocated 65 KB to 141 KB and took 0.6 to 3 ms in
 * one call. jccl makes those calls at load; they would otherwise come in the 128th large message, or in a wait.
 * In a fresh JVM ({@link FirstCallsRank}): another test of this JVM may have made the first calls already.
 */
@Timeout(60)
class FirstCallsTest
{
    @Test
    void noCallOfTheFirstThousandGeneratesCode() throws IOException, InterruptedException
    {
        final Map<String, String> results = run(FirstCallsRank.class);
        assertEquals(3, results.size(), results.toString());
        assertAtMost(1024, results, "sched_getcpu");
        assertAtMost(1024, results, "memmove");
        // the most in one call: in some runs, once, a deoptimized frame's objects (2,360 bytes)
        assertAtMost(4096, results, "process_vm");
    }

    private static void assertAtMost(final long most, final Map<String, String> results, final String name)
    {
        final String bytes = results.get(name);
        assertTrue(bytes.equals("none") || Long.parseLong(bytes) <= most, name + ": " + bytes + " bytes");
    }

    /** Runs {@code main} in a new JVM of this one's kind; its {@code FIRST_CALLS name value} lines. */
    private static Map<String, String> run(final Class<?> main) throws IOException, InterruptedException
    {
        final List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.addAll(JobLauncher.REQUIRED_JVM_ARGS);
        command.addAll(List.of("-Xmx64m", "-cp", System.getProperty("java.class.path"), main.getName()));
        final Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
        final String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertEquals(0, process.waitFor(), output);
        final Map<String, String> results = new HashMap<>();
        for (final String line : output.split("\n"))
        {
            final String[] words = line.trim().split(" ");
            if (words.length == 3 && words[0].equals("FIRST_CALLS"))
            {
                results.put(words[1], words[2]);
            }
        }
        return results;
    }
}
