package io.jccl.shm;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.BitSet;

/**
 * How many cores a job's ranks share: what decides whether ranks outnumber cores. A JVM counts the CPUs it may run
 * on ({@code availableProcessors}), which is the job's count when every rank may use the same CPUs. Ranks bound to
 * CPUs of their own (taskset, numactl, a cpuset per rank) each count only theirs: two ranks on a CPU each would read
 * as ranks outnumbering cores, and wait and choose algorithms as if they shared one. So once every rank has
 * registered its pid, each reads every rank's CPU set ({@code Cpus_allowed_list} of {@code /proc/PID/status}) and
 * counts their union. When a JVM's count is not its CPU set's size, a CPU quota (a container's) or
 * {@code -XX:ActiveProcessorCount} set it, and it stands.
 * <p>
 * Ranks bound to different CPU sets also take from the scheduler the freedom to run the ranks at work on cores of
 * their own: two bound to one CPU share it whatever the others do, so {@link #everyRankOnEveryCore()} says whether
 * the waits may count on that freedom ({@link IdleRanks}).
 */
public final class JobCores
{
    private static final String CPUS_ALLOWED = "Cpus_allowed_list:";

    private final int count;
    private final boolean everyRankOnEveryCore;

    private JobCores(final int count, final boolean everyRankOnEveryCore)
    {
        this.count = count;
        this.everyRankOnEveryCore = everyRankOnEveryCore;
    }

    /**
     * The cores of a job whose ranks have these pids, seen from this JVM.
     *
     * @param pids every rank's pid, this one's among them.
     */
    public static JobCores of(final long[] pids)
    {
        final long self = ProcessHandle.current().pid();
        final int available = Runtime.getRuntime().availableProcessors();
        final BitSet[] sets = new BitSet[pids.length];
        BitSet own = null;
        for (int r = 0; r < pids.length; r++)
        {
            sets[r] = cpus(pids[r]);
            own = pids[r] == self ? sets[r] : own;
        }
        final JobCores union = union(sets, available);
        // a quota or -XX:ActiveProcessorCount sets the count; whether the ranks are bound apart still shows
        return own == null || own.cardinality() != available ?
            new JobCores(available, union.everyRankOnEveryCore) : union;
    }

    /**
     * The union of {@code sets}; {@code fallback} cores, every rank on every one, when one of them is unknown (null).
     */
    static JobCores union(final BitSet[] sets, final int fallback)
    {
        final BitSet union = new BitSet();
        for (final BitSet set : sets)
        {
            if (set == null)
            {
                return new JobCores(fallback, true);
            }
            union.or(set);
        }
        boolean everyRankOnEveryCore = true;
        for (final BitSet set : sets)
        {
            everyRankOnEveryCore &= set.equals(union);
        }
        return new JobCores(Math.max(1, union.cardinality()), everyRankOnEveryCore);
    }

    /** How many cores the job's ranks may use together. */
    public int count()
    {
        return count;
    }

    /** Whether every rank may run on every one of those cores (no rank bound to a part of them). */
    public boolean everyRankOnEveryCore()
    {
        return everyRankOnEveryCore;
    }

    /** The CPUs process {@code pid} may run on, or null when its status cannot be read. */
    public static BitSet cpus(final long pid)
    {
        try
        {
            for (final String line : Files.readAllLines(Path.of("/proc", Long.toString(pid), "status")))
            {
                if (line.startsWith(CPUS_ALLOWED))
                {
                    return parseList(line.substring(CPUS_ALLOWED.length()).trim());
                }
            }
        }
        catch (final IOException | RuntimeException ex)
        {
            // gone, not Linux, or not ours to read: unknown
        }
        return null;
    }

    /** A kernel CPU list, {@code "0-3,8,10-11"}, as a set; null when it is not one. */
    static BitSet parseList(final String list)
    {
        final BitSet set = new BitSet();
        try
        {
            for (final String part : list.split(","))
            {
                final int dash = part.indexOf('-');
                final int first = Integer.parseInt((dash < 0 ? part : part.substring(0, dash)).trim());
                final int last = dash < 0 ? first : Integer.parseInt(part.substring(dash + 1).trim());
                if (first < 0 || last < first)
                {
                    return null;
                }
                set.set(first, last + 1);
            }
        }
        catch (final NumberFormatException ex)
        {
            return null;
        }
        return set.isEmpty() ? null : set;
    }
}
