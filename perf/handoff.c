/* The machine's cross-core handoff of freshly written data, the limit of every two-copy shared-memory transfer:
 * one process writes N bytes into shared memory and raises a flag, the other copies them out and acknowledges;
 * prints microseconds per round and GB/s of N. On the 2-vCPU VMs used here it flips between about 15 GB/s and
 * about 2 GB/s for 2 MiB from one minute to the next (the host places the vCPUs; memcpy within one core does not
 * change), so perf/compare-peers runs it around every pass and reports which regime each table saw.
 * Build: cc -O2 -o handoff handoff.c    Run: ./handoff [BYTES...] (default 131072 2097152) */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static double now(void) { struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t); return t.tv_sec + t.tv_nsec * 1e-9; }

static void measure(size_t n) {
    const int rounds = n <= (1 << 20) ? 2000 : 200;
    char *shm = mmap(0, n + 4096, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    volatile uint64_t *flag = (uint64_t *) (shm + n), *ack = (uint64_t *) (shm + n + 128);
    char *own = aligned_alloc(64, n);
    memset(shm, 1, n); memset(own, 2, n); *flag = 0; *ack = 0;
    pid_t child = fork();
    if (child == 0) {
        for (uint64_t i = 1; i <= (uint64_t) rounds; i++) {
            while (__atomic_load_n(flag, __ATOMIC_ACQUIRE) != i) ;
            memcpy(own, shm, n);
            __atomic_store_n(ack, i, __ATOMIC_RELEASE);
        }
        _exit(0);
    }
    double t0 = now();
    for (uint64_t i = 1; i <= (uint64_t) rounds; i++) {
        memcpy(shm, own, n);
        __atomic_store_n(flag, i, __ATOMIC_RELEASE);
        while (__atomic_load_n(ack, __ATOMIC_ACQUIRE) != i) ;
    }
    double t1 = now();
    waitpid(child, 0, 0);
    printf("handoff,%zu,%.1f,%.2f\n", n, (t1 - t0) * 1e6 / rounds, (double) n * rounds / (t1 - t0) / 1e9);
    munmap(shm, n + 4096); free(own);
}

int main(int argc, char **argv) {
    printf("handoff,bytes,us_per_round,GBps\n");
    if (argc < 2) { measure(131072); measure(2097152); }
    for (int i = 1; i < argc; i++) measure(strtoull(argv[i], 0, 10));
    return 0;
}
