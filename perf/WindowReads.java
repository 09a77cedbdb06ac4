/*
 * What one random read costs through the views a shared-memory window offers (README, "Shared-memory windows";
 * PERFORMANCE.md, session 76), in one JVM: 4 M reads at hashed indices of a 4 MiB table of doubles in a Java array,
 * a DoubleBuffer over private direct memory, a DoubleBuffer over a file in /dev/shm mapped as jccl maps its segment
 * (what Buf.asByteBuffer() slices), the same mapping as a ByteBuffer read by getDouble, as a MemorySegment
 * (MemorySegment.ofBuffer, Java 22+), and as three slabs of DoubleBuffer read the way SharedTable reads its ranks'
 * slabs (the owner by a division, then its buffer); and the index arithmetic alone. Six rounds, ns a read; the
 * first two warm up.
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
    private static final int SLABS = 3;

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
        final int perSlab = (ENTRIES + SLABS - 1) / SLABS;
        final DoubleBuffer[] slabs = new DoubleBuffer[SLABS];
        for (int s = 0; s < SLABS; s++)
        {
            final int first = s * perSlab;
            slabs[s] = mapped.slice(first * 8, Math.min(perSlab, ENTRIES - first) * 8).order(ByteOrder.nativeOrder())
                .asDoubleBuffer();
        }
        for (int i = 0; i < ENTRIES; i++)
        {
            array[i] = i * 0.5;
            direct.put(i, i * 0.5);
            mappedDoubles.put(i, i * 0.5);
        }
        final double reads = (double)BLOCKS * BLOCK;
        System.out.println("round,array,direct_DoubleBuffer,mapped_DoubleBuffer,mapped_ByteBuffer," +
            "mapped_MemorySegment,mapped_slabs,index_only  (ns a read)");
        for (int round = 0; round < 6; round++)
        {
            long sum = 0;
            final long t0 = System.nanoTime();
            sum += readArray(array);
            final long t1 = System.nanoTime();
            sum += readDoubles(direct);
            final long t2 = System.nanoTime();
            sum += readDoubles(mappedDoubles);
            final long t3 = System.nanoTime();
            sum += readBytes(mapped);
            final long t4 = System.nanoTime();
            sum += readSegment(segment);
            final long t5 = System.nanoTime();
            sum += readSlabs(slabs, perSlab);
            final long t6 = System.nanoTime();
            sum += indicesOnly();
            final long t7 = System.nanoTime();
            System.out.printf("%d,%.1f,%.1f,%.1f,%.1f,%.1f,%.1f,%.1f  (checksum %d)%n", round, (t1 - t0) / reads,
                (t2 - t1) / reads, (t3 - t2) / reads, (t4 - t3) / reads, (t5 - t4) / reads, (t6 - t5) / reads,
                (t7 - t6) / reads, sum);
        }
    }

    // one method a kind of view, each compiled on its own (in one method, their loops' compilation varied from run
    // to run: one of them took twice the others' time in one run and not in the next)

    private static long readArray(final double[] table)
    {
        long sum = 0;
        for (long b = 0; b < BLOCKS; b++)
        {
            for (int i = 0; i < BLOCK; i++)
            {
                sum += Double.doubleToRawLongBits(table[index(b, i)]);
            }
        }
        return sum;
    }

    /** Called with the private and with the mapped buffer: both are the JDK's DirectDoubleBufferU. */
    private static long readDoubles(final DoubleBuffer table)
    {
        long sum = 0;
        for (long b = 0; b < BLOCKS; b++)
        {
            for (int i = 0; i < BLOCK; i++)
            {
                sum += Double.doubleToRawLongBits(table.get(index(b, i)));
            }
        }
        return sum;
    }

    private static long readBytes(final ByteBuffer table)
    {
        long sum = 0;
        for (long b = 0; b < BLOCKS; b++)
        {
            for (int i = 0; i < BLOCK; i++)
            {
                sum += Double.doubleToRawLongBits(table.getDouble(index(b, i) << 3));
            }
        }
        return sum;
    }

    private static long readSegment(final MemorySegment table)
    {
        long sum = 0;
        for (long b = 0; b < BLOCKS; b++)
        {
            for (int i = 0; i < BLOCK; i++)
            {
                sum += Double.doubleToRawLongBits(table.getAtIndex(ValueLayout.JAVA_DOUBLE, index(b, i)));
            }
        }
        return sum;
    }

    private static long readSlabs(final DoubleBuffer[] slabs, final int perSlab)
    {
        long sum = 0;
        for (long b = 0; b < BLOCKS; b++)
        {
            for (int i = 0; i < BLOCK; i++)
            {
                final int index = index(b, i);
                final int owner = index / perSlab;
                sum += Double.doubleToRawLongBits(slabs[owner].get(index - owner * perSlab));
            }
        }
        return sum;
    }

    private static long indicesOnly()
    {
        long sum = 0;
        for (long b = 0; b < BLOCKS; b++)
        {
            for (int i = 0; i < BLOCK; i++)
            {
                sum += index(b, i);
            }
        }
        return sum;
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
