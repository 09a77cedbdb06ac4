package io.jccl.tools;

import io.jccl.JcclException;
import io.jccl.tools.bench.BenchCommand;
import io.jccl.tools.demo.DemoCommand;
import io.jccl.tools.fit.FitCommand;
import io.jccl.tools.soak.SoakCommand;
import io.jccl.tools.tune.TuneCommand;

import java.io.IOException;
import java.io.PrintStream;
import java.util.Arrays;
import java.util.List;

/**
 * The {@code jccl} command line: {@code ./jccl COMMAND [args...]}. The {@code ./jccl} script finds a JDK, builds
 * the project when needed and starts this class with jccl's jars on the class path; {@code ./jccl test} is handled
 * by the script itself.
 */
public final class Main
{
    private static final int USAGE_EXIT_CODE = 2;

    private final PrintStream out;
    private final PrintStream err;
    private final List<Command> commands;

    public Main(final PrintStream out, final PrintStream err, final List<Command> commands)
    {
        this.out = out;
        this.err = err;
        this.commands = List.copyOf(commands);
    }

    public static void main(final String[] args)
    {
        System.exit(new Main(System.out, System.err, commands(System.out, System.err)).run(args));
    }

    /** Every command, in the order of the help. */
    public static List<Command> commands(final PrintStream out, final PrintStream err)
    {
        return List.of(
            new RunCommand(),
            new DemoCommand(out, err),
            new BenchCommand(out, err),
            new FitCommand(out, err),
            new TuneCommand(out, err),
            new SoakCommand(out, err),
            new InfoCommand(out),
            new CleanCommand(out),
            new ClasspathCommand(out, System.getProperty("java.class.path")),
            new ScriptOnlyCommand("test", "run the project's test suite (mvn -B verify with the JDK ./jccl finds)",
                err));
    }

    /** Runs the command named by {@code args[0]} and returns the exit code. */
    public int run(final String[] args)
    {
        if (args.length == 0 || isHelp(args[0]))
        {
            if (args.length > 1)
            {
                final Command command = find(args[1]);
                if (command == null)
                {
                    return unknown(args[1]);
                }
                out.print(command.usage());
                return 0;
            }
            printHelp(out);
            return 0;
        }

        final Command command = find(args[0]);
        if (command == null)
        {
            return unknown(args[0]);
        }
        final String[] commandArgs = Arrays.copyOfRange(args, 1, args.length);
        if (commandArgs.length > 0 && isHelp(commandArgs[0]))
        {
            out.print(command.usage());
            return 0;
        }
        try
        {
            return command.run(commandArgs);
        }
        catch (final UsageException ex)
        {
            err.println("jccl " + command.name() + ": " + ex.getMessage());
            err.println();
            err.print(command.usage());
            return USAGE_EXIT_CODE;
        }
        catch (final JcclException | InputException | IOException ex)
        {
            err.println("jccl " + command.name() + ": " + ex.getMessage());
            return 1;
        }
        catch (final Exception ex)
        {
            err.println("jccl " + command.name() + ": failed");
            ex.printStackTrace(err);
            return 1;
        }
    }

    private void printHelp(final PrintStream stream)
    {
        stream.println("jccl: collective communication between JVM processes on one machine, over shared memory");
        stream.println();
        stream.println("usage:");
        for (final Command command : commands)
        {
            final String usage = command.usage();
            final int end = usage.indexOf('\n');
            final String synopsis = (end < 0 ? usage : usage.substring(0, end)).replaceFirst("^usage: ", "");
            stream.println("  " + synopsis);
            stream.println("      " + command.summary());
        }
        stream.println();
        stream.println("./jccl help COMMAND or ./jccl COMMAND --help shows a command's options.");
    }

    private int unknown(final String name)
    {
        err.println("jccl: unknown command '" + name + "'");
        err.println();
        printHelp(err);
        return USAGE_EXIT_CODE;
    }

    private Command find(final String name)
    {
        for (final Command command : commands)
        {
            if (command.name().equals(name))
            {
                return command;
            }
        }
        return null;
    }

    private static boolean isHelp(final String arg)
    {
        return "help".equals(arg) || "-h".equals(arg) || "--help".equals(arg);
    }
}
