package io.jccl;

import io.jccl.spi.CommunicatorFactory;

import java.util.ServiceLoader;

/** Entry point: joins the job this process was launched into. */
public final class Jccl
{
    /** The {@link CommunicatorFactory} of jccl-algorithms (listed in its {@code META-INF/services} as well). */
    static final String DEFAULT_FACTORY = "io.jccl.engine.ShmCommunicatorFactory";

    private Jccl()
    {
    }

    /**
     * Joins the job described by the environment the launcher sets ({@code JCCL_RANK}, {@code JCCL_WORLD_SIZE},
     * {@code JCCL_JOB_ID}, or the matching {@code jccl.*} system properties) and returns once every rank has
     * arrived, or throws when they do not arrive within the bootstrap timeout.
     */
    public static Communicator connect()
    {
        return connect(Configuration.fromEnvironment());
    }

    /** Joins a job described by {@code configuration}. */
    public static Communicator connect(final Configuration configuration)
    {
        return factory().connect(configuration);
    }

    /**
     * jccl-algorithms' factory, found by name, else the first a {@link ServiceLoader} finds (an implementation of
     * one's own, or jccl-algorithms in a class loader this one cannot see). By name first: the service lookup opens
     * every jar on the class path, 13 ms of each rank's connect with jccl's own jars (PERFORMANCE.md, session 44),
     * more beside an application's.
     */
    private static CommunicatorFactory factory()
    {
        try
        {
            return (CommunicatorFactory)Class.forName(DEFAULT_FACTORY).getDeclaredConstructor().newInstance();
        }
        catch (final ClassNotFoundException ex)
        {
            return ServiceLoader.load(CommunicatorFactory.class).findFirst().orElseThrow(() -> new JcclException(
                "no jccl communicator implementation on the class path: add the jccl-algorithms jar"));
        }
        catch (final ReflectiveOperationException ex)
        {
            throw new JcclException("cannot make jccl's communicator factory " + DEFAULT_FACTORY + ": " + ex, ex);
        }
    }
}
