package io.jccl.examples;

import io.jccl.Buf;
import io.jccl.CollectiveRequest;
import io.jccl.Communicator;
import io.jccl.Jccl;
import io.jccl.ReduceOp;

import java.util.Arrays;

/**
 * How much of a non-blocking allreduce hides behind computation (the measurement of OSU's {@code osu_iallreduce}):
 * <pre>
 *   ./jccl run -n 2 -- io.jccl.examples.OverlapBenchmark [--sizes 64k,1m,4m] [--rounds 31] [--compute cpu|sleep]
 * </pre>
 * Per size: t_comm, an {@code iallreduce} of float32 awaited at once (the caller runs it, as a blocking call);
 * background, the same awaited with a timeout (the progress thread runs it, as while the caller computes);
 * t_compute, a CPU-bound loop over a private L1-resident array, calibrated to last about t_comm; t_overlapped, the
 * {@code iallreduce} started, the loop run, then the wait. hidden = (t_comm + t_compute − t_overlapped) / t_comm:
 * 100 % when the communication costs the computation nothing, 0 % when they simply add up. Each value is the median
 * over rounds of the slowest rank's time.
 * <p>
 * progress_cpu_us is the CPU time the progress thread used during t_overlapped. Copying and reducing are work for a
 * core: when every core already runs a rank's computation (2 ranks on 2 cores), that work can only take turns with the
 * computation, so at most 1 − progress_cpu / t_comm of the communication can hide ("bound", printed for CPU-bound
 * computation only).
 * <p>
 * {@code --compute sleep} replaces the loop by a sleep of the same length: computation that leaves the core free
 * (an accelerator's kernel, I/O), which shows what the background progress hides when it has a core to run on.
 */
public final class OverlapBenchmark
{
    private static final int KERNEL_FLOATS = 4096;
    /**
     * Least time each size is warmed up for, in blocks of {@link #WARM_UP_BLOCK} calls: the first hundreds of calls of
     * a size run its reduction kernels in the interpreter (a 64 KiB allreduce took 4-19 ms a call in its first 45 on 2
     * ranks, about 30 µs after 1000), and 30 calls measured them cold.
     */
    private static final long WARM_UP_NS = 2_000_000_000L;
    /**
     * The warm-up goes on until no block has beaten the best by 10 % for this long: a fresh 4-rank job on 2 cores ran
     * its first 50 calls of 64 KiB in 1.7-2.0 s, the next at 0.3-10 ms each until 3.5 s, and settled at 23-90 µs only
     * 4 s in, the JIT's compiler threads sharing the cores with the ranks (PERFORMANCE.md, session 34), so two seconds
     * left the first size cold.
     */
    private static final long SETTLED_NS = 1_000_000_000L;
    /** Most time a size is warmed up for, settled or not. */
    private static final long MAX_WARM_UP_NS = 30_000_000_000L;
    private static final int WARM_UP_BLOCK = 50;

    private static final java.lang.management.ThreadMXBean THREADS =
        java.lang.management.ManagementFactory.getThreadMXBean();

    private static volatile float sink;

    private OverlapBenchmark()
    {
    }

    public static void main(final String[] args)
    {
        final ExampleArgs options = new ExampleArgs(args);
        final String sizes = options.getString("sizes", "64k,1m,4m");
        final int rounds = options.getInt("rounds", 31);
        final boolean sleep = options.getString("compute", "cpu").equals("sleep");
        final float[] kernel = new float[KERNEL_FLOATS];
        Arrays.fill(kernel, 1f);
        // compiled before it is timed: timed cold, the computation calibrated from it came out 50 times too short
        for (int i = 0; i < 100; i++)
        {
            compute(kernel, 100);
        }
        try (Communicator comm = Jccl.connect())
        {
            if (comm.rank() == 0)
            {
                System.out.printf("iallreduce overlap, float32 sum, %d ranks on %d cores, computation %s (median of " +
                    "%d rounds, slowest rank per round)%n", comm.size(), Runtime.getRuntime().availableProcessors(),
                    sleep ? "sleeping (core left free)" : "on the CPU", rounds);
                System.out.printf("%10s %12s %14s %12s %14s %15s %8s %8s%n", "bytes", "comm_us", "background_us",
                    "compute_us", "overlapped_us", "progress_cpu_us", "hidden", "bound");
            }
            for (final String size : sizes.split(","))
            {
                final long bytes = io.jccl.Configuration.parseSize(size);
                final float[] vector = new float[(int) (bytes / Float.BYTES)];
                final Buf buf = Buf.of(vector);
                warmUp(comm, buf);
                // calibrate: compute repetitions that take about as long as the communication
                final double[] commTimes = new double[15];
                for (int i = 0; i < commTimes.length; i++)
                {
                    commTimes[i] = timeComm(comm, buf);
                }
                final double[] agreed = {median(commTimes)};
                comm.allreduce(Buf.of(agreed), ReduceOp.MAX);
                // time per repetition of the kernel, the median of a few measurements, agreed by all ranks
                final double[] perRep = new double[7];
                for (int i = 0; i < perRep.length; i++)
                {
                    perRep[i] = timeCompute(kernel, 64) / 64;
                }
                final double[] slowestRep = {median(perRep)};
                comm.allreduce(Buf.of(slowestRep), ReduceOp.MAX);
                final int reps = sleep ? (int) Math.round(agreed[0]) :
                    (int) Math.max(1, Math.round(agreed[0] / slowestRep[0]));

                final Thread progress = progressThread();
                final double[][] samples = new double[5][rounds];
                final double[] round = new double[5];
                for (int r = 0; r < rounds; r++)
                {
                    comm.barrier();
                    round[0] = timeComm(comm, buf);
                    comm.barrier();
                    round[4] = timeBackground(comm, buf);
                    comm.barrier();
                    round[1] = sleep ? timeSleep(reps) : timeCompute(kernel, reps);
                    comm.barrier();
                    final long cpu = THREADS.getThreadCpuTime(progress.threadId());
                    final long start = System.nanoTime();
                    final CollectiveRequest request = comm.iallreduce(buf, ReduceOp.SUM);
                    if (sleep)
                    {
                        sleepFor(reps);
                    }
                    else
                    {
                        compute(kernel, reps);
                    }
                    request.await();
                    round[2] = (System.nanoTime() - start) / 1e3;
                    round[3] = (THREADS.getThreadCpuTime(progress.threadId()) - cpu) / 1e3;
                    comm.allreduce(Buf.of(round), ReduceOp.MAX);
                    for (int k = 0; k < round.length; k++)
                    {
                        samples[k][r] = round[k];
                    }
                }
                if (comm.rank() == 0)
                {
                    final double c = median(samples[0]);
                    final double p = median(samples[1]);
                    final double o = median(samples[2]);
                    final double cpu = median(samples[3]);
                    final double background = median(samples[4]);
                    System.out.printf("%10d %12.1f %14.1f %12.1f %14.1f %15.1f %7.0f%% %8s%n", bytes, c, background,
                        p, o, cpu, 100 * (c + p - o) / c, sleep ? "-" : String.format("%.0f%%", 100 * (1 - cpu / c)));
                }
            }
        }
    }

    /**
     * The first calls of a size run code (its algorithm, its kernels) that the JIT has not compiled yet: blocks of
     * calls until every rank has warmed up for {@link #WARM_UP_NS} and its calls have stopped getting faster.
     */
    private static void warmUp(final Communicator comm, final Buf buf)
    {
        final long start = System.nanoTime();
        long lastGain = start;
        double best = Double.MAX_VALUE;
        final double[] settled = new double[1];
        do
        {
            final long blockStart = System.nanoTime();
            for (int i = 0; i < WARM_UP_BLOCK; i++)
            {
                timeComm(comm, buf);
            }
            final long now = System.nanoTime();
            final double perCall = (double)(now - blockStart) / WARM_UP_BLOCK;
            if (perCall < 0.9 * best)
            {
                lastGain = now;
            }
            best = Math.min(best, perCall);
            final boolean done = now - start >= MAX_WARM_UP_NS ||
                now - start >= WARM_UP_NS && now - lastGain >= SETTLED_NS;
            settled[0] = done ? 1 : 0;
            comm.allreduce(Buf.of(settled), ReduceOp.MIN);  // every rank makes the same calls
        }
        while (settled[0] == 0);
    }

    private static Thread progressThread()
    {
        return Thread.getAllStackTraces().keySet().stream().filter(t -> t.getName().startsWith("jccl-progress-"))
            .findFirst().orElseThrow(() -> new IllegalStateException("no progress thread"));
    }

    private static double timeComm(final Communicator comm, final Buf buf)
    {
        final long start = System.nanoTime();
        comm.iallreduce(buf, ReduceOp.SUM).await();
        return (System.nanoTime() - start) / 1e3;
    }

    /** The same, left to the progress thread: a timed await does not run operations itself. */
    private static double timeBackground(final Communicator comm, final Buf buf)
    {
        final long start = System.nanoTime();
        if (!comm.iallreduce(buf, ReduceOp.SUM).await(1, java.util.concurrent.TimeUnit.MINUTES))
        {
            throw new IllegalStateException("an iallreduce took over a minute");
        }
        return (System.nanoTime() - start) / 1e3;
    }

    private static double timeSleep(final int micros)
    {
        final long start = System.nanoTime();
        sleepFor(micros);
        return (System.nanoTime() - start) / 1e3;
    }

    private static void sleepFor(final int micros)
    {
        final long deadline = System.nanoTime() + micros * 1000L;
        long left;
        while ((left = deadline - System.nanoTime()) > 0)
        {
            java.util.concurrent.locks.LockSupport.parkNanos(left);
        }
    }

    private static double timeCompute(final float[] kernel, final int reps)
    {
        final long start = System.nanoTime();
        compute(kernel, reps);
        return (System.nanoTime() - start) / 1e3;
    }

    /** Pure CPU work on an L1-resident array: it competes with the communication for the core, not for memory. */
    private static void compute(final float[] a, final int reps)
    {
        for (int r = 0; r < reps; r++)
        {
            for (int i = 0; i < a.length; i++)
            {
                a[i] = a[i] * 0.999f + 0.001f;
            }
        }
        sink = a[reps & (a.length - 1)];
    }

    private static double median(final double[] values)
    {
        final double[] sorted = values.clone();
        Arrays.sort(sorted);
        return sorted[sorted.length / 2];
    }
}
