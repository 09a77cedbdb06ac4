package io.jccl.spi;

import com.sun.management.HotSpotDiagnosticMXBean;

import java.lang.management.ManagementFactory;

/**
 * Whether this JVM's large copies ({@code Unsafe.copyMemory}, {@code System.arraycopy}, once compiled) bypass the
 * caches: HotSpot's x86-64 copy stubs for AVX-512, used when {@code MaxVectorSize} is 64, store a copy of
 * {@link #MIN_BYTES} or more with non-temporal stores ({@code large_threshold} in
 * {@code stubGenerator_x86_64_arraycopy.cpp}). Such a copy is in memory when it ends, where another core reads it at
 * memory speed; a smaller copy, or one on a JVM without those stubs, leaves its lines dirty in the copying core's
 * cache, from where another core pulls them line by line, and at the slow pace that is slow. 2 ranks, JDK 25,
 * {@code perf/Designs.java broadcast} of {@code float[]} by binomial at the slow pace, each message out of an off-heap
 * copy (PERFORMANCE.md, session 56), medians of four 40 s runs each way: 2.5, 4 and 8 MiB took 479-488, 777-794 and
 * 1629-1751 µs with {@code MaxVectorSize} 64 (the default here), and 1565-1585, 2476-2499 and 4644-4718 µs with
 * {@code -XX:MaxVectorSize=32}: 2.7-3.3x the time, and 1.3-1.4x the ring's.
 * <p>
 * Read once, when first asked: the management classes take some 20 ms to load.
 */
public final class StreamingCopy
{
    /** The smallest copy that streams past the caches, where one does ({@link #available()}). */
    public static final long MIN_BYTES = 2_621_440;

    private StreamingCopy()
    {
    }

    /** Whether copies of {@link #MIN_BYTES} or more stream past the caches in this JVM. */
    public static boolean available()
    {
        return Holder.MAX_VECTOR_SIZE == 64;
    }

    /** Why not, for the log: this JVM's {@code MaxVectorSize}, or why it is unknown. */
    public static String whyNot()
    {
        return Holder.MAX_VECTOR_SIZE > 0 ? "MaxVectorSize " + Holder.MAX_VECTOR_SIZE + ", not 64" : Holder.UNKNOWN;
    }

    private static final class Holder
    {
        /** The JVM's MaxVectorSize on x86-64, else 0 ({@link #UNKNOWN} says why). */
        private static final long MAX_VECTOR_SIZE;
        private static final String UNKNOWN;

        static
        {
            long maxVectorSize = 0;
            String unknown = null;
            final String arch = System.getProperty("os.arch", "");
            if (!arch.equals("amd64") && !arch.equals("x86_64"))
            {
                unknown = "not x86-64";
            }
            else
            {
                try
                {
                    maxVectorSize = Long.parseLong(ManagementFactory.getPlatformMXBean(HotSpotDiagnosticMXBean.class)
                        .getVMOption("MaxVectorSize").getValue());
                }
                catch (final RuntimeException | LinkageError ex)
                {
                    unknown = "MaxVectorSize unknown (" + ex + ")";
                }
            }
            MAX_VECTOR_SIZE = maxVectorSize;
            UNKNOWN = unknown;
        }

        private Holder()
        {
        }
    }
}
