package io.jccl;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.function.BinaryOperator;

/**
 * Collectives and messages of Java objects, as torch.distributed's {@code broadcast_object_list},
 * {@code all_gather_object}, {@code gather_object}, {@code scatter_object_list} and {@code send_object_list} carry
 * Python's, and mpi4py's lower-case {@code reduce}, {@code allreduce}, {@code scan} and {@code exscan} fold them with
 * a function: configuration from rank 0, each rank's metrics or results merged, a shuffle's partitions. Each object
 * is encoded by an {@link ObjectCodec} (Java serialization unless told otherwise), its length exchanged, then its
 * bytes, by the communicator's own collectives and messages:
 * <pre>
 *   ObjectCollectives objects = ObjectCollectives.of(comm);
 *   Settings settings = objects.broadcast(comm.rank() == 0 ? Settings.load() : null, 0);
 *   List&lt;Stats&gt; all = objects.allgather(localStats);      // rank order, on every rank
 *   Stats total = objects.allreduce(localStats, Stats::plus); // every rank's, folded in rank order
 * </pre>
 * Each call allocates (the encoded bytes, the decoded objects): it is for the control plane and for data whose shape
 * only objects express. Vectors of numbers belong in {@link Buf}s, whose collectives allocate nothing.
 * <p>
 * Every rank learns every length before any byte moves, so a failure is seen by every rank at the same step and none
 * is left waiting: an object its rank cannot encode (or, for {@link #scatter} and {@link #alltoall}, a list of the
 * wrong size) throws {@link IllegalArgumentException} on that rank and a {@link JcclException} naming it on the others;
 * bytes that do not decode throw {@link JcclException} on the rank decoding them, after the call has completed
 * everywhere. The communicator stays usable after either. A rank's own object is returned as it was passed, not
 * encoded and decoded, but for the folds, which work on decoded copies. A result's static type is the caller's word: an object of another class shows as a
 * {@link ClassCastException} where it is used, as with any unchecked generic call.
 * <p>
 * These calls run the communicator's collectives, one after another, so all ranks must make them in the same order,
 * among the communicator's other collectives, as those require. The point-to-point forms are one message each:
 * {@link #recv} probes its length, so a message {@link #send} sent is taken whole by one receive.
 */
public final class ObjectCollectives
{
    /** A Java array's largest length on HotSpot: the most bytes one rank can send or receive in a call. */
    static final int MAX_BYTES = Integer.MAX_VALUE - 8;

    /** A length that says its rank could not encode what it was to send. */
    private static final long FAILED = -1;

    /** In place of a rank's own object: decode it from its bytes too (a copy, for a fold to work on). */
    private static final Object DECODE_OWN = new Object();

    private final Communicator comm;
    private final ObjectCodec codec;

    private ObjectCollectives(final Communicator comm, final ObjectCodec codec)
    {
        this.comm = java.util.Objects.requireNonNull(comm, "comm");
        this.codec = java.util.Objects.requireNonNull(codec, "codec");
    }

    /** Object collectives on {@code comm} by Java serialization ({@link ObjectCodec#javaSerialization()}). */
    public static ObjectCollectives of(final Communicator comm)
    {
        return of(comm, ObjectCodec.javaSerialization());
    }

    /** Object collectives on {@code comm}, objects encoded by {@code codec} (the same on every rank). */
    public static ObjectCollectives of(final Communicator comm, final ObjectCodec codec)
    {
        return new ObjectCollectives(comm, codec);
    }

    public Communicator communicator()
    {
        return comm;
    }

    /** {@code root}'s object on every rank (the others' {@code object} is ignored; pass null). */
    public <T> T broadcast(final T object, final int root)
    {
        checkRoot(root);
        final boolean isRoot = comm.rank() == root;
        final Encoded encoded = isRoot ? encode(object) : Encoded.NOTHING;
        final long[] length = {encoded.length()};
        comm.broadcast(Buf.of(length), root);
        throwFailures("broadcast", length, 1, encoded, root);
        if (isRoot)
        {
            comm.broadcast(Buf.of(encoded.bytes), root);
            return object;
        }
        final byte[] bytes = new byte[(int)length[0]];
        comm.broadcast(Buf.of(bytes), root);
        return decode("broadcast", root, bytes, 0, bytes.length);
    }

    /** Every rank's object, in rank order, on every rank. The list is fixed-size and may hold nulls. */
    public <T> List<T> allgather(final T object)
    {
        return decodeAll("allgather", object, gatherBytes("allgather", object, -1), comm.size());
    }

    /**
     * Every rank's object, in rank order, on {@code root}; null on the other ranks. The list is fixed-size and may
     * hold nulls.
     */
    public <T> List<T> gather(final T object, final int root)
    {
        checkRoot(root);
        final Gathered gathered = gatherBytes("gather", object, root);
        return gathered == null ? null : decodeAll("gather", object, gathered, comm.size());
    }

    /**
     * Every rank's object folded by {@code op} in rank order, {@code op(...op(op(x0, x1), x2)..., xp-1)}, on
     * {@code root}; null on the other ranks (mpi4py's {@code comm.reduce} of objects). The root gathers every rank's
     * object and applies {@code op} p - 1 times; {@code op} need not be associative or commutative, and receives
     * decoded copies, the root's own object included, so an {@code op} that merges into its first argument modifies
     * none of the caller's objects. An exception of {@code op} is thrown on the root alone, after the call has
     * completed everywhere.
     */
    public <T> T reduce(final T object, final BinaryOperator<T> op, final int root)
    {
        checkRoot(root);
        java.util.Objects.requireNonNull(op, "op");
        final Gathered gathered = gatherBytes("reduce", object, root);
        return gathered == null ? null : fold(decodeAll("reduce", DECODE_OWN, gathered, comm.size()), op);
    }

    /**
     * {@link #reduce}'s fold on every rank: each rank gathers every rank's object and folds them itself, so a
     * deterministic {@code op} gives every rank an equal result.
     */
    public <T> T allreduce(final T object, final BinaryOperator<T> op)
    {
        java.util.Objects.requireNonNull(op, "op");
        return fold(decodeAll("allreduce", DECODE_OWN, gatherBytes("allreduce", object, -1), comm.size()), op);
    }

    /**
     * On rank r, the fold of ranks 0 to r's objects in rank order (MPI_Scan): rank 0 gets a decoded copy of its own.
     * Every rank receives every rank's bytes and decodes those it folds.
     */
    public <T> T scan(final T object, final BinaryOperator<T> op)
    {
        java.util.Objects.requireNonNull(op, "op");
        return fold(decodeAll("scan", DECODE_OWN, gatherBytes("scan", object, -1), comm.rank() + 1), op);
    }

    /** On rank r, the fold of ranks 0 to r - 1's objects in rank order (MPI_Exscan); null on rank 0. */
    public <T> T exscan(final T object, final BinaryOperator<T> op)
    {
        java.util.Objects.requireNonNull(op, "op");
        return fold(decodeAll("exscan", DECODE_OWN, gatherBytes("exscan", object, -1), comm.rank()), op);
    }

    /**
     * Element i of {@code root}'s list (one per rank) on rank i; the other ranks' {@code objects} are ignored (pass
     * null). A list of another size than the communicator throws {@link IllegalArgumentException} on the root and a
     * {@link JcclException} on the others.
     */
    public <T> T scatter(final List<? extends T> objects, final int root)
    {
        checkRoot(root);
        final int ranks = comm.size();
        final int me = comm.rank();
        final boolean isRoot = me == root;
        final Encoded encoded = isRoot ? encodeEach(objects, "scatter") : Encoded.NOTHING;
        final long[] lengths = isRoot ? encoded.lengths : new long[ranks];
        comm.broadcast(Buf.of(lengths), root);
        throwFailures("scatter", lengths, ranks, encoded, root);
        final int[] counts = row(lengths, ranks, 0);
        final byte[] mine = new byte[counts[me]];
        comm.scatterv(isRoot ? Buf.of(encoded.bytes) : null, Buf.of(mine), counts, null, root);
        return isRoot ? objects.get(me) : decode("scatter", root, mine, 0, mine.length);
    }

    /**
     * Element j of every rank's list (one per rank) on rank j, where it lands at the sender's rank: rank j's result
     * holds element j of rank 0's list, then of rank 1's, and so on (MPI_Alltoall). The list returned is fixed-size
     * and may hold nulls. A list of another size than the communicator throws {@link IllegalArgumentException} on its
     * rank and a {@link JcclException} on the others.
     */
    public <T> List<T> alltoall(final List<? extends T> objects)
    {
        final int ranks = comm.size();
        final int me = comm.rank();
        final Encoded encoded = encodeEach(objects, "alltoall");
        final long[] lengths = exchangeLengths(encoded.lengths); // row s: what rank s sends to each rank
        throwFailures("alltoall", lengths, ranks, encoded, -1);
        int[] recvCounts = null;
        int recvTotal = 0;
        for (int to = 0; to < ranks; to++) // every rank checks every receiver, so that all of them throw alike
        {
            final int[] toThem = column(lengths, ranks, to);
            final int total = checkedTotal("alltoall", toThem, to);
            if (to == me)
            {
                recvCounts = toThem;
                recvTotal = total;
            }
        }
        final int[] sendCounts = row(lengths, ranks, me);
        final byte[] all = new byte[recvTotal];
        final int[] recvDispls = displacements(recvCounts);
        comm.alltoallv(Buf.of(encoded.bytes), sendCounts, displacements(sendCounts), Buf.of(all), recvCounts,
            recvDispls);
        return decodeAll("alltoall", objects.get(me), all, recvCounts, recvDispls, ranks);
    }

    /**
     * Sends {@code object} to {@code dest} as one message with {@code tag}, for {@link #recv} (or a byte receive).
     * An object that cannot be encoded throws {@link IllegalArgumentException} here, and nothing is sent.
     */
    public void send(final Object object, final int dest, final int tag)
    {
        final Encoded encoded = encode(object);
        if (encoded.failure != null)
        {
            throw encoded.failure;
        }
        comm.send(Buf.of(encoded.bytes), dest, tag);
    }

    /**
     * Receives the next message from {@code source} (or {@link Communicator#ANY_SOURCE}) with {@code tag} (or
     * {@link Communicator#ANY_TAG}) whole and decodes it; {@link Communicator#lastSource()} and
     * {@link Communicator#lastTag()} then tell whose it was.
     */
    public <T> T recv(final int source, final int tag)
    {
        final long length = comm.probe(source, tag);
        final int from = comm.lastSource();
        if (length > MAX_BYTES)
        {
            throw new JcclException("recv of an object: the message from rank " + from + " has " + length +
                " bytes, more than one Java array holds; receive it into buffers");
        }
        final byte[] bytes = new byte[(int)length];
        comm.recv(Buf.of(bytes), from, comm.lastTag());
        return decode("recv", from, bytes, 0, bytes.length);
    }

    private void checkRoot(final int root)
    {
        if (root < 0 || root >= comm.size())
        {
            throw new IllegalArgumentException("root " + root + " is not a rank of this communicator (size " +
                comm.size() + ")");
        }
    }

    /**
     * Every rank's encoded object, on every rank ({@code root} -1) or on {@code root} (null elsewhere): the lengths
     * first, on every rank, then the bytes.
     */
    private Gathered gatherBytes(final String call, final Object object, final int root)
    {
        final Encoded encoded = encode(object);
        final long[] lengths = exchangeLengths(new long[] {encoded.length()});
        throwFailures(call, lengths, 1, encoded, -1);
        final int[] counts = column(lengths, 1, 0);
        final int total = checkedTotal(call, counts, root);
        final int[] displs = displacements(counts);
        if (root < 0)
        {
            final byte[] all = new byte[total];
            comm.allgatherv(Buf.of(encoded.bytes), Buf.of(all), counts, displs);
            return new Gathered(all, counts, displs);
        }
        final boolean isRoot = comm.rank() == root;
        final byte[] all = isRoot ? new byte[total] : null;
        comm.gatherv(Buf.of(encoded.bytes), isRoot ? Buf.of(all) : null, counts, displs, root);
        return isRoot ? new Gathered(all, counts, displs) : null;
    }

    /** Every rank's {@code mine} (the same length on every rank), concatenated in rank order. */
    private long[] exchangeLengths(final long[] mine)
    {
        final long[] all = new long[mine.length * comm.size()];
        comm.allgather(Buf.of(mine), Buf.of(all));
        return all;
    }

    /**
     * Throws on every rank when any rank's row of {@code width} lengths says it failed: that rank's own exception on
     * it, a {@link JcclException} naming the failed ranks on the others. A broadcast or scatter has one row, the
     * {@code root}'s (-1 for the others).
     */
    private static void throwFailures(final String call, final long[] lengths, final int width, final Encoded mine,
        final int root)
    {
        if (mine.failure != null)
        {
            throw mine.failure;
        }
        final List<Integer> failed = new ArrayList<>();
        final int rows = lengths.length / width;
        for (int row = 0; row < rows; row++)
        {
            if (lengths[row * width] == FAILED)
            {
                failed.add(root >= 0 ? root : row);
            }
        }
        if (!failed.isEmpty())
        {
            final String who = root >= 0 ? "root " + root : failed.size() == 1 ? "rank " + failed.get(0) :
                "ranks " + failed;
            throw new JcclException(call + " of objects: " + who + " could not encode what it was to send, and " +
                "throws why; nothing was sent");
        }
    }

    /**
     * The bytes {@code receiver} (-1: every rank) receives in all; a {@link JcclException} when one Java array cannot
     * hold them. Every rank computes it from the same lengths, so every rank throws alike.
     */
    private static int checkedTotal(final String call, final int[] counts, final int receiver)
    {
        long total = 0;
        for (final int count : counts)
        {
            total += count;
        }
        if (total > MAX_BYTES)
        {
            throw new JcclException(call + " of objects: " + total + " encoded bytes for " +
                (receiver < 0 ? "every rank" : "rank " + receiver) + ", more than one Java array holds; nothing " +
                "was sent");
        }
        return (int)total;
    }

    /**
     * Column {@code column} of a matrix of lengths, {@code width} a row, as ints: what each rank sends the rank of
     * that column. Failures were thrown before, and every length fits an int (it came from one array).
     */
    private static int[] column(final long[] lengths, final int width, final int column)
    {
        final int[] counts = new int[lengths.length / width];
        for (int r = 0; r < counts.length; r++)
        {
            counts[r] = (int)lengths[r * width + column];
        }
        return counts;
    }

    /** Row {@code row} of a matrix of lengths, {@code width} a row, as ints: what that row's rank sends each rank. */
    private static int[] row(final long[] lengths, final int width, final int row)
    {
        final int[] counts = new int[width];
        for (int r = 0; r < width; r++)
        {
            counts[r] = (int)lengths[row * width + r];
        }
        return counts;
    }

    private static int[] displacements(final int[] counts)
    {
        final int[] displs = new int[counts.length];
        for (int i = 1; i < counts.length; i++)
        {
            displs[i] = displs[i - 1] + counts[i - 1];
        }
        return displs;
    }

    private Encoded encode(final Object object)
    {
        try
        {
            final byte[] bytes = codec.encode(object);
            if (bytes == null)
            {
                throw new NullPointerException(codec + " encoded an object as null");
            }
            return new Encoded(bytes, new long[] {bytes.length}, null);
        }
        catch (final RuntimeException | StackOverflowError e) // a deep object graph overflows Java serialization
        {
            return Encoded.failed(1, new IllegalArgumentException(describe(object) + " could not be encoded: " + e,
                e));
        }
    }

    /** One object a rank, concatenated; the own rank's is not encoded (it is returned as it is). */
    private Encoded encodeEach(final List<?> objects, final String call)
    {
        final int ranks = comm.size();
        if (objects == null || objects.size() != ranks)
        {
            return Encoded.failed(ranks, new IllegalArgumentException(call + " of objects takes one object a rank (" +
                ranks + "), not " + (objects == null ? "null" : objects.size())));
        }
        final byte[][] each = new byte[ranks][];
        final long[] lengths = new long[ranks];
        long total = 0;
        for (int r = 0; r < ranks; r++)
        {
            if (r == comm.rank())
            {
                each[r] = new byte[0];
                continue;
            }
            final Encoded one = encode(objects.get(r));
            if (one.failure != null)
            {
                return Encoded.failed(ranks, new IllegalArgumentException("element " + r + ": " +
                    one.failure.getMessage(), one.failure.getCause()));
            }
            each[r] = one.bytes;
            lengths[r] = one.bytes.length;
            total += one.bytes.length;
        }
        if (total > MAX_BYTES)
        {
            return Encoded.failed(ranks, new IllegalArgumentException(call + " of objects: they encode to " + total +
                " bytes, more than one Java array holds"));
        }
        final byte[] bytes = new byte[(int)total];
        int at = 0;
        for (final byte[] one : each)
        {
            System.arraycopy(one, 0, bytes, at, one.length);
            at += one.length;
        }
        return new Encoded(bytes, lengths, null);
    }

    @SuppressWarnings("unchecked")
    private <T> T decode(final String call, final int from, final byte[] bytes, final int offset, final int length)
    {
        try
        {
            return (T)codec.decode(bytes, offset, length);
        }
        catch (final RuntimeException | StackOverflowError e)
        {
            throw new JcclException(call + " of objects: the " + length + " bytes from rank " + from +
                " do not decode: " + e, e);
        }
    }

    /**
     * The objects of ranks 0 to {@code ranks} - 1 decoded from their blocks; the own rank's is {@code own}, as
     * passed, unless that is {@link #DECODE_OWN}.
     */
    private <T> List<T> decodeAll(final String call, final Object own, final Gathered gathered, final int ranks)
    {
        return decodeAll(call, own, gathered.all(), gathered.counts(), gathered.displs(), ranks);
    }

    @SuppressWarnings("unchecked")
    private <T> List<T> decodeAll(final String call, final Object own, final byte[] all, final int[] counts,
        final int[] displs, final int ranks)
    {
        final Object[] objects = new Object[ranks];
        JcclException failure = null;
        for (int r = 0; r < ranks; r++)
        {
            try
            {
                objects[r] = r == comm.rank() && own != DECODE_OWN ? own : decode(call, r, all, displs[r], counts[r]);
            }
            catch (final JcclException e)
            {
                if (failure == null)
                {
                    failure = e;
                }
                else
                {
                    failure.addSuppressed(e);
                }
            }
        }
        if (failure != null)
        {
            throw failure;
        }
        return (List<T>)Arrays.asList(objects);
    }

    /** {@code op} folded over {@code objects} from the first; null for none. */
    private static <T> T fold(final List<T> objects, final BinaryOperator<T> op)
    {
        if (objects.isEmpty())
        {
            return null;
        }
        T result = objects.get(0);
        for (int i = 1; i < objects.size(); i++)
        {
            result = op.apply(result, objects.get(i));
        }
        return result;
    }

    private static String describe(final Object object)
    {
        return object == null ? "null" : "an object of " + object.getClass().getName();
    }

    /** The bytes of every rank's object, concatenated in rank order, and each one's length and place. */
    private record Gathered(byte[] all, int[] counts, int[] displs)
    {
    }

    /** What a rank sends: the bytes and each destination's length, or why it could not encode them. */
    private static final class Encoded
    {
        /** A rank that sends nothing (not the root of a broadcast or scatter). */
        static final Encoded NOTHING = new Encoded(new byte[0], new long[] {0}, null);

        final byte[] bytes;
        final long[] lengths;
        final IllegalArgumentException failure;

        Encoded(final byte[] bytes, final long[] lengths, final IllegalArgumentException failure)
        {
            this.bytes = bytes;
            this.lengths = lengths;
            this.failure = failure;
        }

        static Encoded failed(final int destinations, final IllegalArgumentException failure)
        {
            final long[] lengths = new long[destinations];
            Arrays.fill(lengths, FAILED);
            return new Encoded(new byte[0], lengths, failure);
        }

        long length()
        {
            return lengths[0];
        }
    }
}
