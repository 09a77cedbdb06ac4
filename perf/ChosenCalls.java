/*
 * Calls of one collective on float[] arrays and on direct buffers (MEMORY: heap,direct by default, or one of them),
 * BYTES each, one of each memory after the other for SECONDS, every one by the algorithm the engine chooses, its pace
 * probe running every 256 MiB of calls as in an application. Rank 0 prints, per memory, algorithm and the pace the
 * call was chosen at, the calls and the median call's µs on rank 0 (a call a rank declined includes the decline). Run
 * on two builds one after the other, it shows what a change of the engine's choice does to an application's calls at
 * each pace, where perf/Designs.java times forced designs side by side. The calls before the first probe take the
 * choice for a pace not yet known.
 *
 * PERFORMANCE.md, session 57, has what it measured (as ChosenReduces, on reduces). Run (from the repository, after
 * mvn install):
 *   "$(./jccl classpath --java-home)/bin/javac" -cp core/target/classes:algorithms/target/classes \
 *       -d /tmp/chosen-calls perf/ChosenCalls.java perf/HeapArrays.java
 *   ./jccl run -n 4 --cp /tmp/chosen-calls ChosenCalls reduce 4194304 45
 * (Any collective of HeapArrays.run; BYTES are of the whole vector, an allgather's receive buffer, as in Designs.)
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
        final int count = Integer.parseInt(args[1]) / Float.BYTES;
        final double seconds = Double.parseDouble(args[2]);
        final String[] memories = (args.length > 3 ? args[3] : "heap,direct").split(",");
        try (Communicator world = Jccl.connect())
        {
            final ShmCommunicator shm = (ShmCommunicator)world;
            final int p = world.size();
            final Map<String, Buf[]> buffers = Map.of(
                "heap", HeapArrays.buffers(collective, count, p, true),
                "direct", HeapArrays.buffers(collective, count, p, false));
            final Map<String, List<Long>> micros = new TreeMap<>();
            final long begin = System.nanoTime();
            do
            {
                for (final String memory : memories)
                {
                    final Buf[] buffer = buffers.get(memory);
                    final long start = System.nanoTime();
                    HeapArrays.run(world, collective, buffer[0], buffer[1]);
                    final long took = (System.nanoTime() - start) / 1000;
                    final Pace pace = shm.paceProbe() == null ? null : shm.paceProbe().pace();
                    micros.computeIfAbsent(memory + " " + shm.lastAlgorithm().name() + " at the " +
                        (pace == null ? "unknown" : pace.label()) + " pace", k -> new ArrayList<>()).add(took);
                }
            }
            while (!HeapArrays.stop(world, begin, seconds));
            if (world.rank() == 0)
            {
                micros.forEach((key, times) ->
                {
                    times.sort(null);
                    System.out.printf(Locale.ROOT, "%s %s: %d calls, median %d µs%n", collective, key, times.size(),
                        times.get(times.size() / 2));
                });
            }
        }
    }
}
