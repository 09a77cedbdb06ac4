package io.jccl.tools.bench;

import java.util.Locale;

/** How {@code jccl bench} prints its results. */
public enum BenchFormat
{
    /** Aligned columns, for people. */
    TABLE,
    /** Blocks like OSU micro-benchmarks' {@code osu_allreduce -f} (and {@code osu_latency} for ping-pong). */
    OSU,
    /** Blocks like nccl-tests' {@code all_reduce_perf}. */
    NCCL,
    /** The contract columns of DESIGN.md section 7. */
    CSV,
    /** An array of objects with the CSV fields. */
    JSON;

    public String label()
    {
        return name().toLowerCase(Locale.ROOT);
    }

    /** Parses a format name; null when there is none of that name. */
    public static BenchFormat parse(final String text)
    {
        for (final BenchFormat format : values())
        {
            if (format.label().equals(text.trim().toLowerCase(Locale.ROOT)))
            {
                return format;
            }
        }
        return null;
    }
}
