package io.jccl.tools.demo;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

@Timeout(10)
class BeforeAfterTableTest
{
    @Test
    void padsTheBeforeColumnAndDrawsTheArrowOnTheFirstRowOnly()
    {
        final List<String> lines = BeforeAfterTable.render("allreduce (sum)", Glyphs.UNICODE.arrow(),
            List.of("[1, 2]", "[3, 4]", "[10, 20]"), List.of("[14, 26]", "[14, 26]", "[14, 26]"));

        assertEquals(List.of(
            "allreduce (sum)",
            "  rank 0: [1, 2]    \u2500\u2500\u25ba  rank 0: [14, 26]",
            "  rank 1: [3, 4]         rank 1: [14, 26]",
            "  rank 2: [10, 20]       rank 2: [14, 26]"), lines);
    }

    @Test
    void keepsColumnsAlignedWithTheAsciiArrow()
    {
        final List<String> lines = BeforeAfterTable.render("t", Glyphs.ASCII.arrow(), List.of("[1]", "[22]"),
            List.of("[a]", "[b]"));

        assertEquals(List.of("t", "  rank 0: [1]   -->  rank 0: [a]", "  rank 1: [22]       rank 1: [b]"), lines);
        assertEquals(lines.get(1).indexOf("rank 0: [a]"), lines.get(2).indexOf("rank 1: [b]"));
    }

    @Test
    void refusesColumnsOfDifferentLengths()
    {
        assertThrows(IllegalArgumentException.class,
            () -> BeforeAfterTable.render("t", "->", List.of("[1]"), List.of("[1]", "[2]")));
    }
}
