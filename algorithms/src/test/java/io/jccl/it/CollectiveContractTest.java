package io.jccl.it;

import io.jccl.Collective;
import io.jccl.DataType;
import io.jccl.ReduceOp;
import io.jccl.algorithms.AlgorithmRegistry;
import io.jccl.it.ContractCase.Kind;
import io.jccl.launch.JobResult;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.IntStream;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The collective contract: every algorithm of every collective in the registry × datatype × op × counts (0, 1,
 * primes, counts no rank count divides, 16 MiB) × roots × in-place forms × buffer kinds, on 1, 2, 3, 4, 5 and 8 rank
 * JVMs, each result checked against a reference computed locally from seeded inputs and compared bitwise across
 * ranks where it is replicated (see {@link ContractRank}). One launched job per rank count runs all its cases.
 * <p>
 * {@code -Djccl.contract.filter=REGEX} runs only the cases whose label matches (e.g. {@code "allreduce ring"} or
 * {@code "case #42,"}); {@code -Djccl.contract.ranks=3,5} only those rank counts.
 */
@Timeout(150)
class CollectiveContractTest
{
    private static final String FILTER_PROP_NAME = "jccl.contract.filter";
    private static final String RANKS_PROP_NAME = "jccl.contract.ranks";
    private static final int[] RANK_COUNTS = {1, 2, 3, 4, 5, 8};
    /** Most ranks of a matrix job that reduces with the SIMD kernels (see {@link #everyCaseHoldsOn}). */
    private static final int VECTOR_KERNELS_MAX_RANKS = 3;
    /** Typically 10-60 s; 8 oversubscribed ranks took 81 s once, while other jobs loaded the 2 cores. */
    private static final Duration JOB_TIMEOUT = Duration.ofSeconds(120);
    /** A hung call fails within this, naming its case, well before the job timeout. */
    private static final long TIMEOUT_MS = 30_000;
    /**
     * Liveness is not under test here, and 8 busy rank JVMs on 2 shared cores can starve a heartbeat thread for
     * more than the default 3 s (seen once, under a load average of 16): a stale heartbeat must not fail a case.
     */
    private static final long PEER_TIMEOUT_MS = 15_000;
    private static final int FAILURES_SHOWN = 40;
    /** Full JIT: the ranks spend most of their time computing references over megabytes. */
    private static final List<String> JVM_ARGS = List.of("-Xmx512m", "-XX:+UseSerialGC");
    private static final Pattern SUMMARY = Pattern.compile(
        "CASES (\\d+) FAILED (\\d+) UNSUPPORTED (\\d+) SECONDS ([0-9.]+)(.*)");

    static IntStream rankCounts()
    {
        final String only = System.getProperty(RANKS_PROP_NAME);
        return only == null || only.isBlank() ? Arrays.stream(RANK_COUNTS) :
            Arrays.stream(only.split(",")).mapToInt(s -> Integer.parseInt(s.trim()));
    }

    /**
     * From {@value #VECTOR_KERNELS_MAX_RANKS} ranks up, the ranks reduce with the array kernels instead of the Vector
     * API's: the SIMD kernels run cold (interpreted, then C1) until C2 has compiled each type and operator's loop, and
     * the matrix calls each of them a few dozen times; 4 and 8 rank JVMs warming them up on 2 cores took 40 % of those
     * jobs' time (28 s against 17 at 4 ranks, 52 against 33-38 at 8). Both kernels give the same bits
     * ({@code ReductionsTest}), and the jobs of 1 to 3 ranks and the single-copy and split jobs below keep the SIMD
     * ones.
     */
    @ParameterizedTest(name = "{0} ranks")
    @MethodSource("rankCounts")
    void everyCaseHoldsOn(final int ranks)
    {
        holds(ranks, System.getProperty(FILTER_PROP_NAME),
            ranks > VECTOR_KERNELS_MAX_RANKS ? List.of("JCCL_VECTOR_KERNELS=false") : List.of(), false);
    }

    /**
     * The single-copy algorithms alone on 3 and 4 rank JVMs, with single copy set on (the default is on from 256 KiB
     * where ranks outnumber cores, so the cases above run them too): here every case must be supported, so a job
     * whose probe turned single copy off fails instead of skipping them.
     */
    @ParameterizedTest(name = "{0} ranks")
    @ValueSource(ints = {3, 4})
    void singleCopyAlgorithmsHoldOnMoreRanks(final int ranks)
    {
        holds(ranks, "shm_single_copy", List.of("JCCL_SINGLE_COPY_BYTES=65536"), true);
    }

    /**
     * Every algorithm's broadcasts, reduces and allreduces beyond a split of 1 MiB (300,007 elements and 16 MiB), on 2
     * JVMs and 4 on 2 cores: each call runs as calls on parts of its vector, whose offsets move through every kind of
     * buffer, symmetric memory too, and the guards around each buffer must hold.
     */
    @ParameterizedTest(name = "{0} ranks")
    @ValueSource(ints = {2, 4})
    void splitCallsHoldOn(final int ranks)
    {
        holds(ranks, "^(allreduce|broadcast|reduce) .* count=\\d{6,} ", List.of("JCCL_SPLIT_BYTES=1m"), false);
    }

    private static void holds(final int ranks, final String filter, final List<String> env,
        final boolean allSupported)
    {
        final List<ContractCase> cases = ContractCases.build(ranks, AlgorithmRegistry.instance(), filter);
        // both symmetric pools, their guards and alignment, with room to spare
        final long symmetric = ContractCases.sharedBytes(cases, ranks, ContractBuffers.SEND) +
            ContractCases.sharedBytes(cases, ranks, ContractBuffers.RECV) + (1 << 20);
        final long start = System.nanoTime();
        final JobResult result = Jobs.launch(ranks, ContractRank.class,
            filter == null || filter.isBlank() ? List.of() : List.of(filter),
            Stream.concat(Stream.of("JCCL_SYMMETRIC_BYTES=" + symmetric,
            "JCCL_TIMEOUT_MS=" + TIMEOUT_MS, "JCCL_PEER_TIMEOUT_MS=" + PEER_TIMEOUT_MS), env.stream()).toList(),
            JVM_ARGS, JOB_TIMEOUT);
        final double seconds = (System.nanoTime() - start) / 1e9;

        final List<String> failures = new ArrayList<>();
        final List<String> notes = new ArrayList<>();
        int failed = 0;
        for (int r = 0; r < ranks; r++)
        {
            Matcher summary = null;
            for (final String line : result.output(r))
            {
                if (line.startsWith("FAIL "))
                {
                    failures.add(line);
                }
                else if (line.startsWith("UNSUPPORTED ") || line.startsWith("SLOW ") || line.startsWith("STUCK "))
                {
                    notes.add(line);
                }
                final Matcher m = SUMMARY.matcher(line);
                if (m.find())
                {
                    summary = m;
                }
            }
            final int rank = r;
            assertTrue(summary != null, () -> "rank " + rank + " printed no summary; output:\n" +
                Jobs.allOutput(result));
            assertEquals(cases.size(), Integer.parseInt(summary.group(1)), "cases run by rank " + r);
            failed += Integer.parseInt(summary.group(2));
            if (allSupported)
            {
                assertEquals(0, Integer.parseInt(summary.group(3)), "cases refused on rank " + r + ":\n" +
                    Jobs.allOutput(result));
            }
            if (r == 0)
            {
                System.out.printf("contract on %d ranks: %s cases, %s unsupported, %s s in the ranks, %.1f s " +
                    "in all%n", ranks, summary.group(1), summary.group(3), summary.group(4), seconds);
            }
        }
        notes.forEach(System.out::println);
        failures.forEach(System.out::println);
        final int failedCases = failed;
        assertTrue(failures.isEmpty() && failedCases == 0, () -> failedCases + " failed case checks on " + ranks +
            " ranks; first ones:\n" + String.join("\n", failures.subList(0, Math.min(FAILURES_SHOWN,
            failures.size()))));
        Jobs.assertSucceeded(result);
    }

    /** The matrix covers what the contract promises, so that it cannot silently shrink. */
    @Test
    void matrixCoversEveryAlgorithmTypeOpSizeRootAndForm()
    {
        final AlgorithmRegistry registry = AlgorithmRegistry.instance();
        for (final int ranks : RANK_COUNTS)
        {
            final List<ContractCase> cases = ContractCases.build(ranks, registry, null);
            for (final Collective collective : Collective.values())
            {
                for (final String algorithm : registry.of(collective).keySet())
                {
                    final List<ContractCase> mine = cases.stream().filter(c -> c.collective() == collective &&
                        c.algorithm().equals(algorithm)).toList();
                    final String what = collective.label() + ":" + algorithm + " on " + ranks + " ranks";
                    assertFalse(mine.isEmpty(), what);
                    if (collective == Collective.BARRIER)
                    {
                        continue;
                    }
                    final Set<DataType> types = EnumSet.noneOf(DataType.class);
                    mine.forEach(c -> types.add(c.type()));
                    assertEquals(EnumSet.allOf(DataType.class), types, what);
                    if (ContractCases.isReduction(collective))
                    {
                        for (final DataType type : DataType.values())
                        {
                            for (final ReduceOp op : ReduceOp.values())
                            {
                                if (!op.reduces(type))
                                {
                                    assertTrue(mine.stream().noneMatch(c -> c.type() == type && c.op() == op),
                                        what + " " + type + " " + op + ": a call jccl refuses");
                                    continue;
                                }
                                if (type.isUnsigned() && !ContractCases.UNSIGNED_OPS.contains(op))
                                {
                                    continue; // the signed type's bits: ReductionsTest checks the kernels give them
                                }
                                assertTrue(mine.stream().anyMatch(c -> c.type() == type && c.op() == op &&
                                    !c.inexact()), what + " " + type + " " + op);
                            }
                        }
                        assertTrue(mine.stream().anyMatch(ContractCase::inexact), what + " inexact");
                    }
                    assertTrue(mine.stream().anyMatch(c -> c.count() == 0), what + " count 0");
                    assertTrue(mine.stream().anyMatch(c -> c.count() == 1), what + " count 1");
                    assertTrue(ranks == 1 || mine.stream().anyMatch(c -> c.count() > 1 && c.count() % ranks != 0 &&
                        c.count() < 1000), what + " count not divisible");
                    assertTrue(mine.stream().anyMatch(c -> c.count() * c.type().size() *
                        (ContractCases.isBlock(collective) ? ranks : 1) >= ContractCases.BIG_BYTES - 64L * ranks),
                        what + " 16 MiB");
                    if (ContractCases.hasRoot(collective))
                    {
                        assertTrue(mine.stream().anyMatch(c -> c.root() == 0), what + " root 0");
                        assertTrue(mine.stream().anyMatch(c -> c.root() == ranks - 1), what + " root last");
                    }
                    if (ContractCases.hasInPlace(collective))
                    {
                        assertTrue(mine.stream().anyMatch(ContractCase::inPlace), what + " in place");
                        assertTrue(mine.stream().anyMatch(c -> !c.inPlace()), what + " out of place");
                    }
                    for (final Kind kind : Kind.values())
                    {
                        assertTrue(mine.stream().anyMatch(c -> c.recvKind() == kind || c.sendKind() == kind),
                            what + " " + kind);
                    }
                }
            }
        }
    }
}
