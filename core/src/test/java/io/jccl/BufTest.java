package io.jccl;

import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.function.Executable;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The Buf factories refuse bad input with {@link IllegalArgumentException} and a message that names it; views keep
 * their memory's place, type and access; {@link Buf#asByteBuffer()} shows the view's bytes and no others.
 */
@Timeout(10)
class BufTest
{
    static Stream<Arguments> badFactoryCalls()
    {
        final byte[] bytes = new byte[16];
        final Buf ints = Buf.of(new int[8]);
        return Stream.of(
            bad("null byte[]", "array is null", () -> Buf.of((byte[]) null)),
            bad("null int[] with range", "array is null", () -> Buf.of((int[]) null, 0, 1)),
            bad("null long[]", "array is null", () -> Buf.of((long[]) null)),
            bad("null float[]", "array is null", () -> Buf.of((float[]) null)),
            bad("null double[]", "array is null", () -> Buf.of((double[]) null)),
            bad("null short[]", "array is null", () -> Buf.of((short[]) null, DataType.FLOAT16)),
            bad("negative count", "negative count -1", () -> Buf.of(bytes, 0, -1)),
            bad("negative from", "range [-1, -1+4) does not fit a buffer of 16", () -> Buf.of(bytes, -1, 4)),
            bad("range past the end", "range [4, 4+16) does not fit", () -> Buf.of(bytes, 4, 16)),
            bad("overflowing range", "does not fit", () -> Buf.of(new int[4], Integer.MAX_VALUE, Integer.MAX_VALUE)),
            bad("short[] as float32", "a short[] carries float16 or bfloat16, not float32",
                () -> Buf.of(new short[4], DataType.FLOAT32)),
            bad("short[] with null type", "not null", () -> Buf.of(new short[4], null)),
            bad("null ByteBuffer", "buffer is null", () -> Buf.of((ByteBuffer) null, DataType.INT8)),
            bad("ByteBuffer with null type", "type is null", () -> Buf.of(ByteBuffer.allocateDirect(8), null)),
            bad("ByteBuffer of partial elements", "ByteBuffer holds 6 bytes, not a whole number of int64",
                () -> Buf.of(ByteBuffer.allocateDirect(6), DataType.INT64)),
            bad("read-only heap ByteBuffer", "a read-only heap ByteBuffer hides its array",
                () -> Buf.of(ByteBuffer.allocate(8).asReadOnlyBuffer(), DataType.INT8)),
            bad("null DirectBuffer", "buffer is null", () -> Buf.of((UnsafeBuffer) null, 0, 8, DataType.INT8)),
            bad("DirectBuffer with null type", "type is null", () -> Buf.of(new UnsafeBuffer(bytes), 0, 8, null)),
            bad("DirectBuffer range past the end", "range [12, 12+8) does not fit",
                () -> Buf.of(new UnsafeBuffer(bytes), 12, 8, DataType.INT8)),
            bad("DirectBuffer of partial elements", "7 bytes are not a whole number of int32",
                () -> Buf.of(new UnsafeBuffer(bytes), 0, 7, DataType.INT32)),
            bad("slice negative from", "slice [-1, -1+2) is outside a buffer of 8", () -> ints.slice(-1, 2)),
            bad("slice negative count", "is outside", () -> ints.slice(0, -2)),
            bad("slice past the end", "slice [6, 6+4) is outside", () -> ints.slice(6, 4)),
            bad("slice overflowing", "is outside", () -> ints.slice(Long.MAX_VALUE, Long.MAX_VALUE)),
            bad("as a null type", "type is null", () -> ints.as(null)),
            bad("as partial elements", "12 bytes are not a whole number of int64",
                () -> ints.slice(0, 3).as(DataType.INT64)));
    }

    private static Arguments bad(final String name, final String words, final Executable call)
    {
        return Arguments.of(name, words, call);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("badFactoryCalls")
    void refusesWithClearMessage(final String name, final String words, final Executable call)
    {
        final IllegalArgumentException ex = assertThrows(IllegalArgumentException.class, call);
        assertTrue(ex.getMessage().contains(words), () -> "'" + ex.getMessage() + "' lacks '" + words + "'");
    }

    @Test
    void readOnlyDirectByteBufferGivesReadOnlyView()
    {
        final Buf buf = Buf.of(ByteBuffer.allocateDirect(16).asReadOnlyBuffer(), DataType.INT32);
        assertTrue(buf.isReadOnly());
        assertEquals(4, buf.count());
        assertTrue(buf.slice(1, 2).isReadOnly(), "a slice of a read-only view stays read-only");
    }

    @Test
    void asReadOnlyKeepsMemoryAndIsIdempotent()
    {
        final int[] array = new int[4];
        final Buf buf = Buf.of(array);
        final Buf readOnly = buf.asReadOnly();
        assertFalse(buf.isReadOnly());
        assertTrue(readOnly.isReadOnly());
        assertTrue(readOnly.sameStart(buf));
        assertSame(readOnly, readOnly.asReadOnly());
    }

    @Test
    void asSeesTheSameBytesAsAnotherType()
    {
        final float[] array = new float[4];
        final Buf floats = Buf.of(array);
        final Buf bytes = floats.as(DataType.INT8);
        assertEquals(16, bytes.count());
        assertSame(array, bytes.base());
        assertTrue(bytes.sameStart(floats));
        assertEquals(DataType.INT8, bytes.type());
        assertEquals(2, bytes.slice(8, 8).as(DataType.FLOAT32).count());
        assertSame(floats, floats.as(DataType.FLOAT32), "the same type is the same view");
        assertTrue(floats.asReadOnly().as(DataType.INT64).isReadOnly(), "read-only stays read-only");
    }

    @Test
    void asKeepsSymmetricMemorySymmetric()
    {
        final ByteBuffer memory = ByteBuffer.allocateDirect(256);
        final Buf shared = Buf.ofShared(Buf.of(memory, DataType.INT8).offset(), 128, 256, DataType.INT8, memory);
        final Buf longs = shared.slice(64, 64).as(DataType.INT64);
        assertTrue(longs.isShared());
        assertEquals(128 + 64, longs.segmentOffset());
        assertEquals(8, longs.count());
        assertEquals(shared.offset() + 64, longs.offset());
    }

    @Test
    void emptyViewsAreAllowed()
    {
        assertEquals(0, Buf.of(new byte[0]).count());
        assertEquals(0, Buf.of(new int[4], 4, 0).count());
        assertEquals(0, Buf.of(new int[4]).slice(4, 0).count());
    }

    @Test
    void viewsOverlapWhenTheyShareAByte()
    {
        final Buf ints = Buf.of(new int[8]);
        assertTrue(ints.overlaps(ints.slice(7, 1)));
        assertTrue(ints.slice(2, 3).overlaps(ints.slice(4, 4)));
        assertTrue(ints.slice(0, 2).as(DataType.INT8).overlaps(ints.slice(1, 1)));
        assertFalse(ints.slice(0, 4).overlaps(ints.slice(4, 4)), "adjacent");
        assertFalse(ints.overlaps(Buf.of(new int[8])), "another array");
        assertFalse(ints.overlaps(null));
        // an empty view writes and reads nothing, wherever it lies
        assertFalse(ints.slice(3, 0).overlaps(ints));
        assertFalse(ints.overlaps(ints.slice(3, 0)));
        assertFalse(ints.slice(3, 0).overlaps(ints.slice(3, 0)));
    }

    @Test
    void aDirectBuffersViewShowsItsBytesInPlace()
    {
        final ByteBuffer memory = ByteBuffer.allocateDirect(64);
        final Buf ints = Buf.of(memory.position(8), DataType.INT32).slice(2, 3);
        final ByteBuffer view = ints.asByteBuffer();
        assertTrue(view.isDirect());
        assertEquals(0, view.position());
        assertEquals(12, view.capacity());
        assertEquals(12, view.limit());
        assertEquals(ByteOrder.nativeOrder(), view.order());
        view.putInt(0, 0x01020304);
        view.putInt(8, -7);
        assertEquals(0x01020304, memory.order(ByteOrder.nativeOrder()).getInt(8 + 2 * 4));
        assertEquals(-7, memory.getInt(8 + 4 * 4));
        assertThrows(IndexOutOfBoundsException.class, () -> view.getInt(12));
    }

    @Test
    void symmetricMemorysViewIsASliceOfItsMapping()
    {
        final ByteBuffer mapping = ByteBuffer.allocateDirect(256).order(ByteOrder.nativeOrder());
        final long address = Buf.of(mapping, DataType.INT8).offset();
        final Buf shared = Buf.ofShared(address + 128, 128, 16, DataType.INT64, mapping);
        final ByteBuffer view = shared.slice(1, 2).asByteBuffer();
        assertEquals(16, view.capacity());
        view.putLong(8, 42);
        assertEquals(42, mapping.getLong(128 + 8 + 8));
    }

    @Test
    void byteArraysAreWrappedAtTheirRange()
    {
        final byte[] bytes = new byte[16];
        final ByteBuffer view = Buf.of(bytes, 3, 10).slice(2, 4).asByteBuffer();
        assertFalse(view.isDirect());
        assertEquals(4, view.capacity());
        view.put(0, (byte) 9);
        view.put(3, (byte) 8);
        assertEquals(9, bytes[5]);
        assertEquals(8, bytes[8]);
        final ByteBuffer heap = ByteBuffer.wrap(new byte[32], 4, 20).slice();
        Buf.of(heap.position(2).limit(18), DataType.INT32).asByteBuffer().putInt(0, 5);
        assertEquals(5, heap.order(ByteOrder.nativeOrder()).getInt(2));
    }

    @Test
    void aReadOnlyViewGivesAReadOnlyBuffer()
    {
        final ByteBuffer memory = ByteBuffer.allocateDirect(16);
        assertTrue(Buf.of(memory.asReadOnlyBuffer(), DataType.INT8).asByteBuffer().isReadOnly());
        assertTrue(Buf.of(memory, DataType.INT8).asReadOnly().asByteBuffer().isReadOnly());
        assertTrue(Buf.of(new byte[4]).asReadOnly().asByteBuffer().isReadOnly());
        assertFalse(Buf.of(memory, DataType.INT8).asByteBuffer().isReadOnly());
    }

    @Test
    void agronaBuffersOverAByteBufferHaveAViewAndOverAnAddressNone()
    {
        final ByteBuffer memory = ByteBuffer.allocateDirect(32);
        final UnsafeBuffer wrapping = new UnsafeBuffer(memory, 8, 16);
        Buf.of(wrapping, 4, 8, DataType.INT32).asByteBuffer().putInt(4, 77);
        assertEquals(77, memory.order(ByteOrder.nativeOrder()).getInt(8 + 4 + 4));
        final UnsafeBuffer address = new UnsafeBuffer(wrapping.addressOffset(), 16);
        final UnsupportedOperationException none = assertThrows(UnsupportedOperationException.class,
            () -> Buf.of(address, 0, 16, DataType.INT8).asByteBuffer());
        assertTrue(none.getMessage().contains("no ByteBuffer holds this memory"), none.getMessage());
    }

    @Test
    void otherArraysAreReadAndWrittenThemselves()
    {
        final UnsupportedOperationException refused = assertThrows(UnsupportedOperationException.class,
            () -> Buf.of(new double[2]).asByteBuffer());
        assertTrue(refused.getMessage().contains("double[]"), refused.getMessage());
        assertThrows(UnsupportedOperationException.class, () -> Buf.of(new short[2], DataType.BFLOAT16).asByteBuffer());
    }
}
