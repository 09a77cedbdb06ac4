package io.jccl.tools.fit;

import java.util.Locale;

/** Formatting of sizes, times and rates in the fit and tune output. */
public final class Units
{
    private static final String[] BYTE_UNITS = {"B", "KiB", "MiB", "GiB", "TiB"};

    private Units()
    {
    }

    /** "8 B", "4 KiB", "1.5 MiB": exact powers of 1024 without decimals. */
    public static String bytes(final double bytes)
    {
        double value = bytes;
        int unit = 0;
        while (Math.abs(value) >= 1024 && unit < BYTE_UNITS.length - 1)
        {
            value /= 1024;
            unit++;
        }
        if (value == Math.rint(value))
        {
            return String.format(Locale.ROOT, "%d %s", (long)value, BYTE_UNITS[unit]);
        }
        return String.format(Locale.ROOT, "%.3g %s", value, BYTE_UNITS[unit]);
    }

    /** "0.153 us", "12.4 ms", "1.20 s": three significant digits in a fitting unit. */
    public static String time(final double micros)
    {
        final double abs = Math.abs(micros);
        if (abs >= 1e6)
        {
            return String.format(Locale.ROOT, "%.3g s", micros / 1e6);
        }
        if (abs >= 1e3)
        {
            return String.format(Locale.ROOT, "%.3g ms", micros / 1e3);
        }
        return String.format(Locale.ROOT, "%.3g us", micros);
    }

    /** Three significant digits, without the exponent form for values people read in these tables. */
    public static String number(final double value)
    {
        if (value == 0 || !Double.isFinite(value))
        {
            return Double.isFinite(value) ? "0" : "-";
        }
        final double abs = Math.abs(value);
        if (abs >= 1e5 || abs < 1e-4)
        {
            return String.format(Locale.ROOT, "%.3g", value);
        }
        final int decimals = Math.max(0, 2 - (int)Math.floor(Math.log10(abs)));
        return String.format(Locale.ROOT, "%." + decimals + "f", value);
    }

    /** A signed percentage: "+12.3 %", "-4.0 %". */
    public static String percent(final double fraction)
    {
        return String.format(Locale.ROOT, "%+.1f %%", 100 * fraction);
    }

    /** GB/s of a per-byte time in µs/B (1 / β). */
    public static double gigabytesPerSecond(final double microsPerByte)
    {
        return microsPerByte > 0 ? 1e-3 / microsPerByte : Double.POSITIVE_INFINITY;
    }
}
