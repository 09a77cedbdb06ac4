/*
 * Calls of one collective on float[] arrays and on direct buffers (MEMORY: heap,direct by default, or one of them),
 * of each of SIZES bytes (comma-separated), one of each size and memory after the other for SECONDS, every one by the
 * algorithm the engine chooses, its pace probe running every 256 MiB of calls as in an application. Calls below
 * BATCH bytes (64 KiB by default) are timed back to back in batches of about BATCH bytes, as a benchmark's loop
 * times them. A batch's time runs until every rank has finished it: a barrier ends it, so that an algorithm whose
 * ranks hand over and go on (eager sends, a root that does not wait) is not timed on rank 0 alone, nor its cost
 * moved into the next call timed. Rank 0 prints, per size, memory, algorithm and the pace the call was chosen at, the
 * batches and the median batch's µs a call, its barrier included, and the median barrier's µs alone (a call a rank
 * declined includes the decline). Run on two builds one after the other, it shows what a change of the
 * engine's choice does to an application's calls at each pace, where perf/Designs.java times forced designs side by
 * side. The calls before the first probe take the choice for a pace not yet known.
 *
 * PERFORMANCE.md, sessions 57 and 58, has what it measured (as ChosenReduces, on reduces, in session 57). Run (from
 * the repository, after mvn install):
 *   "$(./jccl classpath --java-home)/bin/javac" -cp core/target/classes:algorithms/target/classes \
 *       -d /tmp/chosen-calls perf/ChosenCalls.java perf/HeapArrays.java
 *   ./jccl run -n 4 --cp /tmp/chosen-calls ChosenCalls reduce 4194304 45
 *   ./jccl run -n 2 --cp /tmp/chosen-calls ChosenCalls broadcast 1024,2048,8192 45 heap,direct 16384
 * (Any collective of HeapArrays.run; SIZES are of the whole vector, an allgather's receive buffer, as in Designs.)
 */
import io.jccl.Buf;
import io.jccl.Communicator;
import io.jccl.Jccl;
import io.jccl.engine.ShmCommunicator;
import io.jccl.model.Pace;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

public class ChosenCalls
{
    public static void main(final String[] args)
    {
        final String collective = args[0];
        final String[] sizes = args[1].split(",");
        final double seconds = Double.parseDouble(args[2]);
        final String[] memories = (args.length > 3 ? args[3] : "heap,direct").split(",");
        final int batchBytes = args.length > 4 ? Integer.parseInt(args[4]) : 64 * 1024;
        try (Communicator world = Jccl.connect())
        {
            final ShmCommunicator shm = (ShmCommunicator)world;
            final int p = world.size();
            final List<Case> cases = new ArrayList<>();
            for (final String size : sizes)
            {
                final int bytes = Integer.parseInt(size);
                for (final String memory : memories)
                {
                    cases.add(new Case(size + " B " + memory, Math.max(1, batchBytes / bytes),
                        HeapArrays.buffers(collective, bytes / Float.BYTES, p, memory.equals("heap"))));
                }
            }
            final Map<String, List<Long>> nanos = new TreeMap<>();
            final long begin = System.nanoTime();
            do
            {
                final long barrierStart = System.nanoTime();
                world.barrier();
                nanos.computeIfAbsent("barrier alone", k -> new ArrayList<>()).add(System.nanoTime() - barrierStart);
                for (final Case c : cases)
                {
                    final long start = System.nanoTime();
                    for (int i = 0; i < c.batch(); i++)
                    {
                        HeapArrays.run(world, collective, c.buffers()[0], c.buffers()[1]);
                    }
                    final String algorithm = shm.lastAlgorithm().name();
                    world.barrier();
                    final long took = (System.nanoTime() - start) / c.batch();
                    final Pace pace = shm.paceProbe() == null ? null : shm.paceProbe().pace();
                    nanos.computeIfAbsent(c.label() + " " + algorithm + " at the " +
                        (pace == null ? "unknown" : pace.label()) + " pace", k -> new ArrayList<>()).add(took);
                }
            }
            while (!HeapArrays.stop(world, begin, seconds));
            if (world.rank() == 0)
            {
                nanos.forEach((key, times) ->
                {
                    times.sort(null);
                    System.out.printf(Locale.ROOT, "%s %s: %d batches, median %.2f µs a call%n", collective, key,
                        times.size(), times.get(times.size() / 2) / 1e3);
                });
            }
        }
    }

    /** One size and memory: its label ("4096 B heap"), the calls timed together, and its {send, recv} buffers. */
    private record Case(String label, int batch, Buf[] buffers)
    {
    }
}
