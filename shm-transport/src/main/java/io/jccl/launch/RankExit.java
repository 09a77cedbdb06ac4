package io.jccl.launch;

/**
 * How one rank ended.
 *
 * @param rank              the rank.
 * @param exitCode          its exit code as Java reports it: 128 + n when it was killed by signal n.
 * @param stoppedByLauncher true when the launcher had asked it to stop (another rank failed, timeout, interrupt)
 *                          before it exited.
 */
public record RankExit(int rank, int exitCode, boolean stoppedByLauncher)
{
    private static final String[] SIGNAL_NAMES =
    {
        null, "SIGHUP", "SIGINT", "SIGQUIT", "SIGILL", "SIGTRAP", "SIGABRT", "SIGBUS", "SIGFPE", "SIGKILL",
        "SIGUSR1", "SIGSEGV", "SIGUSR2", "SIGPIPE", "SIGALRM", "SIGTERM"
    };

    public boolean succeeded()
    {
        return exitCode == 0;
    }

    /** "rank 2 exited with code 1", "rank 1 killed by signal 9 (SIGKILL)", "rank 0 stopped by jccl (SIGTERM)". */
    public String describe()
    {
        final int signal = signal(exitCode);
        if (stoppedByLauncher && signal > 0)
        {
            return "rank " + rank + " stopped by jccl (" + signalName(signal) + ")";
        }
        return "rank " + rank + " " + describeExitCode(exitCode);
    }

    /**
     * "exited with code 3" or "killed by signal 9 (SIGKILL)". Java reports a child killed by signal n as exit code
     * 128 + n, like a shell, so a process that calls {@code exit(137)} reads as killed by SIGKILL too.
     */
    public static String describeExitCode(final int exitCode)
    {
        final int signal = signal(exitCode);
        return signal > 0 ? "killed by signal " + signal + " (" + signalName(signal) + ")" :
            "exited with code " + exitCode;
    }

    /** The signal an exit code stands for (128 + n, n in 1..64), or 0. */
    public static int signal(final int exitCode)
    {
        return exitCode > 128 && exitCode <= 128 + 64 ? exitCode - 128 : 0;
    }

    /** "SIGKILL" for 9; "signal 40" for those without a portable name. */
    public static String signalName(final int signal)
    {
        return signal > 0 && signal < SIGNAL_NAMES.length ? SIGNAL_NAMES[signal] : "signal " + signal;
    }
}
