package io.jccl.tools.tune;

import io.jccl.model.CostFormulas;
import io.jccl.model.ModelParameters;
import io.jccl.model.TuningTable;
import io.jccl.tools.fit.Measurement;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertTrue;

@Timeout(10)
class TunerTest
{
    /** The LL allreduce measured fastest at every size it ran: no rule gives it sizes beyond the 1 KiB it carries. */
    @Test
    void noRuleRunsAnAlgorithmPastItsCapacity()
    {
        final List<Measurement> rows = new ArrayList<>();
        for (long bytes = 8; bytes <= 1024; bytes *= 2)
        {
            rows.add(new Measurement("test", "allreduce", "shm_ll", true, 2, bytes, "float32", "sum", 0, 0.1));
        }
        for (long bytes = 8; bytes <= 4096; bytes *= 2)
        {
            rows.add(new Measurement("test", "allreduce", "shm_twoshot", true, 2, bytes, "float32", "sum", 0, 1.0));
        }
        for (final Tuner.Choice choice : Tuner.Choice.values())
        {
            final Tuner.Result result = new Tuner(ModelParameters.shipped(), 4L << 20, choice).tune(rows);
            for (final TuningTable.Rule rule : result.rules())
            {
                if (rule.algorithm().equals("shm_ll"))
                {
                    assertTrue(rule.maxBytes() - 1 <= CostFormulas.LL_MAX_BYTES, choice + ": " + rule);
                }
            }
        }
    }
}
