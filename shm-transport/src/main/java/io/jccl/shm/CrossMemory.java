package io.jccl.shm;

import java.lang.reflect.Constructor;
import java.nio.ByteBuffer;

/**
 * Copies between this process's memory and a peer process's private memory in one pass, through the kernel
 * ({@code process_vm_readv} / {@code process_vm_writev}, "cross-memory attach", as Open MPI and MPICH use for large
 * messages). It lets a large message travel with one copy instead of two through the segment.
 * <p>
 * The implementation needs the foreign-function API, final in Java 22: it is compiled only when the build runs on
 * JDK 22 or newer and loaded only when the JVM is 22 or newer; {@link #load()} returns null otherwise, and jccl keeps
 * its two-copy path. The kernel also refuses when the peer may not be traced (another user, a restrictive
 * {@code ptrace_scope}, a seccomp filter): {@link ShmTransport} probes every peer at connect.
 */
interface CrossMemory
{
    /** Name of the implementation class in {@code src/main/java22}. */
    String IMPLEMENTATION = "io.jccl.shm.ProcessVmCrossMemory";

    /**
     * Copies {@code bytes} from {@code remoteAddress} in process {@code pid} to {@code localAddress} here.
     *
     * @return {@code bytes}, or minus the errno of the first failing call
     */
    long read(long pid, long localAddress, long remoteAddress, long bytes);

    /**
     * Copies {@code bytes} from {@code localAddress} here to {@code remoteAddress} in process {@code pid}.
     *
     * @return {@code bytes}, or minus the errno of the first failing call
     */
    long write(long pid, long localAddress, long remoteAddress, long bytes);

    /**
     * {@code capacity} bytes of zeroed private memory for copies that peers read through the kernel, freed when the
     * buffer is unreachable: from 2 MiB on, 2 MiB-aligned and advised as transparent huge pages before its first
     * touch ({@code madvise(MADV_HUGEPAGE)}), since the kernel pins each page it reads; else, or when the kernel
     * refuses the mapping, an ordinary direct buffer.
     */
    ByteBuffer allocateForReads(int capacity);

    /**
     * A new instance of the implementation, or null when this JVM or this build has none (and why is then in
     * {@link #whyNot()}). Each transport takes its own: an instance keeps per-call native state, and the transports
     * of one process (a communicator and its sub-communicators) may run on different threads.
     */
    static CrossMemory load()
    {
        if (Holder.CONSTRUCTOR == null)
        {
            return null;
        }
        try
        {
            return Holder.CONSTRUCTOR.newInstance();
        }
        catch (final ReflectiveOperationException ex)
        {
            throw new IllegalStateException("cannot instantiate " + IMPLEMENTATION, ex);
        }
    }

    static String whyNot()
    {
        return Holder.WHY_NOT;
    }

    final class Holder
    {
        private static final Constructor<? extends CrossMemory> CONSTRUCTOR;
        private static final String WHY_NOT;

        static
        {
            Constructor<? extends CrossMemory> constructor = null;
            String whyNot = null;
            if (Runtime.version().feature() < 22)
            {
                whyNot = "Java " + Runtime.version().feature() + " has no foreign-function API (Java 22 needed)";
            }
            else if (!System.getProperty("os.name", "").startsWith("Linux"))
            {
                whyNot = "not Linux";
            }
            else
            {
                try
                {
                    // one instance now, so that a class that cannot load or link says so here, once
                    constructor = Class.forName(IMPLEMENTATION).asSubclass(CrossMemory.class).getDeclaredConstructor();
                    constructor.newInstance();
                }
                catch (final ReflectiveOperationException | LinkageError | RuntimeException ex)
                {
                    whyNot = "cannot load " + IMPLEMENTATION + " (" + ex + "): was jccl built with JDK 21?";
                }
            }
            CONSTRUCTOR = whyNot == null ? constructor : null;
            WHY_NOT = whyNot;
        }

        private Holder()
        {
        }
    }
}
