package io.jccl.shm;

import org.agrona.BufferUtil;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * The kernel copy within this process: every transport gets an instance of its own, and instances used by different
 * threads at once (a communicator and a sub-communicator progressed on two threads) each copy their own buffers.
 */
@Timeout(60)
class CrossMemoryTest
{
    private static final int BYTES = 4096;
    private static final int ROUNDS = 200_000;

    @Test
    void instancesOnTwoThreadsCopyTheirOwnBuffers() throws Exception
    {
        final CrossMemory first = CrossMemory.load();
        assumeTrue(first != null, () -> "no cross-memory copy on this JVM: " + CrossMemory.whyNot());
        final CrossMemory second = CrossMemory.load();
        assertNotSame(first, second);

        final long pid = ProcessHandle.current().pid();
        final ExecutorService threads = Executors.newFixedThreadPool(2);
        try
        {
            final List<Future<Integer>> results = new ArrayList<>();
            results.add(threads.submit(copies(first, pid, (byte)0x11)));
            results.add(threads.submit(copies(second, pid, (byte)0x77)));
            for (final Future<Integer> result : results)
            {
                assertEquals(0, result.get(), "rounds whose copy held another thread's bytes");
            }
        }
        finally
        {
            threads.shutdownNow();
        }
    }

    /** A call that fails returns minus its errno: the connect-time probe names it when single copy is refused. */
    @Test
    void aFailedCallReturnsItsErrno() throws Exception
    {
        final CrossMemory memory = CrossMemory.load();
        assumeTrue(memory != null, () -> "no cross-memory copy on this JVM: " + CrossMemory.whyNot());
        final ByteBuffer buffer = BufferUtil.allocateDirectAligned(BYTES, 4096);
        final long address = BufferUtil.address(buffer);
        final long self = ProcessHandle.current().pid();
        assertEquals(-14, memory.read(self, address, 0, 64), "EFAULT: an address nothing is mapped at");
        assertEquals(-14, memory.write(self, 0, address, 64), "EFAULT: an address nothing is mapped at");
        final Process child = new ProcessBuilder("true").start();
        child.waitFor();
        assertEquals(-3, memory.read(child.pid(), address, address, 64), "ESRCH: a process that is gone");
        assertEquals(BYTES, memory.read(self, address, address, BYTES), "a call after the failures copies again");
    }

    /**
     * Memory for peers' kernel reads: below 2 MiB an ordinary direct buffer; from 2 MiB a 2 MiB-aligned mapping
     * advised as huge pages (the kernel's smaps says THPeligible where its setting is madvise or always), zeroed,
     * written and read by the kernel's copy like any buffer.
     */
    @Test
    void largeBuffersForReadsLieOnHugePages() throws Exception
    {
        final CrossMemory memory = CrossMemory.load();
        assumeTrue(memory != null, () -> "no cross-memory copy on this JVM: " + CrossMemory.whyNot());
        final ByteBuffer small = memory.allocateForReads(BYTES);
        assertEquals(BYTES, small.capacity());
        assertEquals(0, BufferUtil.address(small) % 4096);

        final int capacity = 3 << 20;
        final ByteBuffer large = memory.allocateForReads(capacity);
        final long address = BufferUtil.address(large);
        assertTrue(large.isDirect());
        assertEquals(capacity, large.capacity());
        assertEquals(0, address % (2 << 20), "2 MiB-aligned");
        for (int i = 0; i < capacity; i += 4096)
        {
            assertEquals(0, large.get(i), "fresh memory is zero");
            large.put(i, (byte)(i >>> 12));
        }
        final ByteBuffer copy = BufferUtil.allocateDirectAligned(capacity, 4096);
        assertEquals(capacity, memory.read(ProcessHandle.current().pid(), BufferUtil.address(copy), address, capacity));
        for (int i = 0; i < capacity; i += 4096)
        {
            assertEquals((byte)(i >>> 12), copy.get(i));
        }
        final String setting = Files.readString(Path.of("/sys/kernel/mm/transparent_hugepage/enabled"));
        assumeTrue(!setting.contains("[never]"), () -> "transparent huge pages are off here: " + setting);
        assertEquals("1", smapsField(address, "THPeligible"), "the mapping is advised as huge pages");
    }

    /** The value of {@code field} in /proc/self/smaps for the mapping that holds {@code address}. */
    private static String smapsField(final long address, final String field) throws Exception
    {
        boolean inside = false;
        for (final String line : Files.readAllLines(Path.of("/proc/self/smaps")))
        {
            final int dash = line.indexOf('-');
            final int space = line.indexOf(' ');
            if (dash > 0 && space > dash && line.substring(0, dash).matches("[0-9a-f]+"))
            {
                final long start = Long.parseUnsignedLong(line.substring(0, dash), 16);
                final long end = Long.parseUnsignedLong(line.substring(dash + 1, space), 16);
                inside = address >= start && address < end;
            }
            else if (inside && line.startsWith(field + ":"))
            {
                return line.substring(field.length() + 1).trim();
            }
        }
        return "no mapping holds 0x" + Long.toHexString(address);
    }

    /** Reads, then writes, a buffer of {@code pattern} into a fresh one, ROUNDS times; returns the wrong rounds. */
    private static Callable<Integer> copies(final CrossMemory memory, final long pid, final byte pattern)
    {
        return () ->
        {
            final ByteBuffer source = BufferUtil.allocateDirectAligned(BYTES, 4096);
            final ByteBuffer target = BufferUtil.allocateDirectAligned(BYTES, 4096);
            for (int i = 0; i < BYTES; i++)
            {
                source.put(i, pattern);
            }
            int wrong = 0;
            for (int round = 0; round < ROUNDS; round++)
            {
                for (int i = 0; i < BYTES; i += 4096)
                {
                    target.put(i, (byte)0);
                }
                final boolean read = (round & 1) == 0;
                final long copied = read ?
                    memory.read(pid, BufferUtil.address(target), BufferUtil.address(source), BYTES) :
                    memory.write(pid, BufferUtil.address(source), BufferUtil.address(target), BYTES);
                assertEquals(BYTES, copied);
                for (int i = 0; i < BYTES; i += 4096)
                {
                    if (target.get(i) != pattern)
                    {
                        wrong++;
                        break;
                    }
                }
            }
            return wrong;
        };
    }
}
