package io.jccl;

import io.jccl.spi.Memory;
import org.agrona.BufferUtil;
import org.agrona.DirectBuffer;
import org.agrona.UnsafeApi;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * A typed view of memory that jccl reads or writes: a Java primitive array, a direct (or heap) {@link ByteBuffer},
 * an Agrona {@link DirectBuffer}, or memory inside the job's shared segment ({@link Communicator#allocateShared}).
 * <p>
 * Memory is addressed the way {@code Unsafe} addresses it: a base object (the array, or {@code null} off-heap) and
 * a byte offset (from the array's base, or an absolute address). Elements are in native byte order.
 * A view is immutable: create it once and reuse it, and the hot path allocates nothing. {@link #asByteBuffer()} shows
 * its bytes to the application, symmetric memory's included.
 * 16-bit floating point types ({@link DataType#FLOAT16}, {@link DataType#BFLOAT16}) live in {@code short[]}.
 */
public final class Buf
{
    private static final long BYTE_BASE = UnsafeApi.arrayBaseOffset(byte[].class);
    private static final long SHORT_BASE = UnsafeApi.arrayBaseOffset(short[].class);
    private static final long INT_BASE = UnsafeApi.arrayBaseOffset(int[].class);
    private static final long LONG_BASE = UnsafeApi.arrayBaseOffset(long[].class);
    private static final long FLOAT_BASE = UnsafeApi.arrayBaseOffset(float[].class);
    private static final long DOUBLE_BASE = UnsafeApi.arrayBaseOffset(double[].class);

    private final Object base;
    private final long offset;
    private final long count;
    private final DataType type;
    private final boolean readOnly;
    /** The owner of the memory (a ByteBuffer, a segment), kept reachable while this view is. */
    private final Object keepAlive;
    private final long segmentOffset;

    private Buf(
        final Object base,
        final long offset,
        final long count,
        final DataType type,
        final boolean readOnly,
        final Object keepAlive,
        final long segmentOffset)
    {
        this.base = base;
        this.offset = offset;
        this.count = count;
        this.type = type;
        this.readOnly = readOnly;
        this.keepAlive = keepAlive;
        this.segmentOffset = segmentOffset;
    }

    public static Buf of(final byte[] array)
    {
        return of(array, 0, checkArray(array).length);
    }

    public static Buf of(final byte[] array, final int from, final int count)
    {
        checkRange(checkArray(array).length, from, count);
        return new Buf(array, BYTE_BASE + from, count, DataType.INT8, false, null, -1);
    }

    /** A {@code short[]} holds {@link DataType#FLOAT16} or {@link DataType#BFLOAT16} bit patterns. */
    public static Buf of(final short[] array, final DataType type)
    {
        return of(array, 0, checkArray(array).length, type);
    }

    public static Buf of(final short[] array, final int from, final int count, final DataType type)
    {
        checkRange(checkArray(array).length, from, count);
        if (type != DataType.FLOAT16 && type != DataType.BFLOAT16)
        {
            throw new IllegalArgumentException("a short[] carries float16 or bfloat16, not " +
                (type == null ? "null" : type.label()));
        }
        return new Buf(array, SHORT_BASE + 2L * from, count, type, false, null, -1);
    }

    public static Buf of(final int[] array)
    {
        return of(array, 0, checkArray(array).length);
    }

    public static Buf of(final int[] array, final int from, final int count)
    {
        checkRange(checkArray(array).length, from, count);
        return new Buf(array, INT_BASE + 4L * from, count, DataType.INT32, false, null, -1);
    }

    public static Buf of(final long[] array)
    {
        return of(array, 0, checkArray(array).length);
    }

    public static Buf of(final long[] array, final int from, final int count)
    {
        checkRange(checkArray(array).length, from, count);
        return new Buf(array, LONG_BASE + 8L * from, count, DataType.INT64, false, null, -1);
    }

    public static Buf of(final float[] array)
    {
        return of(array, 0, checkArray(array).length);
    }

    public static Buf of(final float[] array, final int from, final int count)
    {
        checkRange(checkArray(array).length, from, count);
        return new Buf(array, FLOAT_BASE + 4L * from, count, DataType.FLOAT32, false, null, -1);
    }

    public static Buf of(final double[] array)
    {
        return of(array, 0, checkArray(array).length);
    }

    public static Buf of(final double[] array, final int from, final int count)
    {
        checkRange(checkArray(array).length, from, count);
        return new Buf(array, DOUBLE_BASE + 8L * from, count, DataType.FLOAT64, false, null, -1);
    }

    /**
     * The bytes between the buffer's position and limit, as elements of {@code type}. The buffer's position and
     * limit are read once, now. A read-only buffer gives a read-only view: jccl refuses to write into it.
     */
    public static Buf of(final ByteBuffer buffer, final DataType type)
    {
        if (buffer == null)
        {
            throw new IllegalArgumentException("buffer is null");
        }
        if (type == null)
        {
            throw new IllegalArgumentException("type is null");
        }
        final int bytes = buffer.remaining();
        if (bytes % type.size() != 0)
        {
            throw new IllegalArgumentException("ByteBuffer holds " + bytes + " bytes, not a whole number of " +
                type.label() + " elements");
        }
        final long count = bytes / type.size();
        if (buffer.isDirect())
        {
            return new Buf(null, BufferUtil.address(buffer) + buffer.position(), count, type, buffer.isReadOnly(),
                buffer, -1);
        }
        if (!buffer.hasArray())
        {
            throw new IllegalArgumentException("a read-only heap ByteBuffer hides its array: use a direct buffer");
        }
        return new Buf(buffer.array(), BYTE_BASE + buffer.arrayOffset() + buffer.position(), count, type, false,
            null, -1);
    }

    /** {@code length} bytes of an Agrona buffer from {@code index}, as elements of {@code type}. */
    public static Buf of(final DirectBuffer buffer, final int index, final int length, final DataType type)
    {
        if (buffer == null)
        {
            throw new IllegalArgumentException("buffer is null");
        }
        if (type == null)
        {
            throw new IllegalArgumentException("type is null");
        }
        checkRange(buffer.capacity(), index, length);
        if (length % type.size() != 0)
        {
            throw new IllegalArgumentException(length + " bytes are not a whole number of " + type.label() +
                " elements");
        }
        final byte[] array = buffer.byteArray();
        return new Buf(array, buffer.addressOffset() + index, length / type.size(), type, false, buffer, -1);
    }

    /**
     * Memory inside the job segment at {@code address} (absolute) and {@code segmentOffset} from the segment's
     * start, which {@code mapping} maps (kept reachable while this view is, and sliced by {@link #asByteBuffer}).
     * Used by communicators to hand out symmetric memory; not for applications.
     */
    public static Buf ofShared(final long address, final long segmentOffset, final long count, final DataType type,
        final ByteBuffer mapping)
    {
        return new Buf(null, address, count, type, false, mapping, segmentOffset);
    }

    /** A sub-range of this view, in elements. */
    public Buf slice(final long from, final long count)
    {
        if (from < 0 || count < 0 || from > this.count - count)
        {
            throw new IllegalArgumentException("slice [" + from + ", " + from + "+" + count + ") is outside a " +
                "buffer of " + this.count + " elements");
        }
        final long byteShift = from * type.size();
        return new Buf(base, offset + byteShift, count, type, readOnly, keepAlive,
            segmentOffset < 0 ? -1 : segmentOffset + byteShift);
    }

    /**
     * The same bytes as elements of {@code type}: symmetric memory stays symmetric and a read-only view stays
     * read-only. One {@link Communicator#allocateShared} area can so serve calls of several types. The view's bytes
     * must be a whole number of {@code type}'s elements.
     */
    public Buf as(final DataType type)
    {
        if (type == null)
        {
            throw new IllegalArgumentException("type is null");
        }
        if (type == this.type)
        {
            return this;
        }
        final long bytes = bytes();
        if (bytes % type.size() != 0)
        {
            throw new IllegalArgumentException(bytes + " bytes are not a whole number of " + type.label() +
                " elements");
        }
        return new Buf(base, offset, bytes / type.size(), type, readOnly, keepAlive, segmentOffset);
    }

    /** The same memory seen read-only. */
    public Buf asReadOnly()
    {
        return readOnly ? this : new Buf(base, offset, count, type, true, keepAlive, segmentOffset);
    }

    /**
     * This view's bytes as a {@link ByteBuffer} in native byte order (position 0, limit and capacity its bytes), to
     * read and write its elements: a direct buffer over the same memory for symmetric memory (of this rank, or a
     * peer's from {@link Communicator#peerView}) and for direct {@code ByteBuffer}s and Agrona buffers that wrap one;
     * a wrap of the array for a {@code byte[]} or a heap {@code ByteBuffer}. Read-only when this view is. The memory
     * stays valid while the buffer is reachable, after the communicator closes too. Each call makes a new buffer:
     * make it once and keep it.
     *
     * @throws UnsupportedOperationException for arrays of other types (read and write the array itself), for
     *                                       memory no {@code ByteBuffer} holds, and beyond 2 GiB
     */
    public ByteBuffer asByteBuffer()
    {
        final long bytes = bytes();
        if (bytes > Integer.MAX_VALUE)
        {
            throw new UnsupportedOperationException("a ByteBuffer holds at most 2 GiB, not " + bytes + " bytes");
        }
        final ByteBuffer view;
        if (base instanceof byte[] array)
        {
            view = ByteBuffer.wrap(array, Math.toIntExact(offset - BYTE_BASE), (int)bytes).slice();
        }
        else if (base != null)
        {
            throw new UnsupportedOperationException("a view of a " + base.getClass().getSimpleName() +
                ": read and write the array itself");
        }
        else
        {
            final ByteBuffer owner = keepAlive instanceof ByteBuffer buffer ? buffer :
                keepAlive instanceof DirectBuffer buffer ? buffer.byteBuffer() : null;
            if (owner == null || !owner.isDirect())
            {
                throw new UnsupportedOperationException("no ByteBuffer holds this memory (an Agrona buffer over " +
                    "an address): read and write it where it came from");
            }
            view = owner.duplicate().clear().slice(Math.toIntExact(offset - BufferUtil.address(owner)), (int)bytes);
        }
        return (readOnly ? view.asReadOnlyBuffer() : view).order(ByteOrder.nativeOrder());
    }

    /** Array, or {@code null} for memory outside the Java heap. */
    public Object base()
    {
        return base;
    }

    /** Byte offset from the array's base, or absolute address when {@link #base()} is null. */
    public long offset()
    {
        return offset;
    }

    /** Number of elements. */
    public long count()
    {
        return count;
    }

    public long bytes()
    {
        return count * type.size();
    }

    public DataType type()
    {
        return type;
    }

    public boolean isReadOnly()
    {
        return readOnly;
    }

    /** True when the memory lies in the job's shared segment, so peers can address it directly. */
    public boolean isShared()
    {
        return segmentOffset >= 0;
    }

    /** Offset from the start of the job segment, or -1 when not shared. */
    public long segmentOffset()
    {
        return segmentOffset;
    }

    /** True when both views start at the same memory. */
    public boolean sameStart(final Buf other)
    {
        return other != null && base == other.base && offset == other.offset;
    }

    /** True when the two views share at least one byte; an empty view shares none. */
    public boolean overlaps(final Buf other)
    {
        return other != null && Memory.overlaps(base, offset, bytes(), other.base, other.offset, other.bytes());
    }

    @Override
    public String toString()
    {
        return "Buf[" + count + " x " + type.label() + (base == null ? " off-heap" : " " +
            base.getClass().getSimpleName()) + (isShared() ? " shared" : "") + (readOnly ? " read-only" : "") + "]";
    }

    private static <T> T checkArray(final T array)
    {
        if (array == null)
        {
            throw new IllegalArgumentException("array is null");
        }
        return array;
    }

    private static void checkRange(final int length, final int from, final int count)
    {
        if (count < 0)
        {
            throw new IllegalArgumentException("negative count " + count);
        }
        if (from < 0 || from > length - count)
        {
            throw new IllegalArgumentException("range [" + from + ", " + from + "+" + count + ") does not fit " +
                "a buffer of " + length + " elements");
        }
    }
}
