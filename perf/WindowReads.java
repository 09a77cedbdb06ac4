/*
 * What one random read costs through the views a shared-memory window offers (README, "Shared-memory windows";
 * PERFORMANCE.md, session 76), in one JVM: 4 M reads at hashed indices of a 4 MiB table of doubles in a Java array,
 * a DoubleBuffer over private direct memory, a DoubleBuffer over a file in /dev/shm mapped as jccl maps its segment
 * (what Buf.asByteBuffer() slices), the same mapping as a ByteBuffer read by getDouble, and as a MemorySegment
 * (MemorySegment.ofBuffer, Java 22+); and the index arithmetic alone. Six rounds, ns a read; the first two warm up.
 * Run: java perf/WindowReads.java      (JDK 22 or newer)
 */
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.DoubleBuffer;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

public class WindowReads
{
    private static final int ENTRIES = 1 << 19;
    private static final int BLOCKS = 1024;
    private static final int BLOCK = 4096;

    public static void main(final String[] args) throws Exception
    {
        final double[] array = new double[ENTRIES];
        final DoubleBuffer direct = ByteBuffer.allocateDirect(ENTRIES * 8).order(ByteOrder.nativeOrder())
            .asDoubleBuffer();
        final Path file = Path.of("/dev/shm/jccl-window-reads-" + ProcessHandle.current().pid());
        final MappedByteBuffer mapping;
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.CREATE_NEW, StandardOpenOption.READ,
            StandardOpenOption.WRITE))
        {
            mapping = channel.map(FileChannel.MapMode.READ_WRITE, 0, ENTRIES * 8L);
        }
        finally
        {
            Files.deleteIfExists(file);
        }
        final ByteBuffer mapped = mapping.order(ByteOrder.nativeOrder());
        final DoubleBuffer mappedDoubles = mapped.asDoubleBuffer();
        final MemorySegment segment = MemorySegment.ofBuffer(mapped);
        for (int i = 0; i < ENTRIES; i++)
        {
            array[i] = i * 0.5;
            direct.put(i, i * 0.5);
            mappedDoubles.put(i, i * 0.5);
        }
        final double reads = (double)BLOCKS * BLOCK;
        System.out.println("round,array,direct_DoubleBuffer,mapped_DoubleBuffer,mapped_ByteBuffer," +
            "mapped_MemorySegment,index_only  (ns a read)");
        for (int round = 0; round < 6; round++)
        {
            long sum = 0;
            final long t0 = System.nanoTime();
            for (long b = 0; b < BLOCKS; b++)
            {
                for (int i = 0; i < BLOCK; i++)
                {
                    sum += Double.doubleToRawLongBits(array[index(b, i)]);
                }
            }
            final long t1 = System.nanoTime();
            for (long b = 0; b < BLOCKS; b++)
            {
                for (int i = 0; i < BLOCK; i++)
                {
                    sum += Double.doubleToRawLongBits(direct.get(index(b, i)));
                }
            }
            final long t2 = System.nanoTime();
            for (long b = 0; b < BLOCKS; b++)
            {
                for (int i = 0; i < BLOCK; i++)
                {
                    sum += Double.doubleToRawLongBits(mappedDoubles.get(index(b, i)));
                }
            }
            final long t3 = System.nanoTime();
            for (long b = 0; b < BLOCKS; b++)
            {
                for (int i = 0; i < BLOCK; i++)
                {
                    sum += Double.doubleToRawLongBits(mapped.getDouble(index(b, i) << 3));
                }
            }
            final long t4 = System.nanoTime();
            for (long b = 0; b < BLOCKS; b++)
            {
                for (int i = 0; i < BLOCK; i++)
                {
                    sum += Double.doubleToRawLongBits(segment.getAtIndex(ValueLayout.JAVA_DOUBLE, index(b, i)));
                }
            }
            final long t5 = System.nanoTime();
            for (long b = 0; b < BLOCKS; b++)
            {
                for (int i = 0; i < BLOCK; i++)
                {
                    sum += index(b, i);
                }
            }
            final long t6 = System.nanoTime();
            System.out.printf("%d,%.1f,%.1f,%.1f,%.1f,%.1f,%.1f  (checksum %d)%n", round, (t1 - t0) / reads,
                (t2 - t1) / reads, (t3 - t2) / reads, (t4 - t3) / reads, (t5 - t4) / reads, (t6 - t5) / reads, sum);
        }
    }

    /** SharedTable's lookup index: a SplitMix64 hash scaled to [0, ENTRIES) by a multiply and a shift. */
    private static int index(final long b, final int i)
    {
        long z = (b * 65_537 + i) * 0x9E3779B97F4A7C15L;
        z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
        z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
        return (int)((((z ^ (z >>> 31)) >>> 32) * ENTRIES) >>> 32);
    }
}
