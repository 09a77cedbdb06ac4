/* MPI_Scan and MPI_Exscan of float32 SUM, timed as ../shared/peers/mpi_coll_bench.c times the other collectives:
 * the same sizes (8 B to maxBytes, x4), iterations, warm-up and CSV columns, so that perf/scan-peers can stand in for
 * run-peers (JCCL_PEERS=perf/scan-peers perf/compare-peers --ops scan,exscan).
 * Build: mpicc -O2 -o /tmp/mpi-scan perf/mpi-scan.c
 * Run:   mpirun --oversubscribe --allow-run-as-root -n 2 /tmp/mpi-scan [maxBytes] [scan,exscan]
 * Columns: collective,ranks,bytes,avg_us,min_us,max_us,iters   (bytes = the float32 vector) */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int iters_for(size_t bytes) {
    if (bytes <= 8192) return 20000;
    if (bytes <= (1 << 20)) return 1000;
    return 50;
}

static double run(int exclusive, float *a, float *b, int count, int iters) {
    double t0 = 0;
    for (int i = -iters / 10 - 1; i < iters; i++) {
        if (i == 0) { MPI_Barrier(MPI_COMM_WORLD); t0 = MPI_Wtime(); }
        if (exclusive) MPI_Exscan(a, b, count, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
        else MPI_Scan(a, b, count, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
    }
    return (MPI_Wtime() - t0) * 1e6 / iters;
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    size_t maxBytes = argc > 1 ? strtoull(argv[1], 0, 10) : (64u << 20);
    const char *ops = argc > 2 ? argv[2] : "scan,exscan";
    float *a = malloc(maxBytes + 64), *b = malloc(maxBytes + 64);
    for (size_t i = 0; i < maxBytes / 4; i++) a[i] = (float) (rank + i % 7);
    if (rank == 0) printf("collective,ranks,bytes,avg_us,min_us,max_us,iters\n");
    char buf[512]; strncpy(buf, ops, sizeof buf - 1); buf[sizeof buf - 1] = 0;
    for (char *op = strtok(buf, ","); op; op = strtok(NULL, ",")) {
        int exclusive = !strcmp(op, "exscan");
        if (!exclusive && strcmp(op, "scan")) { if (rank == 0) fprintf(stderr, "mpi-scan: no %s\n", op); continue; }
        for (size_t bytes = 8; bytes <= maxBytes; bytes *= 4) {
            int iters = iters_for(bytes);
            double us = run(exclusive, a, b, (int) (bytes / 4), iters), mn, mx, sum;
            MPI_Reduce(&us, &mn, 1, MPI_DOUBLE, MPI_MIN, 0, MPI_COMM_WORLD);
            MPI_Reduce(&us, &mx, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
            MPI_Reduce(&us, &sum, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
            if (rank == 0) { printf("%s,%d,%zu,%.3f,%.3f,%.3f,%d\n", op, size, bytes, sum / size, mn, mx, iters); fflush(stdout); }
        }
    }
    MPI_Finalize();
    return 0;
}
