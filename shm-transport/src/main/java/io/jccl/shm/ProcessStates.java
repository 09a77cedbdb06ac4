package io.jccl.shm;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * What the kernel says about a process, from {@code /proc/PID/stat}. A stopped process (SIGSTOP, Ctrl-Z) is alive
 * but does nothing, not even handle SIGTERM: liveness checks and the launcher must tell it from a slow one.
 */
public final class ProcessStates
{
    private ProcessStates()
    {
    }

    /** True when the process is stopped by a signal ('T') or traced ('t'); false when running or unknown. */
    public static boolean isStopped(final long pid)
    {
        final char state = state(pid);
        return state == 'T' || state == 't';
    }

    /** True only when stopped by a signal ('T'): held by a debugger ('t') does not count. */
    public static boolean isStoppedBySignal(final long pid)
    {
        return state(pid) == 'T';
    }

    /** The state letter of /proc/PID/stat ('R', 'S', 'T', ...), or '?' when the process or the file is gone. */
    private static char state(final long pid)
    {
        try
        {
            final String stat = Files.readString(Path.of("/proc", Long.toString(pid), "stat"));
            // "pid (comm) S ...": comm may hold spaces and parentheses, the state follows the last ')'
            final int close = stat.lastIndexOf(')');
            return close >= 0 && close + 2 < stat.length() ? stat.charAt(close + 2) : '?';
        }
        catch (final IOException | RuntimeException ex)
        {
            return '?';
        }
    }
}
