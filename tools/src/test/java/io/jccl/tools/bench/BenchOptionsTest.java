package io.jccl.tools.bench;

import io.jccl.Collective;
import io.jccl.DataType;
import io.jccl.ReduceOp;
import io.jccl.algorithms.AlgorithmRegistry;
import io.jccl.tools.UsageException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Parsing the bench options, and the messages of every kind of wrong argument. */
@Timeout(10)
class BenchOptionsTest
{
    @TempDir
    Path dir;

    @Test
    void defaults()
    {
        final BenchOptions options = BenchOptions.parse(new String[] {"-n", "2", "--op", "allreduce"});
        assertEquals(2, options.ranks());
        assertEquals(List.of(BenchOp.ALLREDUCE), options.ops());
        assertEquals(8, options.minBytes());
        assertEquals(64L << 20, options.maxBytes());
        assertEquals(DataType.FLOAT32, options.dataType());
        assertEquals(ReduceOp.SUM, options.reduceOp());
        assertEquals(BenchFormat.TABLE, options.format());
        assertEquals(0, options.iters());
        assertEquals(-1, options.warmup());
        assertFalse(options.check());
        assertFalse(options.cold());
        assertEquals(0, options.root());
        assertNull(options.compare());
        final List<String> defaultChoice = new ArrayList<>();
        defaultChoice.add(null);
        assertEquals(defaultChoice, options.algorithmsFor(BenchOp.ALLREDUCE));
    }

    @Test
    void everyOptionAndTheRoundTripThroughArgs()
    {
        final BenchOptions options = BenchOptions.parse(new String[] {"-n", "4", "--op", "allreduce,Reduce-Scatter",
            "--algo", "ring", "--min-bytes", "1k", "--max-bytes", "4MiB", "--step", "2", "--dtype", "bf16",
            "--reduce-op", "max",
            "--format", "nccl", "--iters", "7", "--warmup", "0", "--check", "--cold", "--shared", "--sync", "--root",
            "3"});
        assertEquals(List.of(BenchOp.ALLREDUCE, BenchOp.REDUCE_SCATTER), options.ops());
        assertEquals(1024, options.minBytes());
        assertEquals(4L << 20, options.maxBytes());
        assertEquals(2, options.step());
        assertEquals(DataType.BFLOAT16, options.dataType());
        assertEquals(ReduceOp.MAX, options.reduceOp());
        assertEquals(BenchFormat.NCCL, options.format());
        assertEquals(7, options.iters());
        assertEquals(0, options.warmup());
        assertTrue(options.check());
        assertTrue(options.cold());
        assertTrue(options.shared());
        assertTrue(options.sync());
        assertEquals(3, options.root());
        assertEquals(List.of("ring"), options.algorithmsFor(BenchOp.ALLREDUCE));

        final BenchOptions again = BenchOptions.parse(options.toArgs().toArray(String[]::new));
        assertEquals(options.toArgs(), again.toArgs());
    }

    @Test
    void sizesAcceptSuffixes()
    {
        assertEquals(4096, BenchOptions.parseSize("--max-bytes", "4096"));
        assertEquals(64 << 10, BenchOptions.parseSize("--max-bytes", "64k"));
        assertEquals(64 << 10, BenchOptions.parseSize("--max-bytes", "64KiB"));
        assertEquals(4 << 20, BenchOptions.parseSize("--max-bytes", "4M"));
        assertEquals(1L << 30, BenchOptions.parseSize("--max-bytes", "1g"));
        assertEquals(8, BenchOptions.parseSize("--max-bytes", "8b"));
        assertEquals("--max-bytes needs a size such as 4096, 64k, 4m or 1g, not '4x'",
            assertThrows(UsageException.class, () -> BenchOptions.parseSize("--max-bytes", "4x")).getMessage());
        assertEquals("8 B", BenchOptions.humanBytes(8));
        assertEquals("32 KiB", BenchOptions.humanBytes(32 << 10));
        assertEquals("1.5 KiB", BenchOptions.humanBytes(1536));
        assertEquals("64 MiB", BenchOptions.humanBytes(64 << 20));
    }

    @Test
    void allOperationsAndAllAlgorithms()
    {
        final BenchOptions options = BenchOptions.parse(new String[] {"-n", "3", "--op", "all", "--algo", "all"});
        assertTrue(options.opsFromAll());
        assertEquals(BenchOp.all(), options.ops());
        assertEquals(List.of(BenchOp.P2P_ALGORITHM), options.algorithmsFor(BenchOp.PINGPONG));
        assertEquals(List.copyOf(AlgorithmRegistry.instance().of(Collective.ALLREDUCE).keySet()),
            options.algorithmsFor(BenchOp.ALLREDUCE));
    }

    @Test
    void algorithmsPerCollective()
    {
        final BenchOptions options = BenchOptions.parse(new String[] {"-n", "2", "--op", "allreduce,broadcast,barrier",
            "--algo", "allreduce:ring,broadcast:binomial,allreduce:rabenseifner"});
        assertEquals(List.of("ring", "rabenseifner"), options.algorithmsFor(BenchOp.ALLREDUCE));
        assertEquals(List.of("binomial"), options.algorithmsFor(BenchOp.BROADCAST));
        assertEquals(List.of(), options.algorithmsFor(BenchOp.BARRIER));
    }

    @Test
    void missingRanksOrOperations()
    {
        assertEquals("say how many ranks with -n N", error("--op", "allreduce"));
        assertTrue(error("-n", "2").startsWith("say what to measure with --op, e.g. --op allreduce or --op all"));
        assertEquals("-n must be between 1 and 1024, not 0", error("-n", "0", "--op", "allreduce"));
        assertEquals("-n needs a whole number, not 'two'", error("-n", "two", "--op", "allreduce"));
    }

    @Test
    void unknownNames()
    {
        assertEquals("unknown operation 'allreduc' in --op: expected all or one or more of pingpong, barrier, " +
            "broadcast, reduce, allreduce, gather, scatter, allgather, reduce_scatter, alltoall, allgatherv, " +
            "reduce_scatterv, alltoallv, gatherv, scatterv, scan, exscan", error("-n", "2", "--op", "allreduc"));
        assertEquals("--dtype: unknown datatype 'float8': expected one of int8, int32, int64, float16, bfloat16, " +
            "float32, float64, uint8, uint32, uint64", error("-n", "2", "--op", "allreduce", "--dtype", "float8"));
        assertEquals("--reduce-op: unknown reduction op 'mean': expected sum, prod, min, max, avg, band, bor or " +
            "bxor", error("-n", "2", "--op", "allreduce", "--reduce-op", "mean"));
        assertEquals("--reduce-op bxor reduces integer types: use --dtype int8, int32, int64, uint8, uint32 or " +
            "uint64, not float32",
            error("-n", "2", "--op", "allreduce", "--reduce-op", "bxor"));
        assertEquals(ReduceOp.BAND, BenchOptions.parse(new String[] {"-n", "2", "--op", "allreduce", "--dtype",
            "int64", "--reduce-op", "band"}).reduceOp());
        assertEquals("unknown --format 'xml': expected table, osu, nccl, csv or json",
            error("-n", "2", "--op", "allreduce", "--format", "xml"));
        assertEquals("unknown option --bogus", error("-n", "2", "--op", "allreduce", "--bogus"));
        assertEquals("unexpected argument 'extra'", error("-n", "2", "--op", "allreduce", "extra"));
    }

    @Test
    void unknownAlgorithmsListTheKnownOnes()
    {
        final String known = String.join(", ", AlgorithmRegistry.instance().of(Collective.ALLREDUCE).keySet());
        assertEquals("--algo allreduce:rng: no allreduce algorithm named 'rng'; known: " + known,
            error("-n", "2", "--op", "allreduce", "--algo", "allreduce:rng"));
        assertEquals("--algo rng: none of the operations has an algorithm of that name; known:\n  allreduce: " +
            known, error("-n", "2", "--op", "allreduce", "--algo", "rng"));
        assertEquals("--algo broadcast:binomial: --op does not include broadcast",
            error("-n", "2", "--op", "allreduce", "--algo", "broadcast:binomial"));
        assertEquals("--algo pingpong:ring: pingpong has one algorithm, p2p",
            error("-n", "2", "--op", "pingpong", "--algo", "pingpong:ring"));
    }

    @Test
    void sizesOutOfRange()
    {
        assertEquals("--min-bytes 1024 is larger than --max-bytes 512",
            error("-n", "2", "--op", "allreduce", "--min-bytes", "1k", "--max-bytes", "512"));
        assertEquals("--min-bytes must be at least 1", error("-n", "2", "--op", "allreduce", "--min-bytes", "0"));
        assertEquals("--max-bytes 2 GiB is too large: at most 1 GiB",
            error("-n", "2", "--op", "allreduce", "--max-bytes", "2g"));
        assertEquals("--max-bytes 1 GiB is too large: at most 512 MiB with --cold",
            error("-n", "2", "--op", "allreduce", "--max-bytes", "1g", "--cold"));
        assertEquals("--iters must be between 1 and 2147483647, not 0",
            error("-n", "2", "--op", "allreduce", "--iters", "0"));
        assertEquals("--warmup must be between 0 and 2147483647, not -1",
            error("-n", "2", "--op", "allreduce", "--warmup", "-1"));
    }

    @Test
    void rootsAndPingPongNeedRanks()
    {
        assertEquals("--root 2 is not a rank of a 2-rank job (0 to 1)",
            error("-n", "2", "--op", "broadcast", "--root", "2"));
        assertEquals("pingpong runs between ranks 0 and 1: it needs -n 2 or more", error("-n", "1", "--op",
            "pingpong"));
        assertEquals(BenchOp.all(), BenchOptions.parse(new String[] {"-n", "1", "--op", "all"}).ops());
    }

    @Test
    void compareNeedsATableOrCsv() throws IOException
    {
        final Path peers = Files.writeString(dir.resolve("peers.csv"), "impl,collective,ranks,bytes,avg_us\n");
        assertEquals("--compare prints a table or CSV: use --format table or --format csv, not json",
            error("-n", "2", "--op", "allreduce", "--format", "json", "--compare", peers.toString()));
        assertEquals(peers, BenchOptions.parse(new String[] {"-n", "2", "--op", "allreduce", "--format", "csv",
            "--compare", peers.toString()}).compare());
        assertEquals("--compare sets jccl beside run-peers, which times its calls back to back: leave out --sync",
            error("-n", "2", "--op", "allreduce", "--sync", "--compare", peers.toString()));
    }

    private static String error(final String... args)
    {
        return assertThrows(UsageException.class, () -> BenchOptions.parse(args)).getMessage();
    }
}
