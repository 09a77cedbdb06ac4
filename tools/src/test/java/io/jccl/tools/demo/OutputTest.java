package io.jccl.tools.demo;

import io.jccl.launch.OutputSink.Source;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** The demo's output plumbing: which lines keep a rank prefix, and the glyphs for the terminal's charset. */
@Timeout(10)
class OutputTest
{
    @Test
    void passesRankZerosStdoutThroughAndPrefixesEverythingElse()
    {
        final ByteArrayOutputStream out = new ByteArrayOutputStream();
        final ByteArrayOutputStream err = new ByteArrayOutputStream();
        final RankZeroSink sink = new RankZeroSink(new PrintStream(out, true, StandardCharsets.UTF_8),
            new PrintStream(err, true, StandardCharsets.UTF_8));

        sink.rankLine(0, Source.STDOUT, "allreduce (sum)");
        sink.rankLine(1, Source.STDOUT, "stray");
        sink.rankLine(0, Source.STDERR, "warning");
        sink.rankLine(2, Source.STDERR, "demo failed");
        sink.launcherLine("job 1 failed: rank 2 exited with code 1");

        final String nl = System.lineSeparator();
        assertEquals("allreduce (sum)" + nl + "[1] stray" + nl, out.toString(StandardCharsets.UTF_8));
        assertEquals("[0] warning" + nl + "[2] demo failed" + nl + "jccl: job 1 failed: rank 2 exited with code 1" +
            nl, err.toString(StandardCharsets.UTF_8));
    }

    @Test
    void fallsBackToAsciiWhenTheCharsetCannotWriteTheGlyphs()
    {
        assertEquals(Glyphs.UNICODE, Glyphs.forCharset(StandardCharsets.UTF_8));
        assertEquals(Glyphs.ASCII, Glyphs.forCharset(StandardCharsets.US_ASCII));
        assertEquals(Glyphs.ASCII, Glyphs.forCharset(StandardCharsets.ISO_8859_1));
    }
}
