/*
 * The application's large point-to-point messages from heap arrays, in a job of nothing else: ranks 0 and 1 play
 * pingpong with float[] arrays of each of SIZES bytes (comma-separated), sample after sample for SECONDS, at whatever
 * pace the machine is in. Each sample times the bench's handoff probe first (a 512 KiB shm_direct allgather, median
 * of 5: 24-30 µs at the fast pace, 119-139 at the slow one on the AMD VM), then ROUNDS round trips of each size. Rank
 * 0 prints a CSV line per sample: sample,seconds,handoff_us, then per size the median round trip's half, µs (one
 * message's time). The transport decides, message by message, whether a send goes through the ring or out of an
 * off-heap copy; run with JCCL_DEBUG=INFO JCCL_DEBUG_SUBSYS=P2P to see the pace its receivers read.
 * PERFORMANCE.md, session 59, has what it measured. Run (from the repository, after mvn install):
 *   "$(./jccl classpath --java-home)/bin/javac" -cp core/target/classes -d /tmp/heap-sends \
 *       perf/HeapSends.java perf/HeapArrays.java
 *   ./jccl run -n 2 --cp /tmp/heap-sends HeapSends 2621440,4194304,8388608 45 | sed 's/^\[0\] //' > sends.csv
 */
import io.jccl.Buf;
import io.jccl.Communicator;
import io.jccl.Jccl;

import java.util.Arrays;

public class HeapSends
{
    public static void main(final String[] args)
    {
        final int[] sizes = Arrays.stream(args[0].split(",")).mapToInt(Integer::parseInt).toArray();
        final double seconds = Double.parseDouble(args[1]);
        final int rounds = args.length > 2 ? Integer.parseInt(args[2]) : 4;
        try (Communicator world = Jccl.connect())
        {
            final Runnable handoff = HeapArrays.handoffProbe(world);
            final Buf[] messages = new Buf[sizes.length];
            final StringBuilder header = new StringBuilder("sample,seconds,handoff_us");
            for (int s = 0; s < sizes.length; s++)
            {
                messages[s] = Buf.of(new float[sizes[s] / Float.BYTES]);
                header.append(",pingpong_").append(sizes[s]).append("_heap");
            }
            final long[] nanos = new long[5];
            final long[] trips = new long[rounds];
            // Warm-up: the copies compiled before the first sample.
            for (int i = 0; i < 20; i++)
            {
                for (final Buf message : messages)
                {
                    roundTrip(world, message);
                }
                handoff.run();
            }
            HeapArrays.sample(world, seconds, header, nanos, line ->
            {
                for (final Buf message : messages)
                {
                    for (int r = 0; r < rounds; r++)
                    {
                        final long start = System.nanoTime();
                        roundTrip(world, message);
                        trips[r] = System.nanoTime() - start;
                    }
                    Arrays.sort(trips);
                    line.append(String.format(",%.1f", trips[rounds / 2] / 2e3));
                }
            }, handoff);
        }
    }

    /** Rank 0 sends {@code message} to rank 1, which sends it back; the other ranks wait for the next sample. */
    private static void roundTrip(final Communicator world, final Buf message)
    {
        if (world.rank() == 0)
        {
            world.send(message, 1, 0);
            world.recv(message, 1, 0);
        }
        else if (world.rank() == 1)
        {
            world.recv(message, 0, 0);
            world.send(message, 0, 0);
        }
    }
}
