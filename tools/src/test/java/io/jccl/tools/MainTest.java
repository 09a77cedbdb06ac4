package io.jccl.tools;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

@Timeout(10)
class MainTest
{
    private final ByteArrayOutputStream out = new ByteArrayOutputStream();
    private final ByteArrayOutputStream err = new ByteArrayOutputStream();
    private final PrintStream outStream = new PrintStream(out, true, StandardCharsets.UTF_8);
    private final PrintStream errStream = new PrintStream(err, true, StandardCharsets.UTF_8);
    private final Main main = new Main(outStream, errStream, Main.commands(outStream, errStream));

    @Test
    void helpListsEveryCommand()
    {
        assertEquals(0, main.run(new String[0]));
        for (final String name : new String[] {"run", "demo", "bench", "fit", "tune", "soak", "info", "clean", "test"})
        {
            assertTrue(text(out).contains("\n  ./jccl " + name), name + " missing from:\n" + text(out));
        }
        assertEquals("", text(err));
    }

    @Test
    void helpOfOneCommandShowsItsOptions()
    {
        assertEquals(0, main.run(new String[] {"help", "run"}));
        assertTrue(text(out).contains("--jvm-arg ARG"), text(out));
        out.reset();
        assertEquals(0, main.run(new String[] {"clean", "--help"}));
        assertTrue(text(out).startsWith("usage: ./jccl clean"), text(out));
    }

    @Test
    void unknownCommandsAndMisuseExitWithTwo()
    {
        assertEquals(2, main.run(new String[] {"frobnicate"}));
        assertTrue(text(err).startsWith("jccl: unknown command 'frobnicate'"), text(err));
        err.reset();
        assertEquals(2, main.run(new String[] {"info", "--bogus"}));
        assertTrue(text(err).startsWith("jccl info: unknown option --bogus\n"), text(err));
        assertTrue(text(err).contains("usage: ./jccl info"), text(err));
    }

    @Test
    void commandsNotWrittenYetSaySo()
    {
        final Main withPending = new Main(outStream, errStream,
            List.of(new PendingCommand("later", "a planned command", "./jccl later", errStream)));
        assertEquals(2, withPending.run(new String[] {"later", "-n", "2"}));
        assertTrue(text(err).contains("jccl later: not implemented yet"), text(err));
    }

    private static String text(final ByteArrayOutputStream bytes)
    {
        return bytes.toString(StandardCharsets.UTF_8);
    }
}
