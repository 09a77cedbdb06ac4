package io.jccl.algorithms;

import io.jccl.PeerFailedException;
import io.jccl.shm.SegmentDescriptor.RankRecordDescriptor;
import io.jccl.spi.CollectiveContext;
import io.jccl.spi.Memory;
import io.jccl.spi.StagingLedger;
import org.agrona.BufferUtil;
import org.agrona.UnsafeApi;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Test harness for algorithm arithmetic: N ranks as threads of one JVM, messages through queues, staging areas and
 * symmetric memory in one direct buffer, flags in an {@link AtomicLongArray}. Not a transport: the real
 * multi-process path is tested by the integration tests; this one checks what each algorithm computes.
 */
public final class LocalJob
{
    private static final long WAIT_MS = 30_000;

    private final int size;
    private final long stagingBytes;
    private final long symmetricBytes;
    private final ByteBuffer segment;
    private final long segmentAddress;
    private final AtomicLongArray flags;
    private final List<LinkedBlockingQueue<byte[]>> links = new ArrayList<>();
    private final LocalContext[] contexts;
    private long singleCopyBytes;
    private boolean copiesStream;

    public LocalJob(final int size, final long stagingBytes, final long symmetricBytes)
    {
        this.size = size;
        this.stagingBytes = stagingBytes;
        this.symmetricBytes = symmetricBytes;
        this.segment = BufferUtil.allocateDirectAligned((int) (size * (stagingBytes + symmetricBytes)) + 64, 64);
        this.segmentAddress = BufferUtil.address(segment);
        this.flags = new AtomicLongArray(size * CollectiveContext.FLAG_SLOTS * 8);
        for (int i = 0; i < size * size; i++)
        {
            links.add(new LinkedBlockingQueue<>());
        }
        contexts = new LocalContext[size];
        for (int r = 0; r < size; r++)
        {
            contexts[r] = new LocalContext(r);
        }
    }

    public LocalJob(final int size)
    {
        this(size, 256 * 1024, 1 << 20);
    }

    public int size()
    {
        return size;
    }

    /** Makes the contexts report single copy from {@code bytes} up, as a transport whose ranks all passed the probe. */
    public LocalJob singleCopy(final long bytes)
    {
        singleCopyBytes = bytes;
        return this;
    }

    /**
     * Makes the contexts report that heap arrays' large messages go out of a copy that streams, as a transport told so
     * by a slow pace probe.
     */
    public LocalJob copiesStream(final boolean copiesStream)
    {
        this.copiesStream = copiesStream;
        return this;
    }

    public LocalContext context(final int rank)
    {
        return contexts[rank];
    }

    /** Segment offset of rank {@code rank}'s symmetric region start. */
    public long symmetricSegmentOffset(final int rank)
    {
        return size * stagingBytes + rank * symmetricBytes;
    }

    public long segmentAddress()
    {
        return segmentAddress;
    }

    /** Per-rank body. */
    @FunctionalInterface
    public interface RankBody
    {
        void run(LocalContext context) throws Exception;
    }

    /** Runs {@code body} on every rank at once and rethrows the first failure. */
    public void run(final RankBody body)
    {
        final AtomicReference<Throwable> failure = new AtomicReference<>();
        final Thread[] threads = new Thread[size];
        for (int r = 0; r < size; r++)
        {
            final LocalContext context = contexts[r];
            threads[r] = new Thread(() ->
            {
                try
                {
                    body.run(context);
                }
                catch (final Throwable t)
                {
                    failure.compareAndSet(null, t);
                }
            }, "rank-" + r);
            threads[r].start();
        }
        for (final Thread t : threads)
        {
            try
            {
                t.join(WAIT_MS * 2);
            }
            catch (final InterruptedException ex)
            {
                throw new AssertionError(ex);
            }
            if (t.isAlive())
            {
                failure.compareAndSet(null, new AssertionError(t.getName() + " did not finish: hang"));
            }
        }
        final Throwable t = failure.get();
        if (t instanceof RuntimeException rt)
        {
            throw rt;
        }
        if (t instanceof Error e)
        {
            throw e;
        }
        if (t != null)
        {
            throw new AssertionError(t);
        }
    }

    /** One rank's view. Call {@link #begin()} before each collective, as the communicator does. */
    public final class LocalContext implements CollectiveContext
    {
        private final int rank;
        private long sequence;
        private final StagingLedger staging = new StagingLedger();
        private final ByteBuffer[] scratch = new ByteBuffer[4];

        LocalContext(final int rank)
        {
            this.rank = rank;
        }

        /** Starts the next collective operation. */
        public void begin()
        {
            sequence++;
        }

        @Override
        public int rank()
        {
            return rank;
        }

        @Override
        public int size()
        {
            return size;
        }

        @Override
        public long singleCopyBytes()
        {
            return singleCopyBytes;
        }

        @Override
        public boolean copiesStream()
        {
            return copiesStream;
        }

        /** One process: the peer's memory is ours, so a plain copy stands in for the kernel's. */
        @Override
        public void readPeer(final int peer, final long remoteAddress, final long localAddress, final long bytes)
        {
            if (singleCopyBytes == 0)
            {
                throw new UnsupportedOperationException("single copy is off");
            }
            UnsafeApi.copyMemory(null, remoteAddress, null, localAddress, bytes);
        }

        @Override
        public void send(final int peer, final Object base, final long offset, final long bytes)
        {
            checkPeer(peer);
            final byte[] copy = new byte[Math.toIntExact(bytes)];
            Memory.copy(base, offset, copy, org.agrona.UnsafeApi.arrayBaseOffset(byte[].class), bytes);
            links.get(rank * size + peer).add(copy);
        }

        @Override
        public void recv(final int peer, final Object base, final long offset, final long bytes)
        {
            checkPeer(peer);
            final byte[] message;
            try
            {
                message = links.get(peer * size + rank).poll(WAIT_MS, TimeUnit.MILLISECONDS);
            }
            catch (final InterruptedException ex)
            {
                throw new AssertionError(ex);
            }
            if (message == null)
            {
                throw new PeerFailedException(peer, "rank " + rank + " timed out receiving " + bytes +
                    " bytes from rank " + peer);
            }
            if (message.length != bytes)
            {
                throw new AssertionError("rank " + rank + " expected " + bytes + " bytes from rank " + peer +
                    " but the message has " + message.length);
            }
            Memory.copy(message, org.agrona.UnsafeApi.arrayBaseOffset(byte[].class), base, offset, bytes);
        }

        @Override
        public void sendRecv(final int dest, final Object sendBase, final long sendOffset, final long sendBytes,
            final int source, final Object recvBase, final long recvOffset, final long recvBytes)
        {
            send(dest, sendBase, sendOffset, sendBytes);
            recv(source, recvBase, recvOffset, recvBytes);
        }

        @Override
        public long stagingAddress(final int r)
        {
            checkPeer(r);
            return segmentAddress + r * stagingBytes;
        }

        @Override
        public long stagingBytes()
        {
            return stagingBytes;
        }

        @Override
        public long segmentAddress(final long segmentOffset)
        {
            return segmentAddress + segmentOffset;
        }

        @Override
        public void setFlag(final int slot, final long value)
        {
            flags.setRelease(index(rank, slot), value);
        }

        @Override
        public long getFlag(final int peer, final int slot)
        {
            return flags.getAcquire(index(peer, slot));
        }

        @Override
        public void setFlagPayload(final int slot, final int word, final long value)
        {
            flags.setPlain(index(rank, slot) + payloadIndex(word), value);
        }

        @Override
        public long getFlagPayload(final int peer, final int slot, final int word)
        {
            return flags.getPlain(index(peer, slot) + payloadIndex(word));
        }

        /** A flag's eight longs here stand for its 64-byte line: the payload word where the transport has it. */
        private static int payloadIndex(final int word)
        {
            return RankRecordDescriptor.payloadOffset(word) / Long.BYTES;
        }

        @Override
        public long waitFlag(final int peer, final int slot, final long atLeast)
        {
            final long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(WAIT_MS);
            long value;
            while ((value = flags.getAcquire(index(peer, slot))) < atLeast)
            {
                if (System.nanoTime() > deadline)
                {
                    throw new PeerFailedException(peer, "rank " + rank + " timed out waiting for flag " + slot +
                        " of rank " + peer + " to reach " + atLeast + " (is " + value + ")");
                }
                Thread.yield();
            }
            return value;
        }

        @Override
        public void waitWord(final int peer, final long address, final long expected)
        {
            final long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(WAIT_MS);
            long word;
            while ((word = UnsafeApi.getLongAcquire(null, address)) != expected)
            {
                if (System.nanoTime() > deadline)
                {
                    throw new PeerFailedException(peer, "rank " + rank + " timed out waiting for " + expected +
                        " at a word of rank " + peer + " (has " + word + ")");
                }
                Thread.yield();
            }
        }

        @Override
        public long sequence()
        {
            return sequence;
        }

        @Override
        public StagingLedger stagingLedger()
        {
            return staging;
        }

        @Override
        public long scratch(final int index, final long bytes)
        {
            if (scratch[index] == null || scratch[index].capacity() < bytes)
            {
                scratch[index] = BufferUtil.allocateDirectAligned((int) Math.max(64, bytes), 64);
            }
            return BufferUtil.address(scratch[index]);
        }

        private int index(final int r, final int slot)
        {
            if (slot < 0 || slot >= FLAG_SLOTS)
            {
                throw new IllegalArgumentException("flag slot " + slot);
            }
            return (r * FLAG_SLOTS + slot) * 8;
        }

        private void checkPeer(final int peer)
        {
            if (peer < 0 || peer >= size)
            {
                throw new AssertionError("rank " + rank + " addressed rank " + peer + " of " + size);
            }
        }
    }
}
