import io.jccl.Buf;
import io.jccl.Communicator;
import io.jccl.Jccl;
import io.jccl.LocCollectives;
import io.jccl.LocOp;
import io.jccl.ReduceOp;

import java.util.Arrays;
import java.util.List;
import java.util.function.BiConsumer;

/**
 * What MINLOC/MAXLOC cost: for 1 to 1M (value, index) pairs, the median µs of {@code LocCollectives.allreduce}
 * MAXLOC of float32 values (one int64 MAX of packed keys) and of float64 values (an int64 MAX of the values' keys,
 * then an int32 MIN of the offered indices), beside allreduce MAX of as many int64 (the packed keys' bytes) and of
 * the values alone. With a second argument, {@code scan}, {@code reduce_scatter} or {@code reduce_scatterv}, that
 * collective instead (a reduce-scatter's pairs are each rank's block, of size times as many sent; a reduce-scatterv's
 * the even ranks' blocks, the odd ranks' half as many). Arrays are allocated once;
 * rank 0 prints one line a count; each figure is the median of ROUNDS rounds of calls (as many as
 * {@code ../shared/peers/mpi_coll_bench.c} makes for the pairs' 8 bytes each, after a tenth as many untimed), every
 * round starting at a barrier, after a pass over every case that prints nothing. {@code perf/mpi-loc.c} times
 * MPI_Allreduce of MPI_FLOAT_INT and MPI_DOUBLE_INT the same way.
 * <pre>
 *   ./jccl info >/dev/null; J=/usr/lib/jvm/temurin-25-jdk-amd64/bin
 *   $J/javac -cp core/target/classes -d /tmp/loc-costs perf/LocCosts.java
 *   ./jccl run -n 2 --cp /tmp/loc-costs LocCosts 7 [allreduce|scan|reduce_scatter|reduce_scatterv]
 * </pre>
 */
public final class LocCosts
{
    private static final int[] COUNTS = {1, 16, 1024, 65536, 1 << 20};

    public static void main(final String[] args)
    {
        final int rounds = args.length >= 1 ? Integer.parseInt(args[0]) : 0;
        final String collective = args.length >= 2 ? args[1] : "allreduce";
        if (rounds < 1 || args.length > 2 ||
            !List.of("allreduce", "scan", "reduce_scatter", "reduce_scatterv").contains(collective))
        {
            System.err.println("usage: LocCosts ROUNDS [allreduce|scan|reduce_scatter|reduce_scatterv] " +
                "(ROUNDS at least 1)");
            System.exit(2);
        }
        try (Communicator comm = Jccl.connect())
        {
            final LocCollectives loc = LocCollectives.of(comm);
            final int max = COUNTS[COUNTS.length - 1];
            final int blocks = collective.startsWith("reduce_scatter") ? comm.size() : 1;
            final int[] counts = new int[comm.size()];
            final float[] floats = new float[blocks * max];
            final double[] doubles = new double[blocks * max];
            final int[] indices = new int[blocks * max];
            final float[] floatsOut = new float[max];
            final double[] doublesOut = new double[max];
            final int[] indicesOut = new int[max];
            final long[] longs = new long[blocks * max];
            final long[] longsOut = new long[max];
            final BiConsumer<Buf, Buf> plain = switch (collective)
            {
                case "scan" -> (in, out) -> comm.scan(in, out, ReduceOp.MAX);
                case "reduce_scatter" -> (in, out) -> comm.reduceScatter(in, out, ReduceOp.MAX);
                case "reduce_scatterv" -> (in, out) -> comm.reduceScatterv(in, out, counts, ReduceOp.MAX);
                default -> (in, out) -> comm.allreduce(in, out, ReduceOp.MAX);
            };
            final PairCall pairs = switch (collective)
            {
                case "scan" -> (v, i, vOut, iOut) -> loc.scan(v, i, vOut, iOut, LocOp.MAXLOC);
                case "reduce_scatter" -> (v, i, vOut, iOut) -> loc.reduceScatter(v, i, vOut, iOut, LocOp.MAXLOC);
                case "reduce_scatterv" -> (v, i, vOut, iOut) -> loc.reduceScatterv(v, i, vOut, iOut, counts,
                    LocOp.MAXLOC);
                default -> (v, i, vOut, iOut) -> loc.allreduce(v, i, vOut, iOut, LocOp.MAXLOC);
            };
            for (int i = 0; i < blocks * max; i++)
            {
                floats[i] = (i * 31 + comm.rank() * 17) % 101;
                doubles[i] = floats[i];
                indices[i] = comm.size() * i + comm.rank();
            }
            if (comm.rank() == 0)
            {
                System.out.printf("%s, %d ranks; medians of %d rounds, µs a call%n", collective, comm.size(),
                    rounds);
                System.out.println("pairs,int64_max_us,float32_max_us,float32_maxloc_us,float64_max_us," +
                    "float64_maxloc_us");
            }
            for (int pass = 0; pass < 2; pass++) // the first warms every case up and prints nothing
            {
                for (final int n : COUNTS)
                {
                    final int r = pass == 1 ? rounds : 1;
                    for (int q = 0; q < counts.length; q++)
                    {
                        counts[q] = q % 2 == 0 ? n : n / 2;
                    }
                    final Buf f = Buf.of(floats, 0, blocks * n);
                    final Buf fo = Buf.of(floatsOut, 0, n);
                    final Buf d = Buf.of(doubles, 0, blocks * n);
                    final Buf dOut = Buf.of(doublesOut, 0, n);
                    final Buf ix = Buf.of(indices, 0, blocks * n);
                    final Buf ixOut = Buf.of(indicesOut, 0, n);
                    final Buf l = Buf.of(longs, 0, blocks * n);
                    final Buf lOut = Buf.of(longsOut, 0, n);
                    final double lMax = median(comm, r, n, () -> plain.accept(l, lOut));
                    final double fMax = median(comm, r, n, () -> plain.accept(f, fo));
                    final double fLoc = median(comm, r, n, () -> pairs.call(f, ix, fo, ixOut));
                    final double dMax = median(comm, r, n, () -> plain.accept(d, dOut));
                    final double dLoc = median(comm, r, n, () -> pairs.call(d, ix, dOut, ixOut));
                    if (pass == 1 && comm.rank() == 0)
                    {
                        System.out.printf("%d,%.3f,%.3f,%.3f,%.3f,%.3f%n", n, lMax, fMax, fLoc, dMax, dLoc);
                    }
                }
            }
        }
    }

    private interface PairCall
    {
        void call(Buf values, Buf indices, Buf recvValues, Buf recvIndices);
    }

    /**
     * The median over rounds of µs a call: rounds of calls as many as mpi_coll_bench.c makes for the size (20,000 to
     * 8 KiB, 1,000 to 1 MiB, 50 beyond), each after a tenth as many untimed.
     */
    private static double median(final Communicator comm, final int rounds, final int pairs, final Runnable call)
    {
        final long bytes = 8L * pairs;
        final int calls = bytes <= 8192 ? 20_000 : bytes <= 1 << 20 ? 1000 : 50;
        final double[] us = new double[rounds];
        for (int round = 0; round < rounds; round++)
        {
            for (int i = 0; i < calls / 10; i++)
            {
                call.run();
            }
            comm.barrier();
            final long start = System.nanoTime();
            for (int i = 0; i < calls; i++)
            {
                call.run();
            }
            us[round] = (System.nanoTime() - start) / 1e3 / calls;
        }
        Arrays.sort(us);
        return us[rounds / 2];
    }
}
