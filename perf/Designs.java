/*
 * One collective by several designs, on direct buffers and on heap arrays (float[]), sample after sample at whatever
 * pace the machine is in, with the engine's pace probe's verdict at each sample. Each sample times the bench's
 * handoff probe (a 512 KiB shm_direct allgather, median of 5) and the calls the engine's probe compares (medians of
 * 5): while every rank has a core, 32 KiB allgathers through the staging areas (shm_direct) and single copy (the
 * fast pace when the first takes at most 1.3x the second); while ranks share cores, 128 KiB allreduces by the staged
 * two-shot and the single-copy two-shot (the fast pace at most 0.7x). Then the mean µs per call of each size, memory
 * and design. Rank 0 prints a CSV line per sample:
 *   sample,seconds,handoff_us,probe_staged,probe_single,COLLECTIVE_BYTES_MEMORY_ALGORITHM,...
 * Each sample also runs one call the engine chooses for: with jccl.pace.probe.bytes 1 (JCCL_PACE_PROBE_BYTES=1) the
 * engine's own probe runs before it, and the transport follows the pace it reads for the sample's calls (heap arrays'
 * large sends go out of an off-heap copy at the slow pace).
 * PERFORMANCE.md has what it measured: session 53 (as ReduceDesigns), why reduces take single copy at the slow pace
 * at 4 ranks from 128 KiB and at 2 ranks from 4 MiB; session 54, 2-rank broadcasts from 4 MiB at the fast pace;
 * session 55, heap arrays' sends out of an off-heap copy at the slow pace; session 56, the JVM's streaming copies
 * (the same runs with --jvm-arg -XX:MaxVectorSize=32) and where heap arrays' copies for peers pay.
 *
 * Run (from the repository, after mvn install):
 *   "$(./jccl classpath --java-home)/bin/javac" -cp core/target/classes -d /tmp/designs \
 *       perf/Designs.java perf/HeapArrays.java
 *   JCCL_PACE_PROBE_BYTES=1 ./jccl run -n 4 --cp /tmp/designs Designs reduce SECONDS \
 *       shm_direct,shm_single_copy,binomial 4194304 8388608 33554432 | sed 's/^\[0\] //' > samples.csv
 * (Any collective of HeapArrays.run; BYTES are of the whole vector, an allgather's receive buffer.)
 */
import io.jccl.Buf;
import io.jccl.Communicator;
import io.jccl.Jccl;

import java.util.Arrays;

public class Designs
{
    private static final String[] MEMORY = {"direct", "heap"};

    public static void main(final String[] args)
    {
        final String collective = args[0];
        final double seconds = Double.parseDouble(args[1]);
        final String[] algorithms = args[2].split(",");
        final int[] sizes = Arrays.stream(args, 3, args.length).mapToInt(Integer::parseInt).toArray();
        try (Communicator world = Jccl.connect())
        {
            final int p = world.size();
            final boolean sharedCores = p > Runtime.getRuntime().availableProcessors();
            final String probeCollective = sharedCores ? "allreduce" : "allgather";
            final int probeBytes = sharedCores ? 128 << 10 : 32 << 10;
            final Runnable handoff = HeapArrays.handoffProbe(world);
            final Communicator probeStaged = world.withAlgorithm(probeCollective + ":" +
                (sharedCores ? "shm_twoshot" : "shm_direct"));
            final Communicator probeSingle = world.withAlgorithm(probeCollective + ":" +
                (sharedCores ? "shm_single_copy_twoshot" : "shm_single_copy"));
            final Communicator[] designs = new Communicator[algorithms.length];
            for (int a = 0; a < algorithms.length; a++)
            {
                designs[a] = world.withAlgorithm(collective + ":" + algorithms[a]);
            }
            // per size, direct then heap: {send, recv}
            final Buf[][] buffers = new Buf[sizes.length * MEMORY.length][];
            final StringBuilder header = new StringBuilder("sample,seconds,handoff_us,probe_staged,probe_single");
            for (int s = 0; s < sizes.length; s++)
            {
                buffers[2 * s] = HeapArrays.buffers(collective, sizes[s] / 4, p, false);
                buffers[2 * s + 1] = HeapArrays.buffers(collective, sizes[s] / 4, p, true);
                for (final String memory : MEMORY)
                {
                    for (final String algorithm : algorithms)
                    {
                        header.append(',').append(collective).append('_').append(sizes[s]).append('_')
                            .append(memory).append('_').append(algorithm);
                    }
                }
            }
            final Buf probeSend = HeapArrays.direct(probeBytes / 4 / (sharedCores ? 1 : p));
            final Buf probeRecv = HeapArrays.direct(probeBytes / 4);
            final long[] nanos = new long[5];
            // Warm-up: every call compiled before the first sample.
            for (int i = 0; i < 100; i++)
            {
                for (final Communicator design : designs)
                {
                    HeapArrays.run(design, collective, buffers[0][0], buffers[0][1]);
                    HeapArrays.run(design, collective, buffers[1][0], buffers[1][1]);
                }
                HeapArrays.run(probeStaged, probeCollective, probeSend, probeRecv);
                HeapArrays.run(probeSingle, probeCollective, probeSend, probeRecv);
                handoff.run();
            }
            HeapArrays.sample(world, seconds, header, nanos, line ->
            {
                // A call the engine chooses for: run with jccl.pace.probe.bytes=1, its probe runs before it, and the
                // transport follows the pace it reads (heap arrays' sends) for the designs' calls of this sample.
                HeapArrays.run(world, probeCollective, probeSend, probeRecv);
                for (int b = 0; b < buffers.length; b++)
                {
                    final int bytes = sizes[b / 2];
                    final int calls = bytes <= 4 << 20 ? 4 : bytes <= 8 << 20 ? 3 : 1;
                    for (final Communicator design : designs)
                    {
                        final Buf send = buffers[b][0];
                        final Buf recv = buffers[b][1];
                        HeapArrays.run(design, collective, send, recv);
                        final long start = System.nanoTime();
                        for (int i = 0; i < calls; i++)
                        {
                            HeapArrays.run(design, collective, send, recv);
                        }
                        line.append(String.format(",%.3f", (System.nanoTime() - start) / 1e3 / calls));
                    }
                }
            }, handoff,
                () -> HeapArrays.run(probeStaged, probeCollective, probeSend, probeRecv),
                () -> HeapArrays.run(probeSingle, probeCollective, probeSend, probeRecv));
        }
    }
}
