/*
 * Calls of one collective on float[] arrays of COUNT elements, as large as a JVM holds (up to 2^31 - 1 elements, 8
 * GiB), timed one by one after a barrier: the first call pays for the scratch memory the engine allocates, the later
 * ones run warm. Rank 0 prints each call's ms on the slowest rank (a broadcast's root may be done long before its
 * receivers), the elements that came out wrong on any rank, the algorithm of the last call (of its last part, for a
 * call that ran in parts) and its own peak resident memory (VmHWM), which shows the scratch a rank kept.
 *
 * PERFORMANCE.md, session 51, has what it measured: broadcasts, reduces and allreduces beyond jccl.split.bytes run in
 * parts. Run (from the repository, after mvn install), giving each rank a heap for two arrays:
 *   "$(./jccl classpath --java-home)/bin/javac" -cp core/target/classes:algorithms/target/classes \
 *       -d /tmp/large-heap perf/LargeHeapCalls.java
 *   JCCL_PACE_THRESHOLD_US=0 JCCL_PACE_PROBE_BYTES=1 ./jccl run -n 2 --jvm-arg -Xmx8g --cp /tmp/large-heap \
 *       LargeHeapCalls 300000000 allreduce [CALLS]
 * Operations: allreduce (out of place), broadcast (root 0), reduce (root 0, out of place), alltoall. The JCCL_PACE_
 * settings make every call read the slow pace, where single copy copies heap arrays for the peers; JCCL_SPLIT_BYTES=0
 * runs every call whole.
 */
import io.jccl.Buf;
import io.jccl.Communicator;
import io.jccl.Jccl;
import io.jccl.ReduceOp;
import io.jccl.engine.ShmCommunicator;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;

public class LargeHeapCalls
{
    public static void main(final String[] args) throws IOException
    {
        final int count = Integer.parseInt(args[0]);
        final String op = args[1];
        final int calls = args.length > 2 ? Integer.parseInt(args[2]) : 4;
        try (Communicator comm = Jccl.connect())
        {
            final int p = comm.size();
            final int rank = comm.rank();
            final int block = count / p;
            final float[] send = new float[count];
            final float[] recv = op.equals("broadcast") ? send : new float[count];
            final long[] nanos = new long[calls];
            for (int call = 0; call < calls; call++)
            {
                java.util.Arrays.fill(send, rank + 1);
                comm.barrier();
                final long start = System.nanoTime();
                switch (op)
                {
                    case "allreduce" -> comm.allreduce(Buf.of(send), Buf.of(recv), ReduceOp.SUM);
                    case "broadcast" -> comm.broadcast(Buf.of(send), 0);
                    case "reduce" -> comm.reduce(Buf.of(send), Buf.of(recv), ReduceOp.SUM, 0);
                    case "alltoall" -> comm.alltoall(Buf.of(send, 0, block * p), Buf.of(recv, 0, block * p));
                    default -> throw new IllegalArgumentException("not an operation of this program: " + op);
                }
                nanos[call] = System.nanoTime() - start;
            }
            final String algorithm = ((ShmCommunicator)comm).lastAlgorithm().name();
            comm.allreduce(Buf.of(nanos), ReduceOp.MAX);
            final StringBuilder times = new StringBuilder();
            for (final long n : nanos)
            {
                times.append(String.format(Locale.ROOT, " %.0f", n / 1e6));
            }
            long wrong = 0;
            final int checked = op.equals("alltoall") ? block * p : op.equals("reduce") && rank != 0 ? 0 : count;
            for (int i = 0; i < checked; i++)
            {
                final float expected = switch (op)
                {
                    case "allreduce", "reduce" -> p * (p + 1) / 2f;
                    case "broadcast" -> 1f;
                    default -> i / block + 1;
                };
                if (recv[i] != expected)
                {
                    wrong++;
                }
            }
            final long wrongEverywhere = wrongOnAnyRank(comm, wrong);
            if (rank == 0)
            {
                System.out.printf(Locale.ROOT, "%s of %d floats, %d ranks, ms per call:%s; wrong %d; %s; %s%n", op,
                    count, p, times, wrongEverywhere, algorithm, peakResident());
            }
        }
    }

    private static long wrongOnAnyRank(final Communicator comm, final long wrong)
    {
        final long[] total = {wrong};
        comm.allreduce(Buf.of(total), ReduceOp.SUM);
        return total[0];
    }

    private static String peakResident() throws IOException
    {
        for (final String line : Files.readAllLines(Path.of("/proc/self/status")))
        {
            if (line.startsWith("VmHWM"))
            {
                return "peak resident " + line.substring(6).trim();
            }
        }
        return "peak resident unknown";
    }
}
