/* MPI_Allreduce (or MPI_Scan, MPI_Reduce_scatter_block or MPI_Reduce_scatter) MAXLOC of MPI_FLOAT_INT and
 * MPI_DOUBLE_INT pairs, beside the same collective's MAX of the float and double values alone, for 1 to 1M pairs (a
 * reduce-scatter's: each rank's block, of size times as many sent; a reduce_scatterv's: even ranks' blocks, odd ranks'
 * half as many): the peers' side of perf/LocCosts.java, timed as
 * ../shared/peers/mpi_coll_bench.c times its collectives (iterations by the pairs' bytes at 8 a pair: 20,000 to 8 KiB,
 * 1,000 to 1 MiB, 50 beyond; a tenth as many untimed first; a barrier; the mean of the timed calls, then the median of
 * ROUNDS such rounds).
 * Build: mpicc -O2 -o /tmp/mpi-loc perf/mpi-loc.c
 * Run:   mpirun --oversubscribe --allow-run-as-root -n 2 /tmp/mpi-loc [ROUNDS [allreduce|scan|reduce_scatter|
 *        reduce_scatterv]]
 * Columns (rank 0): pairs,float_max_us,float_int_maxloc_us,double_max_us,double_int_maxloc_us */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum collective { ALLREDUCE, SCAN, REDUCE_SCATTER, REDUCE_SCATTERV };
static enum collective collective = ALLREDUCE;
static int *vcounts; /* reduce_scatterv: count for even ranks, half of it for odd ones */

typedef struct { float v; int i; } float_int;
typedef struct { double v; int i; } double_int;

static int compare(const void *a, const void *b) {
    double x = *(const double *) a, y = *(const double *) b;
    return (x > y) - (x < y);
}

static void call(void *in, void *out, int count, MPI_Datatype type, MPI_Op op) {
    switch (collective) {
    case ALLREDUCE: MPI_Allreduce(in, out, count, type, op, MPI_COMM_WORLD); break;
    case SCAN: MPI_Scan(in, out, count, type, op, MPI_COMM_WORLD); break;
    case REDUCE_SCATTER: MPI_Reduce_scatter_block(in, out, count, type, op, MPI_COMM_WORLD); break;
    case REDUCE_SCATTERV: MPI_Reduce_scatter(in, out, vcounts, type, op, MPI_COMM_WORLD); break;
    }
}

static double median_us(void *in, void *out, int count, MPI_Datatype type, MPI_Op op, int rounds) {
    long bytes = 8L * count;
    int iters = bytes <= 8192 ? 20000 : bytes <= (1 << 20) ? 1000 : 50;
    double us[64];
    for (int r = 0; r < rounds; r++) {
        for (int i = 0; i < iters / 10; i++) call(in, out, count, type, op);
        MPI_Barrier(MPI_COMM_WORLD);
        double t0 = MPI_Wtime();
        for (int i = 0; i < iters; i++) call(in, out, count, type, op);
        us[r] = (MPI_Wtime() - t0) * 1e6 / iters;
    }
    qsort(us, rounds, sizeof us[0], compare);
    return us[rounds / 2];
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int rounds = argc > 1 ? atoi(argv[1]) : 5;
    if (rounds < 1 || rounds > 64) rounds = 5;
    if (argc > 2) {
        if (strcmp(argv[2], "scan") == 0) collective = SCAN;
        else if (strcmp(argv[2], "reduce_scatter") == 0) collective = REDUCE_SCATTER;
        else if (strcmp(argv[2], "reduce_scatterv") == 0) collective = REDUCE_SCATTERV;
        else if (strcmp(argv[2], "allreduce") != 0) {
            if (rank == 0) fprintf(stderr, "usage: mpi-loc [ROUNDS [allreduce|scan|reduce_scatter|reduce_scatterv]]\n");
            MPI_Abort(MPI_COMM_WORLD, 2);
        }
    }
    const int max = 1 << 20;
    /* a reduce-scatter sends size blocks; a reduce_scatterv fewer */
    const long sent = collective >= REDUCE_SCATTER ? (long) size * max : max;
    vcounts = malloc(size * sizeof *vcounts);
    float *f = malloc(sent * sizeof *f), *fo = malloc(max * sizeof *fo);
    double *d = malloc(sent * sizeof *d), *dout = malloc(max * sizeof *dout);
    float_int *fi = malloc(sent * sizeof *fi), *fio = malloc(max * sizeof *fio);
    double_int *di = malloc(sent * sizeof *di), *dio = malloc(max * sizeof *dio);
    for (long i = 0; i < sent; i++) {
        f[i] = (float) ((i * 31 + rank * 17) % 101);
        d[i] = f[i];
        fi[i].v = f[i]; fi[i].i = size * i + rank;
        di[i].v = d[i]; di[i].i = size * i + rank;
    }
    if (rank == 0)
        printf("%s, %d ranks; medians of %d rounds, us a call\n"
               "pairs,float_max_us,float_int_maxloc_us,double_max_us,double_int_maxloc_us\n",
               collective == ALLREDUCE ? "allreduce" : collective == SCAN ? "scan" :
               collective == REDUCE_SCATTER ? "reduce_scatter" : "reduce_scatterv", size, rounds);
    const int counts[] = {1, 16, 1024, 65536, 1 << 20};
    for (int pass = 0; pass < 2; pass++) {
        for (int c = 0; c < 5; c++) {
            int n = counts[c];
            int r = pass ? rounds : 1;
            for (int q = 0; q < size; q++) vcounts[q] = q % 2 == 0 ? n : n / 2;
            double a = median_us(f, fo, n, MPI_FLOAT, MPI_MAX, r);
            double b = median_us(fi, fio, n, MPI_FLOAT_INT, MPI_MAXLOC, r);
            double c = median_us(d, dout, n, MPI_DOUBLE, MPI_MAX, r);
            double e = median_us(di, dio, n, MPI_DOUBLE_INT, MPI_MAXLOC, r);
            if (pass && rank == 0) { printf("%d,%.3f,%.3f,%.3f,%.3f\n", n, a, b, c, e); fflush(stdout); }
        }
    }
    MPI_Finalize();
    return 0;
}
