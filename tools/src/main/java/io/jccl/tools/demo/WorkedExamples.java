package io.jccl.tools.demo;

import io.jccl.Buf;
import io.jccl.Communicator;
import io.jccl.LocCollectives;
import io.jccl.LocOp;
import io.jccl.ObjectCollectives;
import io.jccl.ReduceOp;
import io.jccl.tools.demo.VectorFormat.Style;

import java.math.BigDecimal;
import java.math.MathContext;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

/**
 * Part 2 of the demo: small distributed computations built from collectives (mean, argmax by MAXLOC, softmax), an
 * allreduce written with point-to-point messages only, and allreduce done three ways and timed at 1 MiB.
 */
final class WorkedExamples
{
    private static final int RING_TAG = 77;
    private static final int RING_LENGTH = 8;
    private static final int TIMED_BYTES = 1 << 20;
    /**
     * Untimed rounds of the three ways first. A fresh JVM runs the copies and reductions in the interpreter and C1
     * until C2 has compiled them, which takes this machine's ranks about a hundred calls of 1 MiB (2 ranks, float[]:
     * the first call 0.7 s, the 50th to 100th 1.2 ms each, from the 200th 0.5): after three rounds, the allreduce,
     * then timed first, took 30-90 ms at 4 ranks against 4-16 ms for the other two ways.
     */
    private static final int WARM_UP_RUNS = 100;
    private static final int TIMED_RUNS = 7;
    private static final MathContext SIX_DIGITS = new MathContext(6);
    private static final String[] WAYS = {"allreduce", "reduce + broadcast", "reduce_scatter + allgather"};

    private final Communicator comm;
    private final Report report;
    private final int rank;
    private final int size;

    WorkedExamples(final Communicator comm, final Report report)
    {
        this.comm = comm;
        this.report = report;
        this.rank = comm.rank();
        this.size = comm.size();
    }

    void run()
    {
        report.section("2. Worked examples");
        mean();
        argmax();
        softmax();
        ringAllreduce();
        wordCounts();
        allreduceThreeWays();
    }

    /** The mean of values spread unevenly over the ranks: one allreduce of (sum, count). */
    private void mean()
    {
        final double[] values = meanInput(rank);
        final double[] sumAndCount = {Arrays.stream(values).sum(), values.length};
        final double[] local = sumAndCount.clone();
        comm.allreduce(Buf.of(sumAndCount), ReduceOp.SUM);
        final double mean = sumAndCount[0] / sumAndCount[1];

        final double[][] inputs = report.gather(values);
        final double[][] locals = report.gather(local);
        final double[][] means = report.gather(new double[] {mean});
        if (!report.isRoot())
        {
            return;
        }
        double sum = 0;
        int count = 0;
        final List<String> before = new ArrayList<>();
        final List<String> after = new ArrayList<>();
        for (int r = 0; r < size; r++)
        {
            for (final double v : meanInput(r))
            {
                sum += v;
                count++;
            }
            before.add(VectorFormat.format(inputs[r], Style.INTEGER) + "  local (sum, count) = (" +
                number(locals[r][0]) + ", " + number(locals[r][1]) + ")");
            after.add("mean " + number(means[r][0]));
        }
        final double expected = sum / count;
        boolean right = true;
        for (final double[] m : means)
        {
            right &= m[0] == expected;
        }
        report.println("");
        report.table("distributed mean: allreduce (sum) of every rank's (local sum, local count), then divide",
            before, after);
        report.expect(right, "the means differ from " + number(expected));
        report.println("  allreduce gives (sum, count) = (" + number(sum) + ", " + count + ") on every rank; " +
            number(sum) + " / " + count + " = " + number(expected) + " " + report.mark(right));
    }

    /**
     * The largest value and where it lives: each rank's local maximum and its global index, reduced by MAXLOC
     * ({@link LocCollectives}), which keeps the largest value and, among the ranks holding it, the smallest index.
     */
    private void argmax()
    {
        final double[] values = argmaxInput(rank);
        int localIndex = 0;
        for (int i = 1; i < values.length; i++)
        {
            if (values[i] > values[localIndex])
            {
                localIndex = i;
            }
        }
        final double[] value = {values[localIndex]};
        final int[] index = {rank * values.length + localIndex};
        LocCollectives.of(comm).allreduce(Buf.of(value), Buf.of(index), LocOp.MAXLOC);
        final double[] answer = {value[0], index[0] / values.length, index[0] % values.length};

        final double[][] inputs = report.gather(values);
        final double[][] answers = report.gather(answer);
        if (!report.isRoot())
        {
            return;
        }
        double bestValue = Double.NEGATIVE_INFINITY;
        double[] expected = null;
        final List<String> before = new ArrayList<>();
        final List<String> after = new ArrayList<>();
        final StringBuilder pairs = new StringBuilder();
        for (int r = 0; r < size; r++)
        {
            final double[] v = argmaxInput(r);
            int best = 0;
            for (int i = 0; i < v.length; i++)
            {
                if (v[i] > bestValue)
                {
                    bestValue = v[i];
                    expected = new double[] {v[i], r, i};
                }
                if (v[i] > v[best])
                {
                    best = i;
                }
            }
            pairs.append(r == 0 ? "" : ", ").append('(').append(number(v[best])).append(", ")
                .append(r * v.length + best).append(')');
            before.add(VectorFormat.format(inputs[r], Style.INTEGER) + "  local max " + number(v[best]) +
                " at index " + best);
            after.add("max " + number(answers[r][0]) + " on rank " + number(answers[r][1]) + ", index " +
                number(answers[r][2]));
        }
        final double[][] expectedAll = new double[size][];
        Arrays.fill(expectedAll, expected);
        report.println("");
        report.table("distributed argmax: allreduce (MAXLOC) of each rank's (local max, global index)", before,
            after);
        final boolean right = report.expect("argmax", answers, expectedAll);
        report.println("  MAXLOC of [" + pairs + "] = (" + number(expected[0]) + ", " +
            number(expected[1] * argmaxInput(0).length + expected[2]) + "): the largest value at its smallest " +
            "global index (rank " + number(expected[1]) + ", index " + number(expected[2]) + ") " + report.mark(right));
    }

    /** Softmax over a vector split across ranks: allreduce (max), local exp(x - max), allreduce (sum), divide. */
    private void softmax()
    {
        final double[] logits = softmaxInput(rank);
        // step 1: the global maximum, so that exp never overflows
        final double[] max = {Arrays.stream(logits).max().orElseThrow()};
        comm.allreduce(Buf.of(max), ReduceOp.MAX);
        // step 2: local exponentials, shifted by the global maximum
        final double[] probabilities = new double[logits.length];
        final double[] sum = {0};
        for (int i = 0; i < logits.length; i++)
        {
            probabilities[i] = Math.exp(logits[i] - max[0]);
            sum[0] += probabilities[i];
        }
        // step 3: the global sum of the exponentials
        comm.allreduce(Buf.of(sum), ReduceOp.SUM);
        // step 4: divide
        for (int i = 0; i < probabilities.length; i++)
        {
            probabilities[i] /= sum[0];
        }

        final double[][] inputs = report.gather(logits);
        final double[][] outputs = report.gather(probabilities);
        if (!report.isRoot())
        {
            return;
        }
        // reference: softmax of all logits on one rank
        double globalMax = Double.NEGATIVE_INFINITY;
        for (int r = 0; r < size; r++)
        {
            globalMax = Math.max(globalMax, Arrays.stream(softmaxInput(r)).max().orElseThrow());
        }
        double z = 0;
        for (int r = 0; r < size; r++)
        {
            for (final double x : softmaxInput(r))
            {
                z += Math.exp(x - globalMax);
            }
        }
        double total = 0;
        boolean matches = true;
        for (int r = 0; r < size; r++)
        {
            final double[] x = softmaxInput(r);
            for (int i = 0; i < x.length; i++)
            {
                total += outputs[r][i];
                matches &= Math.abs(outputs[r][i] - Math.exp(x[i] - globalMax) / z) <= 1e-12;
            }
        }
        report.println("");
        report.table("distributed softmax: allreduce (max), local exp(x - max), allreduce (sum), divide",
            cells(inputs, Style.EXACT), cells(outputs, Style.FIXED4));
        final boolean sumsToOne = report.expect(Math.abs(total - 1) <= 1e-12, "the probabilities sum to " + total);
        report.expect(matches, "the probabilities differ from a softmax computed on one rank");
        report.println("  max = " + number(globalMax) + ", sum of exp(x - max) = " +
            String.format(Locale.ROOT, "%.4f", z) + "; sum of all probabilities: " +
            String.format(Locale.ROOT, "%.6f", total) + " " + report.mark(sumsToOne && matches));
    }

    /** Ring allreduce from sendRecv alone: reduce-scatter around the ring, then allgather around it. */
    private void ringAllreduce()
    {
        final int[] data = ringInput(rank);
        final int[] before = data.clone();
        final int[] incoming = new int[RING_LENGTH / size + 1];
        final int next = (rank + 1) % size;
        final int previous = (rank + size - 1) % size;

        // reduce-scatter, step k: send block (r - k) to the next rank, add block (r - k - 1) from the previous one
        for (int k = 0; k < size - 1; k++)
        {
            final int sendBlock = Math.floorMod(rank - k, size);
            final int recvBlock = Math.floorMod(rank - k - 1, size);
            final int from = blockStart(recvBlock);
            final int length = blockStart(recvBlock + 1) - from;
            comm.sendRecv(block(data, sendBlock), next, RING_TAG, Buf.of(incoming, 0, length), previous, RING_TAG);
            for (int i = 0; i < length; i++)
            {
                data[from + i] += incoming[i];
            }
        }
        // now block (r + 1) holds the full sum; allgather, step k: pass on block (r + 1 - k), receive block (r - k)
        for (int k = 0; k < size - 1; k++)
        {
            final int sendBlock = Math.floorMod(rank + 1 - k, size);
            final int recvBlock = Math.floorMod(rank - k, size);
            comm.sendRecv(block(data, sendBlock), next, RING_TAG, block(data, recvBlock), previous, RING_TAG);
        }

        final int[] library = new int[RING_LENGTH];
        comm.allreduce(Buf.of(before), Buf.of(library), ReduceOp.SUM);
        final double same = Arrays.equals(data, library) ? 1 : 0;

        final double[][] befores = report.gather(CollectiveTour.doubles(before));
        final double[][] afters = report.gather(CollectiveTour.doubles(data));
        final double[][] agreements = report.gather(new double[] {same});
        if (!report.isRoot())
        {
            return;
        }
        final double[] expected = new double[RING_LENGTH];
        for (int r = 0; r < size; r++)
        {
            final int[] v = ringInput(r);
            for (int i = 0; i < RING_LENGTH; i++)
            {
                expected[i] += v[i];
            }
        }
        final double[][] expectedAll = new double[size][];
        Arrays.fill(expectedAll, expected);
        int agreeing = 0;
        for (final double[] a : agreements)
        {
            agreeing += (int)a[0];
        }
        report.println("");
        report.table("ring allreduce with sendRecv only: " + (size - 1) + " reduce-scatter steps (pass a block on, " +
            "add the one received), " + (size - 1) + " allgather steps", cells(befores, Style.INTEGER),
            cells(afters, Style.INTEGER));
        final boolean right = report.expect("ring allreduce", afters, expectedAll);
        final boolean agree = report.expect(agreeing == size, "comm.allreduce gave a different result on " +
            (size - agreeing) + " ranks");
        final int shortest = RING_LENGTH / size;
        final int longest = (RING_LENGTH + size - 1) / size;
        report.println("  comm.allreduce gives the same vector on " + agreeing + " of " + size + " ranks " +
            report.mark(right && agree) + " (each rank sent " + 2 * (size - 1) + " messages of " + shortest +
            (longest == shortest ? "" : " or " + longest) + (longest == 1 ? " element)" : " elements)"));
    }

    /**
     * Java objects: each rank counts the words of its sentence into a map, and {@link ObjectCollectives#allreduce}
     * merges the maps with a function, in rank order, so every rank gets the counts of every sentence.
     */
    private void wordCounts()
    {
        final ObjectCollectives objects = ObjectCollectives.of(comm);
        final Map<String, Integer> mine = words(rank);
        final Map<String, Integer> merged = objects.allreduce(mine, (a, b) ->
        {
            b.forEach((word, n) -> a.merge(word, n, Integer::sum));
            return a;
        });
        final List<String> befores = objects.gather(mine.toString(), 0);
        final List<String> afters = objects.gather(merged.toString(), 0);
        if (!report.isRoot())
        {
            return;
        }
        final Map<String, Integer> expected = new TreeMap<>();
        for (int r = 0; r < size; r++)
        {
            words(r).forEach((word, n) -> expected.merge(word, n, Integer::sum));
        }
        final long right = afters.stream().filter(expected.toString()::equals).count();
        report.println("");
        report.table("Java objects: each rank's word counts (a TreeMap), merged by ObjectCollectives.allreduce " +
            "with a function", befores, afters);
        report.println("  ranks with the counts of every rank's sentence: " + right + " of " + size + " " +
            report.mark(report.expect(right == size, "the merged counts differ on " + (size - right) + " ranks")));
    }

    /** The words of rank {@code r}'s sentence, counted. */
    private static Map<String, Integer> words(final int r)
    {
        final String[] sentences = {"to be or not to be", "be quick", "not so quick", "or so"};
        final Map<String, Integer> counts = new TreeMap<>();
        for (final String word : sentences[r % sentences.length].split(" "))
        {
            counts.merge(word, 1, Integer::sum);
        }
        return counts;
    }

    /** allreduce = reduce + broadcast = reduce_scatter + allgather: the same sum, different traffic; timed. */
    private void allreduceThreeWays()
    {
        final int n = TIMED_BYTES / Float.BYTES;
        final float[] data = new float[n];
        for (int i = 0; i < n; i++)
        {
            data[i] = (i & 7) + rank;
        }
        final float[] result = new float[n];
        final float[] first = new float[n];
        final int[] counts = new int[size];
        for (int r = 0; r < size; r++)
        {
            counts[r] = n / size + (r < n % size ? 1 : 0);
        }
        // blocks of equal size when the ranks divide the vector, else the vector forms with per-rank counts
        final boolean even = n % size == 0;
        final float[] shard = new float[counts[rank]];
        final Buf dataBuf = Buf.of(data);
        final Buf resultBuf = Buf.of(result);
        final Buf shardBuf = Buf.of(shard);

        // per rank: the time of every timed run of every way, then for every way 1 when its result is right; the
        // ways take turns in every round, so that what the machine does meanwhile falls on all three alike
        final double[] local = new double[WAYS.length * TIMED_RUNS + WAYS.length];
        for (int run = 0; run < WARM_UP_RUNS + TIMED_RUNS; run++)
        {
            for (int way = 0; way < WAYS.length; way++)
            {
                Arrays.fill(result, Float.NaN);
                comm.barrier();
                final long start = System.nanoTime();
                switch (way)
                {
                    case 0 -> comm.allreduce(dataBuf, resultBuf, ReduceOp.SUM);
                    case 1 ->
                    {
                        comm.reduce(dataBuf, resultBuf, ReduceOp.SUM, 0);
                        comm.broadcast(resultBuf, 0);
                    }
                    default ->
                    {
                        if (even)
                        {
                            comm.reduceScatter(dataBuf, shardBuf, ReduceOp.SUM);
                            comm.allgather(shardBuf, resultBuf);
                        }
                        else
                        {
                            comm.reduceScatterv(dataBuf, shardBuf, counts, ReduceOp.SUM);
                            comm.allgatherv(shardBuf, resultBuf, counts, null);
                        }
                    }
                }
                final long elapsed = System.nanoTime() - start;
                if (run >= WARM_UP_RUNS)
                {
                    local[way * TIMED_RUNS + run - WARM_UP_RUNS] = elapsed;
                }
                if (run == WARM_UP_RUNS + TIMED_RUNS - 1)
                {
                    if (way == 0)
                    {
                        System.arraycopy(result, 0, first, 0, n);
                    }
                    local[WAYS.length * TIMED_RUNS + way] = isExactSum(result) && Arrays.equals(result, first) ? 1 : 0;
                }
            }
        }

        final double[][] all = report.gather(local);
        if (!report.isRoot())
        {
            return;
        }
        report.println("");
        report.println("allreduce three ways on 1 MiB of float32 (" + n + " elements): the same sum, " +
            "different traffic");
        report.println("  (median of " + TIMED_RUNS + " runs after " + WARM_UP_RUNS + " warm-ups; each run's time " +
            "is the slowest rank's)");
        final int cores = Runtime.getRuntime().availableProcessors();
        if (size > cores)
        {
            report.println("  (" + size + " ranks share " + cores + " cores: these times mostly measure how soon the " +
                "OS schedules a waiting rank)");
        }
        boolean right = true;
        for (int way = 0; way < WAYS.length; way++)
        {
            final double[] slowest = new double[TIMED_RUNS];
            for (final double[] rankTimes : all)
            {
                for (int run = 0; run < TIMED_RUNS; run++)
                {
                    slowest[run] = Math.max(slowest[run], rankTimes[way * TIMED_RUNS + run]);
                }
                right &= rankTimes[WAYS.length * TIMED_RUNS + way] == 1;
            }
            Arrays.sort(slowest);
            final double micros = slowest[TIMED_RUNS / 2] / 1e3;
            final String name = way == 2 && n % size != 0 ? "reduce_scatterv + allgatherv" : WAYS[way];
            report.println(String.format(Locale.ROOT, "  %-28s %8.0f %ss  %6.2f GB/s", name, micros,
                report.glyphs().micro(), TIMED_BYTES / (micros * 1e3)));
        }
        report.expect(right, "the three ways gave different results, or not the exact sum, on some rank");
        report.println("  the three results are identical on every rank and equal to the exact sum " +
            report.mark(right));
    }

    /** Whether {@code result} is the sum over ranks of (i & 7) + rank, which float32 holds exactly. */
    private boolean isExactSum(final float[] result)
    {
        final float offset = size * (size - 1) / 2f;
        for (int i = 0; i < result.length; i++)
        {
            if (result[i] != size * (i & 7) + offset)
            {
                return false;
            }
        }
        return true;
    }

    private Buf block(final int[] data, final int b)
    {
        final int from = blockStart(b);
        return Buf.of(data, from, blockStart(b + 1) - from);
    }

    /** Block b of the ring example's vector starts at b × length / size. */
    private int blockStart(final int b)
    {
        return b * RING_LENGTH / size;
    }

    /** Rank r holds r + 2 values: 10(r + 1), 10(r + 1) + 1, ... */
    private static double[] meanInput(final int r)
    {
        final double[] values = new double[r + 2];
        for (int k = 0; k < values.length; k++)
        {
            values[k] = 10 * (r + 1) + k;
        }
        return values;
    }

    /**
     * Four scrambled values per rank: (37 i + 11) mod 100 for global index i, capped at 90, so that from 4 ranks on,
     * ranks 1 and 3 both hold the maximum and MAXLOC's rule for ties (the smallest index) decides.
     */
    private static double[] argmaxInput(final int r)
    {
        final double[] values = new double[4];
        for (int k = 0; k < values.length; k++)
        {
            values[k] = Math.min(90, (37 * (4 * r + k) + 11) % 100);
        }
        return values;
    }

    /** Three logits per rank between -1 and 3.5. */
    private static double[] softmaxInput(final int r)
    {
        final double[] logits = new double[3];
        for (int k = 0; k < logits.length; k++)
        {
            logits[k] = (7 * (3 * r + k) % 10) / 2.0 - 1;
        }
        return logits;
    }

    /** (r + 1) × (i + 1): the sum over ranks is a multiple of [1, 2, ..., 8]. */
    private static int[] ringInput(final int r)
    {
        final int[] values = new int[RING_LENGTH];
        for (int i = 0; i < RING_LENGTH; i++)
        {
            values[i] = (r + 1) * (i + 1);
        }
        return values;
    }

    private static List<String> cells(final double[][] rows, final Style style)
    {
        final List<String> cells = new ArrayList<>(rows.length);
        for (final double[] row : rows)
        {
            cells.add(VectorFormat.format(row, style));
        }
        return cells;
    }

    /** A whole number as such, anything else to six significant digits. */
    static String number(final double value)
    {
        if (value == Math.rint(value) && Math.abs(value) < 1e15)
        {
            return Long.toString((long)value);
        }
        return BigDecimal.valueOf(value).round(SIX_DIGITS).stripTrailingZeros().toPlainString();
    }
}
