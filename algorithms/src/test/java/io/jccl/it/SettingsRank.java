package io.jccl.it;

import io.jccl.Buf;
import io.jccl.Communicator;
import io.jccl.Configuration;
import io.jccl.JcclException;
import io.jccl.Jccl;
import io.jccl.ReduceOp;

import java.util.Arrays;

/**
 * One rank of {@link MismatchedSettingsTest}: connects with the settings its arguments give its rank
 * ("RANK:NAME=VALUE", over the environment's), then runs an allreduce and checks it. Prints "REFUSED message" when the
 * connect fails, "ALLREDUCE RIGHT" or "ALLREDUCE WRONG" otherwise.
 */
public final class SettingsRank
{
    private SettingsRank()
    {
    }

    public static void main(final String[] args)
    {
        final int rank = Configuration.fromEnvironment().rank();
        final Configuration.Builder builder = Configuration.builder();
        for (final String arg : args)
        {
            final int colon = arg.indexOf(':');
            final int eq = arg.indexOf('=');
            if (Integer.parseInt(arg.substring(0, colon)) == rank)
            {
                builder.set(arg.substring(colon + 1, eq), arg.substring(eq + 1));
            }
        }
        final Communicator comm;
        try
        {
            comm = Jccl.connect(builder.build());
        }
        catch (final JcclException ex)
        {
            System.out.println("REFUSED " + ex.getMessage());
            return;
        }
        try (comm)
        {
            final float[] data = new float[1 << 16];
            Arrays.fill(data, rank + 1);
            comm.allreduce(Buf.of(data), ReduceOp.SUM);
            final float expected = comm.size() * (comm.size() + 1) / 2f;
            boolean right = true;
            for (final float x : data)
            {
                right &= x == expected;
            }
            System.out.println(right ? "ALLREDUCE RIGHT" : "ALLREDUCE WRONG");
        }
    }
}
