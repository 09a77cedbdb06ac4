package io.jccl.algorithms;

import io.jccl.Collective;
import io.jccl.DataType;
import io.jccl.ReduceOp;
import io.jccl.algorithms.TestVectors.Failures;
import io.jccl.algorithms.TestVectors.Guarded;
import io.jccl.algorithms.TestVectors.Kind;
import io.jccl.algorithms.allreduce.ReduceBroadcastAllreduce;
import io.jccl.algorithms.barrier.DisseminationBarrier;
import io.jccl.algorithms.broadcast.BinomialBroadcast;
import io.jccl.algorithms.broadcast.ChainBroadcast;
import io.jccl.algorithms.scan.ChainScan;
import io.jccl.algorithms.broadcast.ScatterAllgatherBroadcast;
import io.jccl.spi.CollectiveAlgorithm;
import io.jccl.spi.CollectiveArgs;
import org.junit.jupiter.api.Named;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;
import java.util.stream.Stream;

import static io.jccl.algorithms.TestVectors.encode;
import static io.jccl.algorithms.TestVectors.reduced;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * Every algorithm of {@link TreeFamilyAlgorithms} on 1 to 8 ranks (powers of two and not), roots 0 and p - 1,
 * counts from 0 to 4099, several data types, every reduction op, in place and out of place: each rank's output is
 * compared bit for bit with a reference computed locally from the seeded inputs, send buffers must stay unchanged,
 * and buffers a rank must not use must stay untouched.
 */
@Timeout(60)
class TreeFamilyAlgorithmsTest
{
    private static final int[] SIZES = {1, 2, 3, 4, 5, 8};
    private static final long[] COUNTS = {0, 1, 7, 13, 1000, 4099};
    private static final DataType[] MOVE_TYPES =
        {DataType.INT8, DataType.INT32, DataType.FLOAT32, DataType.FLOAT64, DataType.BFLOAT16};
    private static final int SMALL_CHUNK_BYTES = 1000;

    /** One collective call; the same list drives every rank. */
    record Case(Collective collective, DataType type, ReduceOp op, int root, long count, boolean inPlace, long seed)
    {
    }

    static Stream<Arguments> algorithmsAndSizes()
    {
        final List<CollectiveAlgorithm> algorithms = new ArrayList<>(TreeFamilyAlgorithms.all());
        // the default 256 KiB chunk never splits these counts: also run chains that cut them into many chunks
        algorithms.add(new ChainBroadcast(SMALL_CHUNK_BYTES));
        algorithms.add(new ChainScan(SMALL_CHUNK_BYTES));
        final List<Arguments> arguments = new ArrayList<>();
        for (final CollectiveAlgorithm algorithm : algorithms)
        {
            for (final Collective collective : EnumSet.copyOf(algorithm.collectives()))
            {
                if (collective == Collective.BARRIER)
                {
                    continue;
                }
                final String label = collective.label() + "/" + algorithm.name() +
                    (algorithm instanceof ChainBroadcast chain && chain.chunkBytes() == SMALL_CHUNK_BYTES ||
                    algorithm instanceof ChainScan scan && scan.chunkBytes() == SMALL_CHUNK_BYTES ?
                    "(" + SMALL_CHUNK_BYTES + " B chunks)" : "");
                for (final int size : SIZES)
                {
                    arguments.add(Arguments.of(Named.of(label, algorithm), collective, size));
                }
            }
        }
        return arguments.stream();
    }

    @ParameterizedTest(name = "{0} on {2} ranks")
    @MethodSource("algorithmsAndSizes")
    void computesTheCollectiveBitForBit(final CollectiveAlgorithm algorithm, final Collective collective,
        final int size)
    {
        final List<Case> cases = cases(collective, size);
        final Failures failures = new Failures();
        final LocalJob job = new LocalJob(size, 4096, 4096);
        job.run(context ->
        {
            final CollectiveArgs args = new CollectiveArgs();
            for (final Case c : cases)
            {
                final int rank = context.rank();
                final Supplier<String> label = () -> collective.label() + "/" + algorithm.name() + " p=" + size +
                    " rank=" + rank + " " + c.type.label() + (c.op == null ? "" : " " + c.op.label()) + " root=" +
                    c.root + " count=" + c.count + (c.inPlace ? " in place" : "");
                final Runnable call = () ->
                {
                    context.begin();
                    algorithm.run(context, args);
                };
                switch (collective)
                {
                    case BROADCAST -> broadcast(c, rank, args, call, label, failures);
                    case REDUCE, ALLREDUCE, SCAN, EXSCAN -> reduce(c, rank, size, args, call, label, failures);
                    case ALLGATHER -> allgather(c, rank, size, args, call, label, failures);
                    case GATHER -> gather(c, rank, size, args, call, label, failures);
                    case GATHERV -> gatherv(c, rank, size, args, call, label, failures);
                    case SCATTER -> scatter(c, rank, size, args, call, label, failures);
                    case SCATTERV -> scatterv(c, rank, size, args, call, label, failures);
                    case ALLTOALL -> alltoall(c, rank, size, args, call, label, failures);
                    case ALLTOALLV -> alltoallv(c, rank, size, args, call, label, failures);
                    default -> fail("no check for " + collective);
                }
            }
        });
        failures.assertNone();
        assertTrue(failures.checks() >= cases.size() * size, "every rank checked every case");
    }

    private static List<Case> cases(final Collective collective, final int size)
    {
        final boolean rooted = collective == Collective.BROADCAST || collective == Collective.REDUCE ||
            collective == Collective.GATHER || collective == Collective.GATHERV || collective == Collective.SCATTER ||
            collective == Collective.SCATTERV;
        final boolean reduction = collective == Collective.REDUCE || collective == Collective.ALLREDUCE ||
            collective == Collective.SCAN || collective == Collective.EXSCAN;
        final int[] roots = !rooted || size == 1 ? new int[]{0} : new int[]{0, size - 1};
        final boolean[] placements = collective == Collective.BROADCAST ? new boolean[]{false} :
            new boolean[]{false, true};
        final DataType[] types = reduction ? DataType.values() : MOVE_TYPES;
        final ReduceOp[] ops = reduction ? ReduceOp.values() : new ReduceOp[]{null};

        final List<Case> cases = new ArrayList<>();
        for (final DataType type : types)
        {
            for (final int root : roots)
            {
                for (final long count : COUNTS)
                {
                    for (final boolean inPlace : placements)
                    {
                        for (final ReduceOp op : ops)
                        {
                            if (op != null && !op.reduces(type))
                            {
                                continue;
                            }
                            cases.add(new Case(collective, type, op, root, count, inPlace, cases.size() + 1));
                        }
                    }
                }
            }
        }
        return cases;
    }

    private static void broadcast(final Case c, final int rank, final CollectiveArgs args, final Runnable call,
        final Supplier<String> label, final Failures failures)
    {
        final byte[] expected = encode(c.type, c.seed, c.root, 0, c.count, Kind.MOVE);
        final Guarded buffer = new Guarded(expected.length);
        if (rank == c.root)
        {
            buffer.put(0, expected);
        }
        fill(args, c);
        args.recvBase = buffer.array;
        args.recvOffset = buffer.offset(0);
        call.run();
        failures.expect(label, "recv", expected, buffer, 0);
    }

    /**
     * REDUCE, ALLREDUCE, SCAN and EXSCAN; in place means send is recv (on the root only for REDUCE). A scan's result
     * reduces the inputs of ranks 0 to rank (to rank - 1 for EXSCAN, whose rank 0 has none and keeps its recv).
     */
    private static void reduce(final Case c, final int rank, final int size, final CollectiveArgs args,
        final Runnable call, final Supplier<String> label, final Failures failures)
    {
        final int reducedRanks = switch (c.collective)
        {
            case SCAN -> rank + 1;
            case EXSCAN -> rank;
            case REDUCE -> rank == c.root ? size : 0;
            default -> size;
        };
        final boolean hasResult = reducedRanks > 0;
        final byte[] input = encode(c.type, c.seed, rank, 0, c.count, Kind.of(c.op));
        final Guarded send = new Guarded(input.length).put(0, input);
        final Guarded recv = c.inPlace && (hasResult || c.collective == Collective.EXSCAN) ? send :
            new Guarded(input.length);
        fill(args, c);
        args.sendBase = send.array;
        args.sendOffset = send.offset(0);
        args.recvBase = recv.array;
        args.recvOffset = recv.offset(0);
        call.run();
        if (hasResult)
        {
            failures.expect(label, "result", reduced(c.type, c.op, c.seed, reducedRanks, c.count), recv, 0);
        }
        else if (recv != send)
        {
            failures.expectUntouched(label, "recv of a rank without a result", recv);
        }
        if (recv != send || !hasResult)
        {
            failures.expect(label, "send", input, send, 0);
        }
    }

    /** In place means send is the rank's own block of recv, as in MPI and NCCL. */
    private static void allgather(final Case c, final int rank, final int size, final CollectiveArgs args,
        final Runnable call, final Supplier<String> label, final Failures failures)
    {
        final byte[] input = encode(c.type, c.seed, rank, 0, c.count, Kind.MOVE);
        final Guarded recv = new Guarded((long)size * input.length);
        final Guarded send = c.inPlace ? recv.put((long)rank * input.length, input) :
            new Guarded(input.length).put(0, input);
        fill(args, c);
        args.sendBase = send.array;
        args.sendOffset = c.inPlace ? recv.offset((long)rank * input.length) : send.offset(0);
        args.recvBase = recv.array;
        args.recvOffset = recv.offset(0);
        call.run();
        failures.expect(label, "recv", allInputs(c, size), recv, 0);
        if (!c.inPlace)
        {
            failures.expect(label, "send", input, send, 0);
        }
    }

    /** In place means the root's send is its own block of recv. */
    private static void gather(final Case c, final int rank, final int size, final CollectiveArgs args,
        final Runnable call, final Supplier<String> label, final Failures failures)
    {
        final boolean root = rank == c.root;
        final boolean inPlace = c.inPlace && root;
        final byte[] input = encode(c.type, c.seed, rank, 0, c.count, Kind.MOVE);
        final Guarded recv = new Guarded((long)size * input.length);
        final Guarded send = inPlace ? recv.put((long)rank * input.length, input) :
            new Guarded(input.length).put(0, input);
        fill(args, c);
        args.sendBase = send.array;
        args.sendOffset = inPlace ? recv.offset((long)rank * input.length) : send.offset(0);
        args.recvBase = recv.array;
        args.recvOffset = recv.offset(0);
        call.run();
        if (root)
        {
            failures.expect(label, "recv", allInputs(c, size), recv, 0);
        }
        else
        {
            failures.expectUntouched(label, "recv of a non-root", recv);
        }
        if (!inPlace)
        {
            failures.expect(label, "send", input, send, 0);
        }
    }

    /** In place means the root's recv is its own block of send. */
    private static void scatter(final Case c, final int rank, final int size, final CollectiveArgs args,
        final Runnable call, final Supplier<String> label, final Failures failures)
    {
        final boolean root = rank == c.root;
        final boolean inPlace = c.inPlace && root;
        final byte[] rootInput = encode(c.type, c.seed, c.root, 0, size * c.count, Kind.MOVE);
        final long blockBytes = c.count * c.type.size();
        final Guarded send = new Guarded(rootInput.length);
        if (root)
        {
            send.put(0, rootInput);
        }
        final Guarded recv = inPlace ? send : new Guarded(blockBytes);
        fill(args, c);
        args.sendBase = send.array;
        args.sendOffset = send.offset(0);
        args.recvBase = recv.array;
        args.recvOffset = inPlace ? send.offset(rank * blockBytes) : recv.offset(0);
        call.run();
        failures.expect(label, "recv", encode(c.type, c.seed, c.root, rank * c.count, c.count, Kind.MOVE), recv,
            inPlace ? rank * blockBytes : 0);
        if (root)
        {
            failures.expect(label, "send", rootInput, send, 0);
        }
        else
        {
            failures.expectUntouched(label, "send of a non-root", send);
        }
    }

    /**
     * Rank j's uneven block (some empty) at displs[j] of the root's recv, blocks in reverse rank order one element
     * apart; in place means the root's send is its own block of recv. Non-roots get no displacements, as from the
     * communicator.
     */
    private static void gatherv(final Case c, final int rank, final int size, final CollectiveArgs args,
        final Runnable call, final Supplier<String> label, final Failures failures)
    {
        final boolean root = rank == c.root;
        final boolean inPlace = c.inPlace && root;
        final int elementSize = c.type.size();
        final int[] counts = new int[size];
        final int[] displs = new int[size];
        final int extent = vLayout(c, size, counts, displs);
        final byte[] input = encode(c.type, c.seed, rank, 0, counts[rank], Kind.MOVE);
        final Guarded recv = new Guarded((long)extent * elementSize);
        final long ownAt = (long)displs[rank] * elementSize;
        final Guarded send = inPlace ? recv.put(ownAt, input) : new Guarded(input.length).put(0, input);
        final byte[] expected = recv.content();
        fill(args, c);
        args.counts = counts;
        args.displs = root ? displs : null;
        args.sendBase = send.array;
        args.sendOffset = inPlace ? recv.offset(ownAt) : send.offset(0);
        args.recvBase = recv.array;
        args.recvOffset = recv.offset(0);
        call.run();
        if (root)
        {
            for (int source = 0; source < size; source++)
            {
                final byte[] block = encode(c.type, c.seed, source, 0, counts[source], Kind.MOVE);
                System.arraycopy(block, 0, expected, displs[source] * elementSize, block.length);
            }
            failures.expect(label, "recv", expected, recv, 0);
        }
        else
        {
            failures.expectUntouched(label, "recv of a non-root", recv);
        }
        if (!inPlace)
        {
            failures.expect(label, "send", input, send, 0);
        }
    }

    /**
     * Rank j receives the root's counts[j] elements at displs[j], in gatherv's layout; in place means the root's recv
     * is its own block of send. Non-roots get no displacements, as from the communicator.
     */
    private static void scatterv(final Case c, final int rank, final int size, final CollectiveArgs args,
        final Runnable call, final Supplier<String> label, final Failures failures)
    {
        final boolean root = rank == c.root;
        final boolean inPlace = c.inPlace && root;
        final int elementSize = c.type.size();
        final int[] counts = new int[size];
        final int[] displs = new int[size];
        final int extent = vLayout(c, size, counts, displs);
        final byte[] rootInput = encode(c.type, c.seed, c.root, 0, extent, Kind.MOVE);
        final Guarded send = new Guarded(rootInput.length);
        if (root)
        {
            send.put(0, rootInput);
        }
        final long ownAt = (long)displs[rank] * elementSize;
        final Guarded recv = inPlace ? send : new Guarded((long)counts[rank] * elementSize);
        fill(args, c);
        args.counts = counts;
        args.displs = root ? displs : null;
        args.sendBase = send.array;
        args.sendOffset = send.offset(0);
        args.recvBase = recv.array;
        args.recvOffset = inPlace ? send.offset(ownAt) : recv.offset(0);
        call.run();
        failures.expect(label, "recv", encode(c.type, c.seed, c.root, displs[rank], counts[rank], Kind.MOVE), recv,
            inPlace ? ownAt : 0);
        if (root)
        {
            failures.expect(label, "send", rootInput, send, 0);
        }
        else
        {
            failures.expectUntouched(label, "send of a non-root", send);
        }
    }

    /** gatherv's and scatterv's counts (0, n/2 or n) and displacements; returns the extent in elements. */
    private static int vLayout(final Case c, final int size, final int[] counts, final int[] displs)
    {
        final int n = (int)c.count;
        int extent = 0;
        for (int j = size - 1; j >= 0; j--)
        {
            counts[j] = n * ((j + 1) % 3) / 2;
            displs[j] = extent + 1;
            extent += counts[j] + 1;
        }
        return extent;
    }

    /** Block j of rank i's send goes to rank j; in place means send is recv. */
    private static void alltoall(final Case c, final int rank, final int size, final CollectiveArgs args,
        final Runnable call, final Supplier<String> label, final Failures failures)
    {
        final byte[] input = encode(c.type, c.seed, rank, 0, size * c.count, Kind.MOVE);
        final Guarded send = new Guarded(input.length).put(0, input);
        final Guarded recv = c.inPlace ? send : new Guarded(input.length);
        fill(args, c);
        args.sendBase = send.array;
        args.sendOffset = send.offset(0);
        args.recvBase = recv.array;
        args.recvOffset = recv.offset(0);
        call.run();
        final byte[][] blocks = new byte[size][];
        for (int source = 0; source < size; source++)
        {
            blocks[source] = encode(c.type, c.seed, source, rank * c.count, c.count, Kind.MOVE);
        }
        failures.expect(label, "recv", TestVectors.concat(blocks), recv, 0);
        if (!c.inPlace)
        {
            failures.expect(label, "send", input, send, 0);
        }
    }

    /**
     * Uneven blocks (some empty) with a gap of one element before each block; recv blocks lie in reverse rank order.
     * In place, counts are symmetric and send and recv share one layout.
     */
    private static void alltoallv(final Case c, final int rank, final int size, final CollectiveArgs args,
        final Runnable call, final Supplier<String> label, final Failures failures)
    {
        final int elementSize = c.type.size();
        final int[] sendCounts = new int[size];
        final int[] sendDispls = new int[size];
        final int sendExtent = sendLayout(c, rank, size, sendCounts, sendDispls);
        final int[] recvCounts = new int[size];
        final int[] recvDispls = new int[size];
        int recvExtent = 0;
        if (c.inPlace)
        {
            System.arraycopy(sendCounts, 0, recvCounts, 0, size);
            System.arraycopy(sendDispls, 0, recvDispls, 0, size);
            recvExtent = sendExtent;
        }
        else
        {
            for (int source = size - 1; source >= 0; source--)
            {
                recvCounts[source] = alltoallvCount(c, source, rank);
                recvDispls[source] = recvExtent + 1;
                recvExtent += recvCounts[source] + 1;
            }
        }

        final byte[] input = encode(c.type, c.seed, rank, 0, sendExtent, Kind.MOVE);
        final Guarded send = new Guarded(input.length).put(0, input);
        final Guarded recv = c.inPlace ? send : new Guarded((long)recvExtent * elementSize);
        final byte[] expected = recv.content();
        fill(args, c);
        args.sendBase = send.array;
        args.sendOffset = send.offset(0);
        args.recvBase = recv.array;
        args.recvOffset = recv.offset(0);
        args.sendCounts = sendCounts;
        args.sendDispls = sendDispls;
        args.recvCounts = recvCounts;
        args.recvDispls = recvDispls;
        call.run();

        final int[] sourceCounts = new int[size];
        final int[] sourceDispls = new int[size];
        for (int source = 0; source < size; source++)
        {
            sendLayout(c, source, size, sourceCounts, sourceDispls);
            final byte[] block = encode(c.type, c.seed, source, sourceDispls[rank], sourceCounts[rank], Kind.MOVE);
            System.arraycopy(block, 0, expected, recvDispls[source] * elementSize, block.length);
        }
        failures.expect(label, "recv", expected, recv, 0);
        if (!c.inPlace)
        {
            failures.expect(label, "send", input, send, 0);
        }
    }

    /** Rank {@code rank}'s send counts and displacements for ALLTOALLV; returns the extent in elements. */
    private static int sendLayout(final Case c, final int rank, final int size, final int[] counts,
        final int[] displs)
    {
        int extent = 0;
        for (int dest = 0; dest < size; dest++)
        {
            counts[dest] = alltoallvCount(c, rank, dest);
            displs[dest] = extent + 1;
            extent += counts[dest] + 1;
        }
        return extent;
    }

    /** Elements from {@code source} to {@code dest}: 0, n/2 or n; symmetric in place. */
    private static int alltoallvCount(final Case c, final int source, final int dest)
    {
        final int n = (int)c.count;
        return c.inPlace ? n * ((source + dest) % 3) / 2 : n * ((source + 2 * dest + 1) % 3) / 2;
    }

    private static byte[] allInputs(final Case c, final int size)
    {
        final byte[][] inputs = new byte[size][];
        for (int i = 0; i < size; i++)
        {
            inputs[i] = encode(c.type, c.seed, i, 0, c.count, Kind.MOVE);
        }
        return TestVectors.concat(inputs);
    }

    private static void fill(final CollectiveArgs args, final Case c)
    {
        args.clear();
        args.collective = c.collective;
        args.type = c.type;
        args.op = c.op;
        args.root = c.root;
        args.count = c.count;
    }

    // ------------------------------------------------------------------------------------------- special cases

    @ParameterizedTest(name = "{0} ranks")
    @ValueSource(ints = {1, 2, 3, 5, 8})
    void disseminationBarrierHoldsEveryRankUntilAllArrive(final int size)
    {
        final CollectiveAlgorithm barrier = new DisseminationBarrier();
        final int rounds = 30;
        final AtomicInteger arrived = new AtomicInteger();
        final Failures failures = new Failures();
        new LocalJob(size, 4096, 4096).run(context ->
        {
            final CollectiveArgs args = new CollectiveArgs();
            for (int round = 0; round < rounds; round++)
            {
                // a late rank that moves every round: without a barrier the others would overtake it
                if (context.rank() == round % size)
                {
                    Thread.sleep(1);
                }
                arrived.incrementAndGet();
                args.clear().collective = Collective.BARRIER;
                context.begin();
                barrier.run(context, args);
                final int seen = arrived.get();
                if (seen < (round + 1) * size)
                {
                    failures.add("rank " + context.rank() + " left barrier " + round + " after only " + seen +
                        " arrivals, expected " + (round + 1) * size);
                }
            }
        });
        failures.assertNone();
        assertEquals(rounds * size, arrived.get());
    }

    /** Several chunks of the default 256 KiB, the last one partial, on a chain that is not a power of two. */
    @Test
    void broadcastsLargeVectorsAcrossManyChunks()
    {
        final int size = 5;
        final int root = 3;
        final long count = 100_003;
        for (final CollectiveAlgorithm algorithm :
            List.of(new ChainBroadcast(), new BinomialBroadcast(), new ScatterAllgatherBroadcast()))
        {
            final Case c = new Case(Collective.BROADCAST, DataType.FLOAT64, null, root, count, false, 42);
            final Failures failures = new Failures();
            new LocalJob(size, 4096, 4096).run(context ->
            {
                final CollectiveArgs args = new CollectiveArgs();
                broadcast(c, context.rank(), args, () ->
                {
                    context.begin();
                    algorithm.run(context, args);
                }, () -> algorithm.name() + " rank " + context.rank(), failures);
            });
            failures.assertNone();
        }
    }

    /** Inexact float sums: the reduction order matters, yet every rank must hold the same bits. */
    @ParameterizedTest(name = "{0} ranks")
    @ValueSource(ints = {3, 5, 8})
    void allreduceResultIsBitwiseIdenticalOnEveryRank(final int size)
    {
        final CollectiveAlgorithm algorithm = new ReduceBroadcastAllreduce();
        final int count = 4099;
        final float[][] inputs = new float[size][count];
        final SplittableRandom random = new SplittableRandom(7);
        final double[] exact = new double[count];
        for (int rank = 0; rank < size; rank++)
        {
            for (int i = 0; i < count; i++)
            {
                inputs[rank][i] = (float)(random.nextDouble() * 2 - 1) * (1 << random.nextInt(20));
                exact[i] += inputs[rank][i];
            }
        }
        final byte[][] results = new byte[size][];
        new LocalJob(size, 4096, 4096).run(context ->
        {
            final int rank = context.rank();
            final ByteBuffer send = ByteBuffer.allocateDirect(count * 4).order(ByteOrder.nativeOrder());
            send.asFloatBuffer().put(inputs[rank]);
            final float[] recv = new float[count];
            final CollectiveArgs args = new CollectiveArgs();
            args.collective = Collective.ALLREDUCE;
            args.type = DataType.FLOAT32;
            args.op = ReduceOp.SUM;
            args.count = count;
            args.sendBase = null;
            args.sendOffset = org.agrona.BufferUtil.address(send);
            args.recvBase = recv;
            args.recvOffset = org.agrona.UnsafeApi.arrayBaseOffset(float[].class);
            context.begin();
            algorithm.run(context, args);
            final ByteBuffer bytes = ByteBuffer.allocate(count * 4).order(ByteOrder.nativeOrder());
            bytes.asFloatBuffer().put(recv);
            results[rank] = bytes.array();
            for (int i = 0; i < count; i++)
            {
                final double tolerance = 1e-5 * (1 << 20) * size;
                if (Math.abs(recv[i] - exact[i]) > tolerance)
                {
                    throw new AssertionError("rank " + rank + " element " + i + ": " + recv[i] + " vs " + exact[i]);
                }
            }
        });
        for (int rank = 1; rank < size; rank++)
        {
            assertArrayEquals(results[0], results[rank], "rank " + rank + " differs from rank 0");
        }
    }

    @Test
    void catalogHasOneUniqueNamePerCollectiveAndCoversTheBrief()
    {
        final Set<String> seen = new HashSet<>();
        final Set<Collective> covered = EnumSet.noneOf(Collective.class);
        final CollectiveArgs args = new CollectiveArgs();
        for (final CollectiveAlgorithm algorithm : TreeFamilyAlgorithms.all())
        {
            assertTrue(!algorithm.description().isBlank(), algorithm.name());
            for (final Collective collective : algorithm.collectives())
            {
                assertTrue(seen.add(collective.label() + "/" + algorithm.name()), "duplicate " + algorithm.name());
                covered.add(collective);
                args.clear().collective = collective;
                assertNull(algorithm.unsupportedReason(args, 8, null));
            }
        }
        assertEquals(EnumSet.of(Collective.BARRIER, Collective.BROADCAST, Collective.REDUCE, Collective.ALLREDUCE,
            Collective.ALLGATHER, Collective.ALLTOALL, Collective.ALLTOALLV, Collective.GATHER, Collective.GATHERV,
            Collective.SCATTER, Collective.SCATTERV, Collective.SCAN, Collective.EXSCAN), covered);
        assertEquals(Set.of("broadcast/binomial", "broadcast/chain", "broadcast/scatter_allgather",
            "reduce/binomial", "allreduce/reduce_broadcast", "allgather/bruck", "alltoall/pairwise",
            "alltoall/bruck", "alltoallv/pairwise", "gather/linear", "gatherv/linear", "gather/binomial",
            "scatter/linear", "scatterv/linear", "scatter/binomial", "barrier/dissemination", "scan/chain",
            "exscan/chain"), seen);
        final Set<Class<?>> classes = new HashSet<>();
        for (final CollectiveAlgorithm algorithm : TreeFamilyAlgorithms.all())
        {
            assertTrue(classes.add(algorithm.getClass()), "one instance of " + algorithm.getClass().getSimpleName());
        }
    }
}
