/*
 * Reduces by three designs, on direct buffers and on heap arrays (float[]), sample after sample at whatever pace the
 * machine is in, with the pace probe's verdict at each sample: shm_direct (staged), shm_single_copy (the root reads
 * every rank's vector through the kernel) and binomial (a tree of point-to-point messages, single copy from direct
 * buffers, staged from heap arrays). Each sample times the bench's handoff probe (a 512 KiB shm_direct allgather,
 * median of 5), the 128 KiB allreduce that the engine's probe compares while ranks share cores (shm_twoshot against
 * shm_single_copy_twoshot, medians of 5; the slow pace when the first takes more than 0.7x the second), then the mean
 * µs per call of each size, memory and design. Rank 0 prints a CSV line per sample:
 *   sample,seconds,handoff_us,probe_staged,probe_single,reduce_BYTES_MEMORY_ALGORITHM,...
 * PERFORMANCE.md (session 53) has what it measured at 4 ranks on 2 cores: why reduces take single copy at the slow
 * pace at every size from 128 KiB.
 *
 * Run (from the repository, after mvn install):
 *   "$(./jccl classpath --java-home)/bin/javac" -cp core/target/classes -d /tmp/reduce-designs \
 *       perf/ReduceDesigns.java perf/HeapArrays.java
 *   ./jccl run -n 4 --cp /tmp/reduce-designs ReduceDesigns SECONDS [BYTES ...] | sed 's/^\[0\] //' > samples.csv
 * (BYTES: 4194304 8388608 33554432 unless given.)
 */
import io.jccl.Buf;
import io.jccl.Communicator;
import io.jccl.Jccl;

import java.util.Arrays;

public class ReduceDesigns
{
    private static final String[] ALGORITHMS = {"shm_direct", "shm_single_copy", "binomial"};
    private static final String[] MEMORY = {"direct", "heap"};

    public static void main(final String[] args)
    {
        final double seconds = Double.parseDouble(args[0]);
        final int[] sizes = args.length > 1 ?
            Arrays.stream(args, 1, args.length).mapToInt(Integer::parseInt).toArray() :
            new int[] {4 << 20, 8 << 20, 32 << 20};
        try (Communicator world = Jccl.connect())
        {
            final int p = world.size();
            final Communicator handoff = world.withAlgorithm("allgather:shm_direct");
            final Communicator probeStaged = world.withAlgorithm("allreduce:shm_twoshot");
            final Communicator probeSingle = world.withAlgorithm("allreduce:shm_single_copy_twoshot");
            final Communicator[] designs = new Communicator[ALGORITHMS.length];
            for (int a = 0; a < ALGORITHMS.length; a++)
            {
                designs[a] = world.withAlgorithm("reduce:" + ALGORITHMS[a]);
            }
            // per size, direct then heap: {send, recv}
            final Buf[][] buffers = new Buf[sizes.length * MEMORY.length][];
            final StringBuilder header = new StringBuilder("sample,seconds,handoff_us,probe_staged,probe_single");
            for (int s = 0; s < sizes.length; s++)
            {
                final int n = sizes[s] / 4;
                buffers[2 * s] = new Buf[] {HeapArrays.direct(n), HeapArrays.direct(n)};
                buffers[2 * s + 1] = new Buf[] {Buf.of(new float[n]), Buf.of(new float[n])};
                for (final String memory : MEMORY)
                {
                    for (final String algorithm : ALGORITHMS)
                    {
                        header.append(",reduce_").append(sizes[s]).append('_').append(memory).append('_')
                            .append(algorithm);
                    }
                }
            }
            final Buf handoffSend = HeapArrays.direct((512 << 10) / 4 / p);
            final Buf handoffRecv = HeapArrays.direct((512 << 10) / 4);
            final Buf probeSend = HeapArrays.direct((128 << 10) / 4);
            final Buf probeRecv = HeapArrays.direct((128 << 10) / 4);
            final long[] nanos = new long[5];
            // Warm-up: every call compiled before the first sample.
            for (int i = 0; i < 100; i++)
            {
                for (final Communicator design : designs)
                {
                    HeapArrays.run(design, "reduce", buffers[0][0], buffers[0][1]);
                    HeapArrays.run(design, "reduce", buffers[1][0], buffers[1][1]);
                }
                HeapArrays.run(probeStaged, "allreduce", probeSend, probeRecv);
                HeapArrays.run(probeSingle, "allreduce", probeSend, probeRecv);
                handoff.allgather(handoffSend, handoffRecv);
            }
            if (world.rank() == 0)
            {
                System.out.println(header);
            }
            final long begin = System.nanoTime();
            for (int sample = 0; !HeapArrays.stop(world, begin, seconds); sample++)
            {
                final StringBuilder line = new StringBuilder();
                line.append(sample).append(',').append(String.format("%.1f", (System.nanoTime() - begin) / 1e9));
                line.append(',').append(String.format("%.2f",
                    HeapArrays.median(() -> handoff.allgather(handoffSend, handoffRecv), nanos)));
                line.append(',').append(String.format("%.2f",
                    HeapArrays.median(() -> HeapArrays.run(probeStaged, "allreduce", probeSend, probeRecv), nanos)));
                line.append(',').append(String.format("%.2f",
                    HeapArrays.median(() -> HeapArrays.run(probeSingle, "allreduce", probeSend, probeRecv), nanos)));
                for (int b = 0; b < buffers.length; b++)
                {
                    final int bytes = sizes[b / 2];
                    final int calls = bytes <= 4 << 20 ? 4 : bytes <= 8 << 20 ? 3 : 1;
                    for (final Communicator design : designs)
                    {
                        final Buf send = buffers[b][0];
                        final Buf recv = buffers[b][1];
                        HeapArrays.run(design, "reduce", send, recv);
                        final long start = System.nanoTime();
                        for (int i = 0; i < calls; i++)
                        {
                            HeapArrays.run(design, "reduce", send, recv);
                        }
                        line.append(String.format(",%.1f", (System.nanoTime() - start) / 1e3 / calls));
                    }
                }
                if (world.rank() == 0)
                {
                    System.out.println(line);
                    System.out.flush();
                }
            }
        }
    }
}
