package io.jccl.tools.fit;

/**
 * Weighted linear least squares: the x minimising Σ w_i·(A_i·x − y_i)², with its covariance. With
 * {@code w_i = 1/y_i²} this minimises the sum of squared relative errors, so that a point of 8 B and one of 64 MiB
 * count alike. Solved through the normal equations with columns scaled to unit weighted norm (the coefficients of
 * α and β differ by seven orders of magnitude) and Gaussian elimination with partial pivoting; the problems are tiny.
 */
public final class WeightedLeastSquares
{
    /**
     * The estimate.
     *
     * @param x          the coefficients.
     * @param covariance their covariance, s²·(AᵀWA)⁻¹ with s² = rss / dof (NaN when dof is 0).
     * @param rss        the weighted residual sum of squares Σ w·r².
     * @param dof        degrees of freedom: rows − columns.
     */
    public record Solution(double[] x, double[][] covariance, double rss, int dof)
    {
        /** Standard error of coefficient {@code i}. */
        public double standardError(final int i)
        {
            return Math.sqrt(covariance[i][i]);
        }
    }

    private WeightedLeastSquares()
    {
    }

    /**
     * Solves for {@code a[row][column]}, {@code y[row]}, {@code w[row]}. Columns that are zero in every row get 0 and
     * an infinite variance.
     */
    public static Solution solve(final double[][] a, final double[] y, final double[] w)
    {
        final int rows = y.length;
        final int columns = a.length == 0 ? 0 : a[0].length;
        final double[] scale = new double[columns];
        for (int j = 0; j < columns; j++)
        {
            double sum = 0;
            for (int i = 0; i < rows; i++)
            {
                sum += w[i] * a[i][j] * a[i][j];
            }
            scale[j] = sum > 0 ? Math.sqrt(sum) : 0;
        }
        // normal equations of the scaled problem: (SᵀAᵀWAS)·z = SᵀAᵀWy, x = S·z
        final double[][] normal = new double[columns][columns];
        final double[] rhs = new double[columns];
        for (int i = 0; i < rows; i++)
        {
            for (int j = 0; j < columns; j++)
            {
                if (scale[j] == 0)
                {
                    continue;
                }
                final double aj = a[i][j] / scale[j];
                rhs[j] += w[i] * aj * y[i];
                for (int k = 0; k < columns; k++)
                {
                    if (scale[k] != 0)
                    {
                        normal[j][k] += w[i] * aj * a[i][k] / scale[k];
                    }
                }
            }
        }
        for (int j = 0; j < columns; j++)
        {
            if (scale[j] == 0)
            {
                normal[j][j] = 1;
            }
        }
        final double[][] inverse = invert(normal);
        final double[] x = new double[columns];
        for (int j = 0; j < columns; j++)
        {
            double z = 0;
            for (int k = 0; k < columns; k++)
            {
                z += inverse[j][k] * rhs[k];
            }
            x[j] = scale[j] == 0 ? 0 : z / scale[j];
        }
        double rss = 0;
        for (int i = 0; i < rows; i++)
        {
            double predicted = 0;
            for (int j = 0; j < columns; j++)
            {
                predicted += a[i][j] * x[j];
            }
            rss += w[i] * (predicted - y[i]) * (predicted - y[i]);
        }
        final int dof = rows - columns;
        final double s2 = dof > 0 ? rss / dof : Double.NaN;
        final double[][] covariance = new double[columns][columns];
        for (int j = 0; j < columns; j++)
        {
            for (int k = 0; k < columns; k++)
            {
                covariance[j][k] = scale[j] == 0 || scale[k] == 0 ?
                    (j == k ? Double.POSITIVE_INFINITY : 0) : s2 * inverse[j][k] / (scale[j] * scale[k]);
            }
        }
        return new Solution(x, covariance, rss, dof);
    }

    /**
     * {@link #solve} with every coefficient at least 0: while some coefficient comes out negative, the most negative
     * is fixed at 0 (its variance reported as 0) and the others are refitted. For coefficients that cannot be negative:
     * per-byte times, and times where a regime starts ({@link PiecewiseFit} fits each regime about its start, whose
     * intercept at 0 bytes may well be negative).
     */
    public static Solution solveNonNegative(final double[][] a, final double[] y, final double[] w)
    {
        final int columns = a.length == 0 ? 0 : a[0].length;
        final boolean[] fixed = new boolean[columns];
        while (true)
        {
            final double[][] reduced = new double[a.length][];
            final int[] keep = java.util.stream.IntStream.range(0, columns).filter(j -> !fixed[j]).toArray();
            for (int i = 0; i < a.length; i++)
            {
                reduced[i] = new double[keep.length];
                for (int j = 0; j < keep.length; j++)
                {
                    reduced[i][j] = a[i][keep[j]];
                }
            }
            final Solution partial = solve(reduced, y, w);
            int negative = -1;
            for (int j = 0; j < keep.length; j++)
            {
                if (partial.x()[j] < 0 && (negative < 0 || partial.x()[j] < partial.x()[negative]))
                {
                    negative = j;
                }
            }
            if (negative >= 0 && keep.length > 1)
            {
                fixed[keep[negative]] = true;
                continue;
            }
            final double[] x = new double[columns];
            final double[][] covariance = new double[columns][columns];
            for (int j = 0; j < keep.length; j++)
            {
                x[keep[j]] = Math.max(0, partial.x()[j]);
                for (int k = 0; k < keep.length; k++)
                {
                    covariance[keep[j]][keep[k]] = partial.covariance()[j][k];
                }
            }
            return new Solution(x, covariance, partial.rss(), partial.dof());
        }
    }

    /** The inverse of a small square matrix; throws when it is singular. */
    static double[][] invert(final double[][] matrix)
    {
        final int n = matrix.length;
        final double[][] m = new double[n][2 * n];
        for (int i = 0; i < n; i++)
        {
            System.arraycopy(matrix[i], 0, m[i], 0, n);
            m[i][n + i] = 1;
        }
        for (int column = 0; column < n; column++)
        {
            // step 1: the row with the largest pivot goes up
            int pivot = column;
            for (int row = column + 1; row < n; row++)
            {
                if (Math.abs(m[row][column]) > Math.abs(m[pivot][column]))
                {
                    pivot = row;
                }
            }
            if (Math.abs(m[pivot][column]) < 1e-12)
            {
                throw new IllegalArgumentException("the measurements do not determine every parameter " +
                    "(singular least-squares system)");
            }
            final double[] swap = m[column];
            m[column] = m[pivot];
            m[pivot] = swap;
            // step 2: normalise the pivot row and clear the column everywhere else
            final double p = m[column][column];
            for (int k = 0; k < 2 * n; k++)
            {
                m[column][k] /= p;
            }
            for (int row = 0; row < n; row++)
            {
                if (row != column && m[row][column] != 0)
                {
                    final double f = m[row][column];
                    for (int k = 0; k < 2 * n; k++)
                    {
                        m[row][k] -= f * m[column][k];
                    }
                }
            }
        }
        final double[][] inverse = new double[n][n];
        for (int i = 0; i < n; i++)
        {
            System.arraycopy(m[i], n, inverse[i], 0, n);
        }
        return inverse;
    }

    /**
     * Two-sided 95 % quantile of Student's t with {@code dof} degrees of freedom: exact for 1 to 4, a Cornish-Fisher
     * expansion above (within 0.3 %); NaN for dof below 1.
     */
    public static double t95(final int dof)
    {
        final double[] exact = {12.706, 4.303, 3.182, 2.776};
        if (dof < 1)
        {
            return Double.NaN;
        }
        if (dof <= exact.length)
        {
            return exact[dof - 1];
        }
        final double z = 1.959964;
        final double v = dof;
        final double z3 = z * z * z;
        final double z5 = z3 * z * z;
        final double z7 = z5 * z * z;
        return z + (z3 + z) / (4 * v) + (5 * z5 + 16 * z3 + 3 * z) / (96 * v * v) +
            (3 * z7 + 19 * z5 + 17 * z3 - 15 * z) / (384 * v * v * v);
    }
}
