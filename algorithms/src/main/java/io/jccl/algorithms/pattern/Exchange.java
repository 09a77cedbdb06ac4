package io.jccl.algorithms.pattern;

import io.jccl.DataType;
import io.jccl.ReduceOp;
import io.jccl.spi.CollectiveContext;
import io.jccl.spi.Reductions;

/**
 * The message moves the ring and recursive algorithms share. Both ends of a transfer always know its size, so empty
 * messages are never sent (both skip them), and every transfer is cut into chunks of at most {@code chunkBytes} on
 * both ends alike: scratch stays bounded by one chunk and the reduction of a chunk follows its arrival.
 * <p>
 * A chunk size is a positive multiple of 8 so that chunks never split an element.
 */
public final class Exchange
{
    /** Default chunk: large enough that α is small against a chunk's transfer, small enough for cached scratch. */
    public static final int CHUNK_BYTES_DEFAULT = 512 * 1024;

    private Exchange()
    {
    }

    /** Checks a chunk size and returns it. */
    public static int checkChunkBytes(final int chunkBytes)
    {
        if (chunkBytes <= 0 || (chunkBytes & 7) != 0)
        {
            throw new IllegalArgumentException("chunk size must be a positive multiple of 8 bytes: " + chunkBytes);
        }
        return chunkBytes;
    }

    /** Sends {@code bytes} to {@code dest} in chunks. */
    public static void send(
        final CollectiveContext context, final int chunkBytes,
        final int dest, final Object base, final long offset, final long bytes)
    {
        for (long done = 0; done < bytes; done += chunkBytes)
        {
            context.send(dest, base, offset + done, Math.min(chunkBytes, bytes - done));
        }
    }

    /** Receives {@code bytes} from {@code source} in chunks. */
    public static void recv(
        final CollectiveContext context, final int chunkBytes,
        final int source, final Object base, final long offset, final long bytes)
    {
        for (long done = 0; done < bytes; done += chunkBytes)
        {
            context.recv(source, base, offset + done, Math.min(chunkBytes, bytes - done));
        }
    }

    /**
     * Sends {@code sendBytes} to {@code dest} while receiving {@code recvBytes} from {@code source}, chunk i of one
     * together with chunk i of the other; the sizes may differ and either may be zero.
     */
    public static void sendRecv(
        final CollectiveContext context, final int chunkBytes,
        final int dest, final Object sendBase, final long sendOffset, final long sendBytes,
        final int source, final Object recvBase, final long recvOffset, final long recvBytes)
    {
        final long longest = Math.max(sendBytes, recvBytes);
        for (long done = 0; done < longest; done += chunkBytes)
        {
            sendRecvOnce(context,
                dest, sendBase, sendOffset + done, chunkOf(sendBytes, done, chunkBytes),
                source, recvBase, recvOffset + done, chunkOf(recvBytes, done, chunkBytes));
        }
    }

    /**
     * {@link #sendRecv} where each received chunk lands in {@code landingAddress} (off-heap scratch of
     * {@code min(chunkBytes, recvBytes)} bytes) and is then reduced into the destination:
     * {@code dst = received op operand}, or {@code operand op received} when {@code operandFirst}. The operand and
     * the destination run in step with the received bytes; either may alias the other or the sent bytes exactly:
     * chunk i is sent before the reduction of chunk i writes.
     */
    public static void sendRecvReduce(
        final CollectiveContext context, final DataType type, final ReduceOp op, final int chunkBytes,
        final int dest, final Object sendBase, final long sendOffset, final long sendBytes,
        final int source, final long recvBytes, final long landingAddress,
        final Object operandBase, final long operandOffset,
        final Object dstBase, final long dstOffset,
        final boolean operandFirst)
    {
        final int elementSize = type.size();
        final long longest = Math.max(sendBytes, recvBytes);
        for (long done = 0; done < longest; done += chunkBytes)
        {
            final long received = chunkOf(recvBytes, done, chunkBytes);
            sendRecvOnce(context,
                dest, sendBase, sendOffset + done, chunkOf(sendBytes, done, chunkBytes),
                source, null, landingAddress, received);
            if (received > 0)
            {
                if (operandFirst)
                {
                    Reductions.reduce(type, op, operandBase, operandOffset + done, null, landingAddress,
                        dstBase, dstOffset + done, received / elementSize);
                }
                else
                {
                    Reductions.reduce(type, op, null, landingAddress, operandBase, operandOffset + done,
                        dstBase, dstOffset + done, received / elementSize);
                }
            }
        }
    }

    private static long chunkOf(final long bytes, final long done, final int chunkBytes)
    {
        return Math.max(0, Math.min(chunkBytes, bytes - done));
    }

    private static void sendRecvOnce(
        final CollectiveContext context,
        final int dest, final Object sendBase, final long sendOffset, final long sendBytes,
        final int source, final Object recvBase, final long recvOffset, final long recvBytes)
    {
        if (sendBytes > 0 && recvBytes > 0)
        {
            context.sendRecv(dest, sendBase, sendOffset, sendBytes, source, recvBase, recvOffset, recvBytes);
        }
        else if (sendBytes > 0)
        {
            context.send(dest, sendBase, sendOffset, sendBytes);
        }
        else if (recvBytes > 0)
        {
            context.recv(source, recvBase, recvOffset, recvBytes);
        }
    }
}
