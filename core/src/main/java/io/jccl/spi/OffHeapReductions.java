package io.jccl.spi;

import io.jccl.DataType;
import io.jccl.ReduceOp;

/**
 * Reduction kernels over off-heap memory addressed by absolute address, with explicit SIMD (the incubating Vector
 * API): C2 vectorises loops over Java arrays only, so without them off-heap operands go through typed scratch arrays
 * ({@link Reductions}), at about half the speed of a C loop in cache.
 * <p>
 * The implementation needs the Vector API over memory segments and the final foreign-memory API of Java 22: it is
 * compiled only when the build runs on JDK 22 or newer ({@code src/main/java22}), and {@link #load()} returns it only
 * when the JVM is 22 or newer, was started with {@code --add-modules jdk.incubator.vector} (the launcher, tests and
 * benchmarks start every rank so), compiles with C2 (in C1 alone an 8 MiB allreduce of direct buffers took 250-410 ms
 * on them against 5-19 ms on the array kernels) and {@link io.jccl.Configuration#VECTOR_KERNELS_PROP_NAME} is not false.
 */
interface OffHeapReductions
{
    /** Name of the implementation class in {@code src/main/java22}. */
    String IMPLEMENTATION = "io.jccl.spi.VectorApiReductions";

    /** The incubating module the implementation needs. */
    String VECTOR_MODULE = "jdk.incubator.vector";

    /**
     * {@code d[i] = a[i] op b[i]} for the first elements of {@code count} that fill whole vectors, elements at
     * absolute addresses; {@code d} may be {@code a} or {@code b}, never overlap either partially. Same results, bit
     * for bit, as {@link Reductions}' other paths, which reduce the rest.
     *
     * @return the number of elements reduced: a multiple of the vector length, 0 for the types left to
     *         {@link Reductions} (float16)
     */
    long reduce(DataType type, ReduceOp op, long a, long b, long d, long count);

    /**
     * Whether {@link #reduce} reduces elements of {@code type}: every type but float16; of the unsigned types, MIN
     * and MAX (their other operators are the signed types' and {@link Reductions} passes them as such).
     */
    boolean handles(DataType type);

    /** The kernels, or null when this JVM, this build or the configuration has none ({@link #whyNot()} says). */
    static OffHeapReductions load()
    {
        return Holder.INSTANCE;
    }

    /** Why {@link #load()} returns null, or null when it does not. */
    static String whyNot()
    {
        return Holder.WHY_NOT;
    }

    final class Holder
    {
        private static final OffHeapReductions INSTANCE;
        private static final String WHY_NOT;

        static
        {
            OffHeapReductions instance = null;
            String whyNot = null;
            final String vmInfo = System.getProperty("java.vm.info", "");
            if (!io.jccl.Configuration.fromEnvironment().getBoolean(io.jccl.Configuration.VECTOR_KERNELS_PROP_NAME,
                io.jccl.Configuration.VECTOR_KERNELS_DEFAULT))
            {
                whyNot = "off (" + io.jccl.Configuration.VECTOR_KERNELS_PROP_NAME + " = false)";
            }
            else if (Runtime.version().feature() < 22)
            {
                whyNot = "Java " + Runtime.version().feature() + " has no Vector API over memory segments (Java 22 " +
                    "needed)";
            }
            else if (ModuleLayer.boot().findModule(VECTOR_MODULE).isEmpty())
            {
                whyNot = "the JVM was not started with --add-modules " + VECTOR_MODULE;
            }
            else if (withoutC2(vmInfo))
            {
                whyNot = "this JVM does not compile with C2 (java.vm.info: " + vmInfo + "), and without C2 the " +
                    "Vector API is not intrinsified: it runs tens of times slower than the array kernels";
            }
            else
            {
                try
                {
                    instance = (OffHeapReductions) Class.forName(IMPLEMENTATION).getDeclaredConstructor()
                        .newInstance();
                }
                catch (final ReflectiveOperationException | LinkageError ex)
                {
                    whyNot = "this build has no " + IMPLEMENTATION + " (built by a JDK older than 22?): " + ex;
                }
            }
            INSTANCE = instance;
            WHY_NOT = whyNot;
        }

        private Holder()
        {
        }

        /**
         * Whether the JVM that reports this {@code java.vm.info} runs without C2: interpreted ({@code -Xint}), or C1
         * alone ({@code -XX:TieredStopAtLevel=1}, {@code -XX:CompilationMode=quick-only}: "emulated-client"). A
         * stop at tier 2 or 3 is not reported there, and goes undetected.
         */
        static boolean withoutC2(final String vmInfo)
        {
            return vmInfo.contains("interpreted mode") || vmInfo.contains("emulated-client");
        }
    }
}
