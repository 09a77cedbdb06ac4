import io.jccl.Buf;
import io.jccl.Communicator;
import io.jccl.Jccl;
import io.jccl.ObjectCodec;
import io.jccl.ObjectCollectives;

import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;

/**
 * What an object collective costs beyond its bytes: for maps of 1 to 10,000 word counts and byte arrays of 8 B to
 * 1 MiB, the median µs of Java serialization's encode and decode of one rank's object, of {@code ObjectCollectives}'
 * allgather, and of the two byte collectives it makes (an allgather of the lengths, an allgatherv of the bytes) on
 * buffers allocated once. Rank 0 prints one line a case; each figure is the median of ROUNDS rounds of calls that
 * take about 0.1 s, after ten such rounds of warm-up and a pass over every case that prints nothing (the JIT compiles
 * serialization's code for seconds, on the cores the ranks use), every round starting at a barrier. The last column
 * adds what the call's parts took apart: one encode, a decode per other rank and the byte collectives.
 * <pre>
 *   ./jccl info >/dev/null; J=/usr/lib/jvm/temurin-25-jdk-amd64/bin
 *   $J/javac -cp core/target/classes -d /tmp/object-costs perf/ObjectCosts.java
 *   ./jccl run -n 2 --cp /tmp/object-costs ObjectCosts 7
 * </pre>
 */
public final class ObjectCosts
{
    private static final ObjectCodec CODEC = ObjectCodec.javaSerialization();
    private static final int WARM_UP_ROUNDS = 10;

    public static void main(final String[] args)
    {
        final int rounds = args.length == 1 ? Integer.parseInt(args[0]) : 0;
        if (rounds < 1)
        {
            System.err.println("usage: ObjectCosts ROUNDS (at least 1)");
            System.exit(2);
        }
        try (Communicator comm = Jccl.connect())
        {
            final ObjectCollectives objects = ObjectCollectives.of(comm);
            if (comm.rank() == 0)
            {
                System.out.printf("%d ranks; medians of %d rounds, µs a call%n", comm.size(), rounds);
                System.out.println("object,encoded_bytes,encode_us,decode_us,allgather_objects_us," +
                    "allgather_bytes_us,parts_us");
            }
            for (int pass = 0; pass < 2; pass++) // the first warms every case up and prints nothing
            {
                final boolean print = pass == 1;
                for (final int entries : new int[] {1, 10, 100, 1000, 10_000})
                {
                    final Map<String, Long> counts = new HashMap<>();
                    for (int i = 0; i < entries; i++)
                    {
                        counts.put("w" + (i * 7919 + comm.rank()), (long)i);
                    }
                    measure(comm, objects, "map_" + entries, counts, print ? rounds : 1, print);
                }
                for (final int bytes : new int[] {8, 1024, 65536, 1 << 20})
                {
                    measure(comm, objects, "bytes_" + bytes, new byte[bytes], print ? rounds : 1, print);
                }
            }
        }
    }

    private static void measure(final Communicator comm, final ObjectCollectives objects, final String name,
        final Object object, final int rounds, final boolean print)
    {
        final byte[] encoded = CODEC.encode(object);
        final int ranks = comm.size();
        final long[] length = {encoded.length};
        final long[] lengths = new long[ranks];
        final int[] counts = new int[ranks];
        Arrays.fill(counts, encoded.length); // every rank's object encodes to the same length here
        final int[] displs = new int[ranks];
        for (int r = 1; r < ranks; r++)
        {
            displs[r] = displs[r - 1] + counts[r - 1];
        }
        final byte[] all = new byte[encoded.length * ranks];
        final Runnable[] calls = {
            () -> CODEC.encode(object),
            () -> CODEC.decode(encoded, 0, encoded.length),
            () -> objects.allgather(object),
            () ->
            {
                comm.allgather(Buf.of(length), Buf.of(lengths));
                comm.allgatherv(Buf.of(encoded), Buf.of(all), counts, displs);
            }};
        final double[] medians = new double[calls.length];
        for (int k = 0; k < calls.length; k++)
        {
            final int n = callsFor(comm, calls[k]);
            final double[] micros = new double[rounds];
            for (int round = -WARM_UP_ROUNDS; round < rounds; round++)
            {
                comm.barrier();
                final long start = System.nanoTime();
                for (int i = 0; i < n; i++)
                {
                    calls[k].run();
                }
                if (round >= 0)
                {
                    micros[round] = (System.nanoTime() - start) / 1e3 / n;
                }
            }
            Arrays.sort(micros);
            medians[k] = micros[rounds / 2];
        }
        if (print && comm.rank() == 0)
        {
            System.out.printf("%s,%d,%.2f,%.2f,%.2f,%.2f,%.2f%n", name, encoded.length, medians[0], medians[1],
                medians[2], medians[3], medians[0] + (ranks - 1) * medians[1] + medians[3]);
        }
    }

    /**
     * Calls that take about 0.1 s on rank 0, agreed by every rank (a local call's count must match too): doubled
     * from one until a batch takes 20 ms, so that a slow first call (class loading, the interpreter) does not set it.
     */
    private static int callsFor(final Communicator comm, final Runnable call)
    {
        final long[] n = {1};
        while (true)
        {
            comm.barrier();
            final long start = System.nanoTime();
            for (long i = 0; i < n[0]; i++)
            {
                call.run();
            }
            final long[] nanos = {System.nanoTime() - start};
            comm.broadcast(Buf.of(nanos), 0);
            if (nanos[0] >= 20_000_000L || n[0] >= 1_000_000L)
            {
                n[0] = Math.max(1, n[0] * 100_000_000L / Math.max(1, nanos[0]));
                return (int)Math.min(n[0], 5_000_000L);
            }
            n[0] *= 2;
        }
    }
}
