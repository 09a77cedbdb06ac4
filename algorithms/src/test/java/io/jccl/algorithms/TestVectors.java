package io.jccl.algorithms;

import io.jccl.DataType;
import io.jccl.ReduceOp;
import io.jccl.spi.Reductions;
import org.agrona.UnsafeApi;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Arrays;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;

import static org.junit.jupiter.api.Assertions.fail;

/**
 * Seeded test vectors whose values are small integers, exactly representable in every {@link DataType}, so that any
 * reduction order gives the same bits as the reference; and byte buffers with guard zones that catch stray writes.
 */
final class TestVectors
{
    static final long BYTE_BASE = UnsafeApi.arrayBaseOffset(byte[].class);
    static final int GUARD = 64;
    static final byte SENTINEL = (byte)0x5A;

    /** Value ranges: every partial result of at most 8 ranks stays exact (products are powers of two). */
    enum Kind
    {
        /** Data movement: -100 to 100. */
        MOVE,
        /** SUM and AVG: -8 to 8. */
        SUM,
        /** PROD: -2, -1, 1, 2. */
        PROD;

        static Kind of(final ReduceOp op)
        {
            return switch (op)
            {
                case SUM, AVG -> SUM;
                case PROD -> PROD;
                case MIN, MAX, BAND, BOR, BXOR -> MOVE;
            };
        }
    }

    private static final double[] PROD_VALUES = {-2, -1, 1, 2};

    private TestVectors()
    {
    }

    /** Element {@code index} of rank {@code rank}'s input in the case seeded {@code seed}. */
    static double value(final long seed, final int rank, final long index, final Kind kind)
    {
        final long hash = mix(seed * 0x9E3779B97F4A7C15L + rank * 0xC2B2AE3D27D4EB4FL + index) >>> 1;
        return switch (kind)
        {
            case MOVE -> hash % 201 - 100;
            case SUM -> hash % 17 - 8;
            case PROD -> PROD_VALUES[(int)(hash & 3)];
        };
    }

    /** Elements {@code [first, first + count)} of rank {@code rank}'s input, encoded as {@code type}. */
    static byte[] encode(
        final DataType type, final long seed, final int rank, final long first, final long count, final Kind kind)
    {
        final byte[] bytes = new byte[Math.toIntExact(count * type.size())];
        for (int i = 0; i < count; i++)
        {
            put(type, bytes, i * type.size(), value(seed, rank, first + i, kind));
        }
        return bytes;
    }

    /** The reduction of every rank's input, as {@code op} over {@code type} computes it (AVG arrives as SUM). */
    static byte[] reduced(final DataType type, final ReduceOp op, final long seed, final int size, final long count)
    {
        final Kind kind = Kind.of(op);
        final byte[] bytes = new byte[Math.toIntExact(count * type.size())];
        if (type.isUnsigned())
        {
            reducedUnsigned(type, op, seed, size, count, kind, bytes);
            return bytes;
        }
        for (int i = 0; i < count; i++)
        {
            double result = value(seed, 0, i, kind);
            for (int rank = 1; rank < size; rank++)
            {
                final double v = value(seed, rank, i, kind);
                result = switch (op)
                {
                    case SUM, AVG -> result + v;
                    case PROD -> result * v;
                    case MIN -> Math.min(result, v);
                    case MAX -> Math.max(result, v);
                    case BAND -> (long)result & (long)v;
                    case BOR -> (long)result | (long)v;
                    case BXOR -> (long)result ^ (long)v;
                };
            }
            put(type, bytes, i * type.size(), result);
        }
        return bytes;
    }

    /**
     * {@link #reduced} of an unsigned type, on the stored bits: the negative values are stored wrapped (-3 is 253 in
     * uint8), so MIN and MAX compare them above the positive ones.
     */
    private static void reducedUnsigned(final DataType type, final ReduceOp op, final long seed, final int size,
        final long count, final Kind kind, final byte[] bytes)
    {
        final long mask = type.size() == 8 ? -1L : (1L << 8 * type.size()) - 1;
        final ByteBuffer buffer = ByteBuffer.wrap(bytes).order(ByteOrder.nativeOrder());
        for (int i = 0; i < count; i++)
        {
            long result = (long)value(seed, 0, i, kind) & mask;
            for (int rank = 1; rank < size; rank++)
            {
                final long v = (long)value(seed, rank, i, kind) & mask;
                result = switch (op)
                {
                    case SUM, AVG -> result + v & mask;
                    case PROD -> result * v & mask;
                    case MIN -> Long.compareUnsigned(result, v) <= 0 ? result : v;
                    case MAX -> Long.compareUnsigned(result, v) >= 0 ? result : v;
                    case BAND -> result & v;
                    case BOR -> result | v;
                    case BXOR -> result ^ v;
                };
            }
            final int at = i * type.size();
            switch (type.size())
            {
                case 1 -> buffer.put(at, (byte)result);
                case 4 -> buffer.putInt(at, (int)result);
                default -> buffer.putLong(at, result);
            }
        }
    }

    /** Stores an integral {@code value}; integer types wrap as the reduction kernels do. */
    static void put(final DataType type, final byte[] array, final int at, final double value)
    {
        final ByteBuffer buffer = ByteBuffer.wrap(array).order(ByteOrder.nativeOrder());
        switch (type)
        {
            case INT8, UINT8 -> buffer.put(at, (byte)(long)value);
            case INT32, UINT32 -> buffer.putInt(at, (int)(long)value);
            case INT64, UINT64 -> buffer.putLong(at, (long)value);
            case FLOAT16 -> buffer.putShort(at, Float.floatToFloat16((float)value));
            case BFLOAT16 -> buffer.putShort(at, Reductions.floatToBfloat16((float)value));
            case FLOAT32 -> buffer.putFloat(at, (float)value);
            case FLOAT64 -> buffer.putDouble(at, value);
        }
    }

    static byte[] concat(final byte[]... parts)
    {
        int length = 0;
        for (final byte[] part : parts)
        {
            length += part.length;
        }
        final byte[] whole = new byte[length];
        int at = 0;
        for (final byte[] part : parts)
        {
            System.arraycopy(part, 0, whole, at, part.length);
            at += part.length;
        }
        return whole;
    }

    private static long mix(final long seed)
    {
        long z = seed;
        z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
        z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
        return z ^ (z >>> 31);
    }

    /** A heap byte buffer with {@link #GUARD} sentinel bytes on both sides of its {@code bytes} usable bytes. */
    static final class Guarded
    {
        final byte[] array;
        final int bytes;

        Guarded(final long bytes)
        {
            this.bytes = Math.toIntExact(bytes);
            this.array = new byte[this.bytes + 2 * GUARD];
            Arrays.fill(array, SENTINEL);
        }

        /** Unsafe offset of usable byte {@code at}. */
        long offset(final long at)
        {
            return BYTE_BASE + GUARD + at;
        }

        Guarded put(final long at, final byte[] data)
        {
            System.arraycopy(data, 0, array, GUARD + Math.toIntExact(at), data.length);
            return this;
        }

        /** The usable bytes. */
        byte[] content()
        {
            return Arrays.copyOfRange(array, GUARD, GUARD + bytes);
        }

        boolean guardsIntact()
        {
            for (int i = 0; i < GUARD; i++)
            {
                if (array[i] != SENTINEL || array[GUARD + bytes + i] != SENTINEL)
                {
                    return false;
                }
            }
            return true;
        }
    }

    /** Failures of all ranks, collected so that a wrong rank still takes part in the following collectives. */
    static final class Failures
    {
        private static final int KEEP = 20;

        private final ConcurrentLinkedQueue<String> messages = new ConcurrentLinkedQueue<>();
        private final AtomicInteger count = new AtomicInteger();
        private final AtomicInteger checks = new AtomicInteger();

        /** {@code actual}'s usable bytes from {@code at} equal {@code expected}, and its guards are intact. */
        void expect(final Supplier<String> label, final String what, final byte[] expected, final Guarded actual,
            final long at)
        {
            checks.incrementAndGet();
            final int from = GUARD + Math.toIntExact(at);
            final int mismatch = Arrays.mismatch(expected, 0, expected.length, actual.array, from,
                from + expected.length);
            if (mismatch >= 0)
            {
                add(label.get() + ": " + what + " differs first at byte " + (at + mismatch) + " (expected " +
                    expected[mismatch] + ", got " + actual.array[from + mismatch] + ")");
            }
            if (!actual.guardsIntact())
            {
                add(label.get() + ": " + what + " written outside its bounds");
            }
        }

        /** Every byte of {@code actual}, guards included, still holds the sentinel. */
        void expectUntouched(final Supplier<String> label, final String what, final Guarded actual)
        {
            final byte[] untouched = new byte[actual.bytes];
            Arrays.fill(untouched, SENTINEL);
            expect(label, what + " (must stay untouched)", untouched, actual, 0);
        }

        void add(final String message)
        {
            if (count.incrementAndGet() <= KEEP)
            {
                messages.add(message);
            }
        }

        int checks()
        {
            return checks.get();
        }

        void assertNone()
        {
            if (count.get() > 0)
            {
                fail(count.get() + " failures, first ones:\n" + String.join("\n", messages));
            }
        }
    }
}
