package io.jccl;

import io.jccl.spi.CommunicatorFactory;

import java.util.ServiceLoader;

/** Entry point: joins the job this process was launched into. */
public final class Jccl
{
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

    private static CommunicatorFactory factory()
    {
        return ServiceLoader.load(CommunicatorFactory.class).findFirst().orElseThrow(() -> new JcclException(
            "no jccl communicator implementation on the class path: add the jccl-algorithms jar"));
    }
}
