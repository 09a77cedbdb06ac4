package io.jccl.it;

import io.jccl.Buf;
import io.jccl.Communicator;
import io.jccl.Jccl;
import io.jccl.ReduceOp;

import java.util.concurrent.atomic.AtomicReference;

/**
 * One rank of {@link SubCommunicatorTest}: runs the scenario named by its first argument, prints
 * "OK scenario rank R" when every check held; a failed check throws (exit 1).
 */
public final class SubCommunicatorRank
{
    /** Algorithms each group runs, shared-memory ones included: they use the group's own segment. */
    private static final String[] ALLREDUCE_ALGORITHMS = {"shm_oneshot", "shm_twoshot", "ring", "rabenseifner"};

    private SubCommunicatorRank()
    {
    }

    public static void main(final String[] args) throws Exception
    {
        final String scenario = args[0];
        final Communicator world = Jccl.connect();
        switch (scenario)
        {
            case "groups" -> groups(world);
            case "undefined" -> undefined(world);
            case "dup" -> dup(world);
            case "nested" -> nested(world);
            default -> throw new IllegalArgumentException("unknown scenario " + scenario);
        }
        System.out.println("OK " + scenario + " rank " + world.rank());
        world.close();
    }

    /**
     * Two groups by parity of rank, numbered in reverse by key; both run collectives at the same time, each checked
     * against its own members' data; the parent still works afterwards; parent and group close in either order.
     */
    private static void groups(final Communicator world)
    {
        final int color = world.rank() % 2;
        final Communicator group = world.split(color, -world.rank());
        final int[] members = membersOf(world.size(), color, true);
        check(group.size() == members.length, "group size " + group.size());
        check(members[group.rank()] == world.rank(), "rank " + group.rank() + " in group " + color + " is world " +
            "rank " + world.rank() + ", expected ordering by descending world rank");
        runCollectives(group, members, color);
        // the parent is untouched by the groups
        final int[] sum = {world.rank()};
        world.allreduce(Buf.of(sum), ReduceOp.SUM);
        check(sum[0] == world.size() * (world.size() - 1) / 2, "world sum " + sum[0]);
        if (world.rank() % 3 == 0)
        {
            group.close();
            world.barrier();
        }
        else
        {
            world.barrier();
            group.close();
        }
    }

    /** Rank 0 passes a negative color and gets no communicator; the others form one group. */
    private static void undefined(final Communicator world)
    {
        final Communicator group = world.split(world.rank() == 0 ? -1 : 7, 0);
        if (world.rank() == 0)
        {
            check(group == null, "rank with color -1 got a communicator");
        }
        else
        {
            check(group.size() == world.size() - 1 && group.rank() == world.rank() - 1,
                "group rank " + group.rank() + " of " + group.size());
            final int[] sum = {world.rank()};
            group.allreduce(Buf.of(sum), ReduceOp.SUM);
            check(sum[0] == world.size() * (world.size() - 1) / 2, "group sum " + sum[0]);
            group.close();
        }
        world.barrier();
    }

    /**
     * dup: same ranks, separate traffic. Point-to-point with equal tags on both stays apart; a thread per
     * communicator runs allreduces with different data at the same time, each result exact.
     */
    private static void dup(final Communicator world) throws Exception
    {
        final Communicator copy = world.dup();
        check(copy.rank() == world.rank() && copy.size() == world.size(), "dup numbering");
        final int next = (world.rank() + 1) % world.size();
        final int prev = (world.rank() + world.size() - 1) % world.size();
        // the dup's message is sent first, the parent's receive must still get the parent's
        copy.send(Buf.of(new int[] {1000 + world.rank()}), next, 5);
        world.send(Buf.of(new int[] {2000 + world.rank()}), next, 5);
        final int[] got = new int[1];
        world.recv(Buf.of(got), prev, 5);
        check(got[0] == 2000 + prev, "parent received " + got[0]);
        copy.recv(Buf.of(got), prev, 5);
        check(got[0] == 1000 + prev, "dup received " + got[0]);

        final AtomicReference<Throwable> failure = new AtomicReference<>();
        final Thread other = new Thread(() ->
        {
            try
            {
                allreduceRounds(copy, 7, world.size());
            }
            catch (final Throwable ex)
            {
                failure.set(ex);
            }
        }, "dup-user");
        other.start();
        allreduceRounds(world, 3, world.size());
        other.join();
        if (failure.get() != null)
        {
            throw new AssertionError("on the dup: " + failure.get(), failure.get());
        }
        copy.close();
    }

    /** A split of a split: job ids derive twice and stay unique; the inner group works, also once its parent closed. */
    private static void nested(final Communicator world)
    {
        final Communicator half = world.split(world.rank() / 2, world.rank());
        final Communicator inner = half.dup();
        final Communicator single = half.split(half.rank(), 0);
        check(single.size() == 1 && single.rank() == 0, "singleton group");
        final int[] sum = {world.rank()};
        inner.allreduce(Buf.of(sum), ReduceOp.SUM);
        final int first = world.rank() / 2 * 2;
        final int expected = first + Math.min(first + 1, world.size() - 1) * (first + 1 < world.size() ? 1 : 0);
        check(sum[0] == expected, "inner sum " + sum[0] + ", expected " + expected);
        single.allreduce(Buf.of(sum), ReduceOp.SUM);
        check(sum[0] == expected, "singleton allreduce changed the value");
        single.close();
        // the parent of the inner group closes first: the inner group does not depend on it
        half.close();
        inner.allreduce(Buf.of(sum), ReduceOp.SUM);
        check(sum[0] == expected * inner.size(), "inner sum after its parent closed " + sum[0]);
        inner.close();
        world.barrier();
    }

    private static void allreduceRounds(final Communicator comm, final int scale, final int size)
    {
        final int n = 4099;
        final int[] v = new int[n];
        for (int round = 0; round < 200; round++)
        {
            for (int i = 0; i < n; i++)
            {
                v[i] = scale * (comm.rank() + i + round);
            }
            comm.allreduce(Buf.of(v), ReduceOp.SUM);
            for (int i = 0; i < n; i++)
            {
                final int expected = scale * (size * (size - 1) / 2 + size * (i + round));
                if (v[i] != expected)
                {
                    throw new AssertionError("round " + round + " element " + i + ": " + v[i] + ", expected " +
                        expected);
                }
            }
        }
    }

    /** Allreduce by several algorithms (sizes past the staging area too), broadcast, allgather, alltoall. */
    private static void runCollectives(final Communicator group, final int[] members, final int color)
    {
        final int p = members.length;
        for (final int n : new int[] {1, 1000, 1 << 20 | 3})
        {
            for (final String algorithm : ALLREDUCE_ALGORITHMS)
            {
                if (algorithm.equals("shm_oneshot") && n > 1000)
                {
                    continue;
                }
                final float[] v = new float[n];
                for (int i = 0; i < n; i++)
                {
                    v[i] = members[group.rank()] * 10 + (i % 5);
                }
                group.withAlgorithm("allreduce:" + algorithm).allreduce(Buf.of(v), ReduceOp.SUM);
                float memberSum = 0;
                for (final int m : members)
                {
                    memberSum += m * 10;
                }
                for (int i = 0; i < n; i++)
                {
                    final float expected = memberSum + p * (i % 5);
                    if (v[i] != expected)
                    {
                        throw new AssertionError("group " + color + " " + algorithm + " n=" + n + " element " + i +
                            ": " + v[i] + ", expected " + expected);
                    }
                }
            }
        }
        final long[] b = new long[5000];
        if (group.rank() == 0)
        {
            java.util.Arrays.fill(b, 100 + color);
        }
        group.broadcast(Buf.of(b), 0);
        for (final long x : b)
        {
            check(x == 100 + color, "broadcast in group " + color + " gave " + x);
        }
        final int[] all = new int[p * 3];
        group.allgather(Buf.of(new int[] {members[group.rank()], color, group.rank()}), Buf.of(all));
        for (int r = 0; r < p; r++)
        {
            check(all[3 * r] == members[r] && all[3 * r + 1] == color && all[3 * r + 2] == r,
                "allgather block " + r + " in group " + color);
        }
        final int[] out = new int[p * 2];
        final int[] in = new int[p * 2];
        for (int r = 0; r < p; r++)
        {
            out[2 * r] = group.rank() * 100 + r;
            out[2 * r + 1] = color;
        }
        group.alltoall(Buf.of(out), Buf.of(in));
        for (int r = 0; r < p; r++)
        {
            check(in[2 * r] == r * 100 + group.rank() && in[2 * r + 1] == color, "alltoall block " + r);
        }
        group.barrier();
    }

    /** World ranks of group {@code color} (rank parity) in group order. */
    private static int[] membersOf(final int size, final int color, final boolean descending)
    {
        return java.util.stream.IntStream.range(0, size).filter(r -> r % 2 == color).boxed()
            .sorted(descending ? java.util.Comparator.reverseOrder() : java.util.Comparator.naturalOrder())
            .mapToInt(Integer::intValue).toArray();
    }

    private static void check(final boolean condition, final String what)
    {
        if (!condition)
        {
            throw new AssertionError(what);
        }
    }
}
