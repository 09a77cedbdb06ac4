package io.jccl.tools.bench;

import io.jccl.Buf;
import io.jccl.Communicator;
import io.jccl.DataType;
import io.jccl.ReduceOp;
import io.jccl.engine.PaceProbe;
import io.jccl.engine.ShmCommunicator;
import io.jccl.spi.CollectiveArgs;
import org.agrona.concurrent.UnsafeBuffer;

import java.io.IOException;
import java.io.PrintStream;
import java.lang.management.CompilationMXBean;
import java.lang.management.ManagementFactory;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.locks.LockSupport;

/**
 * The sweep every rank runs: the plan's steps in their order (an operation size by size, its algorithms in turn),
 * every rank measuring the same calls in lockstep; rank 0 prints an operation's rows, block by block, once its last
 * step has run.
 * <p>
 * Per size: the communicator says which algorithm it will use (or why a forced one cannot serve the call: then
 * every rank skips the size); one untimed call, then the warm-up, each rank timing both and all agreeing on the
 * slowest rank's time per call to choose the same number of timed iterations ({@link Iterations}); a barrier; each
 * rank times its own loop (with --sync, a barrier before every call and the calls timed one by one), and times it
 * again when the JIT compiled for a tenth of its time meanwhile or, while every rank has a core, a fifth of the calls
 * took far longer than the others; with --check one more call on set 0 from seeded data, compared with the reference.
 * Rank 0 gathers every rank's mean time and wrong count. Bookkeeping uses the communicator's own algorithms, never
 * the forced one.
 */
public final class BenchSweep
{
    /** Lines rank 0 writes on stderr with this prefix pass through the command unprefixed (progress, notes). */
    public static final String NOTE_PREFIX = "jccl bench: ";
    /** Seed of the --check inputs. */
    public static final long SEED = 0x6A63636C_62656E63L;
    private static final long PROGRESS_AFTER_NANOS = 3_000_000_000L;
    private static final long PROGRESS_EVERY_NANOS = 1_000_000_000L;
    /** Warm-ups of one size, each after the compilations of the one before have finished. */
    private static final int WARMUP_PASSES = 3;
    private static final long COMPILER_WAIT_NANOS = 3_000_000_000L;
    private static final long COMPILER_POLL_NANOS = 10_000_000L;
    private static final int COMPILER_QUIET_POLLS = 3;
    /** Timings of one size repeated, at most, because the JIT compiled while they ran or something stalled them. */
    private static final int RETIMES = 2;
    /**
     * A timing during which some rank's JIT compiled for at least this share of the loop's wall time is timed again.
     * Less compiling than that moves the timing less than the noise does: in eight sweeps of every collective to
     * 8 MiB (2 and 4 ranks, 2 cores), timings with under a tenth timed again came out at 0.98-1.00x the first at the
     * median and over 1.2x at 8 of 40 rows, where timings with a tenth to a fifth came out at 0.82x, and with more at
     * 0.55-0.73x.
     */
    private static final double COMPILING_RETIMED = 0.1;
    /**
     * A timing whose slowest block ({@link TimingBlocks}) took more than this many times its median block's time per
     * call on some rank was stalled, and is timed again, while every rank has a core: then a stall comes from outside
     * the job. While ranks share cores the scheduler's pauses are part of what the job does, and stay in the timing
     * (a 4-rank sweep on 2 cores had one fifth of a size 1.5-36x slower than the median fifth at 17-23 of 125 rows).
     */
    static final double DISTURBED = 2.0;
    private static final CompilationMXBean COMPILER = ManagementFactory.getCompilationMXBean();
    /**
     * Groups of {@link #PROBE_GROUP_ROUND_TRIPS} timed round trips in the pingpong after each row
     * ({@link BenchResult#probeUs}), after as many untimed ones: the probe is the median group's, so that a JIT
     * compiler thread taking a core for a moment (the first seconds of a job) moves one group, not the probe.
     */
    private static final int PROBE_GROUPS = 11;
    private static final int PROBE_GROUP_ROUND_TRIPS = 10;
    /**
     * Groups of round trips before the first row, untimed, as many calls as the JIT needs to compile the probe's own
     * loop fully: without them a sweep that starts with collectives that send no point-to-point message ran the
     * probe's first rows in the interpreter (2-92 µs where it reads 0.1-0.5 once compiled, 2 ranks, a broadcast
     * sweep), and one long warm-up loop left the short calls that follow in the first tier (0.16 µs where a pingpong
     * takes 0.10).
     */
    private static final int PROBE_WARM_UP_GROUPS = 5_000;
    private final long[] probeGroupNanos = new long[PROBE_GROUPS];
    private static final int PROBE_TAG = BenchCall.PING_TAG + 1;
    /**
     * Bytes of the handoff probe's allgather ({@link BenchResult#handoffUs}), through the staging areas (shm_direct):
     * every rank copies its block in and every peer's block out, lines just written on another core, so its time is
     * the cores' handoff at that moment, whichever ranks share a core. 4 ranks on 2 cores: 63-93 µs when handoffs
     * were fast, 126-228 when slow, where the 8-byte probe read 0.19-6.8 µs either way, and a 512 KiB message between
     * ranks 0 and 1 alone read 28-48 µs at either pace whenever the two shared a core (2026-11-27, AMD VM). The
     * engine's own probe ({@link PaceProbe}) is the same measurement, so that a tuning file's threshold drawn from
     * this one holds for it.
     */
    static final int HANDOFF_PROBE_BYTES = PaceProbe.BYTES;
    private final long[] handoffNanos = new long[PaceProbe.CALLS];
    private final Runnable handoffCall = this::handoffCall;
    /** The view that runs the handoff probe: null with one rank, or when shm_direct cannot serve it. */
    private Communicator handoffView;
    /** The probe's buffers: null with one rank. */
    private final Buf handoffSend;
    private final Buf handoffRecv;

    private final Communicator comm;
    private final BenchOptions options;
    private final BenchPlan plan;
    private final PrintStream out;
    private final PrintStream err;
    private final boolean leader;
    private final double[] agreed = new double[1];
    private final Buf agreedBuf = Buf.of(agreed);
    private final double[] mine = new double[2];
    private final Buf mineBuf = Buf.of(mine);
    private final double[] everyones;
    private final Buf everyonesBuf;
    private final CollectiveArgs probe = new CollectiveArgs();
    /** Direct, as the rows' buffers are: the probe runs the code the pingpong rows compiled. */
    private final Buf probeWord = Buf.of(ByteBuffer.allocateDirect(8), DataType.FLOAT32);
    private final TimingBlocks timingBlocks = new TimingBlocks();
    private final boolean stallsRetimed;
    private BenchCall.Regions regions;
    private SeededData data;
    private long startNanos;
    private long lastProgressNanos;
    private int rowsDone;
    /** Rank 0's refusals of the current operation, per block: the sizes skipped for each kind of reason. */
    private final Map<Integer, Map<String, Refusals>> refusals = new LinkedHashMap<>();

    public BenchSweep(final Communicator comm, final BenchOptions options, final BenchPlan plan,
        final PrintStream out, final PrintStream err)
    {
        if (comm.size() != options.ranks())
        {
            throw new IllegalStateException("bench was told -n " + options.ranks() + " but the job has " +
                comm.size() + " ranks");
        }
        this.comm = comm;
        this.options = options;
        this.plan = plan;
        this.out = out;
        this.err = err;
        this.leader = comm.rank() == 0;
        this.stallsRetimed = comm.size() <= Runtime.getRuntime().availableProcessors();
        this.everyones = new double[2 * comm.size()];
        this.everyonesBuf = Buf.of(everyones);
        final boolean probing = comm.size() > 1;
        this.handoffView = probing ? comm.withAlgorithm("allgather:shm_direct") : null;
        this.handoffSend = probing ?
            Buf.of(ByteBuffer.allocateDirect(HANDOFF_PROBE_BYTES / comm.size()), DataType.INT8) : null;
        this.handoffRecv = probing ?
            Buf.of(ByteBuffer.allocateDirect(HANDOFF_PROBE_BYTES / comm.size() * comm.size()), DataType.INT8) : null;
    }

    /** Runs the whole sweep; returns, on rank 0, the number of rows with wrong results (0 elsewhere). */
    public int run()
    {
        startNanos = System.nanoTime();
        if (leader)
        {
            plan.notes().forEach(this::note);
        }
        final long[] pids = gatherPids();
        final ResultWriter writer = leader ? ResultWriter.create(options, out) : null;
        if (leader)
        {
            writer.start(new RunInfo(options, plan, pids, hostname()));
        }
        regions = allocateRegions();
        for (int g = 0; g < PROBE_WARM_UP_GROUPS; g++)
        {
            roundTrips(PROBE_GROUP_ROUND_TRIPS);
        }
        warmUpHandoffProbe();
        final List<BenchPlan.Block> blocks = plan.blocks();
        // the engine's first pace probe warms and compiles its own calls (0.2-0.25 s at 4 ranks on 2 cores); left to
        // fill its budget, it fell inside a timed loop, or inside the loop timed again because of its compiling (4
        // ranks, a first row of 32 KiB allgathers: 96-532 µs a call, against 9-13 µs with the probe off)
        if (comm instanceof ShmCommunicator shm && blocks.stream().anyMatch(block -> block.algorithm() == null &&
            block.op().collective() != null && PaceProbe.counts(block.op().collective())))
        {
            shm.probePace();
        }
        final Communicator[] views = new Communicator[blocks.size()];
        final List<List<BenchResult>> results = new ArrayList<>();
        for (int i = 0; i < blocks.size(); i++)
        {
            final BenchPlan.Block block = blocks.get(i);
            views[i] = block.algorithm() == null || block.op() == BenchOp.PINGPONG ? comm :
                comm.withAlgorithm(block.op().collective().label() + ":" + block.algorithm());
            results.add(new ArrayList<>());
        }
        final List<BenchPlan.Step> steps = plan.steps();
        int wrongRows = 0;
        for (int k = 0; k < steps.size(); k++)
        {
            final BenchPlan.Step step = steps.get(k);
            final BenchPlan.Block block = blocks.get(step.block());
            if (options.check())
            {
                prepareData(block.op());
            }
            final BenchResult result = measure(step.block(), views[step.block()], step.bytes());
            rowsDone++;
            if (result != null)
            {
                results.get(step.block()).add(result);
            }
            final boolean lastOfOperation = k + 1 == steps.size() ||
                blocks.get(steps.get(k + 1).block()).op() != block.op();
            if (leader && lastOfOperation)
            {
                wrongRows += writeOperation(block.op(), writer, results);
                noteRefusals();
            }
        }
        if (leader)
        {
            writer.finish();
            if (wrongRows > 0)
            {
                note(wrongRows + (wrongRows == 1 ? " row" : " rows") + " had wrong results");
            }
        }
        return wrongRows;
    }

    /** Rank 0 prints the rows of every block of {@code op}, block by block; returns how many had wrong results. */
    private int writeOperation(final BenchOp op, final ResultWriter writer, final List<List<BenchResult>> results)
    {
        final List<BenchPlan.Block> blocks = plan.blocks();
        int wrongRows = 0;
        for (int i = 0; i < blocks.size(); i++)
        {
            final BenchPlan.Block block = blocks.get(i);
            if (block.op() != op)
            {
                continue;
            }
            writer.startBlock(block);
            for (final BenchResult result : results.get(i))
            {
                writer.row(result);
                wrongRows += result.wrong() > 0 ? 1 : 0;
            }
            writer.endBlock();
        }
        return wrongRows;
    }

    private BenchResult measure(final int blockIndex, final Communicator view, final long bytes)
    {
        final BenchPlan.Block block = plan.blocks().get(blockIndex);
        final BenchOp op = block.op();
        final DataType type = options.dataType();
        final int sets = plan.sets(bytes);
        final BenchCall call = BenchCall.create(op, view, regions, bytes / type.size(), sets,
            plan.stride(bytes) / type.size(), options.root(), options.reduceOp());

        // which algorithm serves the call; a forced one that cannot is skipped by every rank together
        String algorithm = op == BenchOp.PINGPONG ? BenchOp.P2P_ALGORITHM : algorithmLabel(block);
        String refusal = null;
        if (view instanceof ShmCommunicator shm && op.collective() != null)
        {
            try
            {
                algorithm = shm.algorithmFor(call.describe(probe), bytes).name();
            }
            catch (final IllegalArgumentException | IllegalStateException ex)
            {
                refusal = ex.getMessage();
            }
        }
        if (agreeMax(refusal == null ? 0 : 1) > 0)
        {
            if (leader)
            {
                refused(blockIndex, bytes, refusal != null ? refusal : "refused on another rank");
            }
            return null;
        }
        progress(block, bytes);

        // one untimed call, then the warm-up; all ranks agree on the slowest rank's time per call
        final long compiledBefore = compilationMillis();
        double secondsPerCall = agreeMax(loop(call, 1, sets));
        final int defaultIters = Iterations.defaultIters(bytes);
        if (options.warmup() >= 0)
        {
            if (options.warmup() > 0)
            {
                secondsPerCall = agreeMax(loop(call, options.warmup(), sets) / options.warmup());
            }
        }
        else
        {
            // until the pace settles; when the JIT compiled meanwhile, let it finish and warm up again, so that the
            // pace, and the number of timed calls sized from it, are those of compiled code (all ranks agree)
            for (int pass = 0; pass < WARMUP_PASSES; pass++)
            {
                final long compiled = compilationMillis();
                secondsPerCall = warmUp(call, sets, Iterations.defaultWarmup(defaultIters), secondsPerCall,
                    defaultIters);
                if (agreeMax(compilationMillis() - compiled) == 0)
                {
                    break;
                }
                awaitCompiler();
            }
        }
        final int iters = options.iters() > 0 ? options.iters() : Iterations.timed(defaultIters, secondsPerCall);

        // when this size compiled anything, one untimed rehearsal of the timed loop, so that the loop's own
        // compilation (on-stack replacement, once its back-edge count passes the JIT's threshold) happens outside the
        // timing: in a timed loop it stalled one rank for 15-50 ms, 1-2 µs per call at 8 B
        if (agreeMax(compilationMillis() - compiledBefore) > 0)
        {
            loop(call, iters, sets);
            awaitCompiler();
        }

        // the measurement: every rank starts together and times its own loop. The start is agreed with the
        // allreduce that ends every warm-up round, not a barrier: code compiled while only the warm-up's calls ran
        // traps on a barrier's branches and runs interpreted until compiled again, inside the timing (an allreduce
        // sweep's first row, 8 B, came out at 0.8-4 µs against 0.10-0.14 µs)
        agreeMax(0);
        long compiledAtStart = compilationMillis();
        double seconds = loop(call, iters, sets);
        algorithm = ran(view, op, algorithm);
        for (int retime = 0; retime < RETIMES; retime++)
        {
            // the JIT compiled during the timing (a path deoptimised and compiled again): on 2 cores its thread takes
            // a rank's core for milliseconds, and 1000 pingpongs of 32 KiB came out at 5-39 µs a call against 3
            final double loopMillis = agreeMax(seconds) * 1e3;
            final boolean compiled = compiledEnough(agreeMax(compilationMillis() - compiledAtStart), loopMillis);
            // or a stall: one block of the loop far slower than the others
            final double disturbance =
                agreeMax(stallsRetimed && call.participates() ? timingBlocks.disturbance() : 1.0);
            if (!compiled && disturbance <= DISTURBED)
            {
                break;
            }
            if (compiled)
            {
                awaitCompiler();
            }
            else if (leader)
            {
                note(op.label() + " " + algorithm + " " + BenchOptions.humanBytes(bytes) + " timed again: its " +
                    "slowest fifth of the calls took " + String.format(Locale.ROOT, "%.1f", disturbance) +
                    "x the median fifth's time");
            }
            agreeMax(0);
            compiledAtStart = compilationMillis();
            seconds = loop(call, iters, sets);
            algorithm = ran(view, op, algorithm);
        }
        mine[0] = call.participates() ? seconds * 1e6 / iters / (op == BenchOp.PINGPONG ? 2 : 1) : Double.NaN;
        mine[1] = options.check() ? check(call) : 0;
        final double probeUs = pingpongProbe();
        final double handoffUs = handoffProbe();

        comm.gather(mineBuf, everyonesBuf, 0);
        if (!leader)
        {
            return null;
        }
        double min = Double.MAX_VALUE;
        double max = 0;
        double sum = 0;
        int timedRanks = 0;
        long wrong = 0;
        for (int r = 0; r < comm.size(); r++)
        {
            final double us = everyones[2 * r];
            wrong += (long)everyones[2 * r + 1];
            if (!Double.isNaN(us))
            {
                min = Math.min(min, us);
                max = Math.max(max, us);
                sum += us;
                timedRanks++;
            }
        }
        return new BenchResult(op, algorithm, comm.size(), bytes, type, sum / timedRanks, min, max, iters,
            options.check() ? wrong : -1, probeUs, handoffUs);
    }

    /**
     * Ranks 0 and 1 exchange an 8-byte message: {@link #PROBE_GROUPS} groups of {@link #PROBE_GROUP_ROUND_TRIPS} round
     * trips after as many untimed ones; returns, on rank 0, the median group's one-way time in µs, and NaN elsewhere:
     * how fast the two cores hand data over right after the row, which on a VM whose host moves its vCPUs changes from
     * one second to the next (the other ranks wait in the gather that follows; while ranks outnumber cores the probe
     * includes their turns).
     */
    private double pingpongProbe()
    {
        if (comm.size() < 2 || comm.rank() > 1)
        {
            return Double.NaN;
        }
        roundTrips(PROBE_GROUPS * PROBE_GROUP_ROUND_TRIPS);
        for (int g = 0; g < PROBE_GROUPS; g++)
        {
            final long start = System.nanoTime();
            roundTrips(PROBE_GROUP_ROUND_TRIPS);
            probeGroupNanos[g] = System.nanoTime() - start;
        }
        Arrays.sort(probeGroupNanos);
        return comm.rank() == 0 ? probeGroupNanos[PROBE_GROUPS / 2] / 1e3 / (2.0 * PROBE_GROUP_ROUND_TRIPS) :
            Double.NaN;
    }

    /**
     * Every rank runs the {@link #HANDOFF_PROBE_BYTES} allgather through the staging areas, timed as the engine's
     * probe times it ({@link PaceProbe#medianMicros}); returns, on rank 0, the median call's time in µs, and NaN
     * elsewhere (and with one rank). Copies of lines just written on another core, as the staged algorithms make: it
     * reads a VM's pace where the 8-byte probe reads the waits for a core (ranks outnumbering cores). When a rank's
     * JIT compiler ran meanwhile, the probe is taken again once it is quiet (2 ranks: the probe after the fourth row
     * of every sweep read 71-1150 µs where the others read 25-37, the compiler taking a core).
     */
    private double handoffProbe()
    {
        if (handoffView == null)
        {
            return Double.NaN;
        }
        final long compiled = compilationMillis();
        double micros = PaceProbe.medianMicros(handoffCall, handoffNanos);
        if (agreeMax(compilationMillis() - compiled) > 0)
        {
            awaitCompiler();
            micros = PaceProbe.medianMicros(handoffCall, handoffNanos);
        }
        return comm.rank() == 0 ? micros : Double.NaN;
    }

    /**
     * The untimed calls before the first row ({@link PaceProbe#WARM_UP_CALLS}, as the engine makes before its first
     * probe), so that the probe's copies are compiled: with 50 the probe after the first row read 82-88 µs where the
     * next read 30-39 (2 ranks, the fast pace). A staging area too small for the probe (every rank's configuration
     * alike, so every rank refuses the first call before it communicates) leaves the column empty.
     */
    private void warmUpHandoffProbe()
    {
        if (handoffView == null)
        {
            return;
        }
        try
        {
            for (int i = 0; i < PaceProbe.WARM_UP_CALLS; i++)
            {
                handoffCall();
            }
        }
        catch (final IllegalArgumentException ex)
        {
            handoffView = null;
            if (leader)
            {
                note("no handoff probe (handoff_us): " + ex.getMessage());
            }
        }
    }

    private void handoffCall()
    {
        handoffView.allgather(handoffSend, handoffRecv);
    }

    /** {@code count} 8-byte round trips between ranks 0 and 1 (rank 0 sends first); other ranks do nothing. */
    private void roundTrips(final int count)
    {
        final int rank = comm.rank();
        if (comm.size() < 2 || rank > 1)
        {
            return;
        }
        for (int i = 0; i < count; i++)
        {
            if (rank == 0)
            {
                comm.send(probeWord, 1, PROBE_TAG);
                comm.recv(probeWord, 1, PROBE_TAG);
            }
            else
            {
                comm.recv(probeWord, 0, PROBE_TAG);
                comm.send(probeWord, 0, PROBE_TAG);
            }
        }
    }

    /** One checked call on set 0 from seeded inputs; returns this rank's wrong elements. */
    private long check(final BenchCall call)
    {
        comm.barrier();
        call.prepareCheck(data, regions);
        call.run(0);
        return call.wrong(data, regions);
    }

    /**
     * Warm-up in rounds of about {@link Iterations#WARMUP_ROUND_SECONDS} until the pace stops improving (the JIT has
     * compiled the path: the first calls of a fresh JVM can be a hundred times slower, and a warm-up sized from them
     * would leave the measurement cold), and at least {@code minCalls} calls and
     * {@link Iterations#WARMUP_MIN_SECONDS}, within {@link Iterations#WARMUP_SECONDS} overall. The floors: a pace can
     * settle before the JIT's later tiers have compiled the path, and then they compiled inside the timing (pingpong
     * 32 B, the second size of a sweep, came out at 0.18-0.40 µs against 0.09-0.12 µs after a long warm-up). Every
     * round ends with the ranks agreeing on the slowest time, so all ranks run the same number of calls. Returns the
     * settled time per call.
     */
    private double warmUp(final BenchCall call, final int sets, final int maxRoundCalls, final double firstCall,
        final int minCalls)
    {
        double best = firstCall;
        double spent = 0;
        long made = 0;
        for (int round = 0; spent < Iterations.WARMUP_SECONDS; round++)
        {
            final int calls = Iterations.warmupRound(maxRoundCalls, best);
            final double seconds = agreeMax(loop(call, calls, sets));
            spent += seconds;
            made += calls;
            final double pace = seconds / calls;
            final boolean settled = pace > best * 0.9;
            best = Math.min(best, pace);
            if (settled && round >= 2 && made >= minCalls && spent >= Iterations.WARMUP_MIN_SECONDS)
            {
                break;
            }
        }
        return best;
    }

    /**
     * The algorithm the timed loop's last call ran through {@code view}, else {@code named}: a pace probe during the
     * warm-up may have changed the choice named before it (2-rank allreduces of 8 KiB came out as shm_single_copy at
     * two-shot's 1.5 µs). Read right after the loop, before any other collective on the view.
     */
    private static String ran(final Communicator view, final BenchOp op, final String named)
    {
        return view instanceof ShmCommunicator shm && op.collective() != null && shm.lastAlgorithm() != null ?
            shm.lastAlgorithm().name() : named;
    }

    /**
     * Calls {@code iters} times, rotating through the sets; returns the seconds it took, and leaves the time of each
     * fifth of the calls in {@link #timingBlocks}. With --sync every call starts after a barrier and only the calls are
     * timed, one by one.
     */
    private double loop(final BenchCall call, final int iters, final int sets)
    {
        return options.sync() ? syncedLoop(call, iters, sets) : backToBackLoop(call, iters, sets);
    }

    private double backToBackLoop(final BenchCall call, final int iters, final int sets)
    {
        timingBlocks.reset(iters);
        final long start = System.nanoTime();
        long blockStart = start;
        int set = 0;
        int i = 0;
        for (int b = 0; b < timingBlocks.count(); b++)
        {
            for (final int end = timingBlocks.end(b); i < end; i++)
            {
                call.run(set);
                if (++set == sets)
                {
                    set = 0;
                }
            }
            final long now = System.nanoTime();
            timingBlocks.record(b, now - blockStart);
            blockStart = now;
        }
        return (blockStart - start) * 1e-9;
    }

    private double syncedLoop(final BenchCall call, final int iters, final int sets)
    {
        timingBlocks.reset(iters);
        long nanos = 0;
        int set = 0;
        int i = 0;
        for (int b = 0; b < timingBlocks.count(); b++)
        {
            long blockNanos = 0;
            for (final int end = timingBlocks.end(b); i < end; i++)
            {
                comm.barrier();
                final long start = System.nanoTime();
                call.run(set);
                blockNanos += System.nanoTime() - start;
                if (++set == sets)
                {
                    set = 0;
                }
            }
            timingBlocks.record(b, blockNanos);
            nanos += blockNanos;
        }
        return nanos * 1e-9;
    }

    /**
     * Sleeps until this JVM's JIT compiler has been idle for a moment (at most {@link #COMPILER_WAIT_NANOS}). Ranks
     * that wait for each other on 2 cores leave the compiler threads little CPU: rows timed while the warm-up's
     * compilations were still running came out 10 to 100 times slow (the first size of a fresh JVM: allreduce 8 B at
     * 6.9 µs against 0.59 µs at 32 B). Untimed, like JMH's warm-up.
     */
    private static void awaitCompiler()
    {
        final long deadline = System.nanoTime() + COMPILER_WAIT_NANOS;
        long last = compilationMillis();
        int quietPolls = 0;
        while (quietPolls < COMPILER_QUIET_POLLS && System.nanoTime() - deadline < 0)
        {
            LockSupport.parkNanos(COMPILER_POLL_NANOS);
            final long now = compilationMillis();
            quietPolls = now == last ? quietPolls + 1 : 0;
            last = now;
        }
    }

    /**
     * Whether {@code compiledMillis} of the JIT's work, the most any rank did during a timed loop of {@code loopMillis}
     * (the slowest rank's), is enough to time the loop again: at least {@link #COMPILING_RETIMED} of it, and some.
     */
    static boolean compiledEnough(final double compiledMillis, final double loopMillis)
    {
        return compiledMillis > 0 && compiledMillis >= COMPILING_RETIMED * loopMillis;
    }

    /** Milliseconds this JVM has spent compiling so far, or 0 when the JVM does not say. */
    private static long compilationMillis()
    {
        return COMPILER != null && COMPILER.isCompilationTimeMonitoringSupported() ?
            COMPILER.getTotalCompilationTime() : 0;
    }

    /** The largest {@code value} over the ranks (every rank gets it). */
    private double agreeMax(final double value)
    {
        agreed[0] = value;
        comm.allreduce(agreedBuf, ReduceOp.MAX);
        return agreed[0];
    }

    /** The send region's inputs for the checks of {@code op}: refilled when the value range changes. */
    private void prepareData(final BenchOp op)
    {
        final boolean forProduct = op.reducing() && options.reduceOp() == ReduceOp.PROD;
        if (data != null && data.forProduct() == forProduct)
        {
            return;
        }
        data = new SeededData(options.dataType(), options.reduceOp(), forProduct, comm.size(), SEED);
        final long elements = Math.min(plan.regionBytes(), options.maxBytes()) / options.dataType().size();
        data.fill(regions.sendRegion(), comm.rank(), elements);
    }

    /** Private direct memory, or with --shared symmetric memory in the job's segment. */
    private BenchCall.Regions allocateRegions()
    {
        final int bytes = Math.toIntExact(plan.regionBytes());
        final DataType type = options.dataType();
        if (options.shared())
        {
            final Buf send = comm.allocateShared(bytes / type.size(), type);
            final Buf recv = comm.allocateShared(bytes / type.size(), type);
            return new BenchCall.Regions(new UnsafeBuffer(send.offset(), bytes), new UnsafeBuffer(recv.offset(), bytes),
                send, recv);
        }
        final ByteBuffer sendRegion = ByteBuffer.allocateDirect(bytes).order(ByteOrder.nativeOrder());
        final ByteBuffer recvRegion = ByteBuffer.allocateDirect(bytes).order(ByteOrder.nativeOrder());
        return new BenchCall.Regions(new UnsafeBuffer(sendRegion), new UnsafeBuffer(recvRegion),
            Buf.of(sendRegion, type), Buf.of(recvRegion, type));
    }

    private long[] gatherPids()
    {
        final long[] all = new long[comm.size()];
        comm.gather(Buf.of(new long[] {ProcessHandle.current().pid()}), Buf.of(all), 0);
        return all;
    }

    /** Sizes of one block skipped for one kind of reason, and the reason as given at the first of them. */
    private record Refusals(List<Long> sizes, String first)
    {
    }

    private void refused(final int blockIndex, final long bytes, final String reason)
    {
        // a reason names the size it refused; sizes refused alike share one note
        refusals.computeIfAbsent(blockIndex, b -> new LinkedHashMap<>())
            .computeIfAbsent(reason.replaceAll("\\d+", "#"), kind -> new Refusals(new ArrayList<>(), reason))
            .sizes().add(bytes);
    }

    /** One note per block and kind of reason: the sizes skipped, then why, as said of the first of them. */
    private void noteRefusals()
    {
        for (final Map.Entry<Integer, Map<String, Refusals>> byBlock : refusals.entrySet())
        {
            final BenchPlan.Block block = plan.blocks().get(byBlock.getKey());
            for (final Refusals kind : byBlock.getValue().values())
            {
                final String at = kind.sizes().size() == 1 ? "" :
                    "at " + BenchOptions.humanBytes(kind.sizes().get(0)) + ", ";
                note(block.op().label() + " " + algorithmLabel(block) + ": skipped " +
                    BenchPlan.sizeList(kind.sizes()) + ": " + at + kind.first());
            }
        }
        refusals.clear();
    }

    private void progress(final BenchPlan.Block block, final long bytes)
    {
        final long now = System.nanoTime();
        if (leader && now - startNanos >= PROGRESS_AFTER_NANOS && now - lastProgressNanos >= PROGRESS_EVERY_NANOS)
        {
            lastProgressNanos = now;
            note(block.op().label() + " " + algorithmLabel(block) +
                (block.op() == BenchOp.BARRIER ? "" : " " + BenchOptions.humanBytes(bytes)) + " ... " +
                (rowsDone + 1) + "/" + plan.rows());
        }
    }

    private static String algorithmLabel(final BenchPlan.Block block)
    {
        return block.algorithm() == null ? "default" : block.algorithm();
    }

    private void note(final String text)
    {
        err.print(NOTE_PREFIX + text + "\n");
        err.flush();
    }

    private static String hostname()
    {
        try
        {
            return Files.readString(Path.of("/proc/sys/kernel/hostname")).trim();
        }
        catch (final IOException ex)
        {
            return "localhost";
        }
    }
}
