package io.jccl.spi;

import io.jccl.DataType;
import io.jccl.ReduceOp;
import jdk.incubator.vector.ByteVector;
import jdk.incubator.vector.DoubleVector;
import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.IntVector;
import jdk.incubator.vector.LongVector;
import jdk.incubator.vector.VectorOperators;
import jdk.incubator.vector.VectorSpecies;

import java.lang.foreign.MemorySegment;
import java.nio.ByteOrder;

/**
 * {@link OffHeapReductions} with the Vector API: per type and operator one loop of full vectors of the platform's
 * preferred width (float16 is left to the array kernels: the Vector API of Java 22 to 25 cannot widen it). Memory is
 * addressed through one segment spanning the whole address space, so a call builds no segment and the loops index by
 * absolute address. Each operator has its own loop, calling {@code add}, {@code mul}, {@code min} or {@code max}: a
 * {@code lanewise} whose operator is a parameter compiles to a SIMD instruction only when C2 happens to inline it as a
 * constant, and runs about 20 times slower when it does not.
 * <p>
 * Results match the array kernels bit for bit: integers wrap; MIN and MAX of floating point follow {@link Math#min}
 * (NaN wins, -0.0 is below 0.0), as the Vector API's lane-wise MIN and MAX do; every NaN result is made the canonical
 * NaN of its type, as the interpreter, C1 and C2 propagate different payloads.
 */
final class VectorApiReductions implements OffHeapReductions
{
    private static final MemorySegment ALL = MemorySegment.NULL.reinterpret(Long.MAX_VALUE);
    private static final ByteOrder ORDER = ByteOrder.nativeOrder();
    private static final VectorSpecies<Byte> I8 = ByteVector.SPECIES_PREFERRED;
    private static final VectorSpecies<Integer> I32 = IntVector.SPECIES_PREFERRED;
    private static final VectorSpecies<Long> I64 = LongVector.SPECIES_PREFERRED;
    private static final VectorSpecies<Float> F32 = FloatVector.SPECIES_PREFERRED;
    private static final VectorSpecies<Double> F64 = DoubleVector.SPECIES_PREFERRED;
    private static final float F32_NAN = Float.intBitsToFloat(0x7FC0_0000);
    private static final double F64_NAN = Double.longBitsToDouble(0x7FF8_0000_0000_0000L);

    @Override
    public boolean handles(final DataType type)
    {
        return type != DataType.FLOAT16;
    }

    @Override
    public long reduce(final DataType type, final ReduceOp op, final long a, final long b, final long d,
        final long count)
    {
        return switch (type)
        {
            case INT8 -> int8(op, a, b, d, count);
            case INT32 -> int32(op, a, b, d, count);
            case INT64 -> int64(op, a, b, d, count);
            case FLOAT32 -> float32(op, a, b, d, count);
            case FLOAT64 -> float64(op, a, b, d, count);
            case BFLOAT16 -> bfloat16(op, a, b, d, count);
            case UINT8 -> uint8(op == ReduceOp.MAX, a, b, d, count);
            case UINT32 -> uint32(op == ReduceOp.MAX, a, b, d, count);
            case UINT64 -> uint64(op == ReduceOp.MAX, a, b, d, count);
            case FLOAT16 -> 0;
        };
    }

    /*
     * MIN and MAX of unsigned integers (Reductions passes them no other operator: the others give the signed types'
     * bits): with the sign bit flipped, unsigned order is signed order, so each lane is flipped, compared and flipped
     * back (VectorOperators.UMIN and UMAX came in Java 24; this source is Java 22's).
     */

    private static long uint8(final boolean max, final long a, final long b, final long d, final long count)
    {
        final long end = count - count % I8.length();
        final long step = I8.vectorByteSize();
        final ByteVector flip = ByteVector.broadcast(I8, (byte)0x80);
        for (long at = 0; at < end; at += step)
        {
            final ByteVector x = ByteVector.fromMemorySegment(I8, ALL, a + at, ORDER)
                .lanewise(VectorOperators.XOR, flip);
            final ByteVector y = ByteVector.fromMemorySegment(I8, ALL, b + at, ORDER)
                .lanewise(VectorOperators.XOR, flip);
            (max ? x.max(y) : x.min(y)).lanewise(VectorOperators.XOR, flip).intoMemorySegment(ALL, d + at, ORDER);
        }
        return end;
    }

    private static long uint32(final boolean max, final long a, final long b, final long d, final long count)
    {
        final long end = (count - count % I32.length()) << 2;
        final long step = I32.vectorByteSize();
        final IntVector flip = IntVector.broadcast(I32, Integer.MIN_VALUE);
        for (long at = 0; at < end; at += step)
        {
            final IntVector x = IntVector.fromMemorySegment(I32, ALL, a + at, ORDER)
                .lanewise(VectorOperators.XOR, flip);
            final IntVector y = IntVector.fromMemorySegment(I32, ALL, b + at, ORDER)
                .lanewise(VectorOperators.XOR, flip);
            (max ? x.max(y) : x.min(y)).lanewise(VectorOperators.XOR, flip).intoMemorySegment(ALL, d + at, ORDER);
        }
        return end >> 2;
    }

    private static long uint64(final boolean max, final long a, final long b, final long d, final long count)
    {
        final long end = (count - count % I64.length()) << 3;
        final long step = I64.vectorByteSize();
        final LongVector flip = LongVector.broadcast(I64, Long.MIN_VALUE);
        for (long at = 0; at < end; at += step)
        {
            final LongVector x = LongVector.fromMemorySegment(I64, ALL, a + at, ORDER)
                .lanewise(VectorOperators.XOR, flip);
            final LongVector y = LongVector.fromMemorySegment(I64, ALL, b + at, ORDER)
                .lanewise(VectorOperators.XOR, flip);
            (max ? x.max(y) : x.min(y)).lanewise(VectorOperators.XOR, flip).intoMemorySegment(ALL, d + at, ORDER);
        }
        return end >> 3;
    }

    private static long int8(final ReduceOp op, final long a, final long b, final long d, final long count)
    {
        final long end = count - count % I8.length();
        final long step = I8.vectorByteSize();
        switch (op)
        {
            case SUM, AVG ->
            {
                for (long at = 0; at < end; at += step)
                {
                    ByteVector.fromMemorySegment(I8, ALL, a + at, ORDER)
                        .add(ByteVector.fromMemorySegment(I8, ALL, b + at, ORDER))
                        .intoMemorySegment(ALL, d + at, ORDER);
                }
            }
            case PROD ->
            {
                for (long at = 0; at < end; at += step)
                {
                    ByteVector.fromMemorySegment(I8, ALL, a + at, ORDER)
                        .mul(ByteVector.fromMemorySegment(I8, ALL, b + at, ORDER))
                        .intoMemorySegment(ALL, d + at, ORDER);
                }
            }
            case MIN ->
            {
                for (long at = 0; at < end; at += step)
                {
                    ByteVector.fromMemorySegment(I8, ALL, a + at, ORDER)
                        .min(ByteVector.fromMemorySegment(I8, ALL, b + at, ORDER))
                        .intoMemorySegment(ALL, d + at, ORDER);
                }
            }
            case MAX ->
            {
                for (long at = 0; at < end; at += step)
                {
                    ByteVector.fromMemorySegment(I8, ALL, a + at, ORDER)
                        .max(ByteVector.fromMemorySegment(I8, ALL, b + at, ORDER))
                        .intoMemorySegment(ALL, d + at, ORDER);
                }
            }
            case BAND ->
            {
                for (long at = 0; at < end; at += step)
                {
                    ByteVector.fromMemorySegment(I8, ALL, a + at, ORDER)
                        .and(ByteVector.fromMemorySegment(I8, ALL, b + at, ORDER))
                        .intoMemorySegment(ALL, d + at, ORDER);
                }
            }
            case BOR ->
            {
                for (long at = 0; at < end; at += step)
                {
                    ByteVector.fromMemorySegment(I8, ALL, a + at, ORDER)
                        .or(ByteVector.fromMemorySegment(I8, ALL, b + at, ORDER))
                        .intoMemorySegment(ALL, d + at, ORDER);
                }
            }
            case BXOR ->
            {
                for (long at = 0; at < end; at += step)
                {
                    ByteVector.fromMemorySegment(I8, ALL, a + at, ORDER)
                        .lanewise(VectorOperators.XOR, ByteVector.fromMemorySegment(I8, ALL, b + at, ORDER))
                        .intoMemorySegment(ALL, d + at, ORDER);
                }
            }
        }
        return end;
    }

    private static long int32(final ReduceOp op, final long a, final long b, final long d, final long count)
    {
        final long end = (count - count % I32.length()) << 2;
        final long step = I32.vectorByteSize();
        switch (op)
        {
            case SUM, AVG ->
            {
                for (long at = 0; at < end; at += step)
                {
                    IntVector.fromMemorySegment(I32, ALL, a + at, ORDER)
                        .add(IntVector.fromMemorySegment(I32, ALL, b + at, ORDER))
                        .intoMemorySegment(ALL, d + at, ORDER);
                }
            }
            case PROD ->
            {
                for (long at = 0; at < end; at += step)
                {
                    IntVector.fromMemorySegment(I32, ALL, a + at, ORDER)
                        .mul(IntVector.fromMemorySegment(I32, ALL, b + at, ORDER))
                        .intoMemorySegment(ALL, d + at, ORDER);
                }
            }
            case MIN ->
            {
                for (long at = 0; at < end; at += step)
                {
                    IntVector.fromMemorySegment(I32, ALL, a + at, ORDER)
                        .min(IntVector.fromMemorySegment(I32, ALL, b + at, ORDER))
                        .intoMemorySegment(ALL, d + at, ORDER);
                }
            }
            case MAX ->
            {
                for (long at = 0; at < end; at += step)
                {
                    IntVector.fromMemorySegment(I32, ALL, a + at, ORDER)
                        .max(IntVector.fromMemorySegment(I32, ALL, b + at, ORDER))
                        .intoMemorySegment(ALL, d + at, ORDER);
                }
            }
            case BAND ->
            {
                for (long at = 0; at < end; at += step)
                {
                    IntVector.fromMemorySegment(I32, ALL, a + at, ORDER)
                        .and(IntVector.fromMemorySegment(I32, ALL, b + at, ORDER))
                        .intoMemorySegment(ALL, d + at, ORDER);
                }
            }
            case BOR ->
            {
                for (long at = 0; at < end; at += step)
                {
                    IntVector.fromMemorySegment(I32, ALL, a + at, ORDER)
                        .or(IntVector.fromMemorySegment(I32, ALL, b + at, ORDER))
                        .intoMemorySegment(ALL, d + at, ORDER);
                }
            }
            case BXOR ->
            {
                for (long at = 0; at < end; at += step)
                {
                    IntVector.fromMemorySegment(I32, ALL, a + at, ORDER)
                        .lanewise(VectorOperators.XOR, IntVector.fromMemorySegment(I32, ALL, b + at, ORDER))
                        .intoMemorySegment(ALL, d + at, ORDER);
                }
            }
        }
        return end >> 2;
    }

    private static long int64(final ReduceOp op, final long a, final long b, final long d, final long count)
    {
        final long end = (count - count % I64.length()) << 3;
        final long step = I64.vectorByteSize();
        switch (op)
        {
            case SUM, AVG ->
            {
                for (long at = 0; at < end; at += step)
                {
                    LongVector.fromMemorySegment(I64, ALL, a + at, ORDER)
                        .add(LongVector.fromMemorySegment(I64, ALL, b + at, ORDER))
                        .intoMemorySegment(ALL, d + at, ORDER);
                }
            }
            case PROD ->
            {
                for (long at = 0; at < end; at += step)
                {
                    LongVector.fromMemorySegment(I64, ALL, a + at, ORDER)
                        .mul(LongVector.fromMemorySegment(I64, ALL, b + at, ORDER))
                        .intoMemorySegment(ALL, d + at, ORDER);
                }
            }
            case MIN ->
            {
                for (long at = 0; at < end; at += step)
                {
                    LongVector.fromMemorySegment(I64, ALL, a + at, ORDER)
                        .min(LongVector.fromMemorySegment(I64, ALL, b + at, ORDER))
                        .intoMemorySegment(ALL, d + at, ORDER);
                }
            }
            case MAX ->
            {
                for (long at = 0; at < end; at += step)
                {
                    LongVector.fromMemorySegment(I64, ALL, a + at, ORDER)
                        .max(LongVector.fromMemorySegment(I64, ALL, b + at, ORDER))
                        .intoMemorySegment(ALL, d + at, ORDER);
                }
            }
            case BAND ->
            {
                for (long at = 0; at < end; at += step)
                {
                    LongVector.fromMemorySegment(I64, ALL, a + at, ORDER)
                        .and(LongVector.fromMemorySegment(I64, ALL, b + at, ORDER))
                        .intoMemorySegment(ALL, d + at, ORDER);
                }
            }
            case BOR ->
            {
                for (long at = 0; at < end; at += step)
                {
                    LongVector.fromMemorySegment(I64, ALL, a + at, ORDER)
                        .or(LongVector.fromMemorySegment(I64, ALL, b + at, ORDER))
                        .intoMemorySegment(ALL, d + at, ORDER);
                }
            }
            case BXOR ->
            {
                for (long at = 0; at < end; at += step)
                {
                    LongVector.fromMemorySegment(I64, ALL, a + at, ORDER)
                        .lanewise(VectorOperators.XOR, LongVector.fromMemorySegment(I64, ALL, b + at, ORDER))
                        .intoMemorySegment(ALL, d + at, ORDER);
                }
            }
        }
        return end >> 3;
    }

    private static long float32(final ReduceOp op, final long a, final long b, final long d, final long count)
    {
        final long end = (count - count % F32.length()) << 2;
        final long step = F32.vectorByteSize();
        switch (op)
        {
            case SUM, AVG ->
            {
                for (long at = 0; at < end; at += step)
                {
                    final FloatVector r = FloatVector.fromMemorySegment(F32, ALL, a + at, ORDER)
                        .add(FloatVector.fromMemorySegment(F32, ALL, b + at, ORDER));
                    r.blend(F32_NAN, r.test(VectorOperators.IS_NAN)).intoMemorySegment(ALL, d + at, ORDER);
                }
            }
            case PROD ->
            {
                for (long at = 0; at < end; at += step)
                {
                    final FloatVector r = FloatVector.fromMemorySegment(F32, ALL, a + at, ORDER)
                        .mul(FloatVector.fromMemorySegment(F32, ALL, b + at, ORDER));
                    r.blend(F32_NAN, r.test(VectorOperators.IS_NAN)).intoMemorySegment(ALL, d + at, ORDER);
                }
            }
            case MIN ->
            {
                for (long at = 0; at < end; at += step)
                {
                    final FloatVector r = FloatVector.fromMemorySegment(F32, ALL, a + at, ORDER)
                        .min(FloatVector.fromMemorySegment(F32, ALL, b + at, ORDER));
                    r.blend(F32_NAN, r.test(VectorOperators.IS_NAN)).intoMemorySegment(ALL, d + at, ORDER);
                }
            }
            case MAX ->
            {
                for (long at = 0; at < end; at += step)
                {
                    final FloatVector r = FloatVector.fromMemorySegment(F32, ALL, a + at, ORDER)
                        .max(FloatVector.fromMemorySegment(F32, ALL, b + at, ORDER));
                    r.blend(F32_NAN, r.test(VectorOperators.IS_NAN)).intoMemorySegment(ALL, d + at, ORDER);
                }
            }
        }
        return end >> 2;
    }

    private static long float64(final ReduceOp op, final long a, final long b, final long d, final long count)
    {
        final long end = (count - count % F64.length()) << 3;
        final long step = F64.vectorByteSize();
        switch (op)
        {
            case SUM, AVG ->
            {
                for (long at = 0; at < end; at += step)
                {
                    final DoubleVector r = DoubleVector.fromMemorySegment(F64, ALL, a + at, ORDER)
                        .add(DoubleVector.fromMemorySegment(F64, ALL, b + at, ORDER));
                    r.blend(F64_NAN, r.test(VectorOperators.IS_NAN)).intoMemorySegment(ALL, d + at, ORDER);
                }
            }
            case PROD ->
            {
                for (long at = 0; at < end; at += step)
                {
                    final DoubleVector r = DoubleVector.fromMemorySegment(F64, ALL, a + at, ORDER)
                        .mul(DoubleVector.fromMemorySegment(F64, ALL, b + at, ORDER));
                    r.blend(F64_NAN, r.test(VectorOperators.IS_NAN)).intoMemorySegment(ALL, d + at, ORDER);
                }
            }
            case MIN ->
            {
                for (long at = 0; at < end; at += step)
                {
                    final DoubleVector r = DoubleVector.fromMemorySegment(F64, ALL, a + at, ORDER)
                        .min(DoubleVector.fromMemorySegment(F64, ALL, b + at, ORDER));
                    r.blend(F64_NAN, r.test(VectorOperators.IS_NAN)).intoMemorySegment(ALL, d + at, ORDER);
                }
            }
            case MAX ->
            {
                for (long at = 0; at < end; at += step)
                {
                    final DoubleVector r = DoubleVector.fromMemorySegment(F64, ALL, a + at, ORDER)
                        .max(DoubleVector.fromMemorySegment(F64, ALL, b + at, ORDER));
                    r.blend(F64_NAN, r.test(VectorOperators.IS_NAN)).intoMemorySegment(ALL, d + at, ORDER);
                }
            }
        }
        return end >> 3;
    }

    /**
     * bfloat16, two elements per int lane: each widens to float32 by moving its 16 bits to the top of a lane (the
     * element at the lower address is the low half on a little-endian machine, the only order this serves), the
     * halves combine in float32, and each result rounds to nearest even back into its half.
     */
    private static long bfloat16(final ReduceOp op, final long a, final long b, final long d, final long count)
    {
        if (ORDER != ByteOrder.LITTLE_ENDIAN)
        {
            return 0;
        }
        final long pairs = count >>> 1;
        final long end = (pairs - pairs % I32.length()) << 2;
        final long step = I32.vectorByteSize();
        switch (op)
        {
            case SUM, AVG ->
            {
                for (long at = 0; at < end; at += step)
                {
                    final IntVector x = IntVector.fromMemorySegment(I32, ALL, a + at, ORDER);
                    final IntVector y = IntVector.fromMemorySegment(I32, ALL, b + at, ORDER);
                    pack(low(x).add(low(y)), high(x).add(high(y))).intoMemorySegment(ALL, d + at, ORDER);
                }
            }
            case PROD ->
            {
                for (long at = 0; at < end; at += step)
                {
                    final IntVector x = IntVector.fromMemorySegment(I32, ALL, a + at, ORDER);
                    final IntVector y = IntVector.fromMemorySegment(I32, ALL, b + at, ORDER);
                    pack(low(x).mul(low(y)), high(x).mul(high(y))).intoMemorySegment(ALL, d + at, ORDER);
                }
            }
            case MIN ->
            {
                for (long at = 0; at < end; at += step)
                {
                    final IntVector x = IntVector.fromMemorySegment(I32, ALL, a + at, ORDER);
                    final IntVector y = IntVector.fromMemorySegment(I32, ALL, b + at, ORDER);
                    pack(low(x).min(low(y)), high(x).min(high(y))).intoMemorySegment(ALL, d + at, ORDER);
                }
            }
            case MAX ->
            {
                for (long at = 0; at < end; at += step)
                {
                    final IntVector x = IntVector.fromMemorySegment(I32, ALL, a + at, ORDER);
                    final IntVector y = IntVector.fromMemorySegment(I32, ALL, b + at, ORDER);
                    pack(low(x).max(low(y)), high(x).max(high(y))).intoMemorySegment(ALL, d + at, ORDER);
                }
            }
        }
        return end >> 1;
    }

    /** The elements at the lower addresses of the lanes' pairs, as float32. */
    private static FloatVector low(final IntVector pairs)
    {
        return pairs.lanewise(VectorOperators.LSHL, 16).reinterpretAsFloats();
    }

    /** The elements at the higher addresses of the lanes' pairs, as float32. */
    private static FloatVector high(final IntVector pairs)
    {
        return pairs.and(0xFFFF_0000).reinterpretAsFloats();
    }

    /** Two float32 results per lane rounded to bfloat16 and packed as {@link #low} and {@link #high} read them. */
    private static IntVector pack(final FloatVector low, final FloatVector high)
    {
        return round(low).lanewise(VectorOperators.LSHR, 16).or(round(high).and(0xFFFF_0000));
    }

    /**
     * float32 rounded to nearest even at bit 16, in the upper half of each lane (overflow gives infinity); NaN gives
     * the canonical {@code 0x7FC0}.
     */
    private static IntVector round(final FloatVector value)
    {
        final IntVector bits = value.reinterpretAsInts();
        return bits.add(0x7FFF).add(bits.lanewise(VectorOperators.LSHR, 16).and(1))
            .blend(0x7FC0_0000, value.test(VectorOperators.IS_NAN).cast(I32));
    }
}
