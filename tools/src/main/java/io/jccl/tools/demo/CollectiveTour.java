package io.jccl.tools.demo;

import io.jccl.Buf;
import io.jccl.Communicator;
import io.jccl.DataType;
import io.jccl.ReduceOp;
import io.jccl.tools.demo.VectorFormat.Style;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;

/**
 * Part 1 of the demo: every collective once on small integer vectors, each rank's buffer before and after, and
 * each result checked against the reference rank 0 computes from the same formulas.
 */
final class CollectiveTour
{
    private static final int ROOT = 0;
    private static final long BARRIER_STAGGER_MS = 20;

    private final Communicator comm;
    private final Report report;
    private final int rank;
    private final int size;

    CollectiveTour(final Communicator comm, final Report report)
    {
        this.comm = comm;
        this.report = report;
        this.rank = comm.rank();
        this.size = comm.size();
    }

    void run() throws InterruptedException
    {
        report.section("1. The collectives: each rank's buffer before and after");
        barrier();
        broadcast();
        reduce();
        allreduce();
        gather();
        scatter();
        allgather();
        reduceScatter();
        alltoall();
        allgatherv();
        gatherv();
        scatterv();
        alltoallv();
        scan(false);
        scan(true);
        allreduceFloat16();
    }

    /** Ranks arrive staggered; nobody leaves before the last one has arrived. */
    private void barrier() throws InterruptedException
    {
        comm.barrier();
        TimeUnit.MILLISECONDS.sleep(BARRIER_STAGGER_MS * rank);
        final long arrived = System.nanoTime();
        comm.barrier();
        final long left = System.nanoTime();

        final double[][] times = report.gather(new double[] {arrived, left});
        if (!report.isRoot())
        {
            return;
        }
        double firstArrival = Double.MAX_VALUE;
        double lastArrival = 0;
        double firstDeparture = Double.MAX_VALUE;
        for (final double[] t : times)
        {
            firstArrival = Math.min(firstArrival, t[0]);
            lastArrival = Math.max(lastArrival, t[0]);
            firstDeparture = Math.min(firstDeparture, t[1]);
        }
        final List<String> before = new ArrayList<>();
        final List<String> after = new ArrayList<>();
        for (final double[] t : times)
        {
            before.add("arrives at " + millis(t[0] - firstArrival));
            after.add("leaves at " + millis(t[1] - firstArrival));
        }
        report.println("");
        report.table("barrier: rank r arrives after sleeping r x " + BARRIER_STAGGER_MS +
            " ms; no rank leaves before the last one arrives", before, after);
        final boolean right = report.expect(firstDeparture >= lastArrival,
            "a rank left the barrier before the last rank arrived");
        report.println("  last arrival " + millis(lastArrival - firstArrival) + ", first departure " +
            millis(firstDeparture - firstArrival) + " " + report.mark(right));
    }

    /** Rank 0's buffer copied to every rank. */
    private void broadcast()
    {
        final int[] buf = rank == ROOT ? new int[] {1, 2, 3} : new int[3];
        final double[] before = doubles(buf);
        comm.broadcast(Buf.of(buf), ROOT);

        final double[][] befores = report.gather(before);
        final double[][] afters = report.gather(doubles(buf));
        if (!report.isRoot())
        {
            return;
        }
        final double[][] expected = new double[size][];
        Arrays.fill(expected, new double[] {1, 2, 3});
        report.println("");
        report.table("broadcast (root 0): rank 0's buffer is copied to every rank",
            cells(befores, Style.INTEGER, "  <- root", null), cells(afters, Style.INTEGER, null, null));
        report.expect("broadcast", afters, expected);
    }

    /** Element-wise sum into rank 0's receive buffer; the send buffers stay as they were. */
    private void reduce()
    {
        final int[] send = seedVector(rank);
        final double[] before = doubles(send);
        final int[] recv = rank == ROOT ? new int[send.length] : null;
        comm.reduce(Buf.of(send), recv == null ? null : Buf.of(recv), ReduceOp.SUM, ROOT);

        final double[][] befores = report.gather(before);
        final double[][] afters = report.gather(doubles(rank == ROOT ? recv : send));
        if (!report.isRoot())
        {
            return;
        }
        final double[][] expected = new double[size][];
        for (int r = 0; r < size; r++)
        {
            expected[r] = r == ROOT ? seedSum() : doubles(seedVector(r));
        }
        report.println("");
        report.table("reduce (sum to root 0): rank 0 gets the element-wise sum; the others keep their buffers",
            cells(befores, Style.INTEGER, null, null), cells(afters, Style.INTEGER, "  <- sum", "  (unchanged)"));
        report.expect("reduce", afters, expected);
    }

    /** Element-wise sum on every rank, in place. */
    private void allreduce()
    {
        final int[] buf = seedVector(rank);
        final double[] before = doubles(buf);
        comm.allreduce(Buf.of(buf), ReduceOp.SUM);

        final double[][] befores = report.gather(before);
        final double[][] afters = report.gather(doubles(buf));
        if (!report.isRoot())
        {
            return;
        }
        final double[][] expected = new double[size][];
        Arrays.fill(expected, seedSum());
        report.println("");
        report.table("allreduce (sum): every rank gets the element-wise sum",
            cells(befores, Style.INTEGER, null, null), cells(afters, Style.INTEGER, null, null));
        report.expect("allreduce", afters, expected);
    }

    /**
     * Running sums, in place: rank r gets the element-wise sum over ranks 0..r (scan), or over ranks 0..r-1 (exscan,
     * where rank 0 has none and keeps its buffer).
     */
    private void scan(final boolean exclusive)
    {
        final int[] buf = seedVector(rank);
        final double[] before = doubles(buf);
        if (exclusive)
        {
            comm.exscan(Buf.of(buf), ReduceOp.SUM);
        }
        else
        {
            comm.scan(Buf.of(buf), ReduceOp.SUM);
        }

        final double[][] befores = report.gather(before);
        final double[][] afters = report.gather(doubles(buf));
        if (!report.isRoot())
        {
            return;
        }
        final double[][] expected = new double[size][];
        for (int r = 0; r < size; r++)
        {
            expected[r] = exclusive && r == 0 ? doubles(seedVector(0)) : seedSum(exclusive ? r : r + 1);
        }
        report.println("");
        report.table(exclusive ?
            "exscan (sum): rank r gets the element-wise sum over ranks 0..r-1; rank 0 keeps its buffer" :
            "scan (sum): rank r gets the element-wise sum over ranks 0..r",
            cells(befores, Style.INTEGER, null, null),
            cells(afters, Style.INTEGER, exclusive ? "  (unchanged)" : null, null));
        report.expect(exclusive ? "exscan" : "scan", afters, expected);
    }

    /** Every rank's two elements concatenated, in rank order, at rank 0. */
    private void gather()
    {
        final int[] send = pair(rank);
        final int[] recv = rank == ROOT ? new int[2 * size] : null;
        comm.gather(Buf.of(send), recv == null ? null : Buf.of(recv), ROOT);

        final double[][] befores = report.gather(doubles(pair(rank)));
        final double[][] afters = report.gather(doubles(rank == ROOT ? recv : send));
        if (!report.isRoot())
        {
            return;
        }
        final double[][] expected = new double[size][];
        for (int r = 0; r < size; r++)
        {
            expected[r] = r == ROOT ? doubles(oneTo(2 * size)) : doubles(pair(r));
        }
        report.println("");
        report.table("gather (to root 0): rank 0 gets every rank's buffer, in rank order",
            cells(befores, Style.INTEGER, null, null), cells(afters, Style.INTEGER, null, "  (unchanged)"));
        report.expect("gather", afters, expected);
    }

    /** Block r of rank 0's buffer to rank r. */
    private void scatter()
    {
        final int[] send = rank == ROOT ? oneTo(2 * size) : null;
        final int[] recv = new int[2];
        final double[] before = doubles(rank == ROOT ? send : recv);
        comm.scatter(send == null ? null : Buf.of(send), Buf.of(recv), ROOT);

        final double[][] befores = report.gather(before);
        final double[][] afters = report.gather(doubles(recv));
        if (!report.isRoot())
        {
            return;
        }
        final double[][] expected = new double[size][];
        for (int r = 0; r < size; r++)
        {
            expected[r] = doubles(pair(r));
        }
        report.println("");
        report.table("scatter (from root 0): block r of rank 0's buffer goes to rank r",
            cells(befores, Style.INTEGER, "  <- root", null), cells(afters, Style.INTEGER, null, null));
        report.expect("scatter", afters, expected);
    }

    /** Every rank's two elements concatenated, in rank order, on every rank. */
    private void allgather()
    {
        final int[] send = pair(rank);
        final int[] recv = new int[2 * size];
        comm.allgather(Buf.of(send), Buf.of(recv));

        final double[][] befores = report.gather(doubles(send));
        final double[][] afters = report.gather(doubles(recv));
        if (!report.isRoot())
        {
            return;
        }
        final double[][] expected = new double[size][];
        Arrays.fill(expected, doubles(oneTo(2 * size)));
        report.println("");
        report.table("allgather: every rank gets every rank's buffer, in rank order",
            cells(befores, Style.INTEGER, null, null), cells(afters, Style.INTEGER, null, null));
        report.expect("allgather", afters, expected);
    }

    /** The element-wise sum of size blocks of two; rank r keeps block r. */
    private void reduceScatter()
    {
        final int[] send = reduceScatterInput(rank);
        final int[] recv = new int[2];
        comm.reduceScatter(Buf.of(send), Buf.of(recv), ReduceOp.SUM);

        final double[][] befores = report.gather(doubles(send));
        final double[][] afters = report.gather(doubles(recv));
        if (!report.isRoot())
        {
            return;
        }
        final double[] sum = new double[2 * size];
        for (int r = 0; r < size; r++)
        {
            final int[] input = reduceScatterInput(r);
            for (int i = 0; i < sum.length; i++)
            {
                sum[i] += input[i];
            }
        }
        final double[][] expected = new double[size][];
        final int[] blocks = new int[size];
        for (int r = 0; r < size; r++)
        {
            expected[r] = Arrays.copyOfRange(sum, 2 * r, 2 * r + 2);
            blocks[r] = 2;
        }
        report.println("");
        report.table("reduce_scatter (sum): the element-wise sum, cut in blocks of 2; rank r gets block r",
            blockCells(befores, rowsOf(blocks), Style.INTEGER), cells(afters, Style.INTEGER, null, null));
        report.expect("reduce_scatter", afters, expected);
    }

    /** Block j of rank i lands in block i of rank j: a transpose. Labels: B3 is rank 1's block for rank 3. */
    private void alltoall()
    {
        final int[] send = new int[size];
        for (int j = 0; j < size; j++)
        {
            send[j] = VectorFormat.label(rank, j);
        }
        final int[] recv = new int[size];
        comm.alltoall(Buf.of(send), Buf.of(recv));

        final double[][] befores = report.gather(doubles(send));
        final double[][] afters = report.gather(doubles(recv));
        if (!report.isRoot())
        {
            return;
        }
        final double[][] expected = new double[size][size];
        for (int r = 0; r < size; r++)
        {
            for (int i = 0; i < size; i++)
            {
                expected[r][i] = VectorFormat.label(i, r);
            }
        }
        report.println("");
        report.table("alltoall: block j of rank i goes to rank j, into block i (B3 = rank 1's block for rank 3)",
            cells(befores, Style.LABEL, null, null), cells(afters, Style.LABEL, null, null));
        report.expect("alltoall", afters, expected);
    }

    /** Uneven contributions: rank r gives r % 3 + 1 elements, 10(r + 1), 10(r + 1) + 1, ... */
    private void allgatherv()
    {
        final int[] counts = allgathervCounts();
        final int[] send = allgathervInput(rank);
        final int[] recv = new int[total(counts)];
        comm.allgatherv(Buf.of(send), Buf.of(recv), counts, null);

        final double[][] befores = report.gather(doubles(send));
        final double[][] afters = report.gather(doubles(recv));
        if (!report.isRoot())
        {
            return;
        }
        final double[][] expected = new double[size][];
        Arrays.fill(expected, doubles(allgathervOutput(counts)));
        final List<String> after = new ArrayList<>();
        for (final double[] row : afters)
        {
            after.add(VectorFormat.format(row, counts, Style.INTEGER));
        }
        report.println("");
        report.table("allgatherv: rank r contributes r % 3 + 1 elements; every rank gets all of them, in rank order",
            cells(befores, Style.INTEGER, null, null), after);
        report.println("  counts " + Arrays.toString(counts));
        report.expect("allgatherv", afters, expected);
    }

    /** allgatherv's uneven blocks to rank 0 alone. */
    private void gatherv()
    {
        final int[] counts = allgathervCounts();
        final int[] send = allgathervInput(rank);
        final int[] recv = rank == ROOT ? new int[total(counts)] : null;
        comm.gatherv(Buf.of(send), recv == null ? null : Buf.of(recv), counts, null, ROOT);

        final double[][] befores = report.gather(doubles(send));
        final double[][] afters = report.gather(doubles(rank == ROOT ? recv : send));
        if (!report.isRoot())
        {
            return;
        }
        final double[][] expected = new double[size][];
        for (int r = 0; r < size; r++)
        {
            expected[r] = doubles(r == ROOT ? allgathervOutput(counts) : allgathervInput(r));
        }
        final List<String> after = cells(afters, Style.INTEGER, null, "  (unchanged)");
        after.set(ROOT, VectorFormat.format(afters[ROOT], counts, Style.INTEGER));
        report.println("");
        report.table("gatherv (to root 0): rank r sends r % 3 + 1 elements; rank 0 gets them all, in rank order",
            cells(befores, Style.INTEGER, null, null), after);
        report.expect("gatherv", afters, expected);
    }

    /** Rank 0's buffer cut in allgatherv's uneven blocks, block r to rank r. */
    private void scatterv()
    {
        final int[] counts = allgathervCounts();
        final int[] send = rank == ROOT ? allgathervOutput(counts) : null;
        final int[] recv = new int[counts[rank]];
        final double[] before = doubles(rank == ROOT ? send : recv);
        comm.scatterv(send == null ? null : Buf.of(send), Buf.of(recv), counts, null, ROOT);

        final double[][] befores = report.gather(before);
        final double[][] afters = report.gather(doubles(recv));
        if (!report.isRoot())
        {
            return;
        }
        final double[][] expected = new double[size][];
        for (int r = 0; r < size; r++)
        {
            expected[r] = doubles(allgathervInput(r));
        }
        final List<String> beforeCells = cells(befores, Style.INTEGER, "  <- root", null);
        beforeCells.set(ROOT, VectorFormat.format(befores[ROOT], counts, Style.INTEGER) + "  <- root");
        report.println("");
        report.table("scatterv (from root 0): block r of rank 0's buffer, r % 3 + 1 elements, goes to rank r",
            beforeCells, cells(afters, Style.INTEGER, null, null));
        report.expect("scatterv", afters, expected);
    }

    private int[] allgathervCounts()
    {
        final int[] counts = new int[size];
        for (int r = 0; r < size; r++)
        {
            counts[r] = allgathervCount(r);
        }
        return counts;
    }

    /** Every rank's allgatherv input, in rank order. */
    private int[] allgathervOutput(final int[] counts)
    {
        final int[] all = new int[total(counts)];
        int at = 0;
        for (int r = 0; r < size; r++)
        {
            for (final int v : allgathervInput(r))
            {
                all[at++] = v;
            }
        }
        return all;
    }

    private static int total(final int[] counts)
    {
        return Arrays.stream(counts).sum();
    }

    /** Uneven exchange: rank i sends 1 + (2i + j) % 3 copies of label(i, j) to rank j. */
    private void alltoallv()
    {
        final int[] sendCounts = new int[size];
        final int[] recvCounts = new int[size];
        for (int j = 0; j < size; j++)
        {
            sendCounts[j] = alltoallvCount(rank, j);
            recvCounts[j] = alltoallvCount(j, rank);
        }
        final int[] send = alltoallvInput(rank);
        final int[] recv = new int[Arrays.stream(recvCounts).sum()];
        comm.alltoallv(Buf.of(send), sendCounts, null, Buf.of(recv), recvCounts, null);

        final double[][] befores = report.gather(doubles(send));
        final double[][] afters = report.gather(doubles(recv));
        if (!report.isRoot())
        {
            return;
        }
        final int[][] sendCountsOf = new int[size][size];
        final int[][] recvCountsOf = new int[size][size];
        final double[][] expected = new double[size][];
        for (int r = 0; r < size; r++)
        {
            final List<Integer> values = new ArrayList<>();
            for (int j = 0; j < size; j++)
            {
                sendCountsOf[r][j] = alltoallvCount(r, j);
                recvCountsOf[r][j] = alltoallvCount(j, r);
                for (int k = 0; k < recvCountsOf[r][j]; k++)
                {
                    values.add(VectorFormat.label(j, r));
                }
            }
            expected[r] = values.stream().mapToDouble(Integer::doubleValue).toArray();
        }
        report.println("");
        report.table("alltoallv: rank i sends 1 + (2i + j) % 3 elements to rank j (labels as in alltoall)",
            blockCells(befores, sendCountsOf, Style.LABEL), blockCells(afters, recvCountsOf, Style.LABEL));
        report.println("  send counts, rank 0 to " + (size - 1) + ":    " + countsByRank(sendCountsOf));
        report.println("  receive counts, rank 0 to " + (size - 1) + ": " + countsByRank(recvCountsOf));
        report.expect("alltoallv", afters, expected);
    }

    /** A 16-bit floating point allreduce: values exact in float16, summed in float32, rounded once. */
    private void allreduceFloat16()
    {
        final short[] buf = new short[3];
        final float[] values = float16Input(rank);
        for (int i = 0; i < buf.length; i++)
        {
            buf[i] = Float.floatToFloat16(values[i]);
        }
        final double[] before = float16Doubles(buf);
        comm.allreduce(Buf.of(buf, DataType.FLOAT16), ReduceOp.SUM);

        final double[][] befores = report.gather(before);
        final double[][] afters = report.gather(float16Doubles(buf));
        if (!report.isRoot())
        {
            return;
        }
        final double[] sum = new double[buf.length];
        for (int r = 0; r < size; r++)
        {
            final float[] input = float16Input(r);
            for (int i = 0; i < sum.length; i++)
            {
                sum[i] += input[i];
            }
        }
        final double[][] expected = new double[size][];
        Arrays.fill(expected, sum);
        report.println("");
        report.table("allreduce (sum) in float16: 16-bit values, added in float32, rounded once to float16",
            cells(befores, Style.EXACT, null, null), cells(afters, Style.EXACT, null, null));
        report.expect("float16 allreduce", afters, expected);
    }

    /** [3r + 1, 3r + 2, 3r + 3]: the seeds' reduce and allreduce inputs. */
    static int[] seedVector(final int r)
    {
        return new int[] {3 * r + 1, 3 * r + 2, 3 * r + 3};
    }

    /** [2r + 1, 2r + 2]: rank r's block for gather, scatter and allgather. */
    static int[] pair(final int r)
    {
        return new int[] {2 * r + 1, 2 * r + 2};
    }

    /** 2 × size consecutive numbers from 2 × size × r + 1: rank r's reduce_scatter input. */
    private int[] reduceScatterInput(final int r)
    {
        final int[] send = new int[2 * size];
        for (int i = 0; i < send.length; i++)
        {
            send[i] = r * send.length + i + 1;
        }
        return send;
    }

    private double[] seedSum()
    {
        return seedSum(size);
    }

    /** The element-wise sum of the seed vectors of ranks 0 to {@code ranks} - 1. */
    private static double[] seedSum(final int ranks)
    {
        final double[] sum = new double[3];
        for (int r = 0; r < ranks; r++)
        {
            final int[] v = seedVector(r);
            for (int i = 0; i < sum.length; i++)
            {
                sum[i] += v[i];
            }
        }
        return sum;
    }

    private static int allgathervCount(final int r)
    {
        return r % 3 + 1;
    }

    private static int[] allgathervInput(final int r)
    {
        final int[] values = new int[allgathervCount(r)];
        for (int k = 0; k < values.length; k++)
        {
            values[k] = 10 * (r + 1) + k;
        }
        return values;
    }

    private static int alltoallvCount(final int from, final int to)
    {
        return 1 + (2 * from + to) % 3;
    }

    private int[] alltoallvInput(final int r)
    {
        int total = 0;
        for (int j = 0; j < size; j++)
        {
            total += alltoallvCount(r, j);
        }
        final int[] send = new int[total];
        int at = 0;
        for (int j = 0; j < size; j++)
        {
            for (int k = 0; k < alltoallvCount(r, j); k++)
            {
                send[at++] = VectorFormat.label(r, j);
            }
        }
        return send;
    }

    private static float[] float16Input(final int r)
    {
        return new float[] {0.25f * (r + 1), 1.5f, -r};
    }

    private static int[] oneTo(final int n)
    {
        final int[] values = new int[n];
        for (int i = 0; i < n; i++)
        {
            values[i] = i + 1;
        }
        return values;
    }

    static double[] doubles(final int[] values)
    {
        final double[] d = new double[values.length];
        for (int i = 0; i < values.length; i++)
        {
            d[i] = values[i];
        }
        return d;
    }

    private static double[] float16Doubles(final short[] bits)
    {
        final double[] d = new double[bits.length];
        for (int i = 0; i < bits.length; i++)
        {
            d[i] = Float.float16ToFloat(bits[i]);
        }
        return d;
    }

    /** One cell per rank; {@code rootNote} and {@code otherNote} (either may be null) follow rank 0's or the rest. */
    private static List<String> cells(final double[][] rows, final Style style, final String rootNote,
        final String otherNote)
    {
        final List<String> cells = new ArrayList<>(rows.length);
        for (int r = 0; r < rows.length; r++)
        {
            final String note = r == ROOT ? rootNote : otherNote;
            cells.add(VectorFormat.format(rows[r], style) + (note == null ? "" : note));
        }
        return cells;
    }

    /** Cells split in blocks: {@code counts[r]} are the block lengths of rank r's row. */
    private static List<String> blockCells(final double[][] rows, final int[][] counts, final Style style)
    {
        final List<String> cells = new ArrayList<>(rows.length);
        for (int r = 0; r < rows.length; r++)
        {
            cells.add(VectorFormat.format(rows[r], counts[r], style));
        }
        return cells;
    }

    /** Every rank's counts in rank order: "[1, 2]  [2, 1]". */
    private static String countsByRank(final int[][] counts)
    {
        final StringBuilder sb = new StringBuilder();
        for (int r = 0; r < counts.length; r++)
        {
            sb.append(r == 0 ? "" : "  ").append(Arrays.toString(counts[r]));
        }
        return sb.toString();
    }

    private static int[][] rowsOf(final int[] row)
    {
        final int[][] rows = new int[row.length][];
        Arrays.fill(rows, row);
        return rows;
    }

    private static String millis(final double nanos)
    {
        return String.format(Locale.ROOT, "+%.0f ms", nanos / 1e6);
    }
}
