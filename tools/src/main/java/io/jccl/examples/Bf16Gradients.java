package io.jccl.examples;

import io.jccl.Buf;
import io.jccl.Communicator;
import io.jccl.DataType;
import io.jccl.Jccl;
import io.jccl.ReduceOp;

/**
 * Mixed-precision gradient reduction: gradients computed in float32 travel as bfloat16 (half the bytes) and are
 * accumulated in float32, two ways:
 * <ol>
 *   <li>{@code allreduce} on bfloat16 buffers: jccl's kernels widen every pair of operands to float32, add, and round
 *       the partial sum back to bfloat16 once per step of the algorithm;</li>
 *   <li>{@code allgather} of the bfloat16 gradients, then each rank adds all of them in float32 in rank order:
 *       one rounding per rank's gradient and none in the sum, the same bits on every rank.</li>
 * </ol>
 * <pre>
 *   ./jccl run -n 4 -- io.jccl.examples.Bf16Gradients [--count 1m] [--seed 5]
 * </pre>
 * Both are compared with the float32 allreduce of the unrounded gradients, against the bound of bfloat16's
 * rounding (2⁻⁸ relative per rounding, of the sum of magnitudes); exit status 1 when a bound is broken.
 */
public final class Bf16Gradients
{
    /** bfloat16 keeps 8 significant bits: rounding to nearest errs by at most 2^-8 relative. */
    private static final double UNIT_ROUNDOFF = 1.0 / 256;

    private Bf16Gradients()
    {
    }

    public static void main(final String[] args)
    {
        final ExampleArgs options = new ExampleArgs(args);
        final int n = options.getInt("count", 1 << 20);
        final long seed = options.getInt("seed", 5);
        final boolean ok;
        try (Communicator comm = Jccl.connect())
        {
            final int p = comm.size();
            final float[] grad = TensorParallelMlp.random(n, seed + comm.rank(), 1e-3);
            final short[] wire = new short[n];
            for (int i = 0; i < n; i++)
            {
                wire[i] = toBfloat16(grad[i]);
            }
            // the reference: float32 end to end, and the sum of magnitudes that scales the error bound
            final float[] exact = grad.clone();
            comm.allreduce(Buf.of(exact), ReduceOp.SUM);
            final float[] magnitude = new float[n];
            for (int i = 0; i < n; i++)
            {
                magnitude[i] = Math.abs(grad[i]);
            }
            comm.allreduce(Buf.of(magnitude), ReduceOp.SUM);

            // 1. allreduce in bfloat16 (float32 arithmetic inside, rounded per step)
            final short[] reduced = wire.clone();
            comm.allreduce(Buf.of(reduced, DataType.BFLOAT16), ReduceOp.SUM);

            // 2. allgather in bfloat16, float32 accumulation in rank order
            final short[] all = new short[n * p];
            comm.allgather(Buf.of(wire, DataType.BFLOAT16), Buf.of(all, DataType.BFLOAT16));
            final float[] accumulated = new float[n];
            for (int r = 0; r < p; r++)
            {
                for (int i = 0; i < n; i++)
                {
                    accumulated[i] += fromBfloat16(all[r * n + i]);
                }
            }

            double worstAllreduce = 0;
            double worstGather = 0;
            for (int i = 0; i < n; i++)
            {
                final double scale = magnitude[i] + Float.MIN_NORMAL;
                worstAllreduce = Math.max(worstAllreduce, Math.abs(fromBfloat16(reduced[i]) - exact[i]) / scale);
                worstGather = Math.max(worstGather, Math.abs(accumulated[i] - exact[i]) / scale);
            }
            // rounding of each input, then (allreduce) of up to p - 1 partial sums and the result
            final double gatherBound = UNIT_ROUNDOFF * 1.001;
            final double allreduceBound = UNIT_ROUNDOFF * (p + 1) * 1.001;
            ok = worstGather <= gatherBound && worstAllreduce <= allreduceBound;
            if (comm.rank() == 0)
            {
                System.out.printf("%d gradients on %d ranks: %d bytes per rank on the wire in bfloat16 instead of " +
                    "%d in float32%n", n, p, 2L * n, 4L * n);
                System.out.printf("  allreduce(bfloat16):               largest error %.2e of the summed magnitudes " +
                    "(bound %.2e)%n", worstAllreduce, allreduceBound);
                System.out.printf("  allgather(bfloat16) + float32 sum: largest error %.2e of the summed magnitudes " +
                    "(bound %.2e)%n", worstGather, gatherBound);
                System.out.println(ok ? "both within bfloat16's rounding bounds" : "a bound is BROKEN");
            }
        }
        if (!ok)
        {
            System.exit(1);
        }
    }

    /** float32 to bfloat16, rounding to nearest even (the inputs here are finite). */
    static short toBfloat16(final float value)
    {
        final int bits = Float.floatToRawIntBits(value);
        return (short) ((bits + 0x7FFF + ((bits >>> 16) & 1)) >>> 16);
    }

    static float fromBfloat16(final short value)
    {
        return Float.intBitsToFloat(value << 16);
    }
}
