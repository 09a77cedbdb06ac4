package io.jccl.it;

import io.jccl.Buf;
import io.jccl.Communicator;
import io.jccl.DataType;
import io.jccl.Jccl;
import io.jccl.ReduceOp;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * One rank of {@link VectorKernelsJitTest}: {@code calls} float32 sum allreduces of 64 KiB in a direct buffer (so
 * that they reduce with the SIMD kernels), each checked, then {@code KERNEL CALLS DONE calls}.
 */
public final class VectorKernelsJitRank
{
    static final String DONE = "KERNEL CALLS DONE";
    private static final int COUNT = 16384;

    private VectorKernelsJitRank()
    {
    }

    public static void main(final String[] args)
    {
        final int calls = Integer.parseInt(args[0]);
        try (Communicator comm = Jccl.connect())
        {
            final ByteBuffer data = ByteBuffer.allocateDirect(COUNT * Float.BYTES).order(ByteOrder.nativeOrder());
            final Buf buf = Buf.of(data, DataType.FLOAT32);
            for (int call = 1; call <= calls; call++)
            {
                for (int i = 0; i < COUNT; i++)
                {
                    data.putFloat(i * Float.BYTES, comm.rank() + i % 7);
                }
                comm.allreduce(buf, ReduceOp.SUM);
                for (int i = 0; i < COUNT; i++)
                {
                    final float expected = comm.size() * (comm.size() - 1) / 2f + comm.size() * (i % 7);
                    if (data.getFloat(i * Float.BYTES) != expected)
                    {
                        throw new AssertionError("call " + call + ", element " + i + ": " +
                            data.getFloat(i * Float.BYTES) + ", expected " + expected);
                    }
                }
            }
            System.out.println(DONE + " " + calls);
        }
    }
}
