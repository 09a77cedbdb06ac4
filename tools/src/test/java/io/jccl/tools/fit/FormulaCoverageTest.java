package io.jccl.tools.fit;

import io.jccl.Collective;
import io.jccl.algorithms.AlgorithmRegistry;
import io.jccl.model.CostFormulas;
import io.jccl.spi.CollectiveAlgorithm;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;

@Timeout(10)
class FormulaCoverageTest
{
    /** Every algorithm jccl can run, of every collective and vector form, has a cost formula. */
    @Test
    void everyRegisteredAlgorithmHasAFormula()
    {
        final List<String> missing = new ArrayList<>();
        for (final CollectiveAlgorithm algorithm : AlgorithmRegistry.instance().all())
        {
            for (final Collective collective : algorithm.collectives())
            {
                final String label = collective.label();
                if (CostFormulas.find(label, algorithm.name()) == null)
                {
                    missing.add(label + ":" + algorithm.name());
                }
            }
        }
        assertEquals(List.of(), missing);
    }
}
