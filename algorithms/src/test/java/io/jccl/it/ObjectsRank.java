package io.jccl.it;

import io.jccl.Communicator;
import io.jccl.Jccl;
import io.jccl.JcclException;
import io.jccl.ObjectCodec;
import io.jccl.ObjectCollectives;

import java.io.Serializable;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import static io.jccl.Communicator.ANY_SOURCE;
import static io.jccl.Communicator.ANY_TAG;
import static io.jccl.it.P2pRank.check;
import static io.jccl.it.P2pRank.expect;

/**
 * One rank of {@link ObjectCollectivesTest}: every call of {@link ObjectCollectives} with values every rank can
 * predict, small and beyond the staging area, nulls, a codec of its own, a sub-communicator; then the failures, each
 * followed by a call that must work. Prints "OK objects rank R" when every check held, and throws (exit 1) otherwise.
 */
public final class ObjectsRank
{
    /** Bytes of the large payloads: beyond a rank's staging area, so that they travel in chunks or single copy. */
    private static final int LARGE = 3_000_000;

    /** What a rank sends: who, to whom, and a payload whose content follows from both. */
    record Parcel(int from, int to, String label, byte[] payload) implements Serializable
    {
        static Parcel of(final int from, final int to, final int bytes)
        {
            final byte[] payload = new byte[bytes];
            for (int i = 0; i < bytes; i++)
            {
                payload[i] = (byte)(31 * from + 7 * to + i);
            }
            return new Parcel(from, to, "from " + from + " to " + to, payload);
        }

        @Override
        public boolean equals(final Object other)
        {
            return other instanceof Parcel p && p.from == from && p.to == to && p.label.equals(label) &&
                Arrays.equals(p.payload, payload);
        }

        @Override
        public int hashCode()
        {
            return 31 * from + to;
        }
    }

    private ObjectsRank()
    {
    }

    public static void main(final String[] args)
    {
        try (Communicator comm = Jccl.connect())
        {
            final ObjectCollectives objects = ObjectCollectives.of(comm);
            broadcasts(objects);
            gathers(objects);
            scatters(objects);
            alltoalls(objects);
            folds(objects);
            messages(objects);
            ownCodec(comm);
            subCommunicator(comm);
            failures(comm, objects);
            System.out.println("OK objects rank " + comm.rank());
        }
    }

    private static void broadcasts(final ObjectCollectives objects)
    {
        final Communicator comm = objects.communicator();
        final int me = comm.rank();
        final int root = comm.size() - 1;
        final Map<String, List<Integer>> settings = new TreeMap<>(Map.of("sizes", List.of(8, 1024), "ranks",
            List.of(comm.size())));
        final Map<String, List<Integer>> got = objects.broadcast(me == root ? settings : null, root);
        check(got.equals(settings), "broadcast: " + got);
        check(me != root || got == settings, "the root's broadcast returns its own object");
        check(objects.broadcast(null, 0) == null, "a broadcast null");
        final Parcel large = objects.broadcast(me == 0 ? Parcel.of(0, -1, LARGE) : null, 0);
        check(large.equals(Parcel.of(0, -1, LARGE)), "broadcast of " + LARGE + " bytes");
        final String empty = objects.broadcast(me == root ? "" : "ignored", root);
        check(empty.isEmpty(), "broadcast of an empty string: '" + empty + "'");
    }

    private static void gathers(final ObjectCollectives objects)
    {
        final Communicator comm = objects.communicator();
        final int me = comm.rank();
        final int ranks = comm.size();
        // odd ranks send null; the last sends a large parcel
        final Parcel mine = me % 2 == 1 ? null : Parcel.of(me, -1, me == ranks - 1 ? LARGE : 10 * me);
        final List<Parcel> expected = new ArrayList<>();
        for (int r = 0; r < ranks; r++)
        {
            expected.add(r % 2 == 1 ? null : Parcel.of(r, -1, r == ranks - 1 ? LARGE : 10 * r));
        }
        final List<Parcel> all = objects.allgather(mine);
        check(all.equals(expected), "allgather: " + all);
        check(all.get(me) == mine, "allgather returns the own object as passed");
        final int root = 1 % ranks;
        final List<Parcel> gathered = objects.gather(mine, root);
        check(me == root ? expected.equals(gathered) : gathered == null, "gather to " + root + ": " + gathered);
    }

    private static void scatters(final ObjectCollectives objects)
    {
        final Communicator comm = objects.communicator();
        final int me = comm.rank();
        final int ranks = comm.size();
        final int root = ranks / 2;
        List<Parcel> parcels = null;
        if (me == root)
        {
            parcels = new ArrayList<>();
            for (int r = 0; r < ranks; r++)
            {
                parcels.add(Parcel.of(root, r, r == 0 ? LARGE : r));
            }
        }
        final Parcel got = objects.scatter(parcels, root);
        check(got.equals(Parcel.of(root, me, me == 0 ? LARGE : me)), "scatter from " + root + ": " + got);
    }

    private static void alltoalls(final ObjectCollectives objects)
    {
        final Communicator comm = objects.communicator();
        final int me = comm.rank();
        final int ranks = comm.size();
        final List<Parcel> out = new ArrayList<>();
        for (int to = 0; to < ranks; to++)
        {
            // rank 1's parcel to rank 0 is large, and every rank sends null to the rank after it
            out.add(to == (me + 1) % ranks && ranks > 1 ? null : Parcel.of(me, to, me == 1 && to == 0 ? LARGE : to));
        }
        final List<Parcel> in = objects.alltoall(out);
        for (int from = 0; from < ranks; from++)
        {
            final Parcel expected = me == (from + 1) % ranks && ranks > 1 ? null :
                Parcel.of(from, me, from == 1 && me == 0 ? LARGE : me);
            check(java.util.Objects.equals(in.get(from), expected), "alltoall: from " + from + " " + in.get(from));
        }
        check(in.get(me) == out.get(me), "alltoall returns the own element as passed");
    }

    /**
     * reduce, allreduce, scan and exscan fold in rank order (a list append is not commutative), on decoded copies (an
     * op that appends into its first argument leaves the caller's list alone); maps of counts merge; an op that
     * throws on one rank throws there alone.
     */
    private static void folds(final ObjectCollectives objects)
    {
        final Communicator comm = objects.communicator();
        final int me = comm.rank();
        final int ranks = comm.size();
        final java.util.function.BinaryOperator<List<Integer>> append = (a, b) ->
        {
            a.addAll(b);
            return a;
        };
        final List<Integer> mine = new ArrayList<>(List.of(me));
        final List<Integer> all = new ArrayList<>();
        for (int r = 0; r < ranks; r++)
        {
            all.add(r);
        }
        check(objects.allreduce(mine, append).equals(all), "allreduce in rank order");
        final List<Integer> reduced = objects.reduce(mine, append, ranks - 1);
        check(me == ranks - 1 ? all.equals(reduced) : reduced == null, "reduce to the last rank: " + reduced);
        check(objects.scan(mine, append).equals(all.subList(0, me + 1)), "scan: ranks 0.." + me);
        final List<Integer> before = objects.exscan(mine, append);
        check(me == 0 ? before == null : before.equals(all.subList(0, me)), "exscan: " + before);
        check(mine.equals(List.of(me)), "the folds left the caller's list alone: " + mine);

        final Map<String, Long> counts = new TreeMap<>(Map.of("all", 1L, "rank " + me, (long)me));
        final Map<String, Long> merged = objects.allreduce(counts, (a, b) ->
        {
            b.forEach((k, v) -> a.merge(k, v, Long::sum));
            return a;
        });
        check(merged.get("all") == ranks && merged.size() == ranks + 1, "merged counts: " + merged);

        final java.util.function.BinaryOperator<Integer> failsOnRank1 = (a, b) ->
        {
            if (comm.rank() == 1)
            {
                throw new IllegalStateException("op refused");
            }
            return a + b;
        };
        if (me == 1)
        {
            expect(IllegalStateException.class, () -> objects.allreduce(me, failsOnRank1), "op refused");
        }
        else
        {
            check(objects.allreduce(me, failsOnRank1) == ranks * (ranks - 1) / 2, "allreduce of ranks");
        }
        check(objects.allreduce(1, Integer::sum) == ranks, "allreduce after an op that threw");
    }

    /** A ring of messages, each taken from any source with any tag; then a large one from the last rank to rank 0. */
    private static void messages(final ObjectCollectives objects)
    {
        final Communicator comm = objects.communicator();
        final int me = comm.rank();
        final int ranks = comm.size();
        final int next = (me + 1) % ranks;
        final int previous = (me + ranks - 1) % ranks;
        objects.send(Parcel.of(me, next, 100), next, 40 + me);
        final Parcel got = objects.recv(ANY_SOURCE, ANY_TAG);
        check(got.equals(Parcel.of(previous, me, 100)), "recv: " + got);
        check(comm.lastSource() == previous && comm.lastTag() == 40 + previous,
            "recv: lastSource " + comm.lastSource() + ", lastTag " + comm.lastTag());
        if (me == ranks - 1)
        {
            objects.send(Parcel.of(me, 0, LARGE), 0, 9);
        }
        if (me == 0)
        {
            final Parcel large = objects.recv(ranks - 1, 9);
            check(large.equals(Parcel.of(ranks - 1, 0, LARGE)), "recv of " + LARGE + " bytes");
        }
        comm.barrier();
    }

    /** A codec of its own: strings as UTF-8 (no Java serialization), with non-ASCII text, and empty ones. */
    private static void ownCodec(final Communicator comm)
    {
        final ObjectCollectives strings = ObjectCollectives.of(comm, new Utf8());
        final List<String> all = strings.allgather("rank " + comm.rank() + " grüßt");
        for (int r = 0; r < comm.size(); r++)
        {
            check(all.get(r).equals("rank " + r + " grüßt"), "UTF-8 allgather: " + all);
        }
        // zero bytes on the wire: the empty string, from rank 0 and from the last rank's broadcast
        final List<String> someEmpty = strings.allgather(comm.rank() == 0 ? "" : "x");
        check(someEmpty.get(0).isEmpty() && (comm.size() == 1 || someEmpty.get(1).equals("x")),
            "UTF-8 allgather with an empty string: " + someEmpty);
        final String empty = strings.broadcast(comm.rank() == comm.size() - 1 ? "" : null, comm.size() - 1);
        check(empty.isEmpty(), "UTF-8 broadcast of an empty string: '" + empty + "'");
    }

    /** Even and odd ranks apart: each group gathers its own members' ranks. */
    private static void subCommunicator(final Communicator comm)
    {
        try (Communicator half = comm.split(comm.rank() % 2, comm.rank()))
        {
            final List<Integer> members = ObjectCollectives.of(half).allgather(comm.rank());
            for (int i = 0; i < half.size(); i++)
            {
                check(members.get(i) == comm.rank() % 2 + 2 * i, "split allgather: " + members);
            }
        }
    }

    /**
     * Each failure is seen by every rank at the same step (no rank waits for one that has thrown), and the
     * communicator works after it.
     */
    private static void failures(final Communicator comm, final ObjectCollectives objects)
    {
        final int me = comm.rank();
        final int ranks = comm.size();
        final int last = ranks - 1;
        final Object unserializable = new Object();

        expectFrom(last, me, () -> objects.allgather(me == last ? unserializable : me), "rank " + last,
            "java.lang.Object could not be encoded");
        expectFrom(0, me, () -> objects.broadcast(me == 0 ? unserializable : null, 0), "root 0",
            "could not be encoded");
        expectFrom(last, me, () -> objects.gather(me == last ? unserializable : me, 0), "rank " + last,
            "could not be encoded");
        expectFrom(0, me, () -> objects.scatter(me == 0 ? List.of() : null, 0), "root 0", "one object a rank");
        final List<Object> wrongSize = new ArrayList<>(java.util.Collections.nCopies(ranks + 1, "x"));
        expectFrom(last, me, () -> objects.alltoall(me == last ? wrongSize : new ArrayList<>(
            java.util.Collections.nCopies(ranks, "x"))), "rank " + last, "one object a rank");
        final List<Object> oneUnserializable = new ArrayList<>(java.util.Collections.nCopies(ranks, "x"));
        oneUnserializable.set((last + 1) % ranks, unserializable);
        if (ranks > 1)
        {
            expectFrom(last, me, () -> objects.alltoall(me == last ? oneUnserializable :
                new ArrayList<>(java.util.Collections.nCopies(ranks, "x"))), "rank " + last, "element 0");
        }
        expect(IllegalArgumentException.class, () -> objects.send(unserializable, me, 1), "could not be encoded");
        expect(IllegalArgumentException.class, () -> objects.broadcast("x", ranks), "root " + ranks);

        // bytes that do not decode: every rank but rank 0 decodes rank 0's "poison" and throws, after the call
        final ObjectCollectives poisoned = ObjectCollectives.of(comm, new Utf8()
        {
            @Override
            public Object decode(final byte[] bytes, final int offset, final int length)
            {
                final Object text = super.decode(bytes, offset, length);
                if (text.equals("poison"))
                {
                    throw new IllegalStateException("poisoned");
                }
                return text;
            }
        });
        if (me == 0)
        {
            check(poisoned.allgather("poison").get(0).equals("poison"), "rank 0 does not decode its own");
        }
        else
        {
            expect(JcclException.class, () -> poisoned.allgather("fine"), "the 6 bytes from rank 0 do not decode");
        }

        final List<Integer> after = objects.allgather(me);
        for (int r = 0; r < ranks; r++)
        {
            check(after.get(r) == r, "allgather after the failures: " + after);
        }
    }

    /** The call throws IllegalArgumentException on {@code culprit} and a JcclException naming it elsewhere. */
    private static void expectFrom(final int culprit, final int me, final Runnable call, final String named,
        final String ownWords)
    {
        if (me == culprit)
        {
            expect(IllegalArgumentException.class, call, ownWords);
        }
        else
        {
            expect(JcclException.class, call, named + " could not encode what it was to send");
        }
    }

    private static class Utf8 implements ObjectCodec
    {
        @Override
        public byte[] encode(final Object object)
        {
            return ((String)object).getBytes(StandardCharsets.UTF_8);
        }

        @Override
        public Object decode(final byte[] bytes, final int offset, final int length)
        {
            return new String(bytes, offset, length, StandardCharsets.UTF_8);
        }
    }
}
