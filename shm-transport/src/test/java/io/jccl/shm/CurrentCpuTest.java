package io.jccl.shm;

import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

import java.lang.management.ManagementFactory;

import static org.junit.jupiter.api.Assertions.assertTrue;

class CurrentCpuTest
{
    /**
     * The waits ask for the CPU seldom, so its calls stay interpreted: a call that allocates, even once (as the
     * JDK's customization of a method handle's invoker does at its 128th call), may come inside a blocking call.
     */
    @Test
    void noCallAllocatesFromTheFirst()
    {
        final CurrentCpu cpu = CurrentCpu.load();
        Assumptions.assumeTrue(cpu != null, "no sched_getcpu on this JVM");
        final com.sun.management.ThreadMXBean threads =
            (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        final long thread = Thread.currentThread().threadId();
        int sum = 0;
        final long before = threads.getThreadAllocatedBytes(thread);
        for (int i = 0; i < 1_000; i++)
        {
            sum += cpu.cpu();
        }
        final long bytes = threads.getThreadAllocatedBytes(thread) - before;
        assertTrue(sum >= 0);
        assertTrue(bytes < 1024, bytes + " bytes in the first 1,000 calls");
    }
}
