/*
 * One collective on heap arrays (float[]) and on direct buffers, through single copy (shm_single_copy), through the
 * staging areas (shm_direct; two-shot for allreduce) and through the engine's own choice, side by side in one job, so
 * that each line compares the six at one pace of the machine. Each size runs half its calls untimed, then its timed
 * calls; rank 0 prints the mean µs per call, a line per size and round.
 *
 * PERFORMANCE.md has what it measured: session 46, a heap array's copy for its peers now lies in the staging area;
 * session 50, 4 ranks on 2 cores, where a rank declines single copy for copies of 512 KiB-4 MiB; session 51, 2-rank
 * reduces, binomial against shm_direct.
 * Run (from the repository, after mvn install):
 *   "$(./jccl classpath --java-home)/bin/javac" -cp core/target/classes -d /tmp/heap-arrays perf/HeapArrays.java
 *   ./jccl run -n 2 --cp /tmp/heap-arrays HeapArrays allgather|alltoall|reduce_scatter|allreduce|broadcast|reduce \
 *       [ROUNDS] [SINGLE_COPY_ALGORITHM]
 * The last argument names the design set against the staged one, shm_single_copy unless given
 * (shm_single_copy_twoshot for allreduce, as 4 ranks on 2 cores take it at the slow pace; binomial for a reduce, whose
 * one message goes single copy from direct buffers); the output calls its column single_copy whatever it is.
 */
import io.jccl.Buf;
import io.jccl.Communicator;
import io.jccl.DataType;
import io.jccl.Jccl;
import io.jccl.ReduceOp;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Arrays;
import java.util.function.Consumer;

public class HeapArrays
{
    private static final int[] SIZES = {32 << 10, 128 << 10, 512 << 10, 2 << 20, 4 << 20, 8 << 20};

    public static void main(final String[] args)
    {
        final String op = args[0];
        final int rounds = args.length > 1 ? Integer.parseInt(args[1]) : 4;
        final String singleCopyAlgorithm = args.length > 2 ? args[2] : "shm_single_copy";
        try (Communicator world = Jccl.connect())
        {
            final int p = world.size();
            final Communicator singleCopy = world.withAlgorithm(op + ":" + singleCopyAlgorithm);
            final Communicator staged =
                world.withAlgorithm(op + (op.equals("allreduce") ? ":shm_twoshot" : ":shm_direct"));
            for (int round = 0; round < rounds; round++)
            {
                for (final int bytes : SIZES)
                {
                    final Buf[][] buffers = {buffers(op, bytes / 4, p, true), buffers(op, bytes / 4, p, false)};
                    final StringBuilder line = new StringBuilder(op + " " + bytes + " B, µs:");
                    for (int kind = 0; kind < 2; kind++)
                    {
                        for (final Communicator comm : new Communicator[] {singleCopy, staged, world})
                        {
                            final int calls = bytes <= 128 << 10 ? 2000 : bytes <= 2 << 20 ? 200 : 50;
                            for (int i = 0; i < calls / 2; i++)
                            {
                                run(comm, op, buffers[kind][0], buffers[kind][1]);
                            }
                            comm.barrier();
                            final long start = System.nanoTime();
                            for (int i = 0; i < calls; i++)
                            {
                                run(comm, op, buffers[kind][0], buffers[kind][1]);
                            }
                            final long nanos = System.nanoTime() - start;
                            comm.barrier();
                            line.append(String.format(" %s/%s %.1f", kind == 0 ? "float[]" : "direct",
                                comm == singleCopy ? "single_copy" : comm == staged ? "staged" : "engine",
                                nanos / 1e3 / calls));
                        }
                    }
                    if (world.rank() == 0)
                    {
                        System.out.println(line);
                    }
                }
            }
        }
    }

    /** A direct float32 buffer of {@code count} elements (PaceVerdicts, Designs and PairBroadcasts too). */
    static Buf direct(final int count)
    {
        return Buf.of(ByteBuffer.allocateDirect(4 * count).order(ByteOrder.nativeOrder()), DataType.FLOAT32);
    }

    /**
     * The {send, recv} float32 buffers of a call of {@code op} whose vector, or allgather's receive buffer, holds
     * {@code count} elements at {@code p} ranks: heap arrays, or direct buffers (PaceVerdicts, Designs and ChosenCalls
     * too).
     */
    static Buf[] buffers(final String op, final int count, final int p, final boolean heap)
    {
        final int sendCount = op.equals("allgather") ? count / p : count;
        final int recvCount = op.equals("reduce_scatter") ? count / p : count;
        return heap ? new Buf[] {Buf.of(new float[sendCount]), Buf.of(new float[recvCount])} :
            new Buf[] {direct(sendCount), direct(recvCount)};
    }

    /** One call of collective {@code op} (PaceVerdicts and Designs use it too). */
    static void run(final Communicator comm, final String op, final Buf send, final Buf recv)
    {
        switch (op)
        {
            case "allgather" -> comm.allgather(send, recv);
            case "alltoall" -> comm.alltoall(send, recv);
            case "reduce_scatter" -> comm.reduceScatter(send, recv, ReduceOp.SUM);
            case "allreduce" -> comm.allreduce(send, recv, ReduceOp.SUM);
            case "broadcast" -> comm.broadcast(send, 0);
            case "reduce" -> comm.reduce(send, recv, ReduceOp.SUM, 0);
            default -> throw new IllegalArgumentException("not a collective of this program: " + op);
        }
    }

    /**
     * The median time, µs, of {@code nanos.length} calls after an untimed one, as the engine's pace probe times its
     * calls (PaceVerdicts, Designs and PairBroadcasts).
     */
    static double median(final Runnable call, final long[] nanos)
    {
        call.run();
        for (int i = 0; i < nanos.length; i++)
        {
            final long start = System.nanoTime();
            call.run();
            nanos[i] = System.nanoTime() - start;
        }
        Arrays.sort(nanos);
        return nanos[nanos.length / 2] / 1e3;
    }

    /**
     * The bench's handoff probe's call on {@code world}: a 512 KiB allgather through the staging areas (shm_direct) of
     * direct buffers, whose median time, µs, tells the machine's pace (PaceVerdicts, Designs, PairBroadcasts and
     * HeapSends).
     */
    static Runnable handoffProbe(final Communicator world)
    {
        final Communicator handoff = world.withAlgorithm("allgather:shm_direct");
        final Buf send = direct((512 << 10) / 4 / world.size());
        final Buf recv = direct((512 << 10) / 4);
        return () -> handoff.allgather(send, recv);
    }

    /**
     * Samples for {@code seconds} ({@link #stop}): rank 0 prints {@code header}, then a CSV line per sample, which
     * starts with {@link #sampleLine} of {@code probes} and goes on with what {@code sample} appends (PaceVerdicts,
     * Designs, PairBroadcasts and HeapSends).
     */
    static void sample(final Communicator world, final double seconds, final CharSequence header, final long[] nanos,
        final Consumer<StringBuilder> sample, final Runnable... probes)
    {
        if (world.rank() == 0)
        {
            System.out.println(header);
        }
        final long begin = System.nanoTime();
        for (int n = 0; !stop(world, begin, seconds); n++)
        {
            final StringBuilder line = sampleLine(n, begin, nanos, probes);
            sample.accept(line);
            if (world.rank() == 0)
            {
                System.out.println(line);
                System.out.flush();
            }
        }
    }

    /**
     * The start of a sample's CSV line: its number, its seconds since {@code begin} ({@code System.nanoTime}), and
     * the {@link #median} time, µs, of each of {@code probes}.
     */
    private static StringBuilder sampleLine(final int sample, final long begin, final long[] nanos,
        final Runnable... probes)
    {
        final StringBuilder line = new StringBuilder();
        line.append(sample).append(',').append(String.format("%.1f", (System.nanoTime() - begin) / 1e9));
        for (final Runnable probe : probes)
        {
            line.append(',').append(String.format("%.2f", median(probe, nanos)));
        }
        return line;
    }

    /**
     * Whether sampling that began at {@code begin} ({@code System.nanoTime}) has run {@code seconds}: rank 0 decides,
     * so that every rank runs the same calls (PaceVerdicts, Designs and PairBroadcasts).
     */
    static boolean stop(final Communicator world, final long begin, final double seconds)
    {
        final double[] stop = {(System.nanoTime() - begin) / 1e9 >= seconds ? 1 : 0};
        world.broadcast(Buf.of(stop), 0);
        return stop[0] != 0;
    }
}
