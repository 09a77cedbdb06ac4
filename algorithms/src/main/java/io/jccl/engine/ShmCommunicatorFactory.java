package io.jccl.engine;

import io.jccl.Communicator;
import io.jccl.Configuration;
import io.jccl.spi.CommunicatorFactory;

/** Registered through {@code META-INF/services}: what {@link io.jccl.Jccl#connect()} finds. */
public final class ShmCommunicatorFactory implements CommunicatorFactory
{
    @Override
    public Communicator connect(final Configuration configuration)
    {
        return ShmCommunicator.connect(configuration);
    }
}
