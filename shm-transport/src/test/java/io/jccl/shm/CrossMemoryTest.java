package io.jccl.shm;

import org.agrona.BufferUtil;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
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
