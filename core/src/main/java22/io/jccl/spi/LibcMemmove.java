package io.jccl.spi;

import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.invoke.MethodHandle;

import static java.lang.foreign.ValueLayout.JAVA_LONG;

/**
 * {@link NativeCopy} through the C library's {@code memmove}, a critical downcall (no thread-state transition: the
 * copy is short and never blocks). Pointers travel as {@code long}s, so a call builds no segment.
 */
final class LibcMemmove implements NativeCopy
{
    private static final MethodHandle MEMMOVE;

    static
    {
        final Linker linker = Linker.nativeLinker();
        // void *memmove(void *dst, const void *src, size_t n)
        MEMMOVE = linker.downcallHandle(linker.defaultLookup().find("memmove").orElseThrow(),
            FunctionDescriptor.of(JAVA_LONG, JAVA_LONG, JAVA_LONG, JAVA_LONG), Linker.Option.critical(false));
    }

    @Override
    public void memmove(final long dst, final long src, final long bytes)
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
