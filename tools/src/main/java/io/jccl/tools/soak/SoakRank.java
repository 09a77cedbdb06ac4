package io.jccl.tools.soak;

import io.jccl.Buf;
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
import org.agrona.concurrent.UnsafeBuffer;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.SplittableRandom;

/**
 * One rank of {@code ./jccl soak}: random operations (every {@link BenchOp}, every datatype and reduction, every
 * algorithm of the collective or jccl's own choice, sizes log-uniform up to {@code --max-bytes}, a random root),
 * each from fresh seeded inputs and checked against the reference every rank computes locally ({@link SeededData},
 * as {@code bench --check}). Every rank draws the same calls from the same seed, so no call is negotiated; a forced
 * algorithm that cannot serve a call is skipped by all ranks together. Every {@link #CONTROL_EVERY} operations the
 * ranks send rank 0 their counts and resident memory; rank 0 prints progress and says when the time is up.
 * Exits with 1 when any result was wrong.
 */
public final class SoakRank
{
    /** Operations between two control rounds (counts to rank 0, "go on" or "stop" back). */
    static final int CONTROL_EVERY = 16;
    private static final String DEFAULT_ALGORITHM = "default";

    private final Communicator comm;
    private final SoakOptions options;
    private final PrintStream out;
    private final int rank;
    private final int ranks;
    private final SplittableRandom random;
    private final UnsafeBuffer sendRegion;
    private final UnsafeBuffer recvRegion;
    private final Map<DataType, BenchCall.Regions> regions = new HashMap<>();
    private final Map<String, Communicator> views = new HashMap<>();
    private final Map<BenchOp, List<String>> algorithms = new HashMap<>();
    private final CollectiveArgs probe = new CollectiveArgs();
    private final long[] flag = new long[1];
    /** Per rank, what it sends rank 0 at each control round: see {@link SoakReport#update}. */
    private final long[] mine = new long[SoakReport.FIELDS];
    private final long[] everyone;
    private final long[] verdict = new long[2];
    private final long[] opsByKind = new long[BenchOp.values().length];

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
        final int bytes = Math.toIntExact(options.maxBytes());
        final ByteBuffer send = ByteBuffer.allocateDirect(bytes).order(ByteOrder.nativeOrder());
        final ByteBuffer recv = ByteBuffer.allocateDirect(bytes).order(ByteOrder.nativeOrder());
        this.sendRegion = new UnsafeBuffer(send);
        this.recvRegion = new UnsafeBuffer(recv);
        for (final DataType type : DataType.values())
        {
            regions.put(type, new BenchCall.Regions(sendRegion, recvRegion, Buf.of(send, type), Buf.of(recv, type)));
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
            allRight = new SoakRank(comm, options, System.out).run();
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
            runOne(step);
        }
    }

    /** One random operation, checked. */
    private void runOne(final long step)
    {
        final BenchOp[] kinds = BenchOp.values();
        final BenchOp op = kinds[random.nextInt(kinds.length)];
        final DataType type = DataType.values()[random.nextInt(DataType.values().length)];
        final ReduceOp reduceOp = ReduceOp.values()[random.nextInt(ReduceOp.values().length)];
        final List<String> names = algorithms.get(op);
        final String algorithm = names.get(random.nextInt(names.size()));
        final int root = random.nextInt(ranks);
        final long count = count(op, type);

        final Communicator view = DEFAULT_ALGORITHM.equals(algorithm) ? comm :
            views.computeIfAbsent(op.collective().label() + ":" + algorithm, comm::withAlgorithm);
        final BenchCall.Regions typed = regions.get(type);
        final BenchCall call = BenchCall.create(op, view, typed, count, 1, 0, root, reduceOp);
        if (refusedAnywhere(op, view, call, count * type.size()))
        {
            skipped++;
            return;
        }
        final SeededData data = new SeededData(type, reduceOp, op.reducing() && reduceOp == ReduceOp.PROD, ranks,
            options.seed() + step);
        data.fill(sendRegion, rank, op.sendBytes(count * type.size(), ranks) / type.size());
        call.prepareCheck(data, recvRegion);
        call.run(0);
        final long bad = call.wrong(data, recvRegion);
        ops++;
        opsByKind[op.ordinal()]++;
        if (bad > 0)
        {
            wrong += bad;
            System.err.println(String.format(Locale.ROOT, "WRONG step %d: %s %s %s %s, %d elements, root %d: %d " +
                "wrong elements on rank %d", step, op.label(), algorithm, type.label(), reduceOp.label(), count, root,
                bad, rank));
        }
    }

    /** Elements of the whole vector: log-uniform from 1 to the largest message, whole blocks for blocked ops. */
    private long count(final BenchOp op, final DataType type)
    {
        final long maxElements = options.maxBytes() / type.size();
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

    /** True when a forced algorithm cannot serve the call on some rank: every rank then skips it. */
    private boolean refusedAnywhere(final BenchOp op, final Communicator view, final BenchCall call, final long bytes)
    {
        long refused = 0;
        if (view != comm && view instanceof ShmCommunicator shm && op.collective() != null)
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
            final boolean over = report.update(everyone, opsByKind);
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
}
