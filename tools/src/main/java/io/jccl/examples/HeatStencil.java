package io.jccl.examples;

import io.jccl.Buf;
import io.jccl.Communicator;
import io.jccl.Jccl;
import io.jccl.PersistentRequest;
import io.jccl.ReduceOp;

import java.util.Arrays;

/**
 * Heat diffusing through a plate, the classic MPI stencil program: a grid split into slabs of rows, one per rank,
 * each step a Jacobi update of every inner cell from its four neighbours. A rank's first and last rows need its
 * neighbours' edge rows (the halo): each step starts receives of them and sends of its own edges, updates the rows
 * that need no halo while the messages move, then {@code waitAll}s the four requests (null where a slab has no
 * neighbour) and updates its edge rows. The requests are persistent ({@code recvInit}, {@code sendInit}), set up once
 * for each of the two slabs a step reads from and writes to, and started with {@code startAll}: a step allocates
 * nothing. Every {@code --report} steps an {@code allreduce} (MAX) of the largest
 * change of a cell in that step tells how far the plate is from settling.
 * <pre>
 *   ./jccl run -n 4 -- io.jccl.examples.HeatStencil [--rows 512] [--cols 512] [--steps 500] [--report 100]
 * </pre>
 * The top edge is held at 100 degrees, the others at 0. At the end rank 0 gathers the grid ({@code gatherv}: the slabs
 * may differ by a row), runs the same steps on the whole grid alone and checks that every cell is the same, bit for
 * bit (each cell's update adds the same numbers in the same order). Exit status 1 when one differs.
 */
public final class HeatStencil
{
    private static final double HOT = 100.0;
    /** Tag of a row sent to the rank above (it is that rank's bottom halo), and of one sent to the rank below. */
    private static final int UP_TAG = 1;
    private static final int DOWN_TAG = 2;

    private HeatStencil()
    {
    }

    public static void main(final String[] args)
    {
        final ExampleArgs options = new ExampleArgs(args);
        final int rows = options.getInt("rows", 512);
        final int cols = options.getInt("cols", 512);
        final int steps = options.getInt("steps", 500);
        final int report = options.getInt("report", 100);
        final boolean ok;
        try (Communicator comm = Jccl.connect())
        {
            if (rows < Math.max(3, comm.size()) || cols < 3)
            {
                throw new IllegalArgumentException("a grid of " + rows + " x " + cols + " on " + comm.size() +
                    " ranks: it needs at least 3 columns, and at least 3 rows and a row per rank");
            }
            ok = run(comm, rows, cols, steps, report);
        }
        if (!ok)
        {
            System.exit(1);
        }
    }

    private static boolean run(final Communicator comm, final int rows, final int cols, final int steps,
        final int report)
    {
        final int me = comm.rank();
        final int size = comm.size();
        final int first = firstRow(me, size, rows);
        final int owned = firstRow(me + 1, size, rows) - first;
        final int up = me > 0 ? me - 1 : -1;
        final int down = me < size - 1 ? me + 1 : -1;
        // the slab's rows 1..owned, with a halo row above (0) and below (owned + 1), twice: a step reads one, writes
        // the other
        final double[][] slabs = {new double[(owned + 2) * cols], new double[(owned + 2) * cols]};
        if (first == 0)
        {
            Arrays.fill(slabs[0], cols, 2 * cols, HOT);
            Arrays.fill(slabs[1], cols, 2 * cols, HOT);
        }
        // each slab's halo exchange, set up once and started every step it is read
        final PersistentRequest[][] halos = {halo(comm, slabs[0], owned, cols, up, down),
            halo(comm, slabs[1], owned, cols, up, down)};
        final double[] change = new double[1];
        final long start = System.nanoTime();
        for (int step = 1; step <= steps; step++)
        {
            final double[] cur = slabs[(step - 1) & 1];
            final double[] next = slabs[step & 1];
            final PersistentRequest[] halo = halos[(step - 1) & 1];
            comm.startAll(halo);
            // the rows between the edges read no halo: update them while it arrives
            for (int r = 2; r < owned; r++)
            {
                update(cur, next, r, first + r - 1, rows, cols);
            }
            comm.waitAll(halo);
            update(cur, next, 1, first, rows, cols);
            if (owned > 1)
            {
                update(cur, next, owned, first + owned - 1, rows, cols);
            }
            if (step % report == 0 || step == steps)
            {
                change[0] = largestChange(next, cur, owned, cols);
                comm.allreduce(Buf.of(change), ReduceOp.MAX);
                if (me == 0)
                {
                    System.out.printf("step %d: largest change %.6f degrees%n", step, change[0]);
                }
            }
        }
        final double seconds = (System.nanoTime() - start) / 1e9;
        final int[] counts = new int[size];
        final int[] displs = new int[size];
        for (int r = 0; r < size; r++)
        {
            displs[r] = firstRow(r, size, rows) * cols;
            counts[r] = firstRow(r + 1, size, rows) * cols - displs[r];
        }
        final double[] grid = me == 0 ? new double[rows * cols] : null;
        comm.gatherv(Buf.of(slabs[steps & 1], cols, owned * cols), me == 0 ? Buf.of(grid) : null, counts, displs, 0);
        if (me != 0)
        {
            return true;
        }
        final int wrong = differences(grid, alone(rows, cols, steps));
        System.out.printf("heat stencil on %d ranks: %d x %d cells, %d steps in %.3f s (%.1f us a step); %s%n", size,
            rows, cols, steps, seconds, seconds * 1e6 / steps, wrong == 0 ?
            "every cell matches the grid computed on one rank" : wrong + " cells WRONG");
        return wrong == 0;
    }

    /**
     * The halo exchange of {@code slab}: receives of the rows above and below it from the neighbours ({@code up} and
     * {@code down}, -1 where there is none), sends of its first and last rows to them; null where a neighbour is
     * missing, which {@code startAll} and {@code waitAll} skip.
     */
    private static PersistentRequest[] halo(final Communicator comm, final double[] slab, final int owned,
        final int cols, final int up, final int down)
    {
        final PersistentRequest[] halo = new PersistentRequest[4];
        if (up >= 0)
        {
            halo[0] = comm.recvInit(row(slab, 0, cols), up, DOWN_TAG);
            halo[1] = comm.sendInit(row(slab, 1, cols), up, UP_TAG);
        }
        if (down >= 0)
        {
            halo[2] = comm.recvInit(row(slab, owned + 1, cols), down, UP_TAG);
            halo[3] = comm.sendInit(row(slab, owned, cols), down, DOWN_TAG);
        }
        return halo;
    }

    /** The first grid row of {@code rank}'s slab: the rows split as evenly as they go, the first slabs a row longer. */
    private static int firstRow(final int rank, final int size, final int rows)
    {
        return rank * (rows / size) + Math.min(rank, rows % size);
    }

    private static Buf row(final double[] slab, final int row, final int cols)
    {
        return Buf.of(slab, row * cols, cols);
    }

    /**
     * Updates row {@code r} of {@code cur} into {@code next}, unless it is the grid's top or bottom row
     * ({@code gridRow}), whose cells stay as they are, as the first and last of every row do.
     */
    private static void update(final double[] cur, final double[] next, final int r, final int gridRow,
        final int rows, final int cols)
    {
        if (gridRow == 0 || gridRow == rows - 1)
        {
            return;
        }
        final int at = r * cols;
        for (int c = at + 1; c < at + cols - 1; c++)
        {
            next[c] = 0.25 * (cur[c - cols] + cur[c + cols] + cur[c - 1] + cur[c + 1]);
        }
    }

    /**
     * The largest change of a cell of the slab's rows in the step that made {@code now} from {@code before}: measured
     * on report steps only, so that the other steps' loops do nothing but the update.
     */
    private static double largestChange(final double[] now, final double[] before, final int owned, final int cols)
    {
        double largest = 0;
        for (int c = cols; c < (owned + 1) * cols; c++)
        {
            largest = Math.max(largest, Math.abs(now[c] - before[c]));
        }
        return largest;
    }

    /** The same steps on the whole grid in one process: the reference. */
    private static double[] alone(final int rows, final int cols, final int steps)
    {
        double[] cur = new double[rows * cols];
        double[] next = new double[rows * cols];
        Arrays.fill(cur, 0, cols, HOT);
        Arrays.fill(next, 0, cols, HOT);
        for (int step = 0; step < steps; step++)
        {
            for (int r = 1; r < rows - 1; r++)
            {
                update(cur, next, r, r, rows, cols);
            }
            final double[] swap = cur;
            cur = next;
            next = swap;
        }
        return cur;
    }

    private static int differences(final double[] grid, final double[] reference)
    {
        int wrong = 0;
        for (int i = 0; i < grid.length; i++)
        {
            wrong += Double.compare(grid[i], reference[i]) == 0 ? 0 : 1;
        }
        return wrong;
    }
}
