import org.agrona.BufferUtil;
import org.agrona.UnsafeApi;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;

/**
 * perf/exchange-floor.c's exchange in two JVMs, without jccl: each rank stores its value and the round's number in a
 * 64-byte line of its own (release store) and spins until the peer's line carries the round (acquire load), the lines
 * walking 256 one-line slots per rank in two regions 1 MiB apart, as jccl's LL lines do. What a JVM costs above C;
 * jccl's 8-byte {@code shm_ll} allreduce costs its own calls above this. Prints, on rank 0, ns per round of each of
 * five blocks of a million rounds after one of warm-up, and their median.
 * <pre>
 *   ./jccl info >/dev/null; J=$(./jccl classpath --java-home)/bin
 *   $J/javac -cp "$(./jccl classpath)" -d /tmp/exchange-floor perf/ExchangeFloor.java
 *   ./jccl run -n 2 --cp /tmp/exchange-floor ExchangeFloor
 * </pre>
 */
public final class ExchangeFloor
{
    private static final int ROUNDS = 1_000_000;
    private static final int REPEATS = 5;
    private static final long REGION = 1 << 20;
    private static final long SLOTS = 256;

    public static void main(final String[] args) throws IOException
    {
        if (!"2".equals(System.getenv("JCCL_WORLD_SIZE")))
        {
            System.err.println("ExchangeFloor runs on 2 ranks: ./jccl run -n 2 --cp DIR ExchangeFloor");
            System.exit(2);
        }
        final int rank = Integer.parseInt(System.getenv("JCCL_RANK"));
        final Path file = Path.of("/dev/shm", "exchange-floor-" + System.getenv("JCCL_JOB_ID"));
        try (RandomAccessFile raf = new RandomAccessFile(file.toFile(), "rw"))
        {
            raf.setLength(2 * REGION);
            final MappedByteBuffer map = raf.getChannel().map(FileChannel.MapMode.READ_WRITE, 0, 2 * REGION);
            final long mine = BufferUtil.address(map) + rank * REGION;
            final long peer = BufferUtil.address(map) + (1 - rank) * REGION;
            final double[] block = new double[REPEATS];
            long round = 1;
            long sum = 0;
            for (int r = 0; r <= REPEATS; r++)
            {
                final long start = System.nanoTime();
                for (int i = 0; i < ROUNDS; i++, round++)
                {
                    final long slot = (round % SLOTS) * 64;
                    UnsafeApi.putLong(null, mine + slot, round);
                    UnsafeApi.putLongRelease(null, mine + slot + 56, round);
                    while (UnsafeApi.getLongAcquire(null, peer + slot + 56) != round)
                    {
                        // a plain spin, as jccl's waits (no onSpinWait: PAUSE traps to the hypervisor here)
                    }
                    sum += UnsafeApi.getLong(null, peer + slot);
                }
                if (r > 0)
                {
                    block[r - 1] = (System.nanoTime() - start) / (double) ROUNDS;
                }
            }
            if (rank == 0)
            {
                final StringBuilder line = new StringBuilder("JVM exchange, 256 slots: ns per round:");
                for (final double ns : block)
                {
                    line.append(String.format(" %.1f", ns));
                }
                Arrays.sort(block);
                System.out.println(line.append(String.format("; median %.1f", block[REPEATS / 2])) +
                    (sum == 0 ? " (no values)" : ""));
            }
        }
        finally
        {
            // both ranks are done with the file once rank 0 has read rank 1's last line; either may remove it
            Files.deleteIfExists(file);
        }
    }
}
