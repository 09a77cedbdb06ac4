/*
 * Which probe tells the pace right: over a stretch of time, each sample times, for several collectives and sizes, the
 * staged algorithm (shm_direct; two-shot for allreduce) and single copy (shm_single_copy) two ways, back to back at
 * one pace: as the engine's pace probe does (the median of 5 calls after an untimed one) and over many calls (the
 * mean, the time a user's run of such calls sees). It also times the bench's handoff probe (a 512 KiB shm_direct
 * allgather, median of 5). Rank 0 prints a CSV line per sample:
 *   sample,seconds,handoff_us,OP_BYTES_probe_staged,OP_BYTES_probe_single,OP_BYTES_mean_staged,OP_BYTES_mean_single,...
 * PERFORMANCE.md (session 47) has what it measured: why the engine's probe compares 32 KiB allgathers. A second
 * argument, shared-cores, times the set that matters while ranks outnumber cores instead: allgathers, allreduces from
 * 128 KiB, whose single copy is then the single-copy two-shot (shm_single_copy_twoshot), reduce-scatters,
 * broadcasts, whose staged algorithm is shm_eager, alltoalls and reduces (session 52); the default set is pair
 * (PERFORMANCE.md, sessions 49 and 50), whose 2-rank reduces (session 51) set binomial, in the single columns, against
 * shm_direct.
 *
 * Run (from the repository, after mvn install):
 *   "$(./jccl classpath --java-home)/bin/javac" -cp core/target/classes -d /tmp/pace-verdicts perf/PaceVerdicts.java \
 *       perf/HeapArrays.java
 *   ./jccl run -n 2 --cp /tmp/pace-verdicts PaceVerdicts SECONDS | sed 's/^\[0\] //' > samples.csv
 *   ./jccl run -n 4 --cp /tmp/pace-verdicts PaceVerdicts SECONDS shared-cores | sed 's/^\[0\] //' > samples4.csv
 */
import io.jccl.Buf;
import io.jccl.Communicator;
import io.jccl.Jccl;

public class PaceVerdicts
{
    private static final String[] PAIR_OPS = {
        "allgather", "allgather", "allgather", "allgather",
        "allreduce", "allreduce", "allreduce", "allreduce", "allreduce",
        "alltoall", "alltoall", "reduce_scatter", "reduce_scatter", "reduce", "reduce"};
    private static final int[] PAIR_BYTES = {
        32 << 10, 128 << 10, 512 << 10, 2 << 20,
        8 << 10, 32 << 10, 128 << 10, 512 << 10, 2 << 20,
        128 << 10, 512 << 10, 128 << 10, 512 << 10, 2 << 20, 8 << 20};
    private static final String[] SHARED_CORES_OPS = {
        "allgather", "allgather", "allgather", "allgather", "allgather",
        "allreduce", "allreduce", "allreduce", "allreduce",
        "reduce_scatter", "reduce_scatter",
        "broadcast", "broadcast", "broadcast", "broadcast",
        "alltoall", "alltoall", "alltoall", "alltoall",
        "reduce", "reduce", "reduce"};
    private static final int[] SHARED_CORES_BYTES = {
        32 << 10, 128 << 10, 512 << 10, 2 << 20, 8 << 20,
        128 << 10, 512 << 10, 2 << 20, 8 << 20,
        512 << 10, 2 << 20,
        32 << 10, 128 << 10, 512 << 10, 2 << 20,
        128 << 10, 512 << 10, 2 << 20, 8 << 20,
        128 << 10, 512 << 10, 2 << 20};

    public static void main(final String[] args)
    {
        final double seconds = Double.parseDouble(args[0]);
        final boolean sharedCores = args.length > 1 && args[1].equals("shared-cores");
        if (args.length > 1 && !sharedCores && !args[1].equals("pair"))
        {
            throw new IllegalArgumentException("set: pair or shared-cores, not " + args[1]);
        }
        final String[] ops = sharedCores ? SHARED_CORES_OPS : PAIR_OPS;
        final int[] sizes = sharedCores ? SHARED_CORES_BYTES : PAIR_BYTES;
        final String singleCopyAllreduce = sharedCores ? ":shm_single_copy_twoshot" : ":shm_single_copy";
        try (Communicator world = Jccl.connect())
        {
            final int p = world.size();
            final Runnable handoff = HeapArrays.handoffProbe(world);
            final Communicator[] singleCopy = new Communicator[ops.length];
            final Communicator[] staged = new Communicator[ops.length];
            final Buf[][] buffers = new Buf[ops.length][];
            final StringBuilder header = new StringBuilder("sample,seconds,handoff_us");
            for (int c = 0; c < ops.length; c++)
            {
                final String op = ops[c];
                singleCopy[c] = world.withAlgorithm(op + switch (op)
                {
                    case "allreduce" -> singleCopyAllreduce;
                    // the 2-rank reduce rule's choice at the slow pace: one message, single copy from direct buffers
                    case "reduce" -> sharedCores ? ":shm_single_copy" : ":binomial";
                    default -> ":shm_single_copy";
                });
                staged[c] = world.withAlgorithm(op + switch (op)
                {
                    case "allreduce" -> ":shm_twoshot";
                    case "broadcast" -> ":shm_eager";
                    default -> ":shm_direct";
                });
                // an alltoall's buffers split into p equal blocks (3 ranks: a few elements short of the size)
                final int n = op.equals("alltoall") ? sizes[c] / 4 / p * p : sizes[c] / 4;
                buffers[c] = HeapArrays.buffers(op, n, p, false);
                final String name = op + "_" + sizes[c];
                header.append(',').append(name).append("_probe_staged,").append(name).append("_probe_single,")
                    .append(name).append("_mean_staged,").append(name).append("_mean_single");
            }
            final long[] nanos = new long[5];
            // Warm-up: every call compiled before the first sample.
            for (int c = 0; c < ops.length; c++)
            {
                for (int i = 0; i < 300; i++)
                {
                    HeapArrays.run(staged[c], ops[c], buffers[c][0], buffers[c][1]);
                    HeapArrays.run(singleCopy[c], ops[c], buffers[c][0], buffers[c][1]);
                }
            }
            for (int i = 0; i < 1000; i++)
            {
                handoff.run();
            }
            HeapArrays.sample(world, seconds, header, nanos, line ->
            {
                for (int c = 0; c < ops.length; c++)
                {
                    final String op = ops[c];
                    final Buf send = buffers[c][0];
                    final Buf recv = buffers[c][1];
                    final Communicator s = staged[c];
                    final Communicator k = singleCopy[c];
                    final double probeStaged = HeapArrays.median(() -> HeapArrays.run(s, op, send, recv), nanos);
                    final double probeSingle = HeapArrays.median(() -> HeapArrays.run(k, op, send, recv), nanos);
                    final int calls = sizes[c] <= 128 << 10 ? 100 : sizes[c] <= 512 << 10 ? 30 : sizes[c] <= 2 << 20 ?
                        10 : 4;
                    final double meanStaged = mean(() -> HeapArrays.run(s, op, send, recv), calls);
                    final double meanSingle = mean(() -> HeapArrays.run(k, op, send, recv), calls);
                    line.append(String.format(",%.2f,%.2f,%.2f,%.2f", probeStaged, probeSingle, meanStaged,
                        meanSingle));
                }
            }, handoff);
        }
    }


    private static double mean(final Runnable call, final int calls)
    {
        final long start = System.nanoTime();
        for (int i = 0; i < calls; i++)
        {
            call.run();
        }
        return (System.nanoTime() - start) / 1e3 / calls;
    }
}
