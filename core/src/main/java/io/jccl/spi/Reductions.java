package io.jccl.spi;

import io.jccl.DataType;
import io.jccl.ReduceOp;
import org.agrona.UnsafeApi;

import static io.jccl.spi.ReductionScratch.BLOCK_BYTES;
import static io.jccl.spi.ReductionScratch.STAGE64_BASE;
import static io.jccl.spi.ReductionScratch.STAGE_BASE;

/**
 * Element-wise reduction kernels over memory addressed as (base, offset). {@code dst} may alias {@code a} or
 * {@code b} exactly (same start), never partially. AVG reduces as SUM; {@link #divide} finishes it.
 * <p>
 * Integers wrap like Java arithmetic; unsigned ones compare and divide unsigned ({@link UnsignedOrder}). float16 and
 * bfloat16 are widened to float32, combined, and rounded to nearest even once. MIN and MAX of floating point follow
 * {@link Math#min(float, float)}: NaN wins and -0.0 is below 0.0. Every NaN result is the canonical quiet NaN of its
 * type, so identical inputs give identical bits on every rank, whichever JIT tier or memory kind computed them.
 * <p>
 * How it runs at memory speed: when any operand is off-heap, {@link OffHeapReductions} (the Vector API's SIMD loops)
 * when the JVM has them, for every type but float16, heap operands passing through per-thread off-heap blocks.
 * Otherwise each call switches once on type and operator, then runs tight loops that C2 vectorises. Those loops read
 * Java arrays of the element type directly when they can; any other memory (off-heap, mapped, arrays of another type)
 * is processed in L1-sized blocks staged through per-thread scratch arrays by intrinsic copies (see
 * {@link ReductionScratch}). Short vectors take a scalar loop instead.
 */
public final class Reductions
{
    /** The SIMD kernels for off-heap operands, or null (constant once the class is initialised). */
    private static final OffHeapReductions OFF_HEAP = OffHeapReductions.load();

    /**
     * Bytes of the widest vector the SIMD kernels use (512 bits). Fewer bytes fill no vector, so the SIMD kernel
     * would reduce none of them and only cost its call: they take the scalar loop. That call is dear where it adds
     * up: an 8-byte allreduce of 4 ranks on 2 cores reduces three times a call on each rank, and the ranks of a core
     * run one after the other (PERFORMANCE.md, session 30).
     */
    static final int SIMD_MIN_BYTES = 64;

    /** dst and one operand are typed arrays at one index: stage the other operand, write dst in place. */
    private static final int PLAN_STAGE_OTHER = 0;
    /** One operand is a typed array: stage the other, combine into the staging array, copy that to dst. */
    private static final int PLAN_RESULT_STAGED = 1;
    /** Only dst is a typed array: copy a into dst, stage b, combine into dst. */
    private static final int PLAN_COPY_INTO_DST = 2;
    /** Nothing is a typed array: copy a into a typed scratch array, stage b, combine there, copy to dst. */
    private static final int PLAN_ALL_STAGED = 3;

    private Reductions()
    {
    }

    /**
     * {@code dst[i] = a[i] op b[i]} for {@code i < count}. A bitwise operator on a floating-point type is refused
     * here too, for an algorithm that reaches the kernels without the communicator's checks: the float kernels have
     * no loop for it.
     */
    public static void reduce(final DataType type, final ReduceOp op,
        final Object aBase, final long aOffset, final Object bBase, final long bOffset,
        final Object dstBase, final long dstOffset, final long count)
    {
        ArgumentChecks.checkOp(op, type);
        final boolean unsigned = type.isUnsigned();
        if (unsigned && op != ReduceOp.MIN && op != ReduceOp.MAX)
        {
            // SUM, PROD (hence AVG's sum) and the bitwise operators: the same bits as on the signed type
            reduce(type.signed(), op, aBase, aOffset, bBase, bOffset, dstBase, dstOffset, count);
            return;
        }
        final boolean simd = OFF_HEAP != null && OFF_HEAP.handles(type);
        if (simd && aBase == null && bBase == null && dstBase == null && count * type.size() >= SIMD_MIN_BYTES)
        {
            offHeap(type, op, aOffset, bOffset, dstOffset, count);
            return;
        }
        if (count < scalarLimit(type))
        {
            if (count > 0)
            {
                scalar(type, op, aBase, aOffset, bBase, bOffset, dstBase, dstOffset, (int)count);
            }
            return;
        }
        if (simd && (aBase == null || bBase == null || dstBase == null))
        {
            throughOffHeap(type, op, aBase, aOffset, bBase, bOffset, dstBase, dstOffset, count);
            return;
        }
        if (unsigned)
        {
            UnsignedOrder.reduce(type, op, aBase, aOffset, bBase, bOffset, dstBase, dstOffset, count);
            return;
        }

        final int size = type.size();
        final int ai = typedIndex(type, aBase, aOffset);
        final int bi = typedIndex(type, bBase, bOffset);
        final int di = typedIndex(type, dstBase, dstOffset);
        final int block = BLOCK_BYTES / size;
        final ReductionScratch scratch = ReductionScratch.get();
        if (di >= 0 && ai == di && bi == di)
        {
            // all three are arrays of the element type at one index: nothing staged; still in blocks, so that
            // the NaN check after each block reads it from L1
            for (long done = 0; done < count; done += block)
            {
                final int n = (int)Math.min(block, count - done);
                arrays(type, op, aBase, bBase, dstBase, di + (int)done, n, scratch);
            }
            return;
        }

        // choose once which operand the loops read in place and which one is staged
        final Object direct;
        final int directIndex;
        final Object stagedBase;
        final long stagedOffset;
        final int plan;
        if (di >= 0 && (ai == di || bi == di))
        {
            plan = PLAN_STAGE_OTHER;
            direct = ai == di ? aBase : bBase;
            directIndex = di;
            stagedBase = ai == di ? bBase : aBase;
            stagedOffset = ai == di ? bOffset : aOffset;
        }
        else if (ai >= 0 || bi >= 0)
        {
            plan = PLAN_RESULT_STAGED;
            direct = ai >= 0 ? aBase : bBase;
            directIndex = ai >= 0 ? ai : bi;
            stagedBase = ai >= 0 ? bBase : aBase;
            stagedOffset = ai >= 0 ? bOffset : aOffset;
        }
        else if (di >= 0)
        {
            plan = PLAN_COPY_INTO_DST;
            direct = dstBase;
            directIndex = di;
            stagedBase = bBase;
            stagedOffset = bOffset;
        }
        else
        {
            plan = PLAN_ALL_STAGED;
            direct = null;
            directIndex = 0;
            stagedBase = bBase;
            stagedOffset = bOffset;
        }

        for (long done = 0; done < count; done += block)
        {
            final int n = (int)Math.min(block, count - done);
            final long bytes = (long)n * size;
            final long skip = done * size;
            final int at = directIndex + (int)done;

            // step 1: the operand the loops cannot read in place goes into the staging array
            stage(type, scratch, stagedBase, stagedOffset + skip, bytes);

            // step 2: combine, reading the typed operand in place, writing the destination or the staging array
            switch (plan)
            {
                case PLAN_STAGE_OTHER -> withStage(type, op, direct, at, scratch, dstBase, n);
                case PLAN_RESULT_STAGED ->
                {
                    intoStage(type, op, direct, at, scratch, n);
                    unstage(type, scratch, dstBase, dstOffset + skip, bytes);
                }
                case PLAN_COPY_INTO_DST ->
                {
                    // dst = a, then dst op= staged b (b was staged first: it may be dst itself)
                    Memory.copy(aBase, aOffset + skip, dstBase, dstOffset + skip, bytes);
                    withStage(type, op, dstBase, at, scratch, dstBase, n);
                }
                default ->
                {
                    final Object typed = typedScratch(type, scratch);
                    UnsafeApi.copyMemory(aBase, aOffset + skip, typed, arrayBase(type), bytes);
                    withStage(type, op, typed, 0, scratch, typed, n);
                    UnsafeApi.copyMemory(typed, arrayBase(type), dstBase, dstOffset + skip, bytes);
                }
            }
        }
    }

    /** All operands off-heap: whole vectors by SIMD, the few elements after them by the scalar loop. */
    private static void offHeap(final DataType type, final ReduceOp op, final long a, final long b, final long d,
        final long count)
    {
        final long done = OFF_HEAP.reduce(type, op, a, b, d, count);
        if (done < count)
        {
            final long skip = done * type.size();
            scalar(type, op, null, a + skip, null, b + skip, null, d + skip, (int)(count - done));
        }
    }

    /**
     * Some operands off-heap, some on the heap: block by block, the heap operands are copied into per-thread
     * off-heap blocks (an intrinsic memmove, at several times the reduction's speed in cache), reduced there by
     * SIMD, and a heap destination is copied back. Mixing them in one loop would take a kernel per combination of
     * memory kinds; the array kernels' staging instead runs scalar loops over mixed accesses (SIMD reading a
     * single-copy allreduce's peer into a heap array: 1 MiB 370 µs against 110 off-heap).
     */
    private static void throughOffHeap(final DataType type, final ReduceOp op,
        final Object aBase, final long aOffset, final Object bBase, final long bOffset,
        final Object dstBase, final long dstOffset, final long count)
    {
        final ReductionScratch scratch = ReductionScratch.get();
        final long blockA = scratch.offHeapBlocks();
        final long blockB = blockA + ReductionScratch.OFF_HEAP_BLOCK_BYTES;
        final long blockD = blockB + ReductionScratch.OFF_HEAP_BLOCK_BYTES;
        final int size = type.size();
        final long perBlock = ReductionScratch.OFF_HEAP_BLOCK_BYTES / size;
        final int blocks = (int)((count + perBlock - 1) / perBlock);
        for (int block = 0; block < blocks; block++)
        {
            final long skip = block * perBlock * size;
            final long n = Math.min(perBlock, count - block * perBlock);
            final long bytes = n * size;
            final long a = aBase == null ? aOffset + skip : blockA;
            final long b = bBase == null ? bOffset + skip : blockB;
            if (aBase != null)
            {
                UnsafeApi.copyMemory(aBase, aOffset + skip, null, blockA, bytes);
            }
            if (bBase != null)
            {
                UnsafeApi.copyMemory(bBase, bOffset + skip, null, blockB, bytes);
            }
            offHeap(type, op, a, b, dstBase == null ? dstOffset + skip : blockD, n);
            if (dstBase != null)
            {
                UnsafeApi.copyMemory(null, blockD, dstBase, dstOffset + skip, bytes);
            }
        }
    }

    /**
     * {@code x[i] /= divisor}: the second half of AVG. Integers truncate toward zero; floating point results are
     * rounded once, like {@code x / divisor} in Java.
     *
     * @param divisor the number of ranks, at least 1.
     */
    public static void divide(final DataType type, final Object base, final long offset, final long count,
        final int divisor)
    {
        if (divisor < 1)
        {
            throw new IllegalArgumentException("divisor must be at least 1: " + divisor);
        }
        if (count < scalarLimit(type))
        {
            if (count > 0)
            {
                scalarDivide(type, base, offset, (int)count, divisor);
            }
            return;
        }

        final int size = type.size();
        final int block = BLOCK_BYTES / size;
        final ReductionScratch scratch = ReductionScratch.get();
        final int index = typedIndex(type, base, offset);
        if (index >= 0)
        {
            for (long done = 0; done < count; done += block)
            {
                divideArray(type, base, index + (int)done, (int)Math.min(block, count - done), divisor, scratch);
            }
            return;
        }

        // step per block: copy into a typed scratch array, divide there, copy back
        final Object typed = typedScratch(type, scratch);
        final long typedBase = arrayBase(type);
        for (long done = 0; done < count; done += block)
        {
            final int n = (int)Math.min(block, count - done);
            final long bytes = (long)n * size;
            final long at = offset + done * size;
            UnsafeApi.copyMemory(base, at, typed, typedBase, bytes);
            divideArray(type, typed, 0, n, divisor, scratch);
            UnsafeApi.copyMemory(typed, typedBase, base, at, bytes);
        }
    }

    /** Whether off-heap operands take the SIMD kernels in this JVM; {@link #vectorKernelsWhyNot()} says why not. */
    public static boolean vectorKernels()
    {
        return OFF_HEAP != null;
    }

    /** Why off-heap operands do not take the SIMD kernels in this JVM, or null when they do. */
    public static String vectorKernelsWhyNot()
    {
        return OffHeapReductions.whyNot();
    }

    public static float bfloat16ToFloat(final short bits)
    {
        return Float.intBitsToFloat((bits & 0xFFFF) << 16);
    }

    /** Round to nearest even; overflow gives infinity; NaN gives the canonical NaN {@code 0x7FC0}. */
    public static short floatToBfloat16(final float value)
    {
        return (short)(Bfloat16Kernels.roundHigh(Float.floatToRawIntBits(value)) >>> 16);
    }

    /**
     * Below this many elements a scalar loop is faster than staging blocks (measured on JDK 25, off-heap operands):
     * C2's vector loops only start after a few hundred bytes, the rest of a short loop runs scalar anyway, and
     * the staged path costs some 25 ns to set up.
     */
    static int scalarLimit(final DataType type)
    {
        return switch (type)
        {
            case INT8, UINT8 -> 384;
            case FLOAT16, BFLOAT16 -> 192;
            case INT32, FLOAT32, INT64, FLOAT64, UINT32, UINT64 -> 96;
        };
    }

    /** Element index when {@code base} is an array of the type's element array class, else -1. */
    static int typedIndex(final DataType type, final Object base, final long offset)
    {
        if (base == null || base.getClass() != arrayClass(type))
        {
            return -1;
        }
        final long delta = offset - arrayBase(type);
        final int size = type.size();
        return delta >= 0 && delta % size == 0 && delta / size <= Integer.MAX_VALUE ? (int)(delta / size) : -1;
    }

    static Class<?> arrayClass(final DataType type)
    {
        return switch (type)
        {
            case INT8, UINT8 -> byte[].class;
            case INT32, UINT32 -> int[].class;
            case INT64, UINT64 -> long[].class;
            case FLOAT16, BFLOAT16 -> short[].class;
            case FLOAT32 -> float[].class;
            case FLOAT64 -> double[].class;
        };
    }

    static long arrayBase(final DataType type)
    {
        return switch (type)
        {
            case INT8, UINT8 -> Int8Kernels.ARRAY_BASE;
            case INT32, UINT32 -> Int32Kernels.ARRAY_BASE;
            case INT64, UINT64 -> Int64Kernels.ARRAY_BASE;
            case FLOAT16, BFLOAT16 -> Float16Kernels.ARRAY_BASE;
            case FLOAT32 -> Float32Kernels.ARRAY_BASE;
            case FLOAT64 -> Float64Kernels.ARRAY_BASE;
        };
    }

    private static Object typedScratch(final DataType type, final ReductionScratch scratch)
    {
        return switch (type)
        {
            case INT8, UINT8 -> scratch.int8;
            case INT32, UINT32 -> scratch.int32;
            case INT64, UINT64 -> scratch.int64;
            case FLOAT16, BFLOAT16 -> scratch.int16;
            case FLOAT32 -> scratch.float32;
            case FLOAT64 -> scratch.float64;
        };
    }

    private static void stage(final DataType type, final ReductionScratch scratch, final Object base,
        final long offset, final long bytes)
    {
        if (type == DataType.INT64)
        {
            UnsafeApi.copyMemory(base, offset, scratch.stage64, STAGE64_BASE, bytes);
        }
        else
        {
            UnsafeApi.copyMemory(base, offset, scratch.stage, STAGE_BASE, bytes);
        }
    }

    private static void unstage(final DataType type, final ReductionScratch scratch, final Object base,
        final long offset, final long bytes)
    {
        if (type == DataType.INT64)
        {
            UnsafeApi.copyMemory(scratch.stage64, STAGE64_BASE, base, offset, bytes);
        }
        else
        {
            UnsafeApi.copyMemory(scratch.stage, STAGE_BASE, base, offset, bytes);
        }
    }

    private static void arrays(final DataType type, final ReduceOp op, final Object a, final Object b,
        final Object d, final int from, final int n, final ReductionScratch scratch)
    {
        switch (type)
        {
            case INT8 -> Int8Kernels.arrays(op, (byte[])a, (byte[])b, (byte[])d, from, n);
            case INT32 -> Int32Kernels.arrays(op, (int[])a, (int[])b, (int[])d, from, n);
            case INT64 -> Int64Kernels.arrays(op, (long[])a, (long[])b, (long[])d, from, n);
            case FLOAT16 -> Float16Kernels.arrays(op, (short[])a, (short[])b, (short[])d, from, n, scratch);
            case BFLOAT16 -> Bfloat16Kernels.arrays(op, (short[])a, (short[])b, (short[])d, from, n, scratch);
            case FLOAT32 -> Float32Kernels.arrays(op, (float[])a, (float[])b, (float[])d, from, n);
            case FLOAT64 -> Float64Kernels.arrays(op, (double[])a, (double[])b, (double[])d, from, n);
            case UINT8, UINT32, UINT64 -> throw unsignedHere(type);
        }
    }

    private static void withStage(final DataType type, final ReduceOp op, final Object t, final int at,
        final ReductionScratch scratch, final Object d, final int n)
    {
        switch (type)
        {
            case INT8 -> Int8Kernels.withStage(op, (byte[])t, at, scratch.stage, (byte[])d, n);
            case INT32 -> Int32Kernels.withStage(op, (int[])t, at, scratch.stage, (int[])d, n);
            case INT64 -> Int64Kernels.withStage(op, (long[])t, at, scratch.stage64, (long[])d, n);
            case FLOAT16 -> Float16Kernels.withStage(op, (short[])t, at, scratch, (short[])d, n);
            case BFLOAT16 -> Bfloat16Kernels.withStage(op, (short[])t, at, scratch, (short[])d, n);
            case FLOAT32 -> Float32Kernels.withStage(op, (float[])t, at, scratch.stage, (float[])d, n);
            case FLOAT64 -> Float64Kernels.withStage(op, (double[])t, at, scratch.stage, (double[])d, n);
            case UINT8, UINT32, UINT64 -> throw unsignedHere(type);
        }
    }

    private static void intoStage(final DataType type, final ReduceOp op, final Object t, final int at,
        final ReductionScratch scratch, final int n)
    {
        switch (type)
        {
            case INT8 -> Int8Kernels.intoStage(op, (byte[])t, at, scratch.stage, n);
            case INT32 -> Int32Kernels.intoStage(op, (int[])t, at, scratch.stage, n);
            case INT64 -> Int64Kernels.intoStage(op, (long[])t, at, scratch.stage64, n);
            case FLOAT16 -> Float16Kernels.intoStage(op, (short[])t, at, scratch, n);
            case BFLOAT16 -> Bfloat16Kernels.intoStage(op, (short[])t, at, scratch, n);
            case FLOAT32 -> Float32Kernels.intoStage(op, (float[])t, at, scratch.stage, n);
            case FLOAT64 -> Float64Kernels.intoStage(op, (double[])t, at, scratch.stage, n);
            case UINT8, UINT32, UINT64 -> throw unsignedHere(type);
        }
    }

    /** The typed-array plans serve signed types: {@link #reduce} gives unsigned ones to UnsignedOrder or SIMD. */
    private static IllegalStateException unsignedHere(final DataType type)
    {
        return new IllegalStateException(type.label() + " reached a signed kernel");
    }

    private static void scalar(final DataType type, final ReduceOp op, final Object aBase, final long aOffset,
        final Object bBase, final long bOffset, final Object dBase, final long dOffset, final int n)
    {
        switch (type)
        {
            case INT8 -> Int8Kernels.scalar(op, aBase, aOffset, bBase, bOffset, dBase, dOffset, n);
            case INT32 -> Int32Kernels.scalar(op, aBase, aOffset, bBase, bOffset, dBase, dOffset, n);
            case INT64 -> Int64Kernels.scalar(op, aBase, aOffset, bBase, bOffset, dBase, dOffset, n);
            case FLOAT16 -> Float16Kernels.scalar(op, aBase, aOffset, bBase, bOffset, dBase, dOffset, n);
            case BFLOAT16 -> Bfloat16Kernels.scalar(op, aBase, aOffset, bBase, bOffset, dBase, dOffset, n);
            case FLOAT32 -> Float32Kernels.scalar(op, aBase, aOffset, bBase, bOffset, dBase, dOffset, n);
            case FLOAT64 -> Float64Kernels.scalar(op, aBase, aOffset, bBase, bOffset, dBase, dOffset, n);
            case UINT8, UINT32, UINT64 -> UnsignedOrder.scalar(type, op, aBase, aOffset, bBase, bOffset, dBase, dOffset,
                n);
        }
    }

    private static void divideArray(final DataType type, final Object x, final int at, final int n,
        final int divisor, final ReductionScratch scratch)
    {
        switch (type)
        {
            case INT8 -> Int8Kernels.divide((byte[])x, at, n, divisor);
            case INT32 -> Int32Kernels.divide((int[])x, at, n, divisor);
            case INT64 -> Int64Kernels.divide((long[])x, at, n, divisor);
            case FLOAT16 -> Float16Kernels.divide((short[])x, at, n, divisor, scratch);
            case BFLOAT16 -> Bfloat16Kernels.divide((short[])x, at, n, divisor, scratch);
            case FLOAT32 -> Float32Kernels.divide((float[])x, at, n, divisor);
            case FLOAT64 -> Float64Kernels.divide((double[])x, at, n, divisor);
            case UINT8 -> Int8Kernels.divideUnsigned((byte[])x, at, n, divisor);
            case UINT32 -> Int32Kernels.divideUnsigned((int[])x, at, n, divisor);
            case UINT64 -> Int64Kernels.divideUnsigned((long[])x, at, n, divisor);
        }
    }

    private static void scalarDivide(final DataType type, final Object base, final long offset, final int n,
        final int divisor)
    {
        switch (type)
        {
            case INT8 -> Int8Kernels.scalarDivide(base, offset, n, divisor);
            case INT32 -> Int32Kernels.scalarDivide(base, offset, n, divisor);
            case INT64 -> Int64Kernels.scalarDivide(base, offset, n, divisor);
            case FLOAT16 -> Float16Kernels.scalarDivide(base, offset, n, divisor);
            case BFLOAT16 -> Bfloat16Kernels.scalarDivide(base, offset, n, divisor);
            case FLOAT32 -> Float32Kernels.scalarDivide(base, offset, n, divisor);
            case FLOAT64 -> Float64Kernels.scalarDivide(base, offset, n, divisor);
            case UINT8 -> Int8Kernels.scalarDivideUnsigned(base, offset, n, divisor);
            case UINT32 -> Int32Kernels.scalarDivideUnsigned(base, offset, n, divisor);
            case UINT64 -> Int64Kernels.scalarDivideUnsigned(base, offset, n, divisor);
        }
    }
}
