/* One-way latency of a small message of L cache lines between two processes, in the two record formats a ring
 * could use (ChannelDescriptor): mode 0, the header word released last, after the payload lines (the consumer sees
 * the header, then fetches the lines); mode 1, line-flagged as jccl's records of 2 to 8 lines: the flag word of
 * every later line cleared, line 0 released first, then each line with the header word in its last 8 bytes (the
 * consumer takes each line as its flag arrives). Records walk a ring of 1 MiB, as jccl's channels do, or of -r BYTES
 * (a ring of 8 records keeps every line in the two cores' caches).
 * Build: cc -O2 -o lines lines.c    Run: ./lines [-r RING_BYTES] [LINES...] (default 1 2 3 4 8 16) */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static long RING = 1 << 20;
#define ROUNDS 200000

static double now(void) { struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t); return t.tv_sec + t.tv_nsec * 1e-9; }

static volatile uint64_t *record(volatile uint64_t *ring, uint64_t seq, int lines) {
    return ring + (seq % (RING / (64 * lines))) * 8 * lines;
}

static void send(volatile uint64_t *ring, uint64_t seq, int lines, int mode) {
    volatile uint64_t *m = record(ring, seq, lines);
    if (mode == 0) {
        for (int l = lines - 1; l >= 0; l--)
            for (int w = l == 0 ? 1 : 0; w < 8; w++) m[l * 8 + w] = seq;
        __atomic_store_n(&m[0], seq, __ATOMIC_RELEASE);
    } else {
        for (int l = 1; l < lines; l++) m[l * 8 + 7] = 0;
        for (int w = 1; w < 8; w++) m[w] = seq;
        __atomic_store_n(&m[0], seq, __ATOMIC_RELEASE);
        for (int l = 1; l < lines; l++) {
            for (int w = 0; w < 7; w++) m[l * 8 + w] = seq;
            __atomic_store_n(&m[l * 8 + 7], seq, __ATOMIC_RELEASE);
        }
    }
}

static uint64_t recv(volatile uint64_t *ring, uint64_t seq, int lines, int mode) {
    volatile uint64_t *m = record(ring, seq, lines);
    uint64_t sum = 0;
    while (__atomic_load_n(&m[0], __ATOMIC_ACQUIRE) != seq) ;
    for (int l = 0; l < lines; l++) {
        if (mode == 1 && l > 0) while (__atomic_load_n(&m[l * 8 + 7], __ATOMIC_ACQUIRE) != seq) ;
        for (int w = 0; w < 8; w++) sum += m[l * 8 + w];
    }
    return sum;
}

static double measure(int lines, int mode) {
    volatile uint64_t *shm = mmap(0, 2 * RING, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    volatile uint64_t *ping = shm, *pong = shm + RING / 8;
    uint64_t sink = 0;
    pid_t child = fork();
    if (child == 0) {
        for (uint64_t i = 1; i <= ROUNDS; i++) { sink += recv(ping, i, lines, mode); send(pong, i, lines, mode); }
        _exit((int) (sink & 1));
    }
    const double t0 = now();
    for (uint64_t i = 1; i <= ROUNDS; i++) { send(ping, i, lines, mode); sink += recv(pong, i, lines, mode); }
    const double t1 = now();
    waitpid(child, 0, 0);
    munmap((void *) shm, 2 * RING);
    return (t1 - t0) / ROUNDS / 2 * 1e9 + (double) (sink & 0);
}

int main(int argc, char **argv) {
    int defaults[] = {1, 2, 3, 4, 8, 16};
    int first = 1;
    if (argc > 2 && argv[1][0] == '-' && argv[1][1] == 'r') { RING = atol(argv[2]); first = 3; }
    const int n = argc > first ? argc - first : 6;
    printf("ring %ld B; lines  header last ns  line-flagged ns  (one way)\n", RING);
    for (int i = 0; i < n; i++) {
        const int lines = argc > first ? atoi(argv[first + i]) : defaults[i];
        if (RING < 64L * lines) { fprintf(stderr, "ring of %ld B is smaller than %d lines\n", RING, lines); return 1; }
        const double plain = measure(lines, 0), flagged = measure(lines, 1);
        printf("%5d  %14.0f  %15.0f\n", lines, plain, flagged);
    }
    return 0;
}
