package io.jccl.shm;

/**
 * The CPU the calling thread runs on ({@code sched_getcpu(3)}), which {@link CoreMates} publishes so that a waiting
 * rank can tell the ranks that share its CPU from those that run beside it.
 * <p>
 * The implementation needs the foreign-function API, final in Java 22, as {@link CrossMemory} does: {@link #load()}
 * returns null on an older JVM or build, and waits then yield as they did before ranks knew their CPUs.
 */
interface CurrentCpu
{
    /** Name of the implementation class in {@code src/main/java22}. */
    String IMPLEMENTATION = "io.jccl.shm.SchedGetCpu";

    /** The calling thread's CPU now (it may move at any time), or -1 when the kernel does not say. */
    int cpu();

    /** The implementation, or null when this JVM or this build has none. */
    static CurrentCpu load()
    {
        return Holder.INSTANCE;
    }

    final class Holder
    {
        private static final CurrentCpu INSTANCE;

        static
        {
            CurrentCpu instance = null;
            if (Runtime.version().feature() >= 22 && System.getProperty("os.name", "").startsWith("Linux"))
            {
                try
                {
                    instance = Class.forName(IMPLEMENTATION).asSubclass(CurrentCpu.class).getDeclaredConstructor()
                        .newInstance();
                    if (instance.cpu() < 0)
                    {
                        instance = null;
                    }
                }
                catch (final ReflectiveOperationException | LinkageError | RuntimeException ex)
                {
                    instance = null; // built with JDK 21, or no sched_getcpu: waits go without CPUs
                }
            }
            INSTANCE = instance;
        }

        private Holder()
        {
        }
    }
}
