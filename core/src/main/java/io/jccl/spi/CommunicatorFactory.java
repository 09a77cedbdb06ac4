package io.jccl.spi;

import io.jccl.Communicator;
import io.jccl.Configuration;

/** Found through {@link java.util.ServiceLoader}: the module that implements {@link Communicator}. */
public interface CommunicatorFactory
{
    Communicator connect(Configuration configuration);
}
