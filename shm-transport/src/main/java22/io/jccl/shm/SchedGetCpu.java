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
    /** Past the JDK's threshold for customizing a method handle's invoker (at most 127 calls; the default). */
    private static final int CUSTOMIZE_CALLS = 128;

    private static final MethodHandle SCHED_GETCPU;

    static
    {
        final Linker linker = Linker.nativeLinker();
        // int sched_getcpu(void): a few instructions, so the call may skip the thread-state transition
        SCHED_GETCPU = linker.downcallHandle(linker.defaultLookup().find("sched_getcpu").orElseThrow(),
            FunctionDescriptor.of(JAVA_INT), Linker.Option.critical(false));
        // A handle called from code that has not inlined it gets its invoker customized at its 128th call, which
        // generates classes (tens of KiB allocated, once). The waits ask for the CPU seldom, so those calls stay
        // interpreted and the 128th could come inside a blocking call long after warm-up: make them here.
        for (int i = 0; i < CUSTOMIZE_CALLS; i++)
        {
            schedGetCpu();
        }
    }

    @Override
    public int cpu()
    {
        return schedGetCpu();
    }

    private static int schedGetCpu()
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
