package io.jccl.tools.demo;

import java.nio.charset.Charset;

/**
 * The few non-ASCII characters of the demo's report, with ASCII stand-ins for a terminal whose charset cannot
 * encode them (a C locale), so that the report never shows '?' in their place.
 */
record Glyphs(String arrow, String micro, String ok, String wrong)
{
    static final Glyphs UNICODE = new Glyphs("\u2500\u2500\u25ba", "\u00b5", "\u2713", "\u2717");
    static final Glyphs ASCII = new Glyphs("-->", "u", "ok", "WRONG");

    /** {@link #UNICODE} when {@code charset} can encode every glyph, else {@link #ASCII}. */
    static Glyphs forCharset(final Charset charset)
    {
        return charset.newEncoder().canEncode(UNICODE.arrow + UNICODE.micro + UNICODE.ok + UNICODE.wrong) ?
            UNICODE : ASCII;
    }
}
