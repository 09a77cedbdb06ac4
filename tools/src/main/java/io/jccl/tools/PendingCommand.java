package io.jccl.tools;

import java.io.PrintStream;

/** A command that is planned but not written yet: listed in the help, and says so when invoked (exit code 2). */
final class PendingCommand implements Command
{
    private final String name;
    private final String summary;
    private final String usage;
    private final PrintStream err;

    PendingCommand(final String name, final String summary, final String synopsis, final PrintStream err)
    {
        this.name = name;
        this.summary = summary + " (not implemented yet)";
        this.usage = "usage: " + synopsis + "\n\n" + this.summary + "\n";
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
        return usage;
    }

    @Override

    public int run(final String[] args)
    {
        err.println("jccl " + name + ": not implemented yet");
        return 2;
    }
}
