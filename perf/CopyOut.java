/*
 * How fast a JVM copies into memory, by the JVM's copy loop (the Unsafe.copyMemory intrinsic, what jccl's Memory.copy
 * runs) and by the C library's memmove through a critical downcall (what Memory.copyToShared runs from 8 KiB, for
 * copies into lines a peer's core holds):
 *
 *   shared: one process writes a block into shared memory and raises a flag, another copies it into a private
 *           destination of DEST_MIB, block after block, as a rank copies reduced blocks out of a peer's staging area
 *           into its recv buffer; the copier alternates the two ways every 200 blocks and prints both rates;
 *   own:    two processes each copy their own DEST_MIB source into their own DEST_MIB destination in blocks,
 *           as a rank copies its own block of a large vector into recv.
 *
 * PERFORMANCE.md (session 14) has what it measured and why copies out of shared memory keep the JVM's loop.
 * Run (JDK 22 or newer): java --enable-native-access=ALL-UNNAMED perf/CopyOut.java shared|own [BLOCK_KIB [DEST_MIB]]
 * (default 512 KiB blocks into 32 MiB; own: 16384 KiB blocks)
 */
import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.VarHandle;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import static java.lang.foreign.ValueLayout.JAVA_LONG;

public class CopyOut
{
    private static final Path SHARED_FILE = Path.of("/dev/shm/jccl-copy-out");
    private static final VarHandle WORD = JAVA_LONG.varHandle();
    private static final MethodHandle MEMMOVE = Linker.nativeLinker().downcallHandle(
        Linker.nativeLinker().defaultLookup().find("memmove").orElseThrow(),
        FunctionDescriptor.of(JAVA_LONG, JAVA_LONG, JAVA_LONG, JAVA_LONG), Linker.Option.critical(false));

    public static void main(final String[] args) throws Throwable
    {
        final String mode = args.length > 0 ? args[0] : "shared";
        final long block = (args.length > 1 ? Long.parseLong(args[1]) : mode.equals("own") ? 16384 : 512) << 10;
        final long dest = (args.length > 2 ? Long.parseLong(args[2]) : 32) << 20;
        switch (mode)
        {
            case "shared" -> both(List.of("producer", "consumer"), block, dest);
            case "own" -> both(List.of("own-child", "own-child"), block, dest);
            case "producer", "consumer" -> shared(mode.equals("producer"), block, dest);
            case "own-child" -> own(block, dest);
            default -> throw new IllegalArgumentException("mode: shared or own");
        }
    }

    /** Starts two JVMs running this program in the given roles and waits for both. */
    private static void both(final List<String> roles, final long block, final long dest) throws Exception
    {
        final String java = ProcessHandle.current().info().command().orElse("java");
        final String source = ProcessHandle.current().info().arguments().stream().flatMap(Arrays::stream)
            .filter(argument -> argument.endsWith("CopyOut.java")).findFirst().orElseThrow();
        Files.deleteIfExists(SHARED_FILE); // a run that was killed may have left its flags behind
        final List<Process> children = new ArrayList<>();
        for (final String role : roles)
        {
            children.add(new ProcessBuilder(java, "--enable-native-access=ALL-UNNAMED", source, role,
                Long.toString(block >> 10), Long.toString(dest >> 20)).inheritIO().start());
        }
        for (final Process child : children)
        {
            child.waitFor();
        }
        Files.deleteIfExists(SHARED_FILE);
    }

    private static void shared(final boolean producer, final long block, final long dest) throws Throwable
    {
        try (FileChannel file = FileChannel.open(SHARED_FILE, StandardOpenOption.CREATE, StandardOpenOption.READ,
            StandardOpenOption.WRITE); Arena arena = Arena.ofShared())
        {
            final MemorySegment shm = file.map(FileChannel.MapMode.READ_WRITE, 0, block + 4096, arena);
            final long flag = block, ack = block + 128;
            final int rounds = 6000, warmup = 1000;
            if (producer)
            {
                final MemorySegment own = arena.allocate(block, 4096).fill((byte)3);
                for (long i = 1; i <= rounds; i++)
                {
                    while ((long)WORD.getVolatile(shm, ack) != i - 1)
                    {
                        Thread.onSpinWait();
                    }
                    memmove(shm.address(), own.address(), block);
                    WORD.setVolatile(shm, flag, i);
                }
                return;
            }
            final MemorySegment dst = arena.allocate(dest, 4096).fill((byte)1);
            final long[] nanos = new long[2];
            long at = 0;
            for (long i = 1; i <= rounds; i++)
            {
                while ((long)WORD.getVolatile(shm, flag) != i)
                {
                    Thread.onSpinWait();
                }
                final int way = (int)((i / 200) & 1);
                final long start = System.nanoTime();
                copy(way, shm, 0, dst, at, block);
                if (i > warmup)
                {
                    nanos[way] += System.nanoTime() - start;
                }
                at = (at + block) % dest;
                WORD.setVolatile(shm, ack, i);
            }
            final double each = (rounds - warmup) / 2.0 * block;
            System.out.printf("shared: %d KiB blocks a peer wrote, into %d MiB: JVM loop %.2f GB/s, memmove %.2f GB/s%n",
                block >> 10, dest >> 20, each / nanos[0], each / nanos[1]);
        }
    }

    private static void own(final long block, final long dest) throws Throwable
    {
        try (Arena arena = Arena.ofConfined())
        {
            final MemorySegment src = arena.allocate(dest, 4096).fill((byte)2);
            final MemorySegment dst = arena.allocate(dest, 4096).fill((byte)1);
            final long[] nanos = new long[2];
            for (int pass = 0; pass < 12; pass++)
            {
                final int way = pass & 1;
                final long start = System.nanoTime();
                for (long at = 0; at < dest; at += block)
                {
                    copy(way, src, at, dst, at, Math.min(block, dest - at));
                }
                if (pass >= 4)
                {
                    nanos[way] += System.nanoTime() - start;
                }
            }
            System.out.printf("own: %d KiB blocks of its own %d MiB into another: JVM loop %.2f GB/s, memmove %.2f GB/s%n",
                block >> 10, dest >> 20, 4.0 * dest / nanos[0], 4.0 * dest / nanos[1]);
        }
    }

    /** Way 0: the JVM's copy (MemorySegment.copy, the Unsafe.copyMemory intrinsic); way 1: the C library's memmove. */
    private static void copy(final int way, final MemorySegment src, final long srcAt, final MemorySegment dst,
        final long dstAt, final long bytes) throws Throwable
    {
        if (way == 0)
        {
            MemorySegment.copy(src, srcAt, dst, dstAt, bytes);
        }
        else
        {
            memmove(dst.address() + dstAt, src.address() + srcAt, bytes);
        }
    }

    private static void memmove(final long dst, final long src, final long bytes) throws Throwable
    {
        final long ignored = (long)MEMMOVE.invokeExact(dst, src, bytes);
    }
}
