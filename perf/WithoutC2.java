import io.jccl.Buf;
import io.jccl.Communicator;
import io.jccl.DataType;
import io.jccl.Jccl;
import io.jccl.ReduceOp;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * Six 8 MiB float32 allreduces of direct buffers on shm_twoshot, each timed on rank 0: what the reduction kernels
 * cost in a JVM with C2 and in one without (PERFORMANCE.md, session 72).
 * <pre>
 * J=/usr/lib/jvm/temurin-25-jdk-amd64/bin; $J/javac -cp core/target/classes -d /tmp/wc2 perf/WithoutC2.java
 * ./jccl run -n 2 --cp /tmp/wc2 WithoutC2                                      # C2
 * ./jccl run -n 2 --cp /tmp/wc2 --jvm-arg -XX:TieredStopAtLevel=1 WithoutC2    # C1 alone
 * </pre>
 */
public final class WithoutC2
{
    public static void main(final String[] args)
    {
        final int count = 2 << 20;
        try (Communicator comm = Jccl.connect())
        {
            final Buf send = Buf.of(ByteBuffer.allocateDirect(4 * count).order(ByteOrder.nativeOrder()),
                DataType.FLOAT32);
            final Buf recv = Buf.of(ByteBuffer.allocateDirect(4 * count).order(ByteOrder.nativeOrder()),
                DataType.FLOAT32);
            final Communicator twoShot = comm.withAlgorithm("shm_twoshot");
            for (int call = 0; call < 6; call++)
            {
                final long start = System.nanoTime();
                twoShot.allreduce(send, recv, ReduceOp.SUM);
                if (comm.rank() == 0)
                {
                    System.out.printf("call %d: %.1f ms%n", call, (System.nanoTime() - start) / 1e6);
                }
            }
        }
    }
}
