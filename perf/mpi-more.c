/* The collectives ../shared/peers/run-peers lacks, timed as its mpi_coll_bench.c times the others (the same sizes,
 * 8 B to maxBytes x4, iterations, warm-up and CSV columns), so that perf/more-peers can stand in for run-peers:
 * JCCL_PEERS=perf/more-peers perf/compare-peers --ops scan,exscan,gather,scatter,allgatherv,...
 *   scan, exscan          MPI_Scan, MPI_Exscan of the vector
 *   gather, scatter       MPI_Gather, MPI_Scatter to and from rank 0, a block of bytes/size each
 *   allgatherv            MPI_Allgatherv, a block of bytes/size each
 *   reduce_scatterv       MPI_Reduce_scatter of the vector, a block of bytes/size each
 *   alltoallv             MPI_Alltoallv, blocks of bytes/size
 *   gatherv, scatterv     MPI_Gatherv, MPI_Scatterv to and from rank 0, a block of bytes/size each
 * Every reduction is float32 SUM; the v forms' counts are equal, as `./jccl bench` passes them; bytes is the whole
 * vector, as in bench's rows, and sizes that do not split into size blocks of floats are skipped.
 * Build: mpicc -O2 -o /tmp/mpi-more perf/mpi-more.c
 * Run:   mpirun --oversubscribe --allow-run-as-root -n 2 /tmp/mpi-more [maxBytes] [scan,exscan,...]
 * Columns: collective,ranks,bytes,avg_us,min_us,max_us,iters */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum op { SCAN, EXSCAN, GATHER, SCATTER, ALLGATHERV, REDUCE_SCATTERV, ALLTOALLV, GATHERV, SCATTERV, UNKNOWN };
static const char *NAMES[] = { "scan", "exscan", "gather", "scatter", "allgatherv", "reduce_scatterv", "alltoallv",
                               "gatherv", "scatterv" };

static enum op parse(const char *name) {
    for (int i = 0; i < UNKNOWN; i++) if (!strcmp(name, NAMES[i])) return (enum op) i;
    return UNKNOWN;
}

static int iters_for(size_t bytes) {
    if (bytes <= 8192) return 20000;
    if (bytes <= (1 << 20)) return 1000;
    return 50;
}

/* counts and displacements of equal blocks of `block` floats */
static int *counts, *displs;

static void call(enum op op, float *a, float *b, int n, int block) {
    switch (op) {
    case SCAN: MPI_Scan(a, b, n, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD); break;
    case EXSCAN: MPI_Exscan(a, b, n, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD); break;
    case GATHER: MPI_Gather(a, block, MPI_FLOAT, b, block, MPI_FLOAT, 0, MPI_COMM_WORLD); break;
    case SCATTER: MPI_Scatter(a, block, MPI_FLOAT, b, block, MPI_FLOAT, 0, MPI_COMM_WORLD); break;
    case ALLGATHERV: MPI_Allgatherv(a, block, MPI_FLOAT, b, counts, displs, MPI_FLOAT, MPI_COMM_WORLD); break;
    case REDUCE_SCATTERV: MPI_Reduce_scatter(a, b, counts, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD); break;
    case ALLTOALLV:
        MPI_Alltoallv(a, counts, displs, MPI_FLOAT, b, counts, displs, MPI_FLOAT, MPI_COMM_WORLD); break;
    case GATHERV: MPI_Gatherv(a, block, MPI_FLOAT, b, counts, displs, MPI_FLOAT, 0, MPI_COMM_WORLD); break;
    case SCATTERV: MPI_Scatterv(a, counts, displs, MPI_FLOAT, b, block, MPI_FLOAT, 0, MPI_COMM_WORLD); break;
    default: break;
    }
}

static double run(enum op op, float *a, float *b, int n, int block, int iters) {
    double t0 = 0;
    for (int i = -iters / 10 - 1; i < iters; i++) {
        if (i == 0) { MPI_Barrier(MPI_COMM_WORLD); t0 = MPI_Wtime(); }
        call(op, a, b, n, block);
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
    counts = malloc(size * sizeof *counts);
    displs = malloc(size * sizeof *displs);
    for (size_t i = 0; i < maxBytes / 4; i++) a[i] = (float) (rank + i % 7);
    if (rank == 0) printf("collective,ranks,bytes,avg_us,min_us,max_us,iters\n");
    char buf[512]; strncpy(buf, ops, sizeof buf - 1); buf[sizeof buf - 1] = 0;
    for (char *name = strtok(buf, ","); name; name = strtok(NULL, ",")) {
        enum op op = parse(name);
        if (op == UNKNOWN) { if (rank == 0) fprintf(stderr, "mpi-more: no %s\n", name); continue; }
        for (size_t bytes = 8; bytes <= maxBytes; bytes *= 4) {
            int n = (int) (bytes / 4), block = n / size;
            if (op != SCAN && op != EXSCAN && n % size) continue;
            for (int r = 0; r < size; r++) { counts[r] = block; displs[r] = r * block; }
            int iters = iters_for(bytes);
            double us = run(op, a, b, n, block, iters), mn, mx, sum;
            MPI_Reduce(&us, &mn, 1, MPI_DOUBLE, MPI_MIN, 0, MPI_COMM_WORLD);
            MPI_Reduce(&us, &mx, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
            MPI_Reduce(&us, &sum, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
            if (rank == 0) {
                printf("%s,%d,%zu,%.3f,%.3f,%.3f,%d\n", name, size, bytes, sum / size, mn, mx, iters);
                fflush(stdout);
            }
        }
    }
    MPI_Finalize();
    return 0;
}
