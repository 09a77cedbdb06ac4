package io.jccl.tools;

import io.jccl.launch.OutputSink;
import io.jccl.shm.SegmentFiles;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.io.BufferedReader;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.jar.Attributes;
import java.util.jar.JarOutputStream;
import java.util.jar.Manifest;
import java.util.stream.Collectors;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** {@code jccl run} end to end: real rank JVMs running {@link RankProgram}. */
@Timeout(60)
class RunCommandTest
{
    @TempDir
    Path dir;

    private final ByteArrayOutputStream out = new ByteArrayOutputStream();
    private final ByteArrayOutputStream err = new ByteArrayOutputStream();

    @Test
    void runsEveryRankAndPrefixesItsOutput()
    {
        final int exitCode = run("-n", "2", "--timeout", "30", "--", RankProgram.class.getName(), "a", "b");

        assertEquals(0, exitCode, errText());
        final List<String> lines = outText().lines().sorted().toList();
        assertEquals(List.of("[0] rank 0 of 2 args a b", "[1] rank 1 of 2 args a b"), lines);
        assertEquals("", errText());
    }

    @Test
    void exitsWithTheFailedRanksCodeAndSaysWhoFailed()
    {
        final int exitCode = run("-n", "3", RankProgram.class.getName(), "fail", "2", "7");

        assertEquals(7, exitCode);
        assertTrue(errText().contains("jccl: job "), errText());
        assertTrue(errText().contains(" failed: rank 2 exited with code 7"), errText());
    }

    @Test
    void runsTheMainClassOfAJar() throws IOException
    {
        final Manifest manifest = new Manifest();
        manifest.getMainAttributes().put(Attributes.Name.MANIFEST_VERSION, "1.0");
        manifest.getMainAttributes().put(Attributes.Name.MAIN_CLASS, RankProgram.class.getName());
        final Path jar = dir.resolve("program.jar");
        try (JarOutputStream jarOut = new JarOutputStream(Files.newOutputStream(jar), manifest))
        {
            // the manifest is all it needs: RankProgram is on jccl's class path in this test
            jarOut.finish();
        }

        final int exitCode = run("-n", "1", jar.toString(), "x");

        assertEquals(0, exitCode, errText());
        assertEquals("[0] rank 0 of 1 args x", outText().strip());
    }

    @Test
    void launcherStoppedBySignalStopsItsRanksAndRemovesTheSegment() throws Exception
    {
        final String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        final Process launcher = new ProcessBuilder(java, "--add-exports", "java.base/jdk.internal.misc=ALL-UNNAMED",
            "-XX:TieredStopAtLevel=1", "-cp", System.getProperty("java.class.path"), Main.class.getName(), "run",
            "-n", "2", "--shm-dir", dir.toString(), "--jvm-arg", "-XX:TieredStopAtLevel=1", RankProgram.class.getName(),
            "sleep").redirectErrorStream(true).start();
        final BufferedReader output = new BufferedReader(new InputStreamReader(launcher.getInputStream(),
            StandardCharsets.UTF_8));
        String jobId = null;
        int sleeping = 0;
        for (String line; sleeping < 2 && (line = output.readLine()) != null; )
        {
            if (line.matches("\\[\\d] job .*"))
            {
                jobId = line.substring(line.lastIndexOf(' ') + 1);
                sleeping++;
            }
        }
        assertEquals(2, sleeping, "the ranks did not start");
        final Path segment = dir.resolve(SegmentFiles.fileName(jobId));
        Files.write(segment, new byte[4096]);
        final List<ProcessHandle> ranks = launcher.descendants().toList();
        assertEquals(2, ranks.size(), ranks.toString());

        launcher.toHandle().destroy();

        final String rest = output.lines().collect(Collectors.joining("\n"));
        assertTrue(launcher.waitFor(20, TimeUnit.SECONDS), "the launcher did not exit");
        assertTrue(rest.contains("jccl: launcher shutting down: stopped ranks 0, 1 of job " + jobId), rest);
        for (final ProcessHandle rank : ranks)
        {
            rank.onExit().get(20, TimeUnit.SECONDS);
            assertFalse(rank.isAlive(), rank + " still runs");
        }
        assertFalse(Files.exists(segment), segment + " left behind");
    }

    @Test
    void rejectsWrongArguments()
    {
        assertThrows(UsageException.class, () -> run(RankProgram.class.getName()));
        assertThrows(UsageException.class, () -> run("-n", "0", RankProgram.class.getName()));
        assertThrows(UsageException.class, () -> run("-n", "two", RankProgram.class.getName()));
        assertThrows(UsageException.class, () -> run("-n", "2"));
        assertThrows(UsageException.class, () -> run("-n", "2", "--frobnicate", RankProgram.class.getName()));
        assertThrows(UsageException.class, () -> run("-n", "2", "--timeout", "-1", RankProgram.class.getName()));
        assertThrows(UsageException.class, () -> run("-n", "2", dir.resolve("missing.jar").toString()));
    }

    private int run(final String... args)
    {
        final String[] common = {"--shm-dir", dir.toString(), "--jvm-arg", "-XX:TieredStopAtLevel=1",
            "--jvm-arg=-XX:+UseSerialGC"};
        final String[] all = new String[common.length + args.length];
        System.arraycopy(common, 0, all, 0, common.length);
        System.arraycopy(args, 0, all, common.length, args.length);
        final OutputSink sink = OutputSink.to(new PrintStream(out, true, StandardCharsets.UTF_8),
            new PrintStream(err, true, StandardCharsets.UTF_8));
        return new RunCommand(sink).run(all);
    }

    private String outText()
    {
        return out.toString(StandardCharsets.UTF_8);
    }

    private String errText()
    {
        return err.toString(StandardCharsets.UTF_8);
    }
}
