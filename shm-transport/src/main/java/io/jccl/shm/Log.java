package io.jccl.shm;

import io.jccl.Configuration;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;

/**
 * Diagnostics on stderr, by level ({@code JCCL_DEBUG=WARN|INFO|TRACE}) and subsystem
 * ({@code JCCL_DEBUG_SUBSYS=INIT,P2P,COLL,SHM,ALL}, {@code ^} in front to negate the list), in the spirit of
 * {@code NCCL_DEBUG} / {@code NCCL_DEBUG_SUBSYS}. Each line reads {@code host:pid [rank] jccl LEVEL SUBSYS message}.
 * Warnings are always printed, whatever the subsystems. Never used on a hot path above WARN: callers test
 * {@link #enabled} before building a message.
 */
public final class Log
{
    public static final int WARN = 0;
    public static final int INFO = 1;
    public static final int TRACE = 2;

    /** Bootstrap, segment creation and attachment, close. */
    public static final int INIT = 1;
    /** Point-to-point messages. */
    public static final int P2P = 1 << 1;
    /** Collectives: calls, algorithms, mismatch checks. */
    public static final int COLL = 1 << 2;
    /** Shared memory: segments, staging, symmetric memory. */
    public static final int SHM = 1 << 3;
    public static final int ALL = INIT | P2P | COLL | SHM;

    private static final long PID = ProcessHandle.current().pid();

    private final int level;
    private final int subsystems;
    private final int rank;

    public Log(final Configuration configuration, final int rank)
    {
        this.level = parseLevel(configuration.get(Configuration.DEBUG_PROP_NAME, Configuration.DEBUG_DEFAULT));
        this.subsystems = parseSubsystems(configuration.get(Configuration.DEBUG_SUBSYS_PROP_NAME,
            Configuration.DEBUG_SUBSYS_DEFAULT));
        this.rank = rank;
    }

    /** True when messages of {@code atLevel} about {@code subsystem} are printed. */
    public boolean enabled(final int atLevel, final int subsystem)
    {
        return atLevel <= level && (atLevel == WARN || (subsystems & subsystem) != 0);
    }

    public void warn(final int subsystem, final String message)
    {
        log(WARN, subsystem, message);
    }

    public void info(final int subsystem, final String message)
    {
        log(INFO, subsystem, message);
    }

    public void trace(final int subsystem, final String message)
    {
        log(TRACE, subsystem, message);
    }

    /** The line prefix {@code host:pid [rank] jccl }. */
    String prefix()
    {
        return Host.NAME + ":" + PID + " [" + rank + "] jccl ";
    }

    private void log(final int atLevel, final int subsystem, final String message)
    {
        if (enabled(atLevel, subsystem))
        {
            System.err.println(prefix() + levelName(atLevel) + " " + subsystemName(subsystem) + " " + message);
        }
    }

    static int parseLevel(final String text)
    {
        return switch (text.trim().toUpperCase(Locale.ROOT))
        {
            case "TRACE" -> TRACE;
            case "INFO" -> INFO;
            default -> WARN;
        };
    }

    /** "INIT,COLL" → those bits; "^P2P" → all but P2P; "ALL" → all. */
    static int parseSubsystems(final String text)
    {
        String list = text.trim().toUpperCase(Locale.ROOT);
        final boolean negate = list.startsWith("^");
        if (negate)
        {
            list = list.substring(1);
        }
        int mask = 0;
        for (final String name : list.split(","))
        {
            mask |= switch (name.trim())
            {
                case "INIT" -> INIT;
                case "P2P" -> P2P;
                case "COLL" -> COLL;
                case "SHM" -> SHM;
                case "ALL" -> ALL;
                case "" -> 0;
                default -> throw new IllegalArgumentException("JCCL_DEBUG_SUBSYS names '" + name.trim() +
                    "': expected INIT, P2P, COLL, SHM or ALL, comma-separated, ^ in front to negate");
            };
        }
        return negate ? ALL & ~mask : mask;
    }

    private static String levelName(final int atLevel)
    {
        return switch (atLevel)
        {
            case WARN -> "WARN";
            case INFO -> "INFO";
            default -> "TRACE";
        };
    }

    private static String subsystemName(final int subsystem)
    {
        return switch (subsystem)
        {
            case INIT -> "INIT";
            case P2P -> "P2P";
            case COLL -> "COLL";
            case SHM -> "SHM";
            default -> "ALL";
        };
    }

    /** The host's name, read when a first message is printed: every rank makes logs at connect. */
    private static final class Host
    {
        /**
         * The kernel's host name, as {@code hostname} prints it. Not {@code InetAddress.getLocalHost()}, which also
         * looks the name up (in /etc/hosts, then DNS): milliseconds of every connect, and seconds where the name
         * has no entry and the resolver does not answer.
         */
        static final String NAME = read();

        private static String read()
        {
            try
            {
                final String name = Files.readString(Path.of("/proc/sys/kernel/hostname")).trim();
                if (!name.isEmpty())
                {
                    return name;
                }
            }
            catch (final IOException | RuntimeException ex)
            {
                // not Linux's /proc: the variable shells set, else a stand-in
            }
            final String variable = System.getenv("HOSTNAME");
            return variable != null && !variable.isBlank() ? variable.trim() : "localhost";
        }
    }
}
