package io.jccl.examples;

import io.jccl.Buf;
import io.jccl.Communicator;
import io.jccl.Jccl;

import java.util.Arrays;

/**
 * A work queue with {@link Communicator#ANY_SOURCE}: rank 0 hands the rows of a Mandelbrot image out one at a time,
 * takes each result from whichever worker finishes first ({@code recv} from any source, the sender told by
 * {@code lastSource()}) and gives that worker the next row, so that workers on cheap rows take more of them: the
 * rows' costs differ by a factor of a hundred and more, which a fixed split of the rows would leave unbalanced.
 * Workers take their orders with {@link Communicator#ANY_TAG} and tell a row from the order to stop by its tag
 * ({@code lastTag()}), as MPI's manager-worker programs do.
 * <pre>
 *   ./jccl run -n 4 -- io.jccl.examples.WorkQueue [--width 600] [--rows 400] [--iterations 2000]
 * </pre>
 * Rank 0 then computes the whole image itself and checks every pixel. Exit status 1 when one differs.
 */
public final class WorkQueue
{
    private static final int TASK_TAG = 1;
    private static final int RESULT_TAG = 2;
    private static final int STOP_TAG = 3;

    private WorkQueue()
    {
    }

    public static void main(final String[] args)
    {
        final ExampleArgs options = new ExampleArgs(args);
        final int width = options.getInt("width", 600);
        final int rows = options.getInt("rows", 400);
        final int iterations = options.getInt("iterations", 2000);
        final boolean ok;
        try (Communicator comm = Jccl.connect())
        {
            if (comm.size() < 2)
            {
                throw new IllegalArgumentException("a work queue needs a coordinator and at least one worker: run " +
                    "it on 2 ranks or more");
            }
            ok = comm.rank() == 0 ? coordinate(comm, width, rows, iterations) : work(comm, width, rows, iterations);
        }
        if (!ok)
        {
            System.exit(1);
        }
    }

    /** Rank 0: a row to every worker, then each result from any source, and the next row to the one that sent it. */
    private static boolean coordinate(final Communicator comm, final int width, final int rows, final int iterations)
    {
        final int workers = comm.size() - 1;
        final int[][] image = new int[rows][];
        final int[] rowsDone = new int[comm.size()];
        final int[] task = new int[1];
        final int[] result = new int[1 + width];
        final long start = System.nanoTime();
        int next = 0;
        for (int worker = 1; worker <= workers; worker++)
        {
            next = order(comm, worker, task, next, rows);
        }
        for (int done = 0; done < rows; done++)
        {
            comm.recv(Buf.of(result), Communicator.ANY_SOURCE, RESULT_TAG);
            final int worker = comm.lastSource();
            image[result[0]] = Arrays.copyOfRange(result, 1, result.length);
            rowsDone[worker]++;
            next = order(comm, worker, task, next, rows);
        }
        final double seconds = (System.nanoTime() - start) / 1e9;
        int wrong = 0;
        for (int row = 0; row < rows; row++)
        {
            wrong += Arrays.equals(image[row], mandelbrotRow(row, width, rows, iterations)) ? 0 : 1;
        }
        System.out.printf("work queue on %d ranks: %d rows of %d pixels in %.3f s, rows per worker %s; %s%n",
            comm.size(), rows, width, seconds, Arrays.toString(Arrays.copyOfRange(rowsDone, 1, rowsDone.length)),
            wrong == 0 ? "every row matches the image computed on one rank" : wrong + " rows WRONG");
        return wrong == 0;
    }

    /** Sends {@code worker} row {@code next}, or the order to stop when every row is out; the next row to hand out. */
    private static int order(final Communicator comm, final int worker, final int[] task, final int next,
        final int rows)
    {
        if (next == rows)
        {
            comm.send(Buf.of(task, 0, 0), worker, STOP_TAG);
            return next;
        }
        task[0] = next;
        comm.send(Buf.of(task), worker, TASK_TAG);
        return next + 1;
    }

    /** A worker: rows until rank 0 says stop, each order told apart by its tag. */
    private static boolean work(final Communicator comm, final int width, final int rows, final int iterations)
    {
        final int[] task = new int[1];
        final int[] result = new int[1 + width];
        while (true)
        {
            comm.recv(Buf.of(task), 0, Communicator.ANY_TAG);
            if (comm.lastTag() == STOP_TAG)
            {
                return true;
            }
            result[0] = task[0];
            System.arraycopy(mandelbrotRow(task[0], width, rows, iterations), 0, result, 1, width);
            comm.send(Buf.of(result), 0, RESULT_TAG);
        }
    }

    /** Iterations to escape of each pixel of {@code row}, over [-2, 1] x [-1.2, 1.2]: rows through the set cost most. */
    static int[] mandelbrotRow(final int row, final int width, final int rows, final int iterations)
    {
        final int[] counts = new int[width];
        final double ci = -1.2 + 2.4 * row / Math.max(1, rows - 1);
        for (int x = 0; x < width; x++)
        {
            final double cr = -2.0 + 3.0 * x / Math.max(1, width - 1);
            double zr = 0;
            double zi = 0;
            int n = 0;
            while (n < iterations && zr * zr + zi * zi <= 4.0)
            {
                final double t = zr * zr - zi * zi + cr;
                zi = 2 * zr * zi + ci;
                zr = t;
                n++;
            }
            counts[x] = n;
        }
        return counts;
    }
}
