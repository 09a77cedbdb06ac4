package io.jccl.tools;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Walks a command's arguments: options first ({@code -n 4}, {@code --timeout 10}, {@code --timeout=10}), then
 * operands, which start at the first argument that is not an option or after {@code --}.
 */
public final class Arguments
{
    private final String[] args;
    private int index;
    private String inlineValue;

    public Arguments(final String[] args)
    {
        this.args = args;
    }

    /** The next option's name, or null when the options are over ({@code --} is consumed). */
    public String nextOption()
    {
        inlineValue = null;
        if (index >= args.length)
        {
            return null;
        }
        final String arg = args[index];
        if ("--".equals(arg))
        {
            index++;
            return null;
        }
        if (!arg.startsWith("-") || "-".equals(arg))
        {
            return null;
        }
        index++;
        final int equals = arg.indexOf('=');
        if (arg.startsWith("--") && equals > 0)
        {
            inlineValue = arg.substring(equals + 1);
            return arg.substring(0, equals);
        }
        return arg;
    }

    /** The value of {@code option}: after '=' or the next argument, whatever it looks like. */
    public String value(final String option)
    {
        if (inlineValue != null)
        {
            final String value = inlineValue;
            inlineValue = null;
            return value;
        }
        if (index >= args.length)
        {
            throw new UsageException(option + " needs a value");
        }
        return args[index++];
    }

    /**
     * The value of {@code option} and the arguments after it up to the next option: {@code --check a.csv b.csv}.
     */
    public List<String> values(final String option)
    {
        final List<String> values = new ArrayList<>();
        values.add(value(option));
        while (index < args.length && !args[index].startsWith("-"))
        {
            values.add(args[index++]);
        }
        return values;
    }

    /** The value of {@code option} as an int within [min, max]. */
    public int intValue(final String option, final int min, final int max)
    {
        final String text = value(option);
        try
        {
            final int value = Integer.parseInt(text);
            if (value < min || value > max)
            {
                throw new UsageException(option + " must be between " + min + " and " + max + ", not " + value);
            }
            return value;
        }
        catch (final NumberFormatException ex)
        {
            throw new UsageException(option + " needs a whole number, not '" + text + "'");
        }
    }

    /** The arguments left after the options. */
    public String[] operands()
    {
        return Arrays.copyOfRange(args, index, args.length);
    }

    /** Fails unless every argument has been consumed. */
    public void expectNoOperands()
    {
        if (index < args.length)
        {
            throw new UsageException("unexpected argument '" + args[index] + "'");
        }
    }

    /** Fails naming the first of {@code files} that is not a regular file. */
    public static void requireFiles(final List<Path> files)
    {
        for (final Path file : files)
        {
            if (!Files.isRegularFile(file))
            {
                throw new UsageException((Files.exists(file) ? "not a regular file: " : "no such file: ") + file);
            }
        }
    }

    public static UsageException unknownOption(final String option)
    {
        return new UsageException("unknown option " + option);
    }
}
