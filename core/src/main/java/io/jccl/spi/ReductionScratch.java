package io.jccl.spi;

import org.agrona.BufferUtil;
import org.agrona.UnsafeApi;

import java.nio.ByteBuffer;

/**
 * Per-thread staging arrays for the reduction kernels, allocated once per thread and reused by every call.
 * <p>
 * C2 on JDK 21 to 25 vectorises a loop only when it can prove that its stores do not overlap its loads. It cannot
 * for off-heap memory, nor for two arrays of one type read at different indices. So memory that a kernel cannot
 * read as a typed array at the destination's index is first copied (an intrinsic memmove) into {@link #stage}, a
 * {@code long[]} the kernels read with {@code Unsafe} as floats, ints, shorts or bytes: a store to a {@code float[]}
 * and a load from a {@code long[]} are in different alias classes, and every kernel loop vectorises. For int64
 * data, whose user arrays are {@code long[]}, {@link #stage64} (a {@code double[]}) plays that role.
 */
final class ReductionScratch
{
    /** Bytes per block: small enough that a block's operands, staging and result stay in a 32 KiB L1. */
    static final int BLOCK_BYTES = 4096;

    /** Bytes per off-heap block of {@link #offHeapBlocks()}: three fit in a 32 KiB L1 with room to spare. */
    static final int OFF_HEAP_BLOCK_BYTES = 8192;

    static final long STAGE_BASE = UnsafeApi.arrayBaseOffset(long[].class);
    static final long STAGE64_BASE = UnsafeApi.arrayBaseOffset(double[].class);

    private static final ThreadLocal<ReductionScratch> SCRATCH = ThreadLocal.withInitial(ReductionScratch::new);

    /** Staged copy of one operand, or a block's result, for every type but int64. */
    final long[] stage = new long[BLOCK_BYTES / 8];

    /** Staged copy of one operand, or a block's result, for int64. */
    final double[] stage64 = new double[BLOCK_BYTES / 8];

    /** Typed copies of a block when no operand is a typed array (one per element type). */
    final byte[] int8 = new byte[BLOCK_BYTES];
    final short[] int16 = new short[BLOCK_BYTES / 2];
    final int[] int32 = new int[BLOCK_BYTES / 4];
    final long[] int64 = new long[BLOCK_BYTES / 8];
    final float[] float32 = new float[BLOCK_BYTES / 4];
    final double[] float64 = new double[BLOCK_BYTES / 8];

    /** The two operands of a block of unsigned MIN or MAX (see {@link UnsignedOrder}); the result lands in A. */
    final byte[] unsignedA8 = new byte[BLOCK_BYTES];
    final byte[] unsignedB8 = new byte[BLOCK_BYTES];
    final int[] unsignedA32 = new int[BLOCK_BYTES / 4];
    final int[] unsignedB32 = new int[BLOCK_BYTES / 4];
    final long[] unsignedA64 = new long[BLOCK_BYTES / 8];
    final long[] unsignedB64 = new long[BLOCK_BYTES / 8];

    /** float16 results of a block, before they are copied where they belong (see {@link Float16Kernels}). */
    final char[] float16Result = new char[BLOCK_BYTES / 2];

    /** bfloat16 lanes: the even and odd elements of two operands, widened to float32 bit patterns. */
    final long[] evenA = new long[BLOCK_BYTES / 8];
    final long[] oddA = new long[BLOCK_BYTES / 8];
    final long[] evenB = new long[BLOCK_BYTES / 8];
    final long[] oddB = new long[BLOCK_BYTES / 8];

    /**
     * Off-heap blocks of the SIMD kernels for heap operands (two operands and a result, each
     * {@link #OFF_HEAP_BLOCK_BYTES}), allocated on a thread's first call that needs them.
     */
    private ByteBuffer offHeap;
    private long offHeapAddress;

    private ReductionScratch()
    {
    }

    static ReductionScratch get()
    {
        return SCRATCH.get();
    }

    /** Address of three adjacent off-heap blocks of {@link #OFF_HEAP_BLOCK_BYTES}, 64-byte aligned. */
    long offHeapBlocks()
    {
        if (offHeap == null)
        {
            offHeap = BufferUtil.allocateDirectAligned(3 * OFF_HEAP_BLOCK_BYTES, 64);
            offHeapAddress = BufferUtil.address(offHeap);
        }
        return offHeapAddress;
    }
}
