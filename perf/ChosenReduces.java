/*
 * Reduces of float[] and of direct buffers (MEMORY: heap,direct by default, or one of them), BYTES each, to root 0,
 * one of each after the other for SECONDS, every one
 * by the algorithm the engine chooses (its pace probe running every 256 MiB of calls, as in an application). Rank 0
 * prints, per memory, algorithm and the pace the call was chosen at, the calls and the median call's µs on the root
 * (the time of a call a rank declined includes the decline): run on two builds one after the other, it shows what a
 * change of the choice does to an application's calls at each pace (reduces of 2 MiB and more take shm_direct at the
 * fast pace, other algorithms at the slow one; the calls before the first probe take the choice for a pace not yet
 * known: at 2 ranks shm_single_copy, at 4 shm_direct).
 *
 * PERFORMANCE.md, session 57, has what it measured. Run (from the repository, after mvn install):
 *   "$(./jccl classpath --java-home)/bin/javac" -cp core/target/classes:algorithms/target/classes \
 *       -d /tmp/chosen-reduces perf/ChosenReduces.java
 *   ./jccl run -n 4 --cp /tmp/chosen-reduces ChosenReduces 4194304 45
 */
import io.jccl.Buf;
import io.jccl.Communicator;
import io.jccl.DataType;
import io.jccl.Jccl;
import io.jccl.ReduceOp;
import io.jccl.engine.ShmCommunicator;
import io.jccl.model.Pace;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

public class ChosenReduces
{
    public static void main(final String[] args)
    {
        final int bytes = Integer.parseInt(args[0]);
        final double seconds = Double.parseDouble(args[1]);
        final String[] memories = (args.length > 2 ? args[2] : "heap,direct").split(",");
        final int count = bytes / Float.BYTES;
        try (Communicator world = Jccl.connect())
        {
            final ShmCommunicator shm = (ShmCommunicator)world;
            final float[] heapSend = new float[count];
            final float[] heapRecv = new float[count];
            final ByteBuffer directSend = ByteBuffer.allocateDirect(bytes).order(ByteOrder.nativeOrder());
            final ByteBuffer directRecv = ByteBuffer.allocateDirect(bytes).order(ByteOrder.nativeOrder());
            Arrays.fill(heapSend, world.rank() + 1);
            directSend.asFloatBuffer().put(heapSend);
            final Map<String, List<Long>> micros = new TreeMap<>();
            final long end = System.nanoTime() + (long)(seconds * 1e9);
            final long[] go = {1};
            while (go[0] != 0)
            {
                for (final String memory : memories)
                {
                    final long start = System.nanoTime();
                    if (memory.equals("heap"))
                    {
                        world.reduce(Buf.of(heapSend), Buf.of(heapRecv), ReduceOp.SUM, 0);
                    }
                    else
                    {
                        world.reduce(Buf.of(directSend, DataType.FLOAT32), Buf.of(directRecv, DataType.FLOAT32),
                            ReduceOp.SUM, 0);
                    }
                    final long took = (System.nanoTime() - start) / 1000;
                    final Pace pace = shm.paceProbe() == null ? null : shm.paceProbe().pace();
                    micros.computeIfAbsent(memory + " " + shm.lastAlgorithm().name() + " at the " +
                        (pace == null ? "unknown" : pace.label()) + " pace", k -> new ArrayList<>()).add(took);
                }
                // rank 0's clock ends the run on every rank at the same call
                go[0] = System.nanoTime() < end ? 1 : 0;
                world.broadcast(Buf.of(go), 0);
            }
            if (world.rank() == 0)
            {
                final float expected = world.size() * (world.size() + 1) / 2f;
                final boolean heapRight = heapRecv[0] == expected && heapRecv[count - 1] == expected;
                final boolean directRight = directRecv.getFloat(0) == expected &&
                    directRecv.getFloat(bytes - Float.BYTES) == expected;
                if (micros.keySet().stream().anyMatch(k -> k.startsWith("heap")) && !heapRight ||
                    micros.keySet().stream().anyMatch(k -> k.startsWith("direct")) && !directRight)
                {
                    throw new IllegalStateException("wrong sums: " + heapRecv[0] + ", " + directRecv.getFloat(0));
                }
                micros.forEach((key, times) ->
                {
                    times.sort(null);
                    System.out.printf(Locale.ROOT, "%s: %d calls, median %d µs%n", key, times.size(),
                        times.get(times.size() / 2));
                });
            }
        }
    }
}
