package io.jccl.shm;

import io.jccl.Configuration;

import java.net.InetAddress;
import java.util.Locale;

/**
 * Diagnostics on stderr, by level ({@code JCCL_DEBUG=WARN|INFO|TRACE}), each line prefixed {@code host:pid [rank]}
 * in the spirit of {@code NCCL_DEBUG}. Never used on a hot path above WARN.
 */
public final class Log
{
    public static final int WARN = 0;
    public static final int INFO = 1;
    public static final int TRACE = 2;

    private static final String HOST = hostName();
    private static final long PID = ProcessHandle.current().pid();

    private final int level;
    private final String prefix;

    public Log(final Configuration configuration, final int rank)
    {
        this.level = parse(configuration.get(Configuration.DEBUG_PROP_NAME, Configuration.DEBUG_DEFAULT));
        this.prefix = HOST + ":" + PID + " [" + rank + "] jccl ";
    }

    public boolean enabled(final int atLevel)
    {
        return atLevel <= level;
    }

    public void warn(final String message)
    {
        log(WARN, "WARN ", message);
    }

    public void info(final String message)
    {
        log(INFO, "INFO ", message);
    }

    public void trace(final String message)
    {
        log(TRACE, "TRACE ", message);
    }

    private void log(final int atLevel, final String tag, final String message)
    {
        if (atLevel <= level)
        {
            System.err.println(prefix + tag + message);
        }
    }

    private static int parse(final String text)
    {
        return switch (text.trim().toUpperCase(Locale.ROOT))
        {
            case "TRACE" -> TRACE;
            case "INFO" -> INFO;
            default -> WARN;
        };
    }

    private static String hostName()
    {
        try
        {
            return InetAddress.getLocalHost().getHostName();
        }
        catch (final Exception ex)
        {
            return "localhost";
        }
    }
}
