package io.jccl.it;

import io.jccl.Buf;
import io.jccl.Communicator;
import io.jccl.DataType;
import io.jccl.it.ContractCase.Kind;
import io.jccl.spi.Elements;
import org.agrona.BufferUtil;
import org.agrona.UnsafeApi;

import java.nio.ByteBuffer;
import java.util.EnumMap;
import java.util.Map;
import java.util.Objects;

/**
 * Buffers of the contract suite: views of any element type on Java arrays, direct ByteBuffers or symmetric memory,
 * each with {@link #GUARD} bytes of a sentinel on both sides that catch writes out of bounds. Send and receive
 * buffers have different sentinels, so that copying a send buffer's guard into a receive buffer's is caught too.
 * Memory is allocated once per role (send, receive) and kind, grown on demand, and reused by every case: symmetric
 * memory in particular is allocated once, at the size of the largest case, because every rank must allocate the
 * same sizes in the same order and it is freed only when the communicator closes.
 */
final class ContractBuffers
{
    static final int SEND = 0;
    static final int RECV = 1;
    static final int GUARD = 64;
    /** Fill of unwritten bytes, by role. */
    static final byte[] SENTINELS = {0x5A, (byte)0xA5};
    private static final long BYTES = UnsafeApi.arrayBaseOffset(byte[].class);
    private static final long SHORTS = UnsafeApi.arrayBaseOffset(short[].class);
    private static final long INTS = UnsafeApi.arrayBaseOffset(int[].class);
    private static final long LONGS = UnsafeApi.arrayBaseOffset(long[].class);

    private final Buf[] pools = new Buf[2];
    private final Bulk bulk = new Bulk();
    private final ByteBuffer[] direct = new ByteBuffer[2];
    @SuppressWarnings("unchecked")
    private final Map<DataType, Object>[] arrays = new Map[] {new EnumMap<>(DataType.class),
        new EnumMap<>(DataType.class)};

    /** Allocates the symmetric pools ({@code 0} bytes: none) on every rank alike. */
    ContractBuffers(final Communicator comm, final long sharedSendBytes, final long sharedRecvBytes)
    {
        final long[] bytes = {sharedSendBytes, sharedRecvBytes};
        for (int role = 0; role < 2; role++)
        {
            if (bytes[role] > 0)
            {
                pools[role] = comm.allocateShared(bytes[role] + 2 * GUARD, DataType.INT8);
            }
        }
    }

    /** A view of {@code count} elements of {@code type} in {@code kind} memory of {@code role}, guards in place. */
    Region region(final int role, final Kind kind, final DataType type, final long count)
    {
        final long bytes = count * type.size();
        final Region region = switch (kind)
        {
            case ARRAY -> arrayRegion(role, type, count);
            case DIRECT -> directRegion(role, type, count, bytes);
            case SHARED -> sharedRegion(role, type, count, bytes);
        };
        UnsafeApi.setMemory(region.base, region.offset - GUARD, bytes + 2 * GUARD, region.sentinel);
        return region;
    }

    private Region arrayRegion(final int role, final DataType type, final long count)
    {
        final int guard = GUARD / type.size();
        final int length = Math.toIntExact(count + 2L * guard);
        Object array = arrays[role].get(type);
        if (array == null || java.lang.reflect.Array.getLength(array) < length)
        {
            array = switch (type)
            {
                case INT8, UINT8 -> new byte[length];
                case FLOAT16, BFLOAT16 -> new short[length];
                case INT32, UINT32 -> new int[length];
                case INT64, UINT64 -> new long[length];
                case FLOAT32 -> new float[length];
                case FLOAT64 -> new double[length];
            };
            arrays[role].put(type, array);
        }
        final int n = Math.toIntExact(count);
        final Buf buf = switch (type)
        {
            case INT8, UINT8 -> Buf.of((byte[])array, guard, n).as(type);
            case FLOAT16, BFLOAT16 -> Buf.of((short[])array, guard, n, type);
            case INT32, UINT32 -> Buf.of((int[])array, guard, n).as(type);
            case INT64, UINT64 -> Buf.of((long[])array, guard, n).as(type);
            case FLOAT32 -> Buf.of((float[])array, guard, n);
            case FLOAT64 -> Buf.of((double[])array, guard, n);
        };
        return new Region(buf, SENTINELS[role], bulk);
    }

    private Region directRegion(final int role, final DataType type, final long count, final long bytes)
    {
        final int capacity = Math.toIntExact(bytes + 2 * GUARD);
        if (direct[role] == null || direct[role].capacity() < capacity)
        {
            if (direct[role] != null)
            {
                BufferUtil.free(direct[role]);
            }
            direct[role] = ByteBuffer.allocateDirect(capacity);
        }
        final ByteBuffer view = direct[role].duplicate();
        view.limit(GUARD + (int)bytes).position(GUARD);
        final Buf buf = Buf.of(view, type);
        if (buf.count() != count)
        {
            throw new IllegalStateException("direct view of " + buf.count() + " elements, wanted " + count);
        }
        return new Region(buf, SENTINELS[role], bulk);
    }

    private Region sharedRegion(final int role, final DataType type, final long count, final long bytes)
    {
        final Buf pool = pools[role];
        if (pool == null || pool.bytes() < bytes + 2 * GUARD)
        {
            throw new IllegalStateException("symmetric pool of role " + role + " holds " +
                (pool == null ? 0 : pool.bytes()) + " bytes, a case needs " + (bytes + 2 * GUARD));
        }
        return new Region(pool.slice(GUARD, bytes).as(type), SENTINELS[role], bulk);
    }

    /**
     * The typed arrays a region's elements pass through on their way to and from the checks' {@code long[]} chunks.
     * Each transfer is one {@code copyMemory} and a loop over plain arrays: a loop of Unsafe accesses on a base that is
     * sometimes null is what {@link Elements} warns of, and {@link Elements}' access to one element at a time took a
     * third of the ranks' time.
     */
    private static final class Bulk
    {
        final byte[] bytes = new byte[ContractValues.CHUNK];
        final short[] shorts = new short[ContractValues.CHUNK];
        final int[] ints = new int[ContractValues.CHUNK];
    }

    /** A view with its guards, and element access by index. */
    static final class Region
    {
        final Buf buf;
        final Object base;
        final long offset;
        final long count;
        final DataType type;
        final int size;
        final byte sentinel;
        private final Bulk bulk;

        Region(final Buf buf, final byte sentinel, final Bulk bulk)
        {
            this.bulk = bulk;
            this.sentinel = sentinel;
            this.buf = buf;
            this.base = buf.base();
            this.offset = buf.offset();
            this.count = buf.count();
            this.type = buf.type();
            this.size = type.size();
        }

        /** {@code out[i]} := bits of element {@code at + i}, for {@code i < length}; integers sign-extended. */
        void get(final long at, final long[] out, final int length)
        {
            final long from = offset + at * size;
            switch (size)
            {
                case 1 ->
                {
                    final byte[] bytes = bulk.bytes;
                    UnsafeApi.copyMemory(base, from, bytes, BYTES, checked(length, bytes.length, out));
                    for (int i = 0; i < length; i++)
                    {
                        out[i] = bytes[i];
                    }
                }
                case 2 ->
                {
                    final short[] shorts = bulk.shorts;
                    UnsafeApi.copyMemory(base, from, shorts, SHORTS, 2L * checked(length, shorts.length, out));
                    for (int i = 0; i < length; i++)
                    {
                        out[i] = shorts[i] & 0xFFFFL;
                    }
                }
                case 4 ->
                {
                    final int[] ints = bulk.ints;
                    UnsafeApi.copyMemory(base, from, ints, INTS, 4L * checked(length, ints.length, out));
                    final long mask = type.isFloatingPoint() ? 0xFFFF_FFFFL : -1L;
                    for (int i = 0; i < length; i++)
                    {
                        out[i] = ints[i] & mask;
                    }
                }
                default -> UnsafeApi.copyMemory(base, from, out, LONGS, 8L * checked(length, out.length, out));
            }
        }

        /** Element {@code at + i} := {@code bits[i]}, for {@code i < length}. */
        void put(final long at, final long[] bits, final int length)
        {
            final long to = offset + at * size;
            switch (size)
            {
                case 1 ->
                {
                    final byte[] bytes = bulk.bytes;
                    for (int i = 0, n = checked(length, bytes.length, bits); i < n; i++)
                    {
                        bytes[i] = (byte)bits[i];
                    }
                    UnsafeApi.copyMemory(bytes, BYTES, base, to, length);
                }
                case 2 ->
                {
                    final short[] shorts = bulk.shorts;
                    for (int i = 0, n = checked(length, shorts.length, bits); i < n; i++)
                    {
                        shorts[i] = (short)bits[i];
                    }
                    UnsafeApi.copyMemory(shorts, SHORTS, base, to, 2L * length);
                }
                case 4 ->
                {
                    final int[] ints = bulk.ints;
                    for (int i = 0, n = checked(length, ints.length, bits); i < n; i++)
                    {
                        ints[i] = (int)bits[i];
                    }
                    UnsafeApi.copyMemory(ints, INTS, base, to, 4L * length);
                }
                default -> UnsafeApi.copyMemory(bits, LONGS, base, to, 8L * checked(length, bits.length, bits));
            }
        }

        /** True when every byte of elements [from, from + n) still holds the sentinel. */
        boolean untouched(final long from, final long n)
        {
            return sentinelOnly(offset + from * size, n * size);
        }

        boolean guardsIntact()
        {
            return sentinelOnly(offset - GUARD, GUARD) && sentinelOnly(offset + count * size, GUARD);
        }

        private boolean sentinelOnly(final long from, final long bytes)
        {
            final byte[] chunk = bulk.bytes;
            for (long done = 0; done < bytes; done += chunk.length)
            {
                final int length = (int)Math.min(chunk.length, bytes - done);
                UnsafeApi.copyMemory(base, from + done, chunk, BYTES, length);
                for (int i = 0; i < length; i++)
                {
                    if (chunk[i] != sentinel)
                    {
                        return false;
                    }
                }
            }
            return true;
        }

        /** {@code length}, once it is known to fit both arrays: the copies above must never run past an array. */
        private static int checked(final int length, final int scratch, final long[] bits)
        {
            Objects.checkFromIndexSize(0, length, Math.min(scratch, bits.length));
            return length;
        }
    }
}
