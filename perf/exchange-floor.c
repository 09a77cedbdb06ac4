/* The floor of a 2-rank 8-byte allreduce on this machine, in C: each of two processes stores its value and the round's
 * number in one 64-byte line of its own and waits until the peer's line carries the round (release store, acquire
 * load), as jccl's shm_ll allreduce does with its LL lines. Both lines cross at once, so a round costs one cache-line
 * handoff, not the two of a ping-pong. Lines walk SLOTS one-line slots per process (jccl's LL region has 256); the
 * two regions lie 1 MiB apart, as two ranks' staging areas do. Mode 0 times the ping-pong instead (limits.c's
 * measurement: half a round trip). Prints ns per round, and the median of REPEATS blocks of ROUNDS rounds.
 * Build: cc -O2 -o exchange-floor exchange-floor.c    Run: ./exchange-floor [MODE] [SLOTS] (default 1 256) */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define ROUNDS 1000000
#define REPEATS 5
#define REGION (1L << 20)

static double now(void) { struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t); return t.tv_sec + t.tv_nsec * 1e-9; }

static int cmp(const void *a, const void *b) { double x = *(const double *) a, y = *(const double *) b; return (x > y) - (x < y); }

int main(int argc, char **argv) {
    const int mode = argc > 1 ? atoi(argv[1]) : 1;
    const long slots = argc > 2 ? atol(argv[2]) : 256;
    if (mode < 0 || mode > 1 || slots < 1 || slots * 64 > REGION) {
        fprintf(stderr, "usage: exchange-floor [MODE 0|1] [SLOTS 1..%ld]\n", REGION / 64);
        return 2;
    }
    char *shared = mmap(0, 2 * REGION, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (shared == MAP_FAILED) { perror("mmap"); return 1; }
    const pid_t child = fork();
    const int me = child == 0;
    char *mine = shared + me * REGION, *peer = shared + (1 - me) * REGION;
    double block[REPEATS];
    uint64_t sum = 0;
    for (uint64_t round = 1, r = 0; r <= REPEATS; r++) {  /* block 0 warms up */
        const double start = now();
        for (long i = 0; i < ROUNDS; i++, round++) {
            volatile uint64_t *out = (uint64_t *) (mine + (round % slots) * 64);
            volatile uint64_t *in = (uint64_t *) (peer + (round % slots) * 64);
            if (mode == 1 || me == 0) {
                out[0] = round;  /* the value */
                __atomic_store_n(&out[7], round, __ATOMIC_RELEASE);
            }
            while (__atomic_load_n(&in[7], __ATOMIC_ACQUIRE) != round) { }
            sum += in[0];
            if (mode == 0 && me == 1) {
                out[0] = round;
                __atomic_store_n(&out[7], round, __ATOMIC_RELEASE);
            }
        }
        if (r > 0) block[r - 1] = (now() - start) * 1e9 / ROUNDS / (mode == 0 ? 2 : 1);
    }
    if (child == 0) _exit(sum == 0);  /* sum keeps the payload's reads in the loop */
    waitpid(child, 0, 0);
    printf("%s, %ld slots: ns per %s:", mode == 1 ? "exchange" : "ping-pong", slots,
        mode == 1 ? "round" : "one-way handoff");
    for (int r = 0; r < REPEATS; r++) printf(" %.1f", block[r]);
    qsort(block, REPEATS, sizeof block[0], cmp);
    printf("; median %.1f\n", block[REPEATS / 2]);
    return 0;
}
