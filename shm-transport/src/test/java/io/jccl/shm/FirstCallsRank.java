package io.jccl.shm;

import io.jccl.spi.Memory;
import org.agrona.BufferUtil;

import java.lang.management.ManagementFactory;
import java.nio.ByteBuffer;

/**
 * The first 1,000 calls of each foreign function jccl calls, in a JVM that has made none before: what they allocate
 * in all (sched_getcpu, and memmove through {@link Memory#copyToShared}) and the most one call allocates
 * (process_vm_readv and process_vm_writev, whose compiled frame, deoptimized in some runs, re-creates the objects
 * of its iovecs' stores). Prints
 * {@code FIRST_CALLS name bytes}, or {@code FIRST_CALLS name none} when this JVM lacks the function.
 */
public final class FirstCallsRank
{
    private static final int CALLS = 1_000;
    private static final com.sun.management.ThreadMXBean THREADS =
        (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();

    private FirstCallsRank()
    {
    }

    public static void main(final String[] args)
    {
        final long pid = ProcessHandle.current().pid();
        final ByteBuffer buffer = BufferUtil.allocateDirectAligned(4 * 8192, 64);
        final long address = BufferUtil.address(buffer);
        allocated(); // loads what the measuring needs

        final CurrentCpu cpu = CurrentCpu.load();
        long bytes = allocated();
        for (int i = 0; cpu != null && i < CALLS; i++)
        {
            cpu.cpu();
        }
        print("sched_getcpu", cpu != null, allocated() - bytes);

        Memory.copyToShared(null, address, address + 8192, 8192); // loads Memory, and its memmove if any
        bytes = allocated();
        for (int i = 0; i < CALLS; i++)
        {
            Memory.copyToShared(null, address, address + 8192, 8192);
        }
        print("memmove", true, allocated() - bytes);

        final CrossMemory memory = CrossMemory.load();
        long most = 0;
        for (int i = 0; memory != null && i < CALLS; i++)
        {
            bytes = allocated();
            memory.read(pid, address + 64, address, 64);
            memory.write(pid, address, address + 128, 64);
            most = Math.max(most, allocated() - bytes);
        }
        print("process_vm", memory != null, most);
    }

    private static long allocated()
    {
        return THREADS.getThreadAllocatedBytes(Thread.currentThread().threadId());
    }

    private static void print(final String name, final boolean present, final long bytes)
    {
        System.out.println("FIRST_CALLS " + name + " " + (present ? Long.toString(bytes) : "none"));
    }
}
