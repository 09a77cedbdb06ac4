package io.jccl.tools;

import io.jccl.launch.OutputSink;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import javax.tools.JavaCompiler;
import javax.tools.ToolProvider;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** {@code jccl classpath}: what it prints, and the workflow its usage gives, compiling a rank and running it. */
@Timeout(60)
class ClasspathCommandTest
{
    /** A rank as a user writes it, outside jccl's packages, against the public API alone. */
    private static final String USER_RANK = """
        import io.jccl.Buf;
        import io.jccl.Communicator;
        import io.jccl.Jccl;
        import io.jccl.ReduceOp;

        public class UserRank
        {
            public static void main(String[] args)
            {
                try (Communicator comm = Jccl.connect())
                {
                    int[] values = {comm.rank() + 1, 10 * (comm.rank() + 1)};
                    comm.allreduce(Buf.of(values), ReduceOp.SUM);
                    System.out.println("rank " + comm.rank() + " sum " + values[0] + " " + values[1]);
                }
            }
        }
        """;

    @TempDir
    Path dir;

    private final ByteArrayOutputStream out = new ByteArrayOutputStream();
    private final ByteArrayOutputStream err = new ByteArrayOutputStream();

    @Test
    void printsTheClassPathEveryRankGets()
    {
        assertEquals(0, run("classpath"), text(err));
        assertEquals(System.getProperty("java.class.path") + System.lineSeparator(), text(out));
    }

    @Test
    void aRankCompiledAgainstItRunsOnThreeRanks() throws IOException
    {
        assertEquals(0, run("classpath"), text(err));
        final String classPath = text(out).strip();
        final Path source = Files.writeString(dir.resolve("UserRank.java"), USER_RANK);
        final Path classes = Files.createDirectory(dir.resolve("out"));
        final JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
        assertNotNull(javac, "the tests run on a JDK");
        final ByteArrayOutputStream diagnostics = new ByteArrayOutputStream();
        assertEquals(0, javac.run(null, diagnostics, diagnostics, "-cp", classPath, "-d", classes.toString(),
            source.toString()), diagnostics::toString);

        out.reset();
        final OutputSink sink = OutputSink.to(new PrintStream(out, true, StandardCharsets.UTF_8),
            new PrintStream(err, true, StandardCharsets.UTF_8));
        final int exitCode = new RunCommand(sink).run(new String[] {"-n", "3", "--timeout", "45", "--shm-dir",
            dir.toString(), "--jvm-arg", "-XX:TieredStopAtLevel=1", "--cp", classes.toString(), "UserRank"});

        assertEquals(0, exitCode, text(err));
        assertEquals(List.of("[0] rank 0 sum 6 60", "[1] rank 1 sum 6 60", "[2] rank 2 sum 6 60"),
            text(out).lines().sorted().toList());
    }

    @Test
    void printsTheJvmArgumentsEveryRankNeeds()
    {
        assertEquals(0, run("classpath", "--jvm-args"), text(err));
        final String printed = text(out).strip();
        assertTrue(printed.startsWith("--add-exports java.base/jdk.internal.misc=ALL-UNNAMED"), printed);
        assertEquals(String.join(" ", ClasspathCommand.rankJvmArgs()), printed);
    }

    @Test
    void printsTheJdkRanksRunWith()
    {
        assertEquals(0, run("classpath", "--java-home"), text(err));
        assertEquals(System.getProperty("java.home"), text(out).strip());
    }

    @Test
    void refusesAnythingElse()
    {
        assertEquals(2, run("classpath", "--jvm-args", "--java-home"));
        assertTrue(text(err).contains("give one"), text(err));
        err.reset();
        assertEquals(2, run("classpath", "--bogus"));
        assertTrue(text(err).contains("jccl classpath: unknown option --bogus"), text(err));
        err.reset();
        assertEquals(2, run("classpath", "extra"));
        assertTrue(text(err).contains("unexpected argument 'extra'"), text(err));
    }

    private int run(final String... args)
    {
        final PrintStream outStream = new PrintStream(out, true, StandardCharsets.UTF_8);
        final PrintStream errStream = new PrintStream(err, true, StandardCharsets.UTF_8);
        return new Main(outStream, errStream, Main.commands(outStream, errStream)).run(args);
    }

    private static String text(final ByteArrayOutputStream stream)
    {
        return stream.toString(StandardCharsets.UTF_8);
    }
}
