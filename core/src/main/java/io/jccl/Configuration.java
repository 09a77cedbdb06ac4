package io.jccl;

import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

/**
 * Every setting of jccl in one place, Aeron-style: a {@code *_PROP_NAME} and a {@code *_DEFAULT} per setting.
 * A setting is read from the system property ({@code jccl.ring.bytes}) first, then from the environment variable
 * of the same name in upper case with underscores ({@code JCCL_RING_BYTES}), then the default. Sizes accept
 * suffixes k, m, g (powers of 1024). Programmatic use: {@link #builder()}.
 */
public final class Configuration
{
    /** This process's rank. Set by the launcher. */
    public static final String RANK_PROP_NAME = "jccl.rank";
    /** Number of ranks in the job. Set by the launcher. */
    public static final String WORLD_SIZE_PROP_NAME = "jccl.world.size";
    /** Job identifier: names the job's segment. Set by the launcher. */
    public static final String JOB_ID_PROP_NAME = "jccl.job.id";

    /** Directory holding job segments; when it is missing or not writable, {@code java.io.tmpdir} is used. */
    public static final String SHM_DIR_PROP_NAME = "jccl.shm.dir";
    public static final String SHM_DIR_DEFAULT = "/dev/shm";

    /** Capacity of each point-to-point ring (one per ordered pair of ranks); a power of two, at least 4 KiB. */
    public static final String RING_BYTES_PROP_NAME = "jccl.ring.bytes";
    public static final long RING_BYTES_DEFAULT = 1L << 20;

    /** Per-rank staging area that peers read and write directly (shared-memory collectives). */
    public static final String STAGING_BYTES_PROP_NAME = "jccl.staging.bytes";
    public static final long STAGING_BYTES_DEFAULT = 4L << 20;

    /** Per-rank symmetric memory for {@link Communicator#allocateShared}. */
    public static final String SYMMETRIC_BYTES_PROP_NAME = "jccl.symmetric.bytes";
    public static final long SYMMETRIC_BYTES_DEFAULT = 8L << 20;

    /** Longest a single operation may wait for its peers before it fails with a timeout. */
    public static final String TIMEOUT_MS_PROP_NAME = "jccl.timeout.ms";
    public static final long TIMEOUT_MS_DEFAULT = 300_000;

    /**
     * A wait that lasts this long logs one warning, whatever {@code jccl.debug}: what it waits on and, in a collective,
     * the ranks that have not called it yet, so that a job held up by a late or deadlocked rank says why long before
     * {@link #TIMEOUT_MS_PROP_NAME} ends the call. 0: never.
     */
    public static final String SLOW_WAIT_MS_PROP_NAME = "jccl.slow.wait.ms";
    public static final long SLOW_WAIT_MS_DEFAULT = 30_000;

    /**
     * A peer whose heartbeat is older than this is reported as unresponsive. GC pauses and a starved heartbeat thread
     * on an oversubscribed machine must fit under it; a stopped process (SIGSTOP) is recognised sooner, from its
     * kernel state, once its heartbeat is half a second late.
     */
    public static final String PEER_TIMEOUT_MS_PROP_NAME = "jccl.peer.timeout.ms";
    public static final long PEER_TIMEOUT_MS_DEFAULT = 10_000;

    /** How often each rank's heartbeat thread stamps its record. */
    public static final String HEARTBEAT_INTERVAL_MS_PROP_NAME = "jccl.heartbeat.interval.ms";
    public static final long HEARTBEAT_INTERVAL_MS_DEFAULT = 100;

    /** How often a waiting rank looks at its peers' liveness (pid, state, heartbeat). */
    public static final String LIVENESS_CHECK_MS_PROP_NAME = "jccl.liveness.check.ms";
    public static final long LIVENESS_CHECK_MS_DEFAULT = 20;

    /** Longest the ranks may take to find each other at start. */
    public static final String BOOTSTRAP_TIMEOUT_MS_PROP_NAME = "jccl.bootstrap.timeout.ms";
    public static final long BOOTSTRAP_TIMEOUT_MS_DEFAULT = 60_000;

    /**
     * Busy-spin iterations (a few microseconds) before a waiting rank starts yielding (none when ranks outnumber
     * cores, unless set). Short on purpose, as MPICH's 1000 polls: a peer that has not answered by then is usually
     * waiting for a core, and a longer spin only burns the time slice it needs; measured on this 2-core machine
     * under load, 20000 spins gave 100-300 µs per small call where 1000 gave 10-20 µs (Open MPI: 2-25 µs). While
     * ranks outnumber cores the peer a rank waits for is often not running at all: yielding at once took a median
     * 0.84-0.94x the time of 50 spins over the sizes and collectives of three sets of 7-9 alternating runs at 4 and
     * 8 ranks on 2 cores (4-rank allreduce up to 2 MiB 0.77-0.99x in the last; a stream of 8-byte broadcasts, whose
     * readers wait for a root that is running, 1.1-1.7x in four of five comparisons). Unset, a wait for the
     * application's point-to-point messages that starts while the ranks not idle in a long wait have a core each
     * spins as many times as with a core of its own (io.jccl.shm.IdleRanks); set, every wait spins this many times.
     */
    public static final String IDLE_SPINS_PROP_NAME = "jccl.idle.spins";
    public static final long IDLE_SPINS_DEFAULT = 1_000;
    public static final long IDLE_SPINS_OVERSUBSCRIBED_DEFAULT = 0;

    /**
     * Yields before a waiting rank starts parking: milliseconds of yielding, because a parked rank wakes 50-200 µs
     * late (timer slack) while a yielding one gives its core away at once and returns at once. Fewer while ranks
     * outnumber cores, where a yield costs a context switch whenever another rank is runnable: ranks that wait a long
     * time (in a 4-rank pingpong, ranks 2 and 3 in a barrier) then stop taking turns on the cores of the ranks at work.
     * 4 ranks on 2 cores, medians of 8 alternating runs: pingpong 8-512 B 0.71-1.04 µs after 5000 yields against
     * 1.54-1.66 after 20000; allreduce, allgather, broadcast and barrier 8 B-8 KiB 0.80-1.06x the time. 2000 yields
     * took the pingpong to 0.5-0.8 µs but small allreduces about 5 % longer (three sets of 6-8 runs).
     */
    public static final String IDLE_YIELDS_PROP_NAME = "jccl.idle.yields";
    public static final long IDLE_YIELDS_DEFAULT = 20_000;
    public static final long IDLE_YIELDS_OVERSUBSCRIBED_DEFAULT = 5_000;

    /** Longest park of a waiting rank, in microseconds. */
    public static final String IDLE_MAX_PARK_US_PROP_NAME = "jccl.idle.max.park.us";
    public static final long IDLE_MAX_PARK_US_DEFAULT = 200;

    /**
     * How the progress thread of non-blocking collectives waits for its peers: it shares the process with the caller's
     * computation, so it spins briefly and then sleeps in short parks instead of yielding. A thread that wakes from a
     * park preempts the computation at once (the scheduler favours sleepers); one that yields waits a whole time slice
     * behind it.
     */
    public static final String PROGRESS_IDLE_SPINS_PROP_NAME = "jccl.progress.idle.spins";
    public static final long PROGRESS_IDLE_SPINS_DEFAULT = 200;

    /** Yields of the progress thread between its spins and its parks (see {@link #PROGRESS_IDLE_SPINS_PROP_NAME}). */
    public static final String PROGRESS_IDLE_YIELDS_PROP_NAME = "jccl.progress.idle.yields";
    public static final long PROGRESS_IDLE_YIELDS_DEFAULT = 0;

    /** Longest park of the progress thread while it waits for peers, in microseconds. */
    public static final String PROGRESS_IDLE_MAX_PARK_US_PROP_NAME = "jccl.progress.idle.max.park.us";
    public static final long PROGRESS_IDLE_MAX_PARK_US_DEFAULT = 50;

    /**
     * Most bytes per chunk of the chunked shared-memory algorithms, which pipeline through two halves of each
     * staging area; 0 (default): a whole half. At least 4 KiB when set.
     */
    public static final String CHUNK_BYTES_PROP_NAME = "jccl.chunk.bytes";
    public static final long CHUNK_BYTES_DEFAULT = 0;
    public static final long CHUNK_BYTES_MIN = 4096;

    /**
     * A broadcast, reduce or allreduce of more bytes runs as consecutive calls on ranges of its vector, each at most
     * this many bytes; and a single-copy algorithm's rank that would copy more of a heap array for its peers declines
     * the call (the other collectives' blocks do not lie in one range). It bounds the scratch memory a rank keeps, and
     * makes a call beyond the sizes the bench measures run as calls it measures. 0: calls run whole. At least
     * {@link #SPLIT_BYTES_MIN} when set; rounded down to whole 64-byte lines. Every rank must have the same (as the
     * launcher gives them; checked at connect): ranks that cut a call differently would run different collectives.
     */
    public static final String SPLIT_BYTES_PROP_NAME = "jccl.split.bytes";
    public static final long SPLIT_BYTES_DEFAULT = 64L << 20;
    public static final long SPLIT_BYTES_MIN = 1 << 20;

    /**
     * Point-to-point messages of at least this many bytes sent from off-heap memory travel with one copy: the
     * receiver reads them straight out of the sender's buffer while the sender writes part of them straight into the
     * receiver's (process_vm_readv/writev, Java 22 or newer). 0 turns single copy off. From 32 KiB: a 32 KiB
     * pingpong took 2.8 µs one way single copy against 4.6-4.8 through the ring (2 ranks, median of 5 runs); at 16 KiB
     * the two were within the noise. Unset, it is 256 KiB when ranks outnumber cores, since a rendezvous then waits
     * for its receiver to be scheduled (see io.jccl.shm.SingleCopy), but 64 KiB for the application's own messages
     * while the ranks not idle in a long wait have a core each (io.jccl.shm.IdleRanks).
     */
    public static final String SINGLE_COPY_BYTES_PROP_NAME = "jccl.single.copy.bytes";
    public static final long SINGLE_COPY_BYTES_DEFAULT = 32 * 1024;

    /**
     * Reduce off-heap operands with the Vector API's SIMD loops when the JVM has them (Java 22+, started with
     * {@code --add-modules jdk.incubator.vector}, as the launcher starts ranks); false keeps the loops over typed
     * scratch arrays. Read once per process.
     */
    public static final String VECTOR_KERNELS_PROP_NAME = "jccl.vector.kernels";
    public static final boolean VECTOR_KERNELS_DEFAULT = true;

    /**
     * Copy large blocks into rings and staging areas with the C library's memmove (Java 22+), whose whole-line
     * writes do not first fetch each line from the peer's core; false keeps the JVM's copy loop. Read once per
     * process.
     */
    public static final String NATIVE_COPY_PROP_NAME = "jccl.native.copy";
    public static final boolean NATIVE_COPY_DEFAULT = true;

    /**
     * Whether the copies this rank makes for peers to read through the kernel (a heap array's, for single copy) and
     * its scratch buffers of 2 MiB or more lie on transparent huge pages (Java 22+, where the kernel's setting allows
     * them): the kernel pins each page it reads, and there are 512 times fewer; false keeps 4 KiB pages.
     */
    public static final String HUGE_PAGES_PROP_NAME = "jccl.huge.pages";
    public static final boolean HUGE_PAGES_DEFAULT = true;

    /** Forced algorithms, e.g. {@code allreduce:ring,broadcast:binomial}. */
    public static final String ALGO_PROP_NAME = "jccl.algo";

    /**
     * Bytes of collective calls between two probes of the machine's pace, where the tuning file parts its choices by
     * pace (the engine's {@code PaceProbe}); 0: never probe, the choices for both paces hold.
     */
    public static final String PACE_PROBE_BYTES_PROP_NAME = "jccl.pace.probe.bytes";
    public static final long PACE_PROBE_BYTES_DEFAULT = 256L << 20;

    /** A pace probe of at most this many µs is the fast pace; unset: the tuning file's threshold. */
    public static final String PACE_THRESHOLD_US_PROP_NAME = "jccl.pace.threshold.us";

    /**
     * A large message through the ring whose sender copied most of its chunks after the first ring's worth in at
     * fewer GB/s than this reads the slow pace, where the application's blocking sends of heap arrays to that
     * receiver go out of an off-heap copy (the transport's {@code RingPace}); 0: never the slow pace, they keep the
     * ring.
     */
    public static final String RING_SLOW_GBPS_PROP_NAME = "jccl.ring.slow.gbps";
    public static final double RING_SLOW_GBPS_DEFAULT = 5;

    /** Log level: WARN (default), INFO, TRACE. */
    public static final String DEBUG_PROP_NAME = "jccl.debug";
    public static final String DEBUG_DEFAULT = "WARN";

    /**
     * Subsystems that log: a comma-separated list of INIT, P2P, COLL, SHM, ALL; a leading {@code ^} logs all but
     * the listed ones (as {@code NCCL_DEBUG_SUBSYS}).
     */
    public static final String DEBUG_SUBSYS_PROP_NAME = "jccl.debug.subsys";
    public static final String DEBUG_SUBSYS_DEFAULT = "ALL";

    /**
     * Check mode: every collective compares the call signatures of all ranks (collective, count, datatype, op,
     * root) before any data moves, so a mismatched call fails on every rank and never returns garbage. Costs one
     * flag exchange per collective; without it mismatches are still found, when a wait gets slow.
     */
    public static final String CHECK_PROP_NAME = "jccl.check";
    public static final boolean CHECK_DEFAULT = false;

    /** Operations each rank keeps in its flight recorder (rounded up to a power of two), dumped on failures. */
    public static final String FLIGHT_RECORDS_PROP_NAME = "jccl.flight.records";
    public static final long FLIGHT_RECORDS_DEFAULT = 64;

    /** How {@link #parseSize}'s message starts for a size beyond a long. */
    private static final String SIZE_TOO_LARGE = "size too large";

    private final Map<String, String> values;

    private Configuration(final Map<String, String> values)
    {
        this.values = values;
    }

    /** Settings from system properties and environment variables. */
    public static Configuration fromEnvironment()
    {
        return new Configuration(new TreeMap<>());
    }

    public static Builder builder()
    {
        return new Builder();
    }

    /** The environment variable that carries {@code propName}: {@code jccl.ring.bytes} → {@code JCCL_RING_BYTES}. */
    public static String envName(final String propName)
    {
        return propName.toUpperCase(Locale.ROOT).replace('.', '_');
    }

    /** The raw value of a setting, or null. Explicit values win over system properties, then the environment. */
    public String get(final String propName)
    {
        final String explicit = values.get(propName);
        if (explicit != null)
        {
            return explicit;
        }
        final String property = System.getProperty(propName);
        if (property != null)
        {
            return property;
        }
        return System.getenv(envName(propName));
    }

    public String get(final String propName, final String defaultValue)
    {
        final String value = get(propName);
        return value == null || value.isBlank() ? defaultValue : value.trim();
    }

    public long getLong(final String propName, final long defaultValue)
    {
        final String value = get(propName);
        if (value == null || value.isBlank())
        {
            return defaultValue;
        }
        try
        {
            return parseSize(value);
        }
        catch (final NumberFormatException ex)
        {
            throw new IllegalArgumentException("setting " + propName + " (" + envName(propName) + ") = '" + value +
                (ex.getMessage().startsWith(SIZE_TOO_LARGE) ? "' is too large: at most " + Long.MAX_VALUE :
                "' is not a number"), ex);
        }
    }

    /** A number setting, 0 or more. */
    public double getDouble(final String propName, final double defaultValue)
    {
        final String value = get(propName);
        if (value == null || value.isBlank())
        {
            return defaultValue;
        }
        double parsed;
        try
        {
            parsed = Double.parseDouble(value.trim());
        }
        catch (final NumberFormatException ex)
        {
            parsed = Double.NaN;
        }
        if (!(parsed >= 0) || Double.isInfinite(parsed))
        {
            throw new IllegalArgumentException("setting " + propName + " (" + envName(propName) + ") = '" + value +
                "' is not a number, 0 or more");
        }
        return parsed;
    }

    /** A yes/no setting: 1, true, yes, on (any case) are true; 0, false, no, off are false. */
    public boolean getBoolean(final String propName, final boolean defaultValue)
    {
        final String value = get(propName);
        if (value == null || value.isBlank())
        {
            return defaultValue;
        }
        return switch (value.trim().toLowerCase(Locale.ROOT))
        {
            case "1", "true", "yes", "on" -> true;
            case "0", "false", "no", "off" -> false;
            default -> throw new IllegalArgumentException("setting " + propName + " (" + envName(propName) + ") = '" +
                value + "' is not one of 1, 0, true, false, yes, no, on, off");
        };
    }

    public int rank()
    {
        return requiredInt(RANK_PROP_NAME);
    }

    public int worldSize()
    {
        return requiredInt(WORLD_SIZE_PROP_NAME);
    }

    public String jobId()
    {
        final String id = get(JOB_ID_PROP_NAME);
        if (id == null || id.isBlank())
        {
            throw new JcclException("no job id: start ranks with './jccl run' or set " + envName(JOB_ID_PROP_NAME));
        }
        if (!id.matches("[A-Za-z0-9_.-]{1,64}"))
        {
            throw new IllegalArgumentException("job id '" + id + "' must be 1-64 characters of [A-Za-z0-9_.-]");
        }
        return id;
    }

    public long timeoutMs()
    {
        return getLong(TIMEOUT_MS_PROP_NAME, TIMEOUT_MS_DEFAULT);
    }

    /** A copy with one more explicit value. */
    public Configuration with(final String propName, final String value)
    {
        final Map<String, String> copy = new TreeMap<>(values);
        copy.put(propName, value);
        return new Configuration(copy);
    }

    /**
     * Parses a size: "4096", "64k", "64KiB", "4M", "1g", "8b" (k, m, g are powers of 1024; a trailing "b" or "ib" is
     * allowed), up to {@link Long#MAX_VALUE}. Throws {@link NumberFormatException} for anything else.
     */
    public static long parseSize(final String text)
    {
        final String s = text.trim().toLowerCase(Locale.ROOT);
        int end = s.length();
        if (s.endsWith("ib"))
        {
            end -= 2;
        }
        else if (s.endsWith("b"))
        {
            end -= 1;
        }
        long unit = 1;
        if (end > 0)
        {
            switch (s.charAt(end - 1))
            {
                case 'k' -> unit = 1L << 10;
                case 'm' -> unit = 1L << 20;
                case 'g' -> unit = 1L << 30;
                default -> { }
            }
        }
        final String digits = s.substring(0, unit == 1 ? end : end - 1);
        if (digits.isEmpty() || !digits.chars().allMatch(Character::isDigit))
        {
            throw new NumberFormatException("not a size: '" + text + "'");
        }
        try
        {
            return Math.multiplyExact(Long.parseLong(digits), unit);
        }
        catch (final NumberFormatException | ArithmeticException ex)
        {
            throw new NumberFormatException(SIZE_TOO_LARGE + ": '" + text + "' is more than " + Long.MAX_VALUE);
        }
    }

    private int requiredInt(final String propName)
    {
        final String value = get(propName);
        if (value == null || value.isBlank())
        {
            throw new JcclException("setting " + envName(propName) + " is missing: start ranks with './jccl run -n N'");
        }
        try
        {
            return Integer.parseInt(value.trim());
        }
        catch (final NumberFormatException ex)
        {
            throw new IllegalArgumentException(envName(propName) + "='" + value + "' is not a number", ex);
        }
    }

    @Override
    public String toString()
    {
        return "Configuration" + values;
    }

    /** Programmatic configuration; unset values fall back to properties and environment. */
    public static final class Builder
    {
        private final Map<String, String> values = new TreeMap<>();

        public Builder rank(final int rank)
        {
            return set(RANK_PROP_NAME, Integer.toString(rank));
        }

        public Builder worldSize(final int worldSize)
        {
            return set(WORLD_SIZE_PROP_NAME, Integer.toString(worldSize));
        }

        public Builder jobId(final String jobId)
        {
            return set(JOB_ID_PROP_NAME, jobId);
        }

        public Builder set(final String propName, final String value)
        {
            values.put(propName, value);
            return this;
        }

        public Configuration build()
        {
            return new Configuration(new TreeMap<>(values));
        }
    }
}
