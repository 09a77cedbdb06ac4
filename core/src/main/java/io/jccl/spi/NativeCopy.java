package io.jccl.spi;

/**
 * The C library's {@code memmove}, for large copies into shared memory that other processes' cores have just read.
 * <p>
 * Why: a copy's stores must first take each destination line from the core that holds it. The JVM's copy loop
 * stores vector by vector; the C library's {@code memmove} copies large blocks with {@code rep movsb}, which on the
 * CPUs measured here writes into lines another core holds about twice as fast, by all appearances without fetching
 * each line first. Where a line crosses cores slowly (this project's VMs, half of the time) that halves the time of a
 * 32 KiB copy into a ring or staging area the peer has just read (3.7 µs against 8.0 µs for a round trip of two such
 * copies, PERFORMANCE.md). For a copy within one core's caches the JVM's loop is as fast or faster (16 KiB: 220
 * against 137 GB/s), so only writes into shared memory take this.
 * <p>
 * The implementation calls {@code memmove} through the foreign-function API, final in Java 22: it is compiled only
 * when the build runs on JDK 22 or newer ({@code src/main/java22}) and loaded only by JVMs 22 or newer;
 * {@link #load()} returns null otherwise, and copies take the JVM's loop.
 */
interface NativeCopy
{
    /** Name of the implementation class in {@code src/main/java22}. */
    String IMPLEMENTATION = "io.jccl.spi.LibcMemmove";

    /** Copies {@code bytes} from {@code src} to {@code dst}, both absolute addresses; the ranges may overlap. */
    void memmove(long dst, long src, long bytes);

    /**
     * The implementation, or null when this JVM or build has none or
     * {@link io.jccl.Configuration#NATIVE_COPY_PROP_NAME} is false.
     */
    static NativeCopy load()
    {
        if (Runtime.version().feature() < 22 || !io.jccl.Configuration.fromEnvironment().getBoolean(
            io.jccl.Configuration.NATIVE_COPY_PROP_NAME, io.jccl.Configuration.NATIVE_COPY_DEFAULT))
        {
            return null;
        }
        try
        {
            return (NativeCopy)Class.forName(IMPLEMENTATION).getDeclaredConstructor().newInstance();
        }
        catch (final ReflectiveOperationException | LinkageError ex)
        {
            return null;
        }
    }
}
