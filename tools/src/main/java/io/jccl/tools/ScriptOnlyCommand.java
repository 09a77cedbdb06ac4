package io.jccl.tools;

import java.io.PrintStream;

/** A command the {@code ./jccl} script runs itself (it needs Maven, not a JVM with jccl): listed in the help. */
final class ScriptOnlyCommand implements Command
{
    private final String name;
    private final String summary;
    private final PrintStream err;

    ScriptOnlyCommand(final String name, final String summary, final PrintStream err)
    {
        this.name = name;
        this.summary = summary;
        this.err = err;
    }

    @Override

    public String name()
    {
        return name;
    }

    @Override

    public String summary()
    {
        return summary;
    }

    @Override

    public String usage()
    {
        return "usage: ./jccl " + name + " [maven arguments...]\n\n" + summary + "; run it from the ./jccl script.\n";
    }

    @Override

    public int run(final String[] args)
    {
        err.println("jccl " + name + ": run by the ./jccl script itself: ./jccl " + name);
        return 2;
    }
}
