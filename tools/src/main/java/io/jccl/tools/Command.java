package io.jccl.tools;

/**
 * A subcommand of the {@code jccl} command line: {@code ./jccl NAME args...}. To add one, implement this and list it
 * in {@link Main#commands()}.
 */
public interface Command
{
    /** The word that selects the command, e.g. {@code run}. */
    String name();

    /** One line for the command list of {@code ./jccl help}. */
    String summary();

    /** Full usage: synopsis and options, shown by {@code ./jccl help NAME}, {@code NAME --help} and on misuse. */
    default String usage()
    {
        return "usage: ./jccl " + name();
    }

    /**
     * Runs the command.
     *
     * @param args the arguments after the command's name.
     * @return the process exit code: 0 on success, 2 for misuse.
     * @throws UsageException when the arguments are wrong; the caller prints the message and the usage.
     * @throws Exception      for any other failure; the caller prints it and exits with 1.
     */
    int run(String[] args) throws Exception;
}
