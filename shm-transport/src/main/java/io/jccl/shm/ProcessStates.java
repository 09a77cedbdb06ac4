package io.jccl.shm;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;

/**
 * What the kernel says about a process, from {@code /proc/PID/stat}. A stopped process (SIGSTOP, Ctrl-Z) is alive
 * but does nothing, not even handle SIGTERM: liveness checks and the launcher must tell it from a slow one.
 */
public final class ProcessStates
{
    /** Holds "pid (comm) S": a pid of at most 7 digits and a comm of at most 64 bytes (15 but for kernel threads). */
    private static final int HEAD_BYTES = 128;

    private ProcessStates()
    {
    }

    /** True when the process is stopped by a signal ('T') or traced ('t'); false when running or unknown. */
    public static boolean isStopped(final long pid)
    {
        return isStopped(state(pid));
    }

    /** True only when stopped by a signal ('T'): held by a debugger ('t') does not count. */
    public static boolean isStoppedBySignal(final long pid)
    {
        return state(pid) == 'T';
    }

    static boolean isStopped(final char state)
    {
        return state == 'T' || state == 't';
    }

    /** The state letter of /proc/PID/stat ('R', 'S', 'T', ...), or '?' when the process or the file is gone. */
    private static char state(final long pid)
    {
        try
        {
            final byte[] stat = Files.readAllBytes(Path.of("/proc", Long.toString(pid), "stat"));
            return state(stat, stat.length);
        }
        catch (final IOException | RuntimeException ex)
        {
            return '?';
        }
    }

    /**
     * Whether the process runs a Java debugger's agent (JDWP), named on its command line or in one of the variables
     * the JVM takes options from: such a process falls silent while a debugger suspends it, alive and not stopped,
     * as a hung one does. False when unknown (the process gone, or another user's).
     */
    public static boolean runsJavaDebugger(final long pid)
    {
        final Path process = Path.of("/proc", Long.toString(pid));
        try
        {
            for (final String arg : nulSeparated(process.resolve("cmdline")))
            {
                if (namesJavaDebugger(arg))
                {
                    return true;
                }
            }
            final Map<String, String> environment = new HashMap<>();
            for (final String variable : nulSeparated(process.resolve("environ")))
            {
                final int equals = variable.indexOf('=');
                if (equals > 0)
                {
                    environment.put(variable.substring(0, equals), variable.substring(equals + 1));
                }
            }
            for (final String option : JvmOptionVariables.options(environment::get))
            {
                if (namesJavaDebugger(option))
                {
                    return true;
                }
            }
            return false;
        }
        catch (final IOException | RuntimeException ex)
        {
            return false;
        }
    }

    static boolean namesJavaDebugger(final String jvmOption)
    {
        return jvmOption.startsWith("-agentlib:jdwp") || jvmOption.startsWith("-Xrunjdwp") ||
            jvmOption.startsWith("-agentpath:") && jvmOption.contains("jdwp");
    }

    private static String[] nulSeparated(final Path file) throws IOException
    {
        return new String(Files.readAllBytes(file), StandardCharsets.UTF_8).split("\0");
    }

    /** "pid (comm) S ...": comm may hold spaces and parentheses, and the state follows the last ')' of the head. */
    static char state(final byte[] stat, final int length)
    {
        for (int i = Math.min(length, HEAD_BYTES) - 1; i >= 0; i--)
        {
            if (stat[i] == ')')
            {
                return i + 2 < length ? (char) stat[i + 2] : '?';
            }
        }
        return '?';
    }

    /**
     * One process's {@code /proc/PID/stat}, held open and read again from its start: no allocation per read, so a
     * look at a late peer inside a blocking call allocates nothing (a {@link Files#readAllBytes} is about 9 KiB).
     * The open file stays the process's even if its pid is reused: once the process is gone, a read fails.
     */
    static final class Watch implements AutoCloseable
    {
        private final RandomAccessFile file;
        private final byte[] head = new byte[HEAD_BYTES];

        private Watch(final RandomAccessFile file)
        {
            this.file = file;
        }

        /** A watch on the process, or null when it is already gone. */
        static Watch open(final long pid)
        {
            try
            {
                return new Watch(new RandomAccessFile("/proc/" + pid + "/stat", "r"));
            }
            catch (final IOException ex)
            {
                return null;
            }
        }

        /** The state letter now, or '?' when the process is gone. */
        char state()
        {
            try
            {
                file.seek(0);
                int length = 0;
                for (int n; length < HEAD_BYTES && (n = file.read(head, length, HEAD_BYTES - length)) > 0; )
                {
                    length += n;
                }
                return ProcessStates.state(head, length);
            }
            catch (final IOException ex)
            {
                return '?';
            }
        }

        @Override
        public void close()
        {
            try
            {
                file.close();
            }
            catch (final IOException ignored)
            {
                // read-only: nothing to lose
            }
        }
    }
}
