package io.jccl.tools.tune;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Combines several bench CSV sweeps of the same rows into one: per row (collective, algorithm, ranks, bytes, dtype)
 * the run whose {@code avg_us} is the median (the lower one of an even count), whole, so its other columns stay
 * consistent. On a shared machine one run's row can be slowed by other work by an order of magnitude; the median of
 * three is not.
 */
final class MedianOfRuns
{
    private static final int KEY_COLUMNS = 5;
    private static final int AVG_US_COLUMN = 5;

    private MedianOfRuns()
    {
    }

    /** Writes the median rows of {@code runs} to {@code target}, in the first run's row order; returns the rows. */
    static int merge(final List<Path> runs, final Path target) throws IOException
    {
        String header = null;
        final Map<String, List<String[]>> byRow = new LinkedHashMap<>();
        for (final Path run : runs)
        {
            final List<String> lines = Files.readAllLines(run, StandardCharsets.UTF_8);
            for (final String line : lines)
            {
                if (line.isBlank())
                {
                    continue;
                }
                if (line.startsWith("collective,"))
                {
                    header = header == null ? line : header;
                    continue;
                }
                final String[] fields = line.split(",", -1);
                final String key = String.join(",", List.of(fields).subList(0, KEY_COLUMNS));
                byRow.computeIfAbsent(key, k -> new ArrayList<>()).add(fields);
            }
        }
        if (header == null)
        {
            throw new IllegalArgumentException("the sweep produced no results: " + runs);
        }
        final StringBuilder text = new StringBuilder(header).append('\n');
        for (final List<String[]> rows : byRow.values())
        {
            rows.sort(Comparator.comparingDouble(fields -> Double.parseDouble(fields[AVG_US_COLUMN])));
            text.append(String.join(",", rows.get((rows.size() - 1) / 2))).append('\n');
        }
        Files.writeString(target, text, StandardCharsets.UTF_8);
        return byRow.size();
    }
}
