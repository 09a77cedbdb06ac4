package io.jccl.shm;

import org.junit.jupiter.api.Test;

import java.util.BitSet;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

class JobCoresTest
{
    @Test
    void parsesTheKernelsCpuLists()
    {
        assertEquals(set(0), JobCores.parseList("0"));
        assertEquals(set(0, 1, 2, 3, 8, 10, 11), JobCores.parseList("0-3,8,10-11"));
        assertEquals(set(5, 6), JobCores.parseList(" 5-6 "));
        assertNull(JobCores.parseList(""));
        assertNull(JobCores.parseList("3-1"));
        assertNull(JobCores.parseList("ff"));
        assertNull(JobCores.parseList("0-"));
    }

    @Test
    void countsTheUnionOfTheRanksCpus()
    {
        // two ranks bound to a CPU each share two cores; four bound two by two as well; neither runs anywhere
        assertCores(2, false, JobCores.union(new BitSet[] {set(0), set(1)}, 1));
        assertCores(2, false, JobCores.union(new BitSet[] {set(0), set(0), set(1), set(1)}, 1));
        // unbound ranks: every one may use all of them
        assertCores(4, true, JobCores.union(new BitSet[] {set(0, 1, 2, 3), set(0, 1, 2, 3)}, 4));
        // a rank whose CPUs cannot be read (gone, not readable): this JVM's own count, as if unbound
        assertCores(3, true, JobCores.union(new BitSet[] {set(0), null}, 3));
    }

    @Test
    void aJobOfThisProcessAloneCountsWhatThisJvmCounts()
    {
        final BitSet own = JobCores.cpus(ProcessHandle.current().pid());
        assertNotNull(own, "Cpus_allowed_list of /proc/self/status");
        assertTrue(own.cardinality() >= 1);
        assertCores(Runtime.getRuntime().availableProcessors(), true,
            JobCores.of(new long[] {ProcessHandle.current().pid()}));
    }

    @Test
    void anUnreadableProcessIsUnknown()
    {
        assertNull(JobCores.cpus(Long.MAX_VALUE));
    }

    private static void assertCores(final int count, final boolean everyRankOnEveryCore, final JobCores cores)
    {
        assertEquals(count, cores.count());
        assertEquals(everyRankOnEveryCore, cores.everyRankOnEveryCore());
    }

    private static BitSet set(final int... cpus)
    {
        final BitSet set = new BitSet();
        for (final int cpu : cpus)
        {
            set.set(cpu);
        }
        return set;
    }
}
