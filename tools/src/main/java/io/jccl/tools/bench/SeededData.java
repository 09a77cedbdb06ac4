package io.jccl.tools.bench;

import io.jccl.DataType;
import io.jccl.ReduceOp;
import io.jccl.spi.Reductions;

import org.agrona.MutableDirectBuffer;

/**
 * The inputs of {@code --check} and their references. Element {@code i} of rank {@code r}'s input is a function of
 * (seed, r, i) only, so every rank computes any rank's input, and the reference of a reduction, locally. Values
 * are rounded to the element type when generated, so the reference starts from exactly what was sent.
 * <p>
 * Integers are compared exactly (with the wrap-around of the type, which does not depend on the order of the
 * reduction); floating point within a tolerance of (p + 1) units of the type's precision times the sum of the
 * magnitudes (the product, for PROD), because algorithms add in different orders. MIN and MAX are exact.
 * Values: for SUM, AVG, MIN, MAX and for copies, multiples of 1/64 in [-8, 8) (integers in [-64, 64)); for PROD,
 * ±[0.75, 1.25) in steps of 1/2048 (integers in [-3, 3]), so that products of many ranks neither overflow nor
 * vanish. Unsigned types draw the same bits as the signed ones, so that the negative draws lie above the signed range
 * (-64 is 192 in uint8): MIN, MAX and AVG are checked in unsigned order and division.
 */
public final class SeededData
{
    private static final long GOLDEN = 0x9E3779B97F4A7C15L;

    /** What a receive buffer holds before a checked call, in every byte. */
    private static final byte POISON = (byte)0xA5;

    private final DataType type;
    private final ReduceOp op;
    private final boolean forProduct;
    private final int ranks;
    private final long seed;
    private final int size;

    /**
     * @param type       element type.
     * @param op         the reduction checked; it also chooses the value range (see the class comment).
     * @param forProduct true to draw the values for a PROD reduction.
     * @param ranks      ranks in the job.
     * @param seed       any number; the same on every rank.
     */
    public SeededData(final DataType type, final ReduceOp op, final boolean forProduct, final int ranks,
        final long seed)
    {
        this.type = type;
        this.op = op;
        this.forProduct = forProduct;
        this.ranks = ranks;
        this.seed = seed;
        this.size = type.size();
    }

    public DataType type()
    {
        return type;
    }

    /** The same inputs, with references reducing those of ranks 0 to {@code ranks} - 1 only: a prefix's (scan). */
    public SeededData ofRanksBelow(final int ranks)
    {
        return new SeededData(type, op, forProduct, ranks, seed);
    }

    /** True when the values are drawn for a PROD reduction. */
    public boolean forProduct()
    {
        return forProduct;
    }

    /**
     * Input element {@code index} of {@code rank}, exactly as stored in the type, widened to double; for unsigned
     * types, the value of the same bits read signed.
     */
    public double value(final int rank, final long index)
    {
        final long h = mix(seed + GOLDEN * (rank + 1) + 0xBF58476D1CE4E5B9L * index);
        if (type.isFloatingPoint())
        {
            final double raw;
            if (forProduct)
            {
                final double magnitude = 0.75 + (h >>> 53 & 1023) / 2048.0;
                raw = (h & 1) == 0 ? magnitude : -magnitude;
            }
            else
            {
                raw = ((h >>> 40 & 1023) - 512) / 64.0;
            }
            return roundToType(raw);
        }
        return forProduct ? (h >>> 40) % 7 - 3 : (h >>> 40 & 127) - 64;
    }

    /** Writes elements [0, count) of {@code rank}'s input at the start of {@code buffer} (native byte order). */
    public void fill(final MutableDirectBuffer buffer, final int rank, final long count)
    {
        for (long i = 0; i < count; i++)
        {
            write(buffer, i, value(rank, i));
        }
    }

    /** Fills {@code count} elements with 0xA5 bytes: what a receive buffer holds before a checked call. */
    public void poison(final MutableDirectBuffer buffer, final long elementOffset, final long count)
    {
        final int from = Math.toIntExact(elementOffset * size);
        final int to = Math.toIntExact((elementOffset + count) * size);
        for (int at = from; at < to; at++)
        {
            buffer.putByte(at, POISON);
        }
    }

    /** Elements [0, count) of {@code buffer} from {@code elementOffset} that are no longer {@link #poison}'s bytes. */
    public long wrongPoison(final MutableDirectBuffer buffer, final long elementOffset, final long count)
    {
        long wrong = 0;
        for (long i = 0; i < count; i++)
        {
            final int at = Math.toIntExact((elementOffset + i) * size);
            for (int b = 0; b < size; b++)
            {
                if (buffer.getByte(at + b) != POISON)
                {
                    wrong++;
                    break;
                }
            }
        }
        return wrong;
    }

    /**
     * Elements [0, count) of {@code buffer} from {@code elementOffset} that differ from input elements
     * [sourceIndex, sourceIndex + count) of {@code sourceRank}: a copy must be bit for bit.
     */
    public long wrongCopies(final MutableDirectBuffer buffer, final long elementOffset, final long count,
        final int sourceRank, final long sourceIndex)
    {
        long wrong = 0;
        for (long i = 0; i < count; i++)
        {
            if (readBits(buffer, elementOffset + i) != bitsOf(value(sourceRank, sourceIndex + i)))
            {
                wrong++;
            }
        }
        return wrong;
    }

    /**
     * Elements [0, count) of {@code buffer} from {@code elementOffset} that differ from the reduction over every
     * rank of input elements [sourceIndex, sourceIndex + count).
     */
    public long wrongReductions(final MutableDirectBuffer buffer, final long elementOffset, final long count,
        final long sourceIndex)
    {
        long wrong = 0;
        for (long i = 0; i < count; i++)
        {
            final long at = elementOffset + i;
            final boolean right = type.isFloatingPoint() ? matchesReduction(read(buffer, at), sourceIndex + i) :
                readLong(buffer, at) == reducedInteger(sourceIndex + i);
            if (!right)
            {
                wrong++;
            }
        }
        return wrong;
    }

    /**
     * True when {@code got} is, within the tolerance the class describes, the floating point reduction over every
     * rank of input element {@code index}.
     */
    public boolean matchesReduction(final double got, final long index)
    {
        double acc = value(0, index);
        double magnitude = Math.abs(acc);
        for (int r = 1; r < ranks; r++)
        {
            final double v = value(r, index);
            magnitude += Math.abs(v);
            acc = switch (op)
            {
                case SUM, AVG -> acc + v;
                case PROD -> acc * v;
                case MIN -> Math.min(acc, v);
                case MAX -> Math.max(acc, v);
                case BAND, BOR, BXOR -> throw new IllegalStateException(op.label() + " of floating point");
            };
        }
        if (op == ReduceOp.AVG)
        {
            acc /= ranks;
            magnitude /= ranks;
        }
        final double tolerance = switch (op)
        {
            case SUM, AVG -> (ranks + 1) * epsilon() * magnitude;
            case PROD -> (ranks + 1) * epsilon() * Math.abs(acc);
            case MIN, MAX, BAND, BOR, BXOR -> 0;
        };
        return Math.abs(got - acc) <= tolerance;
    }

    /**
     * The integer reduction over every rank of input element {@code index}, wrapped to the type as jccl does and
     * sign-extended, as {@link #readLong} reads it.
     */
    public long reducedInteger(final long index)
    {
        if (type.isUnsigned())
        {
            return reducedUnsigned(index);
        }
        long acc = (long)value(0, index);
        for (int r = 1; r < ranks; r++)
        {
            final long v = (long)value(r, index);
            acc = switch (op)
            {
                case SUM, AVG -> acc + v;
                case PROD -> acc * v;
                case MIN -> Math.min(acc, v);
                case MAX -> Math.max(acc, v);
                case BAND -> acc & v;
                case BOR -> acc | v;
                case BXOR -> acc ^ v;
            };
        }
        acc = wrap(acc);
        return op == ReduceOp.AVG ? acc / ranks : acc;
    }

    /** {@link #reducedInteger} of an unsigned type: on the unsigned values of the bits, returned sign-extended. */
    private long reducedUnsigned(final long index)
    {
        final long mask = size == 8 ? -1L : (1L << 8 * size) - 1;
        long acc = (long)value(0, index) & mask;
        for (int r = 1; r < ranks; r++)
        {
            final long v = (long)value(r, index) & mask;
            acc = switch (op)
            {
                case SUM, AVG -> acc + v & mask;
                case PROD -> acc * v & mask;
                case MIN -> Long.compareUnsigned(acc, v) <= 0 ? acc : v;
                case MAX -> Long.compareUnsigned(acc, v) >= 0 ? acc : v;
                case BAND -> acc & v;
                case BOR -> acc | v;
                case BXOR -> acc ^ v;
            };
        }
        return wrap(op == ReduceOp.AVG ? Long.divideUnsigned(acc, ranks) : acc);
    }

    /** Integer element {@code index} of {@code buffer}, sign-extended. */
    public long readLong(final MutableDirectBuffer buffer, final long index)
    {
        final int at = Math.toIntExact(index * size);
        return switch (type)
        {
            case INT8, UINT8 -> buffer.getByte(at);
            case INT32, UINT32 -> buffer.getInt(at);
            default -> buffer.getLong(at);
        };
    }

    /** Element {@code index} of {@code buffer}, widened to double. */
    public double read(final MutableDirectBuffer buffer, final long index)
    {
        final int at = Math.toIntExact(index * size);
        return switch (type)
        {
            case INT8 -> buffer.getByte(at);
            case INT32 -> buffer.getInt(at);
            case INT64 -> buffer.getLong(at);
            case UINT8 -> buffer.getByte(at) & 0xFF;
            case UINT32 -> buffer.getInt(at) & 0xFFFF_FFFFL;
            case UINT64 ->
            {
                final long bits = buffer.getLong(at);
                yield bits >= 0 ? bits : 0x1p64 + bits;
            }
            case FLOAT16 -> Float.float16ToFloat(buffer.getShort(at));
            case BFLOAT16 -> Reductions.bfloat16ToFloat(buffer.getShort(at));
            case FLOAT32 -> buffer.getFloat(at);
            case FLOAT64 -> buffer.getDouble(at);
        };
    }

    /** Stores {@code value} (already representable in the type) as element {@code index}. */
    public void write(final MutableDirectBuffer buffer, final long index, final double value)
    {
        final int at = Math.toIntExact(index * size);
        switch (type)
        {
            case INT8, UINT8 -> buffer.putByte(at, (byte)value);
            case INT32, UINT32 -> buffer.putInt(at, (int)value);
            case INT64, UINT64 -> buffer.putLong(at, (long)value);
            case FLOAT16 -> buffer.putShort(at, Float.floatToFloat16((float)value));
            case BFLOAT16 -> buffer.putShort(at, Reductions.floatToBfloat16((float)value));
            case FLOAT32 -> buffer.putFloat(at, (float)value);
            case FLOAT64 -> buffer.putDouble(at, value);
        }
    }

    /** Unit of the type's precision: the relative step between neighbouring values. */
    private double epsilon()
    {
        return switch (type)
        {
            case FLOAT16 -> 0x1p-10;
            case BFLOAT16 -> 0x1p-7;
            case FLOAT32 -> 0x1p-23;
            default -> 0x1p-52;
        };
    }

    private double roundToType(final double value)
    {
        return switch (type)
        {
            case FLOAT16 -> Float.float16ToFloat(Float.floatToFloat16((float)value));
            case BFLOAT16 -> Reductions.bfloat16ToFloat(Reductions.floatToBfloat16((float)value));
            case FLOAT32 -> (float)value;
            default -> value;
        };
    }

    private long wrap(final long value)
    {
        return switch (type)
        {
            case INT8, UINT8 -> (byte)value;
            case INT32, UINT32 -> (int)value;
            default -> value;
        };
    }

    /** The stored bits of element {@code index}, zero-extended. */
    private long readBits(final MutableDirectBuffer buffer, final long index)
    {
        final int at = Math.toIntExact(index * size);
        return switch (size)
        {
            case 1 -> buffer.getByte(at) & 0xFFL;
            case 2 -> buffer.getShort(at) & 0xFFFFL;
            case 4 -> buffer.getInt(at) & 0xFFFF_FFFFL;
            default -> buffer.getLong(at);
        };
    }

    /** The bits {@link #write} stores for {@code value}, zero-extended. */
    private long bitsOf(final double value)
    {
        return switch (type)
        {
            case INT8, UINT8 -> (byte)value & 0xFFL;
            case INT32, UINT32 -> (int)value & 0xFFFF_FFFFL;
            case INT64, UINT64 -> (long)value;
            case FLOAT16 -> Float.floatToFloat16((float)value) & 0xFFFFL;
            case BFLOAT16 -> Reductions.floatToBfloat16((float)value) & 0xFFFFL;
            case FLOAT32 -> Float.floatToRawIntBits((float)value) & 0xFFFF_FFFFL;
            case FLOAT64 -> Double.doubleToRawLongBits(value);
        };
    }

    /** SplitMix64's finaliser: a different, well-spread long for every input. */
    public static long mix(final long z)
    {
        long x = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
        x = (x ^ (x >>> 27)) * 0x94D049BB133111EBL;
        return x ^ (x >>> 31);
    }
}
