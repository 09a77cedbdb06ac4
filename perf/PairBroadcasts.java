/*
 * 2-rank broadcasts of 1-16 KiB by four designs, back to back, sample after sample at whatever pace the machine is
 * in, with the engine's probe's verdict at each sample: binomial (one point-to-point message), shm_eager, shm_direct
 * and shm_single_copy. Each sample times the bench's handoff probe (a 512 KiB shm_direct allgather, median of 5) and
 * the 32 KiB allgathers the engine's 2-rank probe compares (shm_direct against shm_single_copy, medians of 5; the
 * fast pace when the first takes at most 1.3x the second), then the mean µs per call of each size and design. Rank 0
 * prints a CSV line per sample:
 *   sample,seconds,handoff_us,probe_staged,probe_single,broadcast_BYTES_ALGORITHM,...
 * PERFORMANCE.md (session 53) has what it measured: why 2-rank broadcasts below 16 KiB leave binomial but at the
 * fast pace.
 *
 * Run (from the repository, after mvn install):
 *   "$(./jccl classpath --java-home)/bin/javac" -cp core/target/classes -d /tmp/pair-broadcasts \
 *       perf/PairBroadcasts.java perf/HeapArrays.java
 *   ./jccl run -n 2 --cp /tmp/pair-broadcasts PairBroadcasts SECONDS [heap] | sed 's/^\[0\] //' > samples.csv
 * (heap: float[] buffers instead of direct ones.)
 */
import io.jccl.Buf;
import io.jccl.Communicator;
import io.jccl.Jccl;

public class PairBroadcasts
{
    public static void main(final String[] args)
    {
        final double seconds = Double.parseDouble(args[0]);
        final boolean heap = args.length > 1 && args[1].equals("heap");
        final int[] sizes = {1 << 10, 2 << 10, 4 << 10, 8 << 10, 16 << 10};
        final String[] algos = {"binomial", "shm_eager", "shm_direct", "shm_single_copy"};
        try (Communicator world = Jccl.connect())
        {
            final Communicator staged = world.withAlgorithm("allgather:shm_direct");
            final Communicator single = world.withAlgorithm("allgather:shm_single_copy");
            final Runnable handoff = HeapArrays.handoffProbe(world);
            final Communicator[] comms = new Communicator[algos.length];
            for (int a = 0; a < algos.length; a++)
            {
                comms[a] = world.withAlgorithm("broadcast:" + algos[a]);
            }
            final Buf[] bufs = new Buf[sizes.length];
            for (int s = 0; s < sizes.length; s++)
            {
                bufs[s] = heap ? Buf.of(new float[sizes[s] / 4]) : HeapArrays.direct(sizes[s] / 4);
            }
            final Buf ps = HeapArrays.direct((32 << 10) / 4 / 2);
            final Buf pr = HeapArrays.direct((32 << 10) / 4);
            final long[] nanos = new long[5];
            // Warm-up: every call compiled before the first sample.
            for (int i = 0; i < 2000; i++)
            {
                for (int a = 0; a < algos.length; a++)
                {
                    for (int s = 0; s < sizes.length; s++)
                    {
                        comms[a].broadcast(bufs[s], 0);
                    }
                }
                staged.allgather(ps, pr);
                single.allgather(ps, pr);
                if (i % 10 == 0)
                {
                    handoff.run();
                }
            }
            final StringBuilder header = new StringBuilder("sample,seconds,handoff_us,probe_staged,probe_single");
            for (final int size : sizes)
            {
                for (final String a : algos)
                {
                    header.append(",broadcast_").append(size).append('_').append(a);
                }
            }
            HeapArrays.sample(world, seconds, header, nanos, line ->
            {
                for (int s = 0; s < sizes.length; s++)
                {
                    final int calls = sizes[s] <= 4 << 10 ? 300 : 150;
                    for (int a = 0; a < algos.length; a++)
                    {
                        final Communicator c = comms[a];
                        for (int i = 0; i < 20; i++)
                        {
                            c.broadcast(bufs[s], 0);
                        }
                        final long start = System.nanoTime();
                        for (int i = 0; i < calls; i++)
                        {
                            c.broadcast(bufs[s], 0);
                        }
                        line.append(String.format(",%.3f", (System.nanoTime() - start) / 1e3 / calls));
                    }
                }
            }, handoff, () -> staged.allgather(ps, pr), () -> single.allgather(ps, pr));
        }
    }
}
