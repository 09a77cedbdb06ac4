package io.jccl.shm;

import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.invoke.MethodHandle;

import static java.lang.foreign.ValueLayout.JAVA_INT;

/**
 * {@link CurrentCpu} through glibc's {@code sched_getcpu(3)}, which reads the kernel's restartable-sequences area or
 * asks the vDSO, without a system call: far cheaper than the yield of a microsecond or more it is asked after.
 * Compiled only by JDK 22 or newer (the {@code java22} profile of this module's pom).
 */
final class SchedGetCpu implements CurrentCpu
{
    private static final MethodHandle SCHED_GETCPU;

    static
    {
        final Linker linker = Linker.nativeLinker();
        // int sched_getcpu(void): a few instructions, so the call may skip the thread-state transition
        SCHED_GETCPU = linker.downcallHandle(linker.defaultLookup().find("sched_getcpu").orElseThrow(),
            FunctionDescriptor.of(JAVA_INT), Linker.Option.critical(false));
    }

    @Override
    public int cpu()
    {
        try
        {
            return (int) SCHED_GETCPU.invokeExact();
        }
        catch (final Throwable ex)
        {
            return -1;
        }
    }
}
