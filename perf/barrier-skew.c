/* perf/BarrierSkew.java for the MPI libraries: PASSES passes (default 1) of ROUNDS rounds of MPI_Barrier and one float
 * sum MPI_Allreduce of BYTES, every rank stamping its barrier exit and its allreduce's end with CLOCK_MONOTONIC (one
 * clock for the machine); at the end rank 0 prints, for passes 1-10, 20, 50, 100, 200, 500, ... and the last,
 * p10/p50/p90/max of the barrier's exit skew, of the call from the first exit and from the last, and the rounds over
 * 1 ms; then the call from the last exit over the second half of the passes.
 *
 *   mpicc.openmpi -O2 -o /tmp/bs_ompi perf/barrier-skew.c
 *   mpirun.openmpi --oversubscribe --allow-run-as-root -n 4 /tmp/bs_ompi 65536 1001 300
 *   (mpicc.mpich, mpirun.mpich likewise; ../shared/peers/run-peers installs both) */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double now_us(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e6 + t.tv_nsec / 1e3;
}

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static void pct(const char *name, double *v, int n)
{
    qsort(v, n, sizeof(double), cmp);
    printf("%s %.1f/%.1f/%.1f/%.0f; ", name, v[n / 10], v[n / 2], v[n * 9 / 10], v[n - 1]);
}

static int over(const double *v, long n, double limit)
{
    int k = 0;
    for (long i = 0; i < n; i++) k += v[i] > limit;
    return k;
}

/* passes 1-10, then 20, 50, 100, 200, 500, ...: the warm-up in a few lines */
static int shown(int pass)
{
    int decade = 1;
    while (pass >= 10 * decade) decade *= 10;
    return pass <= 10 || pass == decade || pass == 2 * decade || pass == 5 * decade;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, p;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &p);
    int args = argc == 3 || argc == 4;
    int bytes = args ? atoi(argv[1]) : 0, rounds = args ? atoi(argv[2]) : 0, passes = argc == 4 ? atoi(argv[3]) : 1;
    if (bytes < 4 || bytes % 4 != 0 || rounds < 10 || passes < 1)
    {
        if (rank == 0)
            fprintf(stderr, "usage: barrier-skew BYTES ROUNDS [PASSES] (BYTES a multiple of 4, ROUNDS at least 10, "
                            "PASSES at least 1)\n");
        MPI_Finalize();
        return 2;
    }
    float *buf = calloc(bytes / 4, 4), *out = calloc(bytes / 4, 4);
    for (int i = 0; i < 3000; i++) MPI_Allreduce(buf, out, bytes / 4, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
    long n = (long)passes * rounds;
    double *skew = malloc(n * sizeof(double)), *first = malloc(n * sizeof(double));
    double *last = malloc(n * sizeof(double)), *pass_us = malloc(passes * sizeof(double));
    double mine[2], *all = malloc(2 * p * sizeof(double));
    for (int pass = 0; pass < passes; pass++)
    {
        double start = now_us();
        for (long r = (long)pass * rounds; r < (long)(pass + 1) * rounds; r++)
        {
            MPI_Barrier(MPI_COMM_WORLD);
            mine[0] = now_us();
            MPI_Allreduce(buf, out, bytes / 4, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
            mine[1] = now_us();
            MPI_Allgather(mine, 2, MPI_DOUBLE, all, 2, MPI_DOUBLE, MPI_COMM_WORLD);
            double fe = 1e300, le = -1e300, lend = -1e300;
            for (int k = 0; k < p; k++)
            {
                if (all[2 * k] < fe) fe = all[2 * k];
                if (all[2 * k] > le) le = all[2 * k];
                if (all[2 * k + 1] > lend) lend = all[2 * k + 1];
            }
            skew[r] = le - fe; first[r] = lend - fe; last[r] = lend - le;
        }
        pass_us[pass] = now_us() - start;
    }
    if (rank == 0)
    {
        for (int pass = 0; pass < passes; pass++)
        {
            if (!shown(pass + 1) && pass != passes - 1) continue;
            long from = (long)pass * rounds;
            int slow = over(last + from, rounds, 1000);
            printf("pass %d, %d ranks, %d B, %.0f ms: ", pass + 1, p, bytes, pass_us[pass] / 1e3);
            pct("barrier exit skew", skew + from, rounds);   /* pct sorts the pass's rounds in place */
            pct("call from the first exit", first + from, rounds);
            pct("from the last exit", last + from, rounds);
            printf("(p10/p50/p90/max us); %d rounds over 1 ms\n", slow);
        }
        int summarised = passes / 2;
        if (summarised > 0)
        {
            /* sorted pass by pass above, the second half's rounds are all still there */
            long m = (long)summarised * rounds;
            double *late = last + (long)(passes - summarised) * rounds;
            int slow = over(late, m, 1000);
            qsort(late, m, sizeof(double), cmp);
            printf("passes %d-%d, %ld rounds: call from the last exit p50 %.1f, p99 %.1f, p99.9 %.0f, max %.0f us; "
                   "%d rounds over 1 ms\n", passes - summarised + 1, passes, m, late[m / 2], late[(long)(m * 0.99)],
                   late[(long)(m * 0.999)], late[m - 1], slow);
        }
    }
    MPI_Finalize();
    return 0;
}
