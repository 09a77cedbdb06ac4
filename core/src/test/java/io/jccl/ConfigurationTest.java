package io.jccl;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Settings: bad values are refused with a message naming the setting and its environment variable. */
@Timeout(10)
class ConfigurationTest
{
    private static Configuration with(final String prop, final String value)
    {
        return Configuration.builder().set(prop, value).build();
    }

    @Test
    void numberThatIsNotANumber()
    {
        final IllegalArgumentException ex = assertThrows(IllegalArgumentException.class,
            () -> with(Configuration.TIMEOUT_MS_PROP_NAME, "soon").timeoutMs());
        assertTrue(ex.getMessage().contains("jccl.timeout.ms (JCCL_TIMEOUT_MS) = 'soon' is not a number"),
            ex.getMessage());
    }

    @Test
    void sizesWithSuffixes()
    {
        assertEquals(64L << 10, with(Configuration.RING_BYTES_PROP_NAME, "64k")
            .getLong(Configuration.RING_BYTES_PROP_NAME, 0));
        assertEquals(4L << 20, Configuration.parseSize("4MiB"));
        assertThrows(NumberFormatException.class, () -> Configuration.parseSize("-4k"));
        assertThrows(NumberFormatException.class, () -> Configuration.parseSize("k"));
        assertThrows(NumberFormatException.class, () -> Configuration.parseSize("9999999999999g"));
    }

    @Test
    void sizesUpToALong()
    {
        assertEquals(1L << 40, with(Configuration.PACE_PROBE_BYTES_PROP_NAME, "1099511627776")
            .getLong(Configuration.PACE_PROBE_BYTES_PROP_NAME, 0));
        assertEquals(Long.MAX_VALUE, Configuration.parseSize(Long.toString(Long.MAX_VALUE)));
        assertEquals(8L << 50, Configuration.parseSize("8388608g"));
        assertThrows(NumberFormatException.class, () -> Configuration.parseSize("9223372036854775808"));
        assertThrows(NumberFormatException.class, () -> Configuration.parseSize("8589934592g"));
        final IllegalArgumentException ex = assertThrows(IllegalArgumentException.class,
            () -> with(Configuration.PACE_PROBE_BYTES_PROP_NAME, "99999999999999999999")
                .getLong(Configuration.PACE_PROBE_BYTES_PROP_NAME, 0));
        assertTrue(ex.getMessage().contains("(JCCL_PACE_PROBE_BYTES) = '99999999999999999999' is too large"),
            ex.getMessage());
    }

    @Test
    void booleans()
    {
        assertTrue(with(Configuration.CHECK_PROP_NAME, "1").getBoolean(Configuration.CHECK_PROP_NAME, false));
        assertTrue(with(Configuration.CHECK_PROP_NAME, "Yes").getBoolean(Configuration.CHECK_PROP_NAME, false));
        assertFalse(with(Configuration.CHECK_PROP_NAME, "off").getBoolean(Configuration.CHECK_PROP_NAME, true));
        assertFalse(with(Configuration.CHECK_PROP_NAME, " ").getBoolean(Configuration.CHECK_PROP_NAME, false));
        final IllegalArgumentException ex = assertThrows(IllegalArgumentException.class,
            () -> with(Configuration.CHECK_PROP_NAME, "maybe").getBoolean(Configuration.CHECK_PROP_NAME, false));
        assertTrue(ex.getMessage().contains("JCCL_CHECK") && ex.getMessage().contains("'maybe'"), ex.getMessage());
    }

    @Test
    void rankAndJobId()
    {
        assertThrows(IllegalArgumentException.class, () -> with(Configuration.RANK_PROP_NAME, "two").rank());
        final IllegalArgumentException bad = assertThrows(IllegalArgumentException.class,
            () -> with(Configuration.JOB_ID_PROP_NAME, "a/b").jobId());
        assertTrue(bad.getMessage().contains("must be 1-64 characters"), bad.getMessage());
        assertEquals("job-1", with(Configuration.JOB_ID_PROP_NAME, "job-1").jobId());
    }
}
