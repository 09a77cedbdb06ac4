package io.jccl.shm;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;

import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

/**
 * {@link CrossMemory} through {@code process_vm_readv(2)} and {@code process_vm_writev(2)}, called with the
 * foreign-function API. Compiled only by JDK 22 or newer (see the {@code java22} profile of this module's pom).
 * <p>
 * Pointers travel as {@code long}s (both are one integer register in the Linux ABIs jccl runs on), so a call builds
 * no segment: the two one-element iovec arrays live in one native block owned by this instance, which is why an
 * instance belongs to one thread (one {@link ShmTransport}).
 */
final class ProcessVmCrossMemory implements CrossMemory
{
    /** Past the JDK's threshold for customizing a method handle's invoker (at most 127 calls; the default). */
    private static final int CUSTOMIZE_CALLS = 128;

    private static final MethodHandle READV;
    private static final MethodHandle WRITEV;
    /**
     * The same calls, capturing errno: only to tell why a call copied nothing. Capturing it on every call would
     * allocate a view of the capture segment per call (40 bytes, which only C2's escape analysis removes).
     */
    private static final MethodHandle READV_ERRNO;
    private static final MethodHandle WRITEV_ERRNO;
    private static final StructLayout CALL_STATE = Linker.Option.captureStateLayout();
    private static final long HUGE_PAGE = 2L << 20;
    private static final VarHandle ERRNO =
        CALL_STATE.varHandle(MemoryLayout.PathElement.groupElement("errno"));

    static
    {
        final Linker linker = Linker.nativeLinker();
        // ssize_t process_vm_readv(pid_t, const struct iovec *local, unsigned long, const struct iovec *remote,
        //                          unsigned long, unsigned long flags)
        final FunctionDescriptor signature =
            FunctionDescriptor.of(JAVA_LONG, JAVA_INT, JAVA_LONG, JAVA_LONG, JAVA_LONG, JAVA_LONG, JAVA_LONG);
        final Linker.Option errno = Linker.Option.captureCallState("errno");
        final java.lang.foreign.SymbolLookup libc = linker.defaultLookup();
        final MemorySegment readv = libc.find("process_vm_readv").orElseThrow();
        final MemorySegment writev = libc.find("process_vm_writev").orElseThrow();
        READV = linker.downcallHandle(readv, signature);
        WRITEV = linker.downcallHandle(writev, signature);
        READV_ERRNO = linker.downcallHandle(readv, signature, errno);
        WRITEV_ERRNO = linker.downcallHandle(writev, signature, errno);
        allowPeersToRead(linker);
        warmUp();
    }

    /**
     * The first call links each handle, and the 128th from code that has not inlined it customizes its invoker: both
     * generate classes (one read and write allocated 141 KB). A collective makes one call per large message, so those
     * calls could come long after warm-up: make them here, within this process.
     */
    private static void warmUp()
    {
        final long self = ProcessHandle.current().pid();
        final ProcessVmCrossMemory memory = new ProcessVmCrossMemory();
        try (Arena arena = Arena.ofConfined())
        {
            final long block = arena.allocate(16).address();
            for (int i = 0; i < CUSTOMIZE_CALLS; i++)
            {
                memory.read(self, block + 8, block, 8);
                memory.write(self, block, block + 8, 8);
            }
        }
    }

    /**
     * Under Yama's ptrace_scope 1 only a parent may read a process's memory, not its sibling ranks: declare that any
     * process of this user may (prctl(PR_SET_PTRACER, PR_SET_PTRACER_ANY), as Open MPI does). Without Yama the call
     * fails with EINVAL and nothing changes; under scopes 2 and 3 the connect-time probe finds single copy refused.
     */
    private static void allowPeersToRead(final Linker linker)
    {
        final int prSetPtracer = 0x59616d61;
        final long prSetPtracerAny = -1L;
        try
        {
            final MethodHandle prctl = linker.downcallHandle(linker.defaultLookup().find("prctl").orElseThrow(),
                FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_LONG), Linker.Option.firstVariadicArg(1));
            final int ignored = (int) prctl.invokeExact(prSetPtracer, prSetPtracerAny);
        }
        catch (final Throwable ex)
        {
            // best effort: the probe reports whether peers can read this process
        }
    }

    /** local iovec {base, len} at 0, remote iovec at 16. */
    private final MemorySegment iovecs = Arena.ofAuto().allocate(32, 16);
    private final long localIov = iovecs.address();
    private final long remoteIov = localIov + 16;
    private final MemorySegment callState = Arena.ofAuto().allocate(CALL_STATE);

    @Override
    public long read(final long pid, final long localAddress, final long remoteAddress, final long bytes)
    {
        return transfer(READV, READV_ERRNO, pid, localAddress, remoteAddress, bytes);
    }

    @Override
    public long write(final long pid, final long localAddress, final long remoteAddress, final long bytes)
    {
        return transfer(WRITEV, WRITEV_ERRNO, pid, localAddress, remoteAddress, bytes);
    }

    @Override
    public ByteBuffer allocateForReads(final int capacity)
    {
        return capacity < HUGE_PAGE ? org.agrona.BufferUtil.allocateDirectAligned(capacity, 4096) :
            HugePageMappings.allocate(capacity);
    }

    /**
     * The calls behind {@link #allocateForReads} from 2 MiB, linked at the first such allocation: every rank loads
     * this class at start, where linking three more handles took 18-24 ms (three runs of a JVM timing just that),
     * for memory many jobs never ask for.
     */
    private static final class HugePageMappings
    {
        private static final int PROT_READ_WRITE = 0x1 | 0x2;
        private static final int MAP_PRIVATE_ANONYMOUS = 0x02 | 0x20;
        private static final int MADV_HUGEPAGE = 14;
        private static final long MAP_FAILED = -1;
        private static final MethodHandle MMAP;
        private static final MethodHandle MADVISE;
        private static final MethodHandle MUNMAP;

        static
        {
            final Linker linker = Linker.nativeLinker();
            final java.lang.foreign.SymbolLookup libc = linker.defaultLookup();
            // void *mmap(void *, size_t, int prot, int flags, int fd, off_t); int madvise(void *, size_t, int);
            // int munmap(void *, size_t)
            MMAP = linker.downcallHandle(libc.find("mmap").orElseThrow(),
                FunctionDescriptor.of(JAVA_LONG, JAVA_LONG, JAVA_LONG, JAVA_INT, JAVA_INT, JAVA_INT, JAVA_LONG));
            MADVISE = linker.downcallHandle(libc.find("madvise").orElseThrow(),
                FunctionDescriptor.of(JAVA_INT, JAVA_LONG, JAVA_LONG, JAVA_INT));
            MUNMAP = linker.downcallHandle(libc.find("munmap").orElseThrow(),
                FunctionDescriptor.of(JAVA_INT, JAVA_LONG, JAVA_LONG));
        }

        private HugePageMappings()
        {
        }

        /** A mapping one huge page longer than the buffer, whose 2 MiB-aligned part the buffer takes. */
        static ByteBuffer allocate(final int capacity)
        {
            final long aligned = (capacity + HUGE_PAGE - 1) & -HUGE_PAGE;
            final long length = aligned + HUGE_PAGE;
            final long raw;
            try
            {
                raw = (long) MMAP.invokeExact(0L, length, PROT_READ_WRITE, MAP_PRIVATE_ANONYMOUS, -1, 0L);
                if (raw == MAP_FAILED)
                {
                    return org.agrona.BufferUtil.allocateDirectAligned(capacity, 4096);
                }
                final long start = (raw + HUGE_PAGE - 1) & -HUGE_PAGE;
                // advice, not a demand: where the kernel's setting or its free memory gives no huge page, 4 KiB pages
                final int ignored = (int) MADVISE.invokeExact(start, aligned, MADV_HUGEPAGE);
                return MemorySegment.ofAddress(start).reinterpret(capacity, Arena.ofAuto(),
                    segment -> unmap(raw, length)).asByteBuffer();
            }
            catch (final Throwable ex)
            {
                throw new IllegalStateException("mmap of " + length + " bytes failed", ex);
            }
        }

        /** Run by the GC's cleaner once a buffer of {@link #allocate} is unreachable. */
        private static void unmap(final long address, final long length)
        {
            try
            {
                final int ignored = (int) MUNMAP.invokeExact(address, length);
            }
            catch (final Throwable ex)
            {
                // nothing to do: the mapping stays until the process exits
            }
        }
    }

    private long transfer(final MethodHandle call, final MethodHandle errnoCall, final long pid,
        final long localAddress, final long remoteAddress, final long bytes)
    {
        long done = 0;
        while (done < bytes)
        {
            // The kernel may copy less than asked (it stops at a page it cannot pin): go on from there.
            iovecs.set(JAVA_LONG, 0, localAddress + done);
            iovecs.set(JAVA_LONG, 8, bytes - done);
            iovecs.set(JAVA_LONG, 16, remoteAddress + done);
            iovecs.set(JAVA_LONG, 24, bytes - done);
            long copied;
            try
            {
                copied = (long) call.invokeExact((int) pid, localIov, 1L, remoteIov, 1L, 0L);
                if (copied < 0)
                {
                    // A call that copied nothing fails the same way again (the peer gone, no permission, a bad
                    // address): make it again, capturing errno this time.
                    copied = (long) errnoCall.invokeExact(callState, (int) pid, localIov, 1L, remoteIov, 1L, 0L);
                }
            }
            catch (final Throwable ex)
            {
                throw new IllegalStateException("process_vm_readv/writev call failed", ex);
            }
            if (copied <= 0)
            {
                return copied == 0 ? -14 /* EFAULT: no progress */ : -(int) ERRNO.get(callState, 0L);
            }
            done += copied;
        }
        return done;
    }
}
