package io.jccl;

import io.jccl.spi.CommunicatorFactory;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.List;
import java.util.ServiceLoader;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** {@link Jccl} finds jccl-algorithms' factory by name before it asks the service loader: the two must agree. */
@Timeout(10)
class DefaultFactoryTest
{
    @Test
    void theFactoryFoundByNameIsTheOneJcclAlgorithmsRegisters()
    {
        assertEquals(List.of(Jccl.DEFAULT_FACTORY), ServiceLoader.load(CommunicatorFactory.class).stream()
            .map(provider -> provider.type().getName()).toList());
    }
}
