/*
 * Which probe tells the pace right: over a stretch of time, each sample times, for several collectives and sizes, the
 * staged algorithm (shm_direct; two-shot for allreduce) and single copy (shm_single_copy) two ways, back to back at
 * one pace: as the engine's pace probe does (the median of 5 calls after an untimed one) and over many calls (the
 * mean, the time a user's run of such calls sees). It also times the bench's handoff probe (a 512 KiB shm_direct
 * allgather, median of 5). Rank 0 prints a CSV line per sample:
 *   sample,seconds,handoff_us,OP_BYTES_probe_staged,OP_BYTES_probe_single,OP_BYTES_mean_staged,OP_BYTES_mean_single,...
 * PERFORMANCE.md (session 47) has what it measured: why the engine's probe compares 32 KiB allgathers.
 *
 * Run (from the repository, after mvn install):
 *   "$(./jccl classpath --java-home)/bin/javac" -cp core/target/classes -d /tmp/pace-verdicts perf/PaceVerdicts.java \
 *       perf/HeapArrays.java
 *   ./jccl run -n 2 --cp /tmp/pace-verdicts PaceVerdicts SECONDS | sed 's/^\[0\] //' > samples.csv
 */
import io.jccl.Buf;
import io.jccl.Communicator;
import io.jccl.Jccl;

import java.util.Arrays;

public class PaceVerdicts
{
    private static final String[] OPS = {
        "allgather", "allgather", "allgather", "allgather",
        "allreduce", "allreduce", "allreduce", "allreduce", "allreduce",
        "alltoall", "alltoall", "reduce_scatter", "reduce_scatter"};
    private static final int[] BYTES = {
        32 << 10, 128 << 10, 512 << 10, 2 << 20,
        8 << 10, 32 << 10, 128 << 10, 512 << 10, 2 << 20,
        128 << 10, 512 << 10, 128 << 10, 512 << 10};

    public static void main(final String[] args)
    {
        final double seconds = Double.parseDouble(args[0]);
        try (Communicator world = Jccl.connect())
        {
            final int p = world.size();
            final Communicator handoff = world.withAlgorithm("allgather:shm_direct");
            final Communicator[] singleCopy = new Communicator[OPS.length];
            final Communicator[] staged = new Communicator[OPS.length];
            final Buf[][] buffers = new Buf[OPS.length][];
            final StringBuilder header = new StringBuilder("sample,seconds,handoff_us");
            for (int c = 0; c < OPS.length; c++)
            {
                final String op = OPS[c];
                singleCopy[c] = world.withAlgorithm(op + ":shm_single_copy");
                staged[c] = world.withAlgorithm(op + (op.equals("allreduce") ? ":shm_twoshot" : ":shm_direct"));
                final int n = BYTES[c] / 4;
                buffers[c] = new Buf[] {HeapArrays.direct(op.equals("allgather") ? n / p : n),
                    HeapArrays.direct(op.equals("reduce_scatter") ? n / p : n)};
                final String name = op + "_" + BYTES[c];
                header.append(',').append(name).append("_probe_staged,").append(name).append("_probe_single,")
                    .append(name).append("_mean_staged,").append(name).append("_mean_single");
            }
            final Buf handoffSend = HeapArrays.direct((512 << 10) / 4 / p);
            final Buf handoffRecv = HeapArrays.direct((512 << 10) / 4);
            final long[] nanos = new long[5];
            // Warm-up: every call compiled before the first sample.
            for (int c = 0; c < OPS.length; c++)
            {
                for (int i = 0; i < 300; i++)
                {
                    HeapArrays.run(staged[c], OPS[c], buffers[c][0], buffers[c][1]);
                    HeapArrays.run(singleCopy[c], OPS[c], buffers[c][0], buffers[c][1]);
                }
            }
            for (int i = 0; i < 1000; i++)
            {
                handoff.allgather(handoffSend, handoffRecv);
            }
            if (world.rank() == 0)
            {
                System.out.println(header);
            }
            final long begin = System.nanoTime();
            final double[] stop = {0};
            for (int sample = 0; ; sample++)
            {
                // Rank 0 decides when to stop, so that every rank runs the same calls.
                stop[0] = (System.nanoTime() - begin) / 1e9 >= seconds ? 1 : 0;
                final Buf flag = Buf.of(stop);
                world.broadcast(flag, 0);
                if (stop[0] != 0)
                {
                    break;
                }
                final StringBuilder line = new StringBuilder();
                line.append(sample).append(',').append(String.format("%.1f", (System.nanoTime() - begin) / 1e9));
                line.append(',').append(String.format("%.2f",
                    median(() -> handoff.allgather(handoffSend, handoffRecv), nanos)));
                for (int c = 0; c < OPS.length; c++)
                {
                    final String op = OPS[c];
                    final Buf send = buffers[c][0];
                    final Buf recv = buffers[c][1];
                    final Communicator s = staged[c];
                    final Communicator k = singleCopy[c];
                    final double probeStaged = median(() -> HeapArrays.run(s, op, send, recv), nanos);
                    final double probeSingle = median(() -> HeapArrays.run(k, op, send, recv), nanos);
                    final int calls = BYTES[c] <= 128 << 10 ? 100 : BYTES[c] <= 512 << 10 ? 30 : 10;
                    final double meanStaged = mean(() -> HeapArrays.run(s, op, send, recv), calls);
                    final double meanSingle = mean(() -> HeapArrays.run(k, op, send, recv), calls);
                    line.append(String.format(",%.2f,%.2f,%.2f,%.2f", probeStaged, probeSingle, meanStaged,
                        meanSingle));
                }
                if (world.rank() == 0)
                {
                    System.out.println(line);
                    System.out.flush();
                }
            }
        }
    }

    private static double median(final Runnable call, final long[] nanos)
    {
        call.run();
        for (int i = 0; i < nanos.length; i++)
        {
            final long start = System.nanoTime();
            call.run();
            nanos[i] = System.nanoTime() - start;
        }
        Arrays.sort(nanos);
        return nanos[nanos.length / 2] / 1e3;
    }

    private static double mean(final Runnable call, final int calls)
    {
        final long start = System.nanoTime();
        for (int i = 0; i < calls; i++)
        {
            call.run();
        }
        return (System.nanoTime() - start) / 1e3 / calls;
    }
}
