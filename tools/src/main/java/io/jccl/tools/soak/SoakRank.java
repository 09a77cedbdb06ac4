package io.jccl.tools.soak;

import io.jccl.Buf;
import io.jccl.CollectiveRequest;
import io.jccl.Communicator;
import io.jccl.DataType;
import io.jccl.Jccl;
import io.jccl.ReduceOp;
import io.jccl.algorithms.AlgorithmRegistry;
import io.jccl.engine.ShmCommunicator;
import io.jccl.spi.CollectiveArgs;
import io.jccl.tools.UsageException;
import io.jccl.tools.bench.BenchCall;
import io.jccl.tools.bench.BenchOp;
import io.jccl.tools.bench.SeededData;
import io.jccl.tools.soak.SoakOptions.Group;
import io.jccl.tools.soak.SoakOptions.Memory;
import org.agrona.MutableDirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.SplittableRandom;

/**
 * One rank of {@code ./jccl soak}: random operations (every {@link BenchOp}, every datatype and reduction, every
 * algorithm of the collective or jccl's own choice, sizes log-uniform up to {@code --max-bytes}, a random root,
 * buffers in direct, heap or shared memory, on the job's communicator, a duplicate or a split of it), each from fresh seeded inputs and checked against the reference every
 * rank computes locally ({@link SeededData}, as {@code bench --check}). One step in {@link #BATCH_EVERY} starts one
 * to {@link #MAX_IN_FLIGHT} non-blocking collectives, makes a blocking call while they run, then waits for them and
 * checks them all; the calls of a batch share the regions, each in a slot of its own. Every rank draws the same
 * calls from the same seed, so no call is negotiated (the two groups of the split run the calls of their draws
 * side by side); a forced algorithm that cannot serve a call is skipped by all ranks together. Every {@link #CONTROL_EVERY} steps the ranks send rank 0 their counts and resident memory; rank 0
 * prints progress and says when the time is up. Exits with 1 when any result was wrong.
 */
public final class SoakRank
{
    /** Steps between two control rounds (counts to rank 0, "go on" or "stop" back). */
    static final int CONTROL_EVERY = 16;
    /** With non-blocking calls on, one step in this many is a batch. */
    static final int BATCH_EVERY = 4;
    /** The most non-blocking calls in flight in one batch. */
    static final int MAX_IN_FLIGHT = 3;
    /** A batch's slots start at multiples of this (a cache line; a whole number of elements of every type). */
    private static final int SLOT_ALIGNMENT = 64;
    private static final String DEFAULT_ALGORITHM = "default";
    /** The operations a non-blocking call draws from: every collective. */
    private static final BenchOp[] COLLECTIVES = Arrays.stream(BenchOp.values())
        .filter(op -> op.collective() != null).toArray(BenchOp[]::new);

    private final Communicator comm;
    private final SoakOptions options;
    private final PrintStream out;
    private final int rank;
    private final int ranks;
    private final SplittableRandom random;
    private final Memory[] memories;
    private final Group[] groups;
    /** By {@link Group}: this rank's communicator of the group, null for groups the options leave out. */
    private final Communicator[] communicators = new Communicator[Group.values().length];
    /** Direct and heap regions, which serve every group. */
    private final Map<Memory, Regions> regions = new EnumMap<>(Memory.class);
    /** Shared regions by group: a communicator reads in place only buffers in its own segment. */
    private final Map<Group, Regions> sharedRegions = new EnumMap<>(Group.class);
    private final Map<String, Communicator> views = new HashMap<>();
    private final Map<BenchOp, List<String>> algorithms = new HashMap<>();
    private final CollectiveArgs probe = new CollectiveArgs();
    private final long[] flag = new long[1];
    /** Per rank, what it sends rank 0 at each control round: see {@link SoakReport#update}. */
    private final long[] mine = new long[SoakReport.FIELDS];
    private final long[] everyone;
    private final long[] verdict = new long[2];
    /** Operations by kind, by memory and non-blocking: see {@link SoakReport#TALLY_LENGTH}. */
    private final long[] tally = new long[SoakReport.TALLY_LENGTH];
    private final int maxInFlight;

    private long ops;
    private long skipped;
    private long wrong;

    SoakRank(final Communicator comm, final SoakOptions options, final PrintStream out)
    {
        this.comm = comm;
        this.options = options;
        this.out = out;
        this.rank = comm.rank();
        this.ranks = comm.size();
        this.random = new SplittableRandom(options.seed());
        this.memories = options.memory().toArray(Memory[]::new);
        this.groups = options.groups().toArray(Group[]::new);
        for (final Group group : groups)
        {
            communicators[group.ordinal()] = switch (group)
            {
                case WORLD -> comm;
                case DUP -> comm.dup();
                case SPLIT -> comm.split(rank % 2, -rank);
            };
        }
        final int bytes = Math.toIntExact(options.maxBytes());
        for (final Memory memory : memories)
        {
            if (memory != Memory.SHARED)
            {
                regions.put(memory, Regions.allocate(memory, bytes, comm));
                continue;
            }
            for (final Group group : groups)
            {
                sharedRegions.put(group, Regions.allocate(memory, bytes, communicators[group.ordinal()]));
            }
        }
        for (final BenchOp op : BenchOp.values())
        {
            final List<String> names = new ArrayList<>();
            names.add(DEFAULT_ALGORITHM);
            if (op.collective() != null)
            {
                names.addAll(AlgorithmRegistry.instance().of(op.collective()).keySet());
            }
            algorithms.put(op, names);
        }
        this.everyone = new long[mine.length * ranks];
        this.maxInFlight = options.nonBlocking() ?
            (int) Math.min(MAX_IN_FLIGHT, options.maxBytes() / SLOT_ALIGNMENT - 1) : 0;
    }

    public static void main(final String[] args)
    {
        final SoakOptions options;
        try
        {
            options = SoakOptions.parse(args);
        }
        catch (final UsageException ex)
        {
            System.err.println("soak: " + ex.getMessage());
            System.exit(2);
            return;
        }
        final boolean allRight;
        try (Communicator comm = Jccl.connect())
        {
            final SoakRank soak = new SoakRank(comm, options, System.out);
            allRight = soak.run();
            soak.closeGroups();
        }
        System.exit(allRight ? 0 : 1);
    }

    /** Runs until rank 0 says the time is up; true when every result of every rank was right. */
    boolean run()
    {
        final SoakReport report = rank == 0 ? new SoakReport(options, ranks, out) : null;
        if (report != null)
        {
            report.start();
        }
        for (long step = 0; ; step++)
        {
            if (step % CONTROL_EVERY == 0 && !control(report))
            {
                return verdict[1] == 0;
            }
            runStep(step);
        }
    }

    /** Closes the duplicate and the split (the job's communicator is the caller's). */
    void closeGroups()
    {
        for (final Communicator c : communicators)
        {
            if (c != null && c != comm)
            {
                c.close();
            }
        }
    }

    /**
     * One blocking call, or a batch: non-blocking calls in slots 0 to k − 1 of the regions, the blocking call in slot
     * k while they run, then the wait for them. (Without non-blocking calls nothing is drawn for batches, so a seed
     * makes the calls it made before batches existed.)
     */
    private void runStep(final long step)
    {
        final int inFlight = maxInFlight > 0 && random.nextInt(BATCH_EVERY) == 0 ? 1 + random.nextInt(maxInFlight) : 0;
        if (inFlight == 0)
        {
            final Call call = drawBlocking(step, 0, options.maxBytes());
            if (call != null)
            {
                call.run();
                check(call);
            }
            return;
        }
        final long slotBytes = options.maxBytes() / (inFlight + 1) / SLOT_ALIGNMENT * SLOT_ALIGNMENT;
        final Call[] started = new Call[inFlight];
        for (int slot = 0; slot < inFlight; slot++)
        {
            started[slot] = drawNonBlocking(step, slot, slotBytes);
            started[slot].request = started[slot].call.start(0);
        }
        final Call beside = drawBlocking(step, inFlight, slotBytes);
        if (beside != null)
        {
            beside.run();
            check(beside);
        }
        for (final Call call : started)
        {
            call.request.await();
            check(call);
        }
    }

    /**
     * A blocking call in {@code slot}, ready to run; null when its forced algorithm cannot serve it on some rank
     * (skipped). (The draws that have one choice draw nothing, so that a seed with one memory and the job's
     * communicator alone makes the calls it made before those choices existed.)
     */
    private Call drawBlocking(final long step, final int slot, final long slotBytes)
    {
        final BenchOp[] kinds = BenchOp.values();
        final BenchOp op = kinds[random.nextInt(kinds.length)];
        final DataType type = DataType.values()[random.nextInt(DataType.values().length)];
        final ReduceOp reduceOp = ReduceOp.values()[random.nextInt(ReduceOp.values().length)];
        final List<String> names = algorithms.get(op);
        final String algorithm = names.get(random.nextInt(names.size()));
        final int anyRoot = random.nextInt(ranks);
        final Group group = drawGroup();
        final Communicator on = communicators[group.ordinal()];
        final long count = count(op, type, slotBytes, on.size());
        final Memory memory = drawMemory();

        final Communicator view = DEFAULT_ALGORITHM.equals(algorithm) ? on :
            views.computeIfAbsent(group.label() + ":" + op.collective().label() + ":" + algorithm, k ->
                on.withAlgorithm(op.collective().label() + ":" + algorithm));
        final Call call = prepare(step, slot, slotBytes, view, group, op, type, reduceOp, anyRoot % on.size(), count,
            memory, algorithm);
        if (refusedAnywhere(view != on, op, view, call.call, count * type.size()))
        {
            skipped++;
            return null;
        }
        return call;
    }

    /** A non-blocking collective in {@code slot}, ready to start: jccl chooses its algorithm. */
    private Call drawNonBlocking(final long step, final int slot, final long slotBytes)
    {
        final BenchOp op = COLLECTIVES[random.nextInt(COLLECTIVES.length)];
        final DataType type = DataType.values()[random.nextInt(DataType.values().length)];
        final ReduceOp reduceOp = ReduceOp.values()[random.nextInt(ReduceOp.values().length)];
        final int anyRoot = random.nextInt(ranks);
        final Group group = drawGroup();
        final Communicator on = communicators[group.ordinal()];
        final long count = count(op, type, slotBytes, on.size());
        final Memory memory = drawMemory();
        return prepare(step, slot, slotBytes, on, group, op, type, reduceOp, anyRoot % on.size(), count, memory,
            "non-blocking");
    }

    private Memory drawMemory()
    {
        return memories.length == 1 ? memories[0] : memories[random.nextInt(memories.length)];
    }

    private Group drawGroup()
    {
        return groups.length == 1 ? groups[0] : groups[random.nextInt(groups.length)];
    }

    /** The call on its slot of {@code memory}'s regions, its inputs filled and its outputs poisoned. */
    private Call prepare(final long step, final int slot, final long slotBytes, final Communicator view,
        final Group group, final BenchOp op, final DataType type, final ReduceOp reduceOp, final int root,
        final long count, final Memory memory, final String algorithm)
    {
        final Regions memoryRegions = memory == Memory.SHARED ? sharedRegions.get(group) : regions.get(memory);
        final BenchCall.Regions slotRegions = memoryRegions.slot(type, slot * slotBytes, slotBytes);
        final BenchCall call = BenchCall.create(op, view, slotRegions, count, 1, 0, root, reduceOp);
        // the blocking call of a step without a batch keeps the seed it had before batches existed
        final SeededData data = new SeededData(type, reduceOp, op.reducing() && reduceOp == ReduceOp.PROD,
            view.size(), options.seed() + step + ((long) slot << 40));
        data.fill(slotRegions.sendRegion(), view.rank(), op.sendBytes(count * type.size(), view.size()) / type.size());
        call.prepareCheck(data, slotRegions.recvRegion());
        return new Call(step, call, data, slotRegions.recvRegion(), group, view.size(), op, type, reduceOp, count,
            root, memory, algorithm);
    }

    /** Counts the call and checks its result. */
    private void check(final Call c)
    {
        if (!c.runs())
        {
            return;
        }
        final long bad = c.call.wrong(c.data, c.recvRegion);
        ops++;
        tally[c.op.ordinal()]++;
        tally[SoakReport.TALLY_MEMORY + c.memory.ordinal()]++;
        tally[SoakReport.TALLY_GROUP + c.group.ordinal()]++;
        if (c.request != null)
        {
            tally[SoakReport.TALLY_NON_BLOCKING]++;
        }
        if (bad > 0)
        {
            wrong += bad;
            System.err.println(String.format(Locale.ROOT, "WRONG step %d: %s %s %s %s, %d elements, root %d, %s " +
                "memory, %s communicator: %d wrong elements on rank %d", c.step, c.op.label(), c.algorithm,
                c.type.label(), c.reduceOp.label(), c.count, c.root, c.memory.label(), c.group.label(), bad, rank));
        }
    }

    /**
     * Elements of the whole vector: log-uniform from 1 to what {@code maxBytes} holds, whole blocks of
     * {@code ranks} ranks for blocked ops.
     */
    private long count(final BenchOp op, final DataType type, final long maxBytes, final int ranks)
    {
        final long maxElements = maxBytes / type.size();
        final double exponent = random.nextDouble() * (Math.log(maxElements) / Math.log(2));
        long count = Math.max(1, (long) Math.pow(2, exponent));
        count += random.nextLong(count);
        count = Math.min(count, maxElements);
        if (op.blocked())
        {
            count = Math.max(1, count / ranks) * ranks;
            while (count > maxElements)
            {
                count -= ranks;
            }
        }
        return count;
    }

    /**
     * True when a forced algorithm cannot serve the call on some rank: every rank then skips it (those of both groups
     * of the split, which keeps every rank on the same draws).
     */
    private boolean refusedAnywhere(final boolean forced, final BenchOp op, final Communicator view,
        final BenchCall call, final long bytes)
    {
        long refused = 0;
        if (forced && view instanceof ShmCommunicator shm && op.collective() != null)
        {
            try
            {
                shm.algorithmFor(call.describe(probe), bytes);
            }
            catch (final IllegalArgumentException | IllegalStateException ex)
            {
                refused = 1;
            }
        }
        flag[0] = refused;
        comm.allreduce(Buf.of(flag), ReduceOp.MAX);
        return flag[0] > 0;
    }

    /** Counts and memory to rank 0; rank 0's verdict back. Returns false when the soak is over. */
    private boolean control(final SoakReport report)
    {
        mine[0] = ops;
        mine[1] = wrong;
        mine[2] = skipped;
        residentKiB(mine, 3);
        comm.gather(Buf.of(mine), Buf.of(everyone), 0);
        if (report != null)
        {
            final boolean over = report.update(everyone, tally);
            verdict[0] = over ? 1 : 0;
            verdict[1] = report.totalWrong();
        }
        comm.broadcast(Buf.of(verdict), 0);
        return verdict[0] == 0;
    }

    /**
     * Resident memory of this process from /proc/self/status, KiB, into {@code into[at..at+2]}: all of it (VmRSS),
     * anonymous (heap, native allocations, code), shared (the job segment's pages this rank has touched); -1 when
     * /proc cannot say.
     */
    static void residentKiB(final long[] into, final int at)
    {
        into[at] = -1;
        into[at + 1] = -1;
        into[at + 2] = -1;
        try
        {
            for (final String line : Files.readAllLines(Path.of("/proc/self/status")))
            {
                final int field = line.startsWith("VmRSS:") ? 0 : line.startsWith("RssAnon:") ? 1 :
                    line.startsWith("RssShmem:") ? 2 : -1;
                if (field >= 0)
                {
                    final String value = line.substring(line.indexOf(':') + 1).trim();
                    into[at + field] = Long.parseLong(value.substring(0, value.indexOf(' ')));
                }
            }
        }
        catch (final IOException | RuntimeException ex)
        {
            // reported as unknown
        }
    }

    /** One call of a step and what checking it needs; {@code request} is set once a non-blocking call started. */
    private static final class Call
    {
        final long step;
        final BenchCall call;
        final SeededData data;
        final MutableDirectBuffer recvRegion;
        final Group group;
        final int groupSize;
        final BenchOp op;
        final DataType type;
        final ReduceOp reduceOp;
        final long count;
        final int root;
        final Memory memory;
        final String algorithm;
        CollectiveRequest request;

        /** False for a ping-pong in a group of one rank, which has nobody to play with. */
        boolean runs()
        {
            return op != BenchOp.PINGPONG || groupSize > 1;
        }

        void run()
        {
            if (runs())
            {
                call.run(0);
            }
        }

        Call(final long step, final BenchCall call, final SeededData data, final MutableDirectBuffer recvRegion,
            final Group group, final int groupSize, final BenchOp op, final DataType type, final ReduceOp reduceOp,
            final long count, final int root, final Memory memory, final String algorithm)
        {
            this.step = step;
            this.call = call;
            this.data = data;
            this.recvRegion = recvRegion;
            this.group = group;
            this.groupSize = groupSize;
            this.op = op;
            this.type = type;
            this.reduceOp = reduceOp;
            this.count = count;
            this.root = root;
            this.memory = memory;
            this.algorithm = algorithm;
        }
    }

    /** One kind of memory's send and receive regions: raw bytes (to fill and check) and a buffer of every type. */
    private record Regions(MutableDirectBuffer send, MutableDirectBuffer recv, Map<DataType, Buf> sendBufs,
        Map<DataType, Buf> recvBufs)
    {
        static Regions allocate(final Memory memory, final int bytes, final Communicator comm)
        {
            final Map<DataType, Buf> sendBufs = new EnumMap<>(DataType.class);
            final Map<DataType, Buf> recvBufs = new EnumMap<>(DataType.class);
            switch (memory)
            {
                case DIRECT, HEAP ->
                {
                    final ByteBuffer send = memory == Memory.DIRECT ? ByteBuffer.allocateDirect(bytes) :
                        ByteBuffer.wrap(new byte[bytes]);
                    final ByteBuffer recv = memory == Memory.DIRECT ? ByteBuffer.allocateDirect(bytes) :
                        ByteBuffer.wrap(new byte[bytes]);
                    send.order(ByteOrder.nativeOrder());
                    recv.order(ByteOrder.nativeOrder());
                    for (final DataType type : DataType.values())
                    {
                        sendBufs.put(type, Buf.of(send, type));
                        recvBufs.put(type, Buf.of(recv, type));
                    }
                    return new Regions(new UnsafeBuffer(send), new UnsafeBuffer(recv), sendBufs, recvBufs);
                }
                default ->
                {
                    final Buf send = comm.allocateShared(bytes, DataType.INT8);
                    final Buf recv = comm.allocateShared(bytes, DataType.INT8);
                    for (final DataType type : DataType.values())
                    {
                        sendBufs.put(type, retyped(send, type));
                        recvBufs.put(type, retyped(recv, type));
                    }
                    return new Regions(new UnsafeBuffer(send.offset(), bytes), new UnsafeBuffer(recv.offset(), bytes),
                        sendBufs, recvBufs);
                }
            }
        }

        /** The same shared bytes as elements of {@code type}. */
        private static Buf retyped(final Buf shared, final DataType type)
        {
            return Buf.ofShared(shared.offset(), shared.segmentOffset(), shared.bytes() / type.size(), type, shared);
        }

        /** {@code bytes} from byte {@code from} of both regions, as elements of {@code type}. */
        BenchCall.Regions slot(final DataType type, final long from, final long bytes)
        {
            final int size = type.size();
            return new BenchCall.Regions(new UnsafeBuffer(send, (int) from, (int) bytes),
                new UnsafeBuffer(recv, (int) from, (int) bytes), sendBufs.get(type).slice(from / size, bytes / size),
                recvBufs.get(type).slice(from / size, bytes / size));
        }
    }
}
