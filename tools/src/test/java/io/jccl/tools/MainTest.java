package io.jccl.tools;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
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

    /** Results that cannot be fitted or tuned from are the files' fault: one line saying why, exit 1, no trace. */
    @Test
    void unusableResultsExitWithOneAndSayWhy(@TempDir final Path directory) throws Exception
    {
        final Path headerOnly = Files.writeString(directory.resolve("header.csv"),
            "collective,algorithm,ranks,bytes,dtype,avg_us,min_us,max_us,iters,algbw_GBps,busbw_GBps,wrong,op,memory\n");
        final Path shared = Files.writeString(directory.resolve("shared.csv"),
            "collective,algorithm,ranks,bytes,dtype,avg_us,min_us,max_us,iters,algbw_GBps,busbw_GBps,wrong,op,memory\n" +
            "allreduce,shm_twoshot,2,1024,float32,1.5,1,2,1000,0.7,0.7,,sum,shared\n");
        assertEquals(1, main.run(new String[] {"fit", headerOnly.toString()}), text(err));
        assertTrue(text(err).contains("jccl fit: " + headerOnly + ": no measurements"), text(err));
        assertFalse(text(err).contains("Exception"), text(err));
        err.reset();
        assertEquals(1, main.run(new String[] {"tune", "--from", shared.toString(), "--dry-run"}), text(err));
        assertTrue(text(err).contains("jccl tune: " + shared + ": no collective with named algorithms to choose " +
            "between"), text(err));
        assertFalse(text(err).contains("Exception"), text(err));
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
