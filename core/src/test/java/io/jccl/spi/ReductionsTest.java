package io.jccl.spi;

import io.jccl.DataType;
import io.jccl.ReduceOp;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

import static io.jccl.spi.TestMemory.Kind.BYTE_ARRAY;
import static io.jccl.spi.TestMemory.Kind.OFF_HEAP;
import static io.jccl.spi.TestMemory.Kind.TYPED_ARRAY;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * Every type and operator against {@link ReferenceArithmetic}, bit for bit, in every arrangement of memory the
 * kernels treat differently (typed arrays at one index or several, off-heap, byte[], mixed, dst aliasing a or b),
 * at counts on both sides of the scalar limit and of a block. Guard elements catch writes out of range.
 */
@Timeout(60)
class ReductionsTest
{
    /**
     * Counts around one SIMD vector (below it off-heap operands take the scalar loop), the scalar limit and the block
     * size (1024 elements of 4 bytes, 2048 of 2 bytes...).
     */
    private static int[] counts(final DataType type)
    {
        final int limit = Reductions.scalarLimit(type);
        final int vector = Reductions.SIMD_MIN_BYTES / type.size();
        return new int[] {0, 1, 7, vector - 1, vector, vector + 1, limit - 1, limit, limit + 1, 1000, 2049, 4099};
    }
    private static final int[] DIVISORS = {1, 2, 3, 7, 1000};

    /** How the three operands are laid out; {@code null} for a or b of dst means "dst is that operand". */
    private enum Layout
    {
        ARRAYS_ONE_INDEX(TYPED_ARRAY, 1, TYPED_ARRAY, 1, TYPED_ARRAY, 1),
        ARRAYS_THREE_INDICES(TYPED_ARRAY, 1, TYPED_ARRAY, 2, TYPED_ARRAY, 3),
        ARRAYS_DST_IS_A(TYPED_ARRAY, 2, TYPED_ARRAY, 2, null, 0),
        ARRAYS_DST_IS_B_OTHER_INDEX(TYPED_ARRAY, 1, TYPED_ARRAY, 3, null, 1),
        OFF_HEAP_ALL(OFF_HEAP, 1, OFF_HEAP, 2, OFF_HEAP, 3),
        OFF_HEAP_DST_IS_A(OFF_HEAP, 0, OFF_HEAP, 1, null, 0),
        OFF_HEAP_A_ARRAY_B_DST_IS_B(OFF_HEAP, 1, TYPED_ARRAY, 2, null, 1),
        ARRAY_A_OFF_HEAP_B_DST_IS_A(TYPED_ARRAY, 2, OFF_HEAP, 1, null, 0),
        ARRAY_A_OFF_HEAP_B_INTO_OFF_HEAP(TYPED_ARRAY, 1, OFF_HEAP, 2, OFF_HEAP, 3),
        OFF_HEAP_INTO_ARRAY(OFF_HEAP, 1, OFF_HEAP, 2, TYPED_ARRAY, 3),
        BYTE_ARRAYS(BYTE_ARRAY, 1, BYTE_ARRAY, 2, BYTE_ARRAY, 3),
        BYTE_ARRAY_INTO_TYPED_ARRAY(BYTE_ARRAY, 1, TYPED_ARRAY, 2, TYPED_ARRAY, 3);

        final TestMemory.Kind a;
        final int aSkew;
        final TestMemory.Kind b;
        final int bSkew;
        /** Kind of dst, or null when dst is operand a (dSkew 0) or b (dSkew 1). */
        final TestMemory.Kind d;
        final int dSkew;

        Layout(final TestMemory.Kind a, final int aSkew, final TestMemory.Kind b, final int bSkew,
            final TestMemory.Kind d, final int dSkew)
        {
            this.a = a;
            this.aSkew = aSkew;
            this.b = b;
            this.bSkew = bSkew;
            this.d = d;
            this.dSkew = dSkew;
        }
    }

    @ParameterizedTest
    @EnumSource(DataType.class)
    void reduceMatchesReferenceInEveryLayout(final DataType type)
    {
        for (final ReduceOp op : ReduceOp.values())
        {
            if (!op.reduces(type))
            {
                continue;
            }
            for (final Layout layout : Layout.values())
            {
                for (final int count : counts(type))
                {
                    checkReduce(type, op, layout, count, false);
                    checkReduce(type, op, layout, count, true);
                }
            }
        }
    }

    @ParameterizedTest
    @EnumSource(DataType.class)
    void divideMatchesReference(final DataType type)
    {
        for (final TestMemory.Kind kind : TestMemory.Kind.values())
        {
            for (final int divisor : DIVISORS)
            {
                for (final int count : counts(type))
                {
                    final String what = type + " / " + divisor + " in " + kind + " count " + count;
                    final TestMemory x = new TestMemory(type, kind, count, 2);
                    x.fill(new Random(what.hashCode()), divisor == 3);
                    final long[] before = x.snapshot();
                    final long[] expected = before.clone();
                    for (int i = 0; i < count; i++)
                    {
                        final int at = x.snapshotIndex(i);
                        expected[at] = ReferenceArithmetic.divide(type, before[at], divisor);
                    }
                    Reductions.divide(type, x.base, x.offset, count, divisor);
                    assertBits(what, type, expected, x.snapshot());
                }
            }
        }
    }

    @Test
    void divideRejectsDivisorBelowOne()
    {
        final int[] x = new int[4];
        final long base = Reductions.arrayBase(DataType.INT32);
        assertThrows(IllegalArgumentException.class, () -> Reductions.divide(DataType.INT32, x, base, 4, 0));
        assertThrows(IllegalArgumentException.class, () -> Reductions.divide(DataType.INT32, x, base, 4, -3));
    }

    /**
     * Every float16 and bfloat16 pattern as a, against values that exercise rounding, subnormals and NaN: in arrays
     * (the array kernels) and off-heap (the SIMD kernels, where the JVM has them).
     */
    @ParameterizedTest
    @EnumSource(value = DataType.class, names = {"FLOAT16", "BFLOAT16"})
    void sixteenBitTypesExhaustively(final DataType type)
    {
        final long[] partners = type == DataType.FLOAT16 ?
            new long[] {0x0000, 0x8000, 0x3C00, 0xBC01, 0x3801, 0x0001, 0x0400, 0x1400, 0x7BFF, 0x7C00, 0x7E01} :
            new long[] {0x0000, 0x8000, 0x3F80, 0xBF81, 0x3F01, 0x0001, 0x0080, 0x3B80, 0x7F7F, 0x7F80, 0x7FC1};
        final int count = 0x1_0000;
        for (final TestMemory.Kind kind : new TestMemory.Kind[] {TYPED_ARRAY, OFF_HEAP})
        {
            final TestMemory a = new TestMemory(type, kind, count, 0);
            final TestMemory b = new TestMemory(type, kind, count, 0);
            final TestMemory d = new TestMemory(type, kind, count, 0);
            for (final ReduceOp op : ReduceOp.values())
            {
                if (!op.reduces(type))
                {
                    continue;
                }
                for (final long partner : partners)
                {
                    for (int i = 0; i < count; i++)
                    {
                        Elements.putBits(type, a.base, a.offset, i, i);
                        Elements.putBits(type, b.base, b.offset, i, partner);
                    }
                    Reductions.reduce(type, op, a.base, a.offset, b.base, b.offset, d.base, d.offset, count);
                    for (int i = 0; i < count; i++)
                    {
                        final long expected = ReferenceArithmetic.combine(type, op, i, partner);
                        final long actual = Elements.getBits(type, d.base, d.offset, i) & 0xFFFF;
                        if (actual != expected)
                        {
                            fail(type + " " + op + " in " + kind + " " + hex(i) + ", " + hex(partner) +
                                ": expected " + hex(expected) + " but was " + hex(actual));
                        }
                    }
                }
            }
        }
    }

    @Test
    void floatToBfloat16RoundsToNearestEven()
    {
        final Random random = new Random(16);
        for (int k = 0; k < 1_000_000; k++)
        {
            // around every rounding boundary: a bfloat16 pattern with the low half near 0x8000
            final int bits = k < 500_000 ? random.nextInt() : (random.nextInt() & 0xFFFF_0000) | (0x7FFE + k % 4);
            final float value = Float.intBitsToFloat(bits);
            final long expected = ReferenceArithmetic.roundBrain(value);
            assertEquals(expected, Reductions.floatToBfloat16(value) & 0xFFFF, () -> "bits " + hex(bits));
        }
        assertEquals(0x7FC0, Reductions.floatToBfloat16(Float.intBitsToFloat(0xFF80_0001)) & 0xFFFF);
        assertEquals(0x7F80, Reductions.floatToBfloat16(Float.MAX_VALUE) & 0xFFFF);
        assertEquals(0x8000, Reductions.floatToBfloat16(-0.0f) & 0xFFFF);
        assertEquals(1.5f, Reductions.bfloat16ToFloat(Reductions.floatToBfloat16(1.5f)));
    }

    /**
     * The tests run as the launcher runs ranks (with the Vector API), so that off-heap layouts above exercise the
     * SIMD kernels wherever the JVM has them; the build runs this class a second time with them turned off.
     */
    @Test
    void offHeapOperandsTakeTheSimdKernelsOnJava22AndNewerUnlessTurnedOff()
    {
        final boolean on = !"false".equals(System.getProperty(io.jccl.Configuration.VECTOR_KERNELS_PROP_NAME));
        assertEquals(on && Runtime.version().feature() >= 22, Reductions.vectorKernels(),
            String.valueOf(Reductions.vectorKernelsWhyNot()));
    }

    /** A bitwise operator on floats is refused by the kernels themselves, not left to a loop that does nothing. */
    @Test
    void bitwiseOperatorsOfFloatsAreRefused()
    {
        final float[] x = new float[8];
        final long base = Reductions.arrayBase(DataType.FLOAT32);
        final IllegalArgumentException refused = assertThrows(IllegalArgumentException.class, () ->
            Reductions.reduce(DataType.FLOAT32, ReduceOp.BOR, x, base, x, base, x, base, 8));
        assertEquals("bor reduces integer types (int8, int32, int64, uint8, uint32, uint64), not float32",
            refused.getMessage());
    }

    /** The modes {@code java.vm.info} reports on JDK 25, with the options that give them. */
    @Test
    void aJvmWithoutC2IsToldFromItsVmInfo()
    {
        assertFalse(OffHeapReductions.Holder.withoutC2("mixed mode, sharing"));
        assertFalse(OffHeapReductions.Holder.withoutC2("mixed mode"));
        assertTrue(OffHeapReductions.Holder.withoutC2("mixed mode, emulated-client, sharing"));
        assertTrue(OffHeapReductions.Holder.withoutC2("interpreted mode, sharing"));
    }

    /**
     * In a JVM that compiles with C1 alone the Vector API runs unintrinsified, tens of times slower than the array
     * kernels: such a JVM takes the array kernels and says why; the same JVM with C2 takes the SIMD kernels.
     */
    @Test
    void aJvmThatCompilesWithC1AloneTakesTheArrayKernels() throws IOException, InterruptedException
    {
        assumeTrue(Runtime.version().feature() >= 22 && ModuleLayer.boot().findModule("jdk.incubator.vector")
            .isPresent(), "the SIMD kernels need Java 22 and jdk.incubator.vector");
        assertEquals("true null", report());
        final String c1 = report("-XX:TieredStopAtLevel=1");
        assertTrue(c1.startsWith("false this JVM does not compile with C2"), c1);
        assertTrue(report("-Xint").startsWith("false this JVM does not compile with C2"));
    }

    /** {@link VectorKernelsReport}'s line, from a JVM started as the launcher starts ranks, plus {@code options}. */
    private static String report(final String... options) throws IOException, InterruptedException
    {
        final List<String> command = new ArrayList<>(List.of(
            Path.of(System.getProperty("java.home"), "bin", "java").toString(), "--add-modules", "jdk.incubator.vector", "--add-exports", "java.base/jdk.internal.misc=ALL-UNNAMED",
            "--enable-native-access=ALL-UNNAMED"));
        command.addAll(List.of(options));
        command.addAll(List.of("-cp", System.getProperty("java.class.path"), VectorKernelsReport.class.getName()));
        final ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true);
        builder.environment().remove("JCCL_VECTOR_KERNELS");
        final Process process = builder.start();
        final List<String> lines = new String(process.getInputStream().readAllBytes()).lines()
            .filter(l -> !l.contains("jdk.incubator.vector")).toList();
        assertEquals(0, process.waitFor(), String.join("\n", lines));
        return lines.getLast();
    }

    /** The same inputs give the same bits through the scalar path and the vector path. */
    @ParameterizedTest
    @EnumSource(DataType.class)
    void scalarAndVectorPathsAgree(final DataType type)
    {
        final int limit = Reductions.scalarLimit(type);
        final int count = 4 * limit + 5;
        for (final ReduceOp op : ReduceOp.values())
        {
            if (!op.reduces(type))
            {
                continue;
            }
            final TestMemory a = new TestMemory(type, OFF_HEAP, count, 0);
            final TestMemory b = new TestMemory(type, TYPED_ARRAY, count, 0);
            a.fill(new Random(op.ordinal()), false);
            b.fill(new Random(op.ordinal() + 100), false);
            final TestMemory whole = new TestMemory(type, TYPED_ARRAY, count, 0);
            final TestMemory pieces = new TestMemory(type, TYPED_ARRAY, count, 0);
            Reductions.reduce(type, op, a.base, a.offset, b.base, b.offset, whole.base, whole.offset, count);
            final int size = type.size();
            for (int done = 0; done < count; done += limit - 1)
            {
                final int n = Math.min(limit - 1, count - done);
                final long skip = (long)done * size;
                Reductions.reduce(type, op, a.base, a.offset + skip, b.base, b.offset + skip,
                    pieces.base, pieces.offset + skip, n);
            }
            assertBits(type + " " + op, type, whole.snapshot(), pieces.snapshot());
        }
    }

    private static void checkReduce(final DataType type, final ReduceOp op, final Layout layout, final int count,
        final boolean ordinaryOnly)
    {
        final String what = type + " " + op + " " + layout + " count " + count + (ordinaryOnly ? " ordinary" : "");
        final Random random = new Random(what.hashCode());
        final TestMemory a = new TestMemory(type, layout.a, count, layout.aSkew);
        final TestMemory b = new TestMemory(type, layout.b, count, layout.bSkew);
        final TestMemory d = layout.d != null ? new TestMemory(type, layout.d, count, layout.dSkew) :
            layout.dSkew == 0 ? a : b;
        a.fill(random, ordinaryOnly);
        b.fill(random, ordinaryOnly);
        if (d != a && d != b)
        {
            d.fill(random, ordinaryOnly);
        }

        final long[] beforeA = a.snapshot();
        final long[] beforeB = b.snapshot();
        final long[] expectedD = d.snapshot();
        for (int i = 0; i < count; i++)
        {
            expectedD[d.snapshotIndex(i)] = ReferenceArithmetic.combine(
                type, op, beforeA[a.snapshotIndex(i)], beforeB[b.snapshotIndex(i)]);
        }

        Reductions.reduce(type, op, a.base, a.offset, b.base, b.offset, d.base, d.offset, count);

        assertBits(what + ": dst", type, expectedD, d.snapshot());
        if (a != d)
        {
            assertBits(what + ": a changed", type, beforeA, a.snapshot());
        }
        if (b != d)
        {
            assertBits(what + ": b changed", type, beforeB, b.snapshot());
        }
    }

    private static void assertBits(final String what, final DataType type, final long[] expected, final long[] actual)
    {
        for (int i = 0; i < expected.length; i++)
        {
            if (expected[i] != actual[i])
            {
                fail(what + ": snapshot element " + i + " of " + type + " expected " + hex(expected[i]) +
                    " but was " + hex(actual[i]));
            }
        }
    }

    private static String hex(final long bits)
    {
        return "0x" + Long.toHexString(bits);
    }
}
