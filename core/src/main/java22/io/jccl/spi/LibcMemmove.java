package io.jccl.spi;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;

import static java.lang.foreign.ValueLayout.JAVA_LONG;

/**
 * {@link NativeCopy} through the C library's {@code memmove}, a critical downcall (no thread-state transition: the
 * copy is short and never blocks). Pointers travel as {@code long}s, so a call builds no segment.
 */
final class LibcMemmove implements NativeCopy
{
    /** Past the JDK's threshold for customizing a method handle's invoker (at most 127 calls; the default). */
    private static final int CUSTOMIZE_CALLS = 128;

    private static final MethodHandle MEMMOVE;

    static
    {
        final Linker linker = Linker.nativeLinker();
        // void *memmove(void *dst, const void *src, size_t n)
        MEMMOVE = linker.downcallHandle(linker.defaultLookup().find("memmove").orElseThrow(),
            FunctionDescriptor.of(JAVA_LONG, JAVA_LONG, JAVA_LONG, JAVA_LONG), Linker.Option.critical(false));
        // The first call links the handle, and the 128th from code that has not inlined it customizes its invoker:
        // both generate classes (200 KB allocated in the first 1,000 calls). Make them here, not in a collective.
        try (Arena arena = Arena.ofConfined())
        {
            final MemorySegment block = arena.allocate(16);
            for (int i = 0; i < CUSTOMIZE_CALLS; i++)
            {
                callMemmove(block.address() + 8, block.address(), 8);
            }
        }
    }

    @Override
    public void memmove(final long dst, final long src, final long bytes)
    {
        callMemmove(dst, src, bytes);
    }

    private static void callMemmove(final long dst, final long src, final long bytes)
    {
        try
        {
            final long ignored = (long)MEMMOVE.invokeExact(dst, src, bytes);
        }
        catch (final Throwable ex)
        {
            throw new IllegalStateException("memmove failed", ex);
        }
    }
}
