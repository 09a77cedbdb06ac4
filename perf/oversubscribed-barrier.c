// The floor of a collective while ranks outnumber cores: N processes (fork, no pinning, as jccl's ranks) each raise
// their own flag (its own 128-byte line) to round e and wait until every other flag has reached e. Every round needs
// every process to run once, so with 4 processes on 2 cores a round needs at least one context switch on each core.
//
// Mode 0: a waiter spins S polls, then calls sched_yield between polls. A process switched in often finds the round
// still waiting for the other core and yields straight back: about 0.75 yields per process and round.
// Mode 1 (what jccl's CoreMates does): each process publishes the CPU it runs on (sched_getcpu); a waiter yields at
// once while a process that has not arrived last ran on its CPU, and otherwise spins, up to S polls between yields,
// while the processes it waits for run on the other core. About 0.5 yields per process and round: one switch per core.
//
// LINES: work per round, as a collective's own copies and code are: before raising its flag each process increments
// one word in each of LINES lines of a private buffer, a page and a line apart (each line in its own page and cache
// set). With PROCESSES no more than the cores and SPINS large, no process yields: the same work without switches,
// which says whether a switch leaves the work that follows it dearer (cold caches or TLB).
//
//   cc -O2 -o /tmp/ob perf/oversubscribed-barrier.c && /tmp/ob 4 && /tmp/ob 4 200000 300 1 && /tmp/ob 8 50000
//   /tmp/ob 4 200000 300 1 512 && /tmp/ob 2 200000 100000000 1 512
//   usage: ob [PROCESSES (4)] [ROUNDS (200000)] [SPINS (mode 0: 0; mode 1: 300)] [MODE (0)] [LINES (0)]
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
    int mode = argc > 4 ? atoi(argv[4]) : 0;
    long spins = argc > 3 ? atol(argv[3]) : (mode == 1 ? 300 : 0);
    long lines = argc > 5 ? atol(argv[5]) : 0;
    if (n < 2 || n > 32 || rounds < 10 || mode < 0 || mode > 1 || lines < 0 || lines > 65536) {
        fprintf(stderr, "usage: %s [PROCESSES 2-32] [ROUNDS >= 10] [SPINS] [MODE 0|1] [LINES 0-65536]\n", argv[0]);
        return 2;
    }
    // flags 128 bytes apart (16 words), then each process's CPU, then one result and yield count per process
    volatile uint64_t *flags = mmap(0, 3 * 4096, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (flags == MAP_FAILED) {
        perror("mmap");
        return 1;
    }
    volatile uint64_t *cpus = flags + 512;
    // each process's work: LINES lines a page and a line apart, private after the fork
    const long work_stride = (4096 + 64) / sizeof(uint64_t);
    uint64_t *work = lines ? malloc(lines * work_stride * sizeof(uint64_t)) : NULL;
    if (lines && !work) {
        perror("malloc");
        return 1;
    }
    double *result = (double *)(flags + 1024);
    double *yields_per_round = result + 32;
    for (int r = 0; r < n; r++) {
        if (fork() == 0) {
            double start = 0;
            long yields = 0;
            uint64_t cpu = (uint64_t)sched_getcpu();
            // written once, so that no round pays a page fault (or the copy of a page shared with the parent)
            for (long i = 0; i < lines; i++) {
                work[i * work_stride] = 0;
            }
            __atomic_store_n(&cpus[r * 16], cpu, __ATOMIC_RELAXED);
            for (long e = 1; e <= rounds; e++) {
                if (e == rounds / 10) {
                    start = now_ns(); // the first tenth warms up
                    yields = 0;
                }
                for (long i = 0; i < lines; i++) {
                    ((volatile uint64_t *)work)[i * work_stride]++;
                }
                __atomic_store_n(&flags[r * 16], e, __ATOMIC_RELEASE);
                long polls = 0;
                for (;;) {
                    int behind = 0, behind_here = 0;
                    for (int q = 0; q < n; q++) {
                        if (__atomic_load_n(&flags[q * 16], __ATOMIC_ACQUIRE) < (uint64_t)e) {
                            behind++;
                            behind_here += __atomic_load_n(&cpus[q * 16], __ATOMIC_RELAXED) == cpu;
                        }
                    }
                    if (!behind) {
                        break;
                    }
                    if (++polls <= spins && (mode == 0 || !behind_here)) {
                        continue;
                    }
                    polls = 0;
                    sched_yield();
                    yields++;
                    uint64_t now = (uint64_t)sched_getcpu();
                    if (mode == 1 && now != cpu) {
                        cpu = now;
                        __atomic_store_n(&cpus[r * 16], cpu, __ATOMIC_RELAXED);
                    }
                }
            }
            result[r] = (now_ns() - start) / (rounds - rounds / 10);
            yields_per_round[r] = (double)yields / (rounds - rounds / 10);
            _exit(0);
        }
    }
    for (int r = 0; r < n; r++) {
        wait(NULL);
    }
    double mean = 0, yields = 0;
    for (int r = 0; r < n; r++) {
        mean += result[r] / n;
        yields += yields_per_round[r] / n;
    }
    printf("%d processes on %ld cores, mode %d (%s), %ld spins, %ld lines of work: %.3f us per barrier, %.2f yields per "
           "process\n", n, sysconf(_SC_NPROCESSORS_ONLN), mode,
           mode == 0 ? "every waiter yields" : "yield to a process on my CPU", spins, lines, mean / 1000, yields);
    return 0;
}
