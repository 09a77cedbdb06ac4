// The floor of a collective while ranks outnumber cores: N processes (fork, no pinning, as jccl's ranks) each raise
// their own flag (its own 128-byte line) to round e and wait until every other flag has reached e, spinning S polls
// and then calling sched_yield between polls. Every round needs every process to run once, so with 4 processes on
// 2 cores a round is at least a round of context switches; a collective that waits on flags cannot beat it.
//
//   cc -O2 -o /tmp/ob perf/oversubscribed-barrier.c && /tmp/ob 4 && /tmp/ob 4 200000 50 && /tmp/ob 8 50000
//   usage: ob [PROCESSES (4)] [ROUNDS (200000)] [SPINS before each yield (0)]
#define _GNU_SOURCE
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static double now_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e9 + t.tv_nsec;
}

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 4;
    long rounds = argc > 2 ? atol(argv[2]) : 200000;
    long spins = argc > 3 ? atol(argv[3]) : 0;
    if (n < 2 || n > 32 || rounds < 10) {
        fprintf(stderr, "usage: %s [PROCESSES 2-32] [ROUNDS >= 10] [SPINS]\n", argv[0]);
        return 2;
    }
    // flags 128 bytes apart (16 words), then one result per process
    volatile uint64_t *flags = mmap(0, 4096 + 8 * 32, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (flags == MAP_FAILED) {
        perror("mmap");
        return 1;
    }
    double *result = (double *)(flags + 512);
    for (int r = 0; r < n; r++) {
        if (fork() == 0) {
            double start = 0;
            for (long e = 1; e <= rounds; e++) {
                if (e == rounds / 10) {
                    start = now_ns(); // the first tenth warms up
                }
                __atomic_store_n(&flags[r * 16], e, __ATOMIC_RELEASE);
                for (int q = 0; q < n; q++) {
                    long polls = 0;
                    while (__atomic_load_n(&flags[q * 16], __ATOMIC_ACQUIRE) < (uint64_t)e) {
                        if (++polls > spins) {
                            sched_yield();
                        }
                    }
                }
            }
            result[r] = (now_ns() - start) / (rounds - rounds / 10);
            _exit(0);
        }
    }
    for (int r = 0; r < n; r++) {
        wait(NULL);
    }
    double mean = 0;
    for (int r = 0; r < n; r++) {
        mean += result[r] / n;
    }
    printf("%d processes on %ld cores, %ld spins then sched_yield: %.3f us per barrier\n", n,
           sysconf(_SC_NPROCESSORS_ONLN), spins, mean / 1000);
    return 0;
}
