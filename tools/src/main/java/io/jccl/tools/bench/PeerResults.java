package io.jccl.tools.bench;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * The results of other libraries, from a CSV as ../shared/peers/run-peers prints it: columns
 * {@code impl,collective,ranks,bytes,avg_us,min_us,max_us,iters} (found by name, in any order). A file without the
 * {@code impl} column (as the reference runs in ../shared/peers/reference) is one library named after the file.
 */
public final class PeerResults
{
    private final List<String> impls;
    private final Map<String, Double> avgUs;

    private PeerResults(final List<String> impls, final Map<String, Double> avgUs)
    {
        this.impls = List.copyOf(impls);
        this.avgUs = Map.copyOf(avgUs);
    }

    /** Reads {@code file}; throws {@link IllegalArgumentException} saying what is wrong with it. */
    public static PeerResults read(final Path file)
    {
        if (!Files.isRegularFile(file) || !Files.isReadable(file))
        {
            throw new IllegalArgumentException(file + " is not a readable file");
        }
        final List<String> lines;
        try
        {
            lines = Files.readAllLines(file);
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException("cannot read " + file + ": " + ex.getMessage(), ex);
        }
        final String fallbackImpl = file.getFileName().toString().replaceFirst("\\.csv$", "");
        return parse(lines, fallbackImpl, file.toString());
    }

    /** Parses CSV lines; {@code fallbackImpl} names the library when there is no impl column. */
    public static PeerResults parse(final List<String> lines, final String fallbackImpl, final String source)
    {
        if (lines.isEmpty())
        {
            throw new IllegalArgumentException(source + " is empty: expected a run-peers CSV with the columns " +
                "impl,collective,ranks,bytes,avg_us,min_us,max_us,iters");
        }
        final List<String> header = List.of(lines.get(0).trim().toLowerCase(Locale.ROOT).split(",", -1));
        final int impl = header.indexOf("impl");
        final int collective = column(header, "collective", source);
        final int ranks = column(header, "ranks", source);
        final int bytes = column(header, "bytes", source);
        final int avg = column(header, "avg_us", source);
        final Set<String> impls = new LinkedHashSet<>();
        final Map<String, Double> avgUs = new HashMap<>();
        for (int i = 1; i < lines.size(); i++)
        {
            final String line = lines.get(i).trim();
            if (line.isEmpty() || line.startsWith("#"))
            {
                continue;
            }
            final String[] cells = line.split(",", -1);
            if (cells.length < header.size())
            {
                throw new IllegalArgumentException(source + " line " + (i + 1) + " has " + cells.length +
                    " columns, the header " + header.size());
            }
            try
            {
                final String name = impl >= 0 ? cells[impl].trim() : fallbackImpl;
                impls.add(name);
                avgUs.put(key(name, cells[collective].trim(), Integer.parseInt(cells[ranks].trim()),
                    Long.parseLong(cells[bytes].trim())), Double.parseDouble(cells[avg].trim()));
            }
            catch (final NumberFormatException ex)
            {
                throw new IllegalArgumentException(source + " line " + (i + 1) + ": not a number: " +
                    ex.getMessage());
            }
        }
        return new PeerResults(new ArrayList<>(impls), avgUs);
    }

    /** The libraries, in the order the file first names them. */
    public List<String> impls()
    {
        return impls;
    }

    /**
     * {@code impl}'s average µs per call of {@code collective} on {@code ranks} ranks at {@code bytes}, or NaN when
     * the file has no such row. The barrier matches at any size (run-peers prints it once, at 8 bytes).
     */
    public double avgUs(final String impl, final String collective, final int ranks, final long bytes)
    {
        if ("barrier".equals(collective))
        {
            for (final Map.Entry<String, Double> e : avgUs.entrySet())
            {
                if (e.getKey().startsWith(impl + "|barrier|" + ranks + "|"))
                {
                    return e.getValue();
                }
            }
            return Double.NaN;
        }
        final Double value = avgUs.get(key(impl, collective, ranks, bytes));
        return value == null ? Double.NaN : value;
    }

    private static String key(final String impl, final String collective, final int ranks, final long bytes)
    {
        return impl + "|" + collective + "|" + ranks + "|" + bytes;
    }

    private static int column(final List<String> header, final String name, final String source)
    {
        final int index = header.indexOf(name);
        if (index < 0)
        {
            throw new IllegalArgumentException(source + " has no " + name + " column: expected a run-peers CSV " +
                "with the columns impl,collective,ranks,bytes,avg_us,min_us,max_us,iters");
        }
        return index;
    }
}
