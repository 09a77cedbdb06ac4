package io.jccl.examples;

import io.jccl.Configuration;

import java.util.HashMap;
import java.util.Map;

/** The {@code --name value} options of an example, with defaults; sizes accept k, m, g suffixes. */
final class ExampleArgs
{
    private final Map<String, String> values = new HashMap<>();

    ExampleArgs(final String[] args)
    {
        for (int i = 0; i < args.length; i++)
        {
            if (!args[i].startsWith("--") || i + 1 == args.length)
            {
                throw new IllegalArgumentException("expected --name value pairs, got '" + args[i] + "'");
            }
            values.put(args[i].substring(2), args[++i]);
        }
    }

    String getString(final String name, final String defaultValue)
    {
        return values.getOrDefault(name, defaultValue);
    }

    int getInt(final String name, final int defaultValue)
    {
        final String v = values.get(name);
        return v == null ? defaultValue : Math.toIntExact(Configuration.parseSize(v));
    }

    long getSize(final String name, final long defaultValue)
    {
        final String v = values.get(name);
        return v == null ? defaultValue : Configuration.parseSize(v);
    }

    double getDouble(final String name, final double defaultValue)
    {
        final String v = values.get(name);
        return v == null ? defaultValue : Double.parseDouble(v);
    }
}
