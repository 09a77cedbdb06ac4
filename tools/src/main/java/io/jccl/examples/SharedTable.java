package io.jccl.examples;

import io.jccl.Buf;
import io.jccl.Communicator;
import io.jccl.DataType;
import io.jccl.Jccl;
import io.jccl.ReduceOp;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.DoubleBuffer;

/**
 * A table split across the ranks and read in place: MPI's shared-memory windows. Each rank computes its slab of the
 * table into its own symmetric memory ({@code allocateShared}); after a barrier every rank reads any entry straight
 * from the slab that holds it, through {@code peerView(slab, owner).asByteBuffer()}: no message and no copy, and the
 * table exists once on the machine. The lookups are handed out in blocks by a counter in rank 0's memory that every
 * rank advances with an atomic {@code getAndAdd}: a work queue without messages.
 * <pre>
 *   ./jccl run -n 4 -- io.jccl.examples.SharedTable [--entries 1m] [--lookups 4m] [--block 4096] [--rounds 5]
 *       [--warmup 10]
 *   JCCL_SYMMETRIC_BYTES=64m ./jccl run -n 4 -- io.jccl.examples.SharedTable --entries 16m
 * </pre>
 * A slab is entries / p doubles; the symmetric memory of each rank ({@code JCCL_SYMMETRIC_BYTES}, 8 MiB by default)
 * must hold it. For comparison the same lookups then run on a private copy of the whole table on every rank, which an
 * {@code allgatherv} fills, as a program without shared memory would hold it. Rank 0 prints the times (the median
 * of {@code --rounds} after {@code --warmup} untimed ones, in which the JIT compiles the loops) and checks every
 * lookup: the checksum of the values each block read, summed over the ranks that claimed the blocks, against the
 * table computed on one rank. Exit status 1 when it differs.
 */
public final class SharedTable
{
    private static final VarHandle LONG_AT = MethodHandles.byteBufferViewVarHandle(long[].class,
        ByteOrder.nativeOrder());
    /** The counters in rank 0's memory, one per pass, a cache line apart (the next block to hand out). */
    private static final int COUNTERS = 2 * 8;

    private SharedTable()
    {
    }

    public static void main(final String[] args)
    {
        final ExampleArgs options = new ExampleArgs(args);
        final long entries = options.getSize("entries", 1 << 20);
        final long lookups = options.getSize("lookups", 4 << 20);
        final int block = options.getInt("block", 4096);
        final int rounds = options.getInt("rounds", 5);
        final int warmup = options.getInt("warmup", 10);
        final boolean ok;
        try (Communicator comm = Jccl.connect())
        {
            ok = new Run(comm, entries, lookups, block, rounds, warmup).run();
        }
        if (!ok)
        {
            System.exit(1);
        }
    }

    /** The value at {@code index}: a hash of it, as a double in [0, 1). */
    static double value(final long index)
    {
        return (mix(index) >>> 11) * 0x1p-53;
    }

    /**
     * Entry {@code i} of block {@code b}'s lookups, the same on whichever rank claims the block: a hash scaled to
     * [0, entries) by a multiply and a shift, not a division, which would cost as much as the lookup itself.
     */
    static int lookupIndex(final long b, final int i, final long entries)
    {
        return (int)(((mix(b * 65_537 + i) >>> 32) * entries) >>> 32);
    }

    /** SplitMix64's finaliser. */
    private static long mix(final long x)
    {
        long z = x * 0x9E3779B97F4A7C15L;
        z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
        z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
        return z ^ (z >>> 31);
    }

    private static final class Run
    {
        private final Communicator comm;
        private final long entries;
        private final long lookups;
        private final int block;
        private final int rounds;
        private final int warmup;
        private final int perRank;
        private final long blocks;
        private final DoubleBuffer[] slabs;
        private final ByteBuffer counters;

        Run(final Communicator comm, final long entries, final long lookups, final int block, final int rounds,
            final int warmup)
        {
            this.comm = comm;
            this.entries = entries;
            this.lookups = lookups;
            this.block = block;
            this.rounds = rounds;
            this.warmup = warmup;
            final int p = comm.size();
            if (entries < p || entries > Integer.MAX_VALUE || lookups < 1 || block < 1 || rounds < 1 ||
                warmup < 0)
            {
                throw new IllegalArgumentException("--entries from the rank count to 2^31 - 1, --lookups, --block " +
                    "and --rounds at least 1, --warmup at least 0");
            }
            this.perRank = (int)((entries + p - 1) / p);
            this.blocks = (lookups + block - 1) / block;
            final Buf counterWords = comm.allocateShared(COUNTERS, DataType.INT64);
            final Buf slab;
            try
            {
                slab = comm.allocateShared(perRank, DataType.FLOAT64);
            }
            catch (final IllegalArgumentException ex)
            {
                throw new IllegalArgumentException("a slab of " + perRank * 8L + " bytes does not fit this rank's " +
                    "symmetric memory: set JCCL_SYMMETRIC_BYTES above it (" + ex.getMessage() + ")", ex);
            }
            this.counters = comm.peerView(counterWords, 0).asByteBuffer();
            this.slabs = new DoubleBuffer[p];
            for (int r = 0; r < p; r++)
            {
                slabs[r] = comm.peerView(slab, r).asByteBuffer().asDoubleBuffer();
            }
        }

        boolean run()
        {
            final int me = comm.rank();
            final int p = comm.size();
            final double[] inPlace = new double[rounds];
            final double[] gather = new double[rounds];
            final double[] inCopy = new double[rounds];
            final double[] copy = new double[Math.toIntExact(entries)];
            final Buf ownSlab = Buf.of(copy, Math.toIntExact(Math.min(entries, (long)me * perRank)), slabLength(me));
            final int[] counts = new int[p];
            final int[] displs = new int[p];
            for (int r = 0; r < p; r++)
            {
                counts[r] = slabLength(r);
                displs[r] = Math.toIntExact(Math.min(entries, (long)r * perRank));
            }
            final long[] sums = new long[2];
            final long[] claimed = new long[2];
            // build: each rank its own slab, in its own memory, once
            comm.barrier();
            final long buildStart = System.nanoTime();
            final DoubleBuffer own = slabs[me];
            final long first = (long)me * perRank;
            for (int i = 0; i < counts[me]; i++)
            {
                own.put(i, value(first + i));
            }
            comm.barrier();
            final double build = System.nanoTime() - buildStart;
            // all the rounds through the windows first, then all those on private copies: interleaved, each pass
            // would find the other's data in the caches
            for (int round = -warmup; round < rounds; round++)
            {
                // lookups through the windows, blocks handed out by rank 0's counter
                resetCounters();
                final long start = System.nanoTime();
                claimed[0] = 0;
                sums[0] = 0;
                for (long b = next(0); b < blocks; b = next(0))
                {
                    sums[0] += lookUpInPlace(b);
                    claimed[0]++;
                }
                final long time = System.nanoTime() - start;
                comm.barrier();
                if (round >= 0)
                {
                    inPlace[round] = time;
                }
            }
            for (int round = -warmup; round < rounds; round++)
            {
                // the same lookups in a private copy of the whole table, which an allgatherv fills; a program
                // without shared memory would have built its slab there
                own.get(0, copy, displs[me], counts[me]);
                comm.barrier();
                long start = System.nanoTime();
                comm.allgatherv(ownSlab, Buf.of(copy), counts, displs);
                final long gatherTime = System.nanoTime() - start;
                resetCounters();
                start = System.nanoTime();
                claimed[1] = 0;
                sums[1] = 0;
                for (long b = next(1); b < blocks; b = next(1))
                {
                    sums[1] += lookUpInCopy(b, copy);
                    claimed[1]++;
                }
                final long time = System.nanoTime() - start;
                comm.barrier();
                if (round >= 0)
                {
                    gather[round] = gatherTime;
                    inCopy[round] = time;
                }
            }
            final long[] blocksClaimed = new long[p];
            comm.gather(Buf.of(claimed, 0, 1), Buf.of(blocksClaimed), 0);
            comm.allreduce(Buf.of(sums), ReduceOp.SUM);
            if (me != 0)
            {
                return true;
            }
            final long expected = expectedChecksum();
            final boolean ok = sums[0] == expected && sums[1] == expected;
            System.out.printf("shared table on %d ranks: %,d entries (%s), a slab of %,d on each rank; medians of %d " +
                    "rounds:%n", p, entries, mib(entries * 8), perRank, rounds);
            System.out.printf("  built once, each rank its own slab in place: %.3f ms%n", build / 1e6);
            System.out.printf("  %,d lookups in blocks of %d, through the windows: %.3f ms, %.1f ns a lookup " +
                "(blocks per rank %s)%n", lookups, block, median(inPlace) / 1e6, median(inPlace) / lookups * p,
                java.util.Arrays.toString(blocksClaimed));
            System.out.printf("  a private copy instead: allgatherv %.3f ms and %s more on every rank, lookups " +
                "%.3f ms, %.1f ns a lookup%n", median(gather) / 1e6, mib(entries * 8 - counts[0] * 8L),
                median(inCopy) / 1e6, median(inCopy) / lookups * p);
            System.out.println(ok ? "  every lookup matches the table computed on one rank" :
                "  lookups WRONG: checksums " + sums[0] + " (windows) and " + sums[1] + " (copies), not " + expected);
            return ok;
        }

        private int slabLength(final int rank)
        {
            return (int)Math.max(0, Math.min(perRank, entries - (long)rank * perRank));
        }

        /** Rank 0 sets both counters to 0; the barrier orders its stores before every rank's first claim. */
        private void resetCounters()
        {
            if (comm.rank() == 0)
            {
                counters.putLong(0, 0).putLong(64, 0);
            }
            comm.barrier();
        }

        /** The next block of pass {@code pass}, claimed atomically from rank 0's counter. */
        private long next(final int pass)
        {
            return (long)LONG_AT.getAndAdd(counters, pass * 64, 1L);
        }

        private long lookUpInPlace(final long b)
        {
            long checksum = 0;
            final int n = (int)Math.min(block, lookups - b * block);
            for (int i = 0; i < n; i++)
            {
                final int index = lookupIndex(b, i, entries);
                final int owner = index / perRank;
                checksum += Double.doubleToRawLongBits(slabs[owner].get(index - owner * perRank));
            }
            return checksum;
        }

        private long lookUpInCopy(final long b, final double[] copy)
        {
            long checksum = 0;
            final int n = (int)Math.min(block, lookups - b * block);
            for (int i = 0; i < n; i++)
            {
                checksum += Double.doubleToRawLongBits(copy[lookupIndex(b, i, entries)]);
            }
            return checksum;
        }

        /** Every block's checksum, computed from {@link #value} alone: the sum is the same in any order. */
        private long expectedChecksum()
        {
            long checksum = 0;
            for (long b = 0; b < blocks; b++)
            {
                final int n = (int)Math.min(block, lookups - b * block);
                for (int i = 0; i < n; i++)
                {
                    checksum += Double.doubleToRawLongBits(value(lookupIndex(b, i, entries)));
                }
            }
            return checksum;
        }

        private static double median(final double[] values)
        {
            final double[] sorted = values.clone();
            java.util.Arrays.sort(sorted);
            return sorted[sorted.length / 2];
        }

        private static String mib(final long bytes)
        {
            return String.format("%.1f MiB", bytes / 1048576.0);
        }
    }
}
