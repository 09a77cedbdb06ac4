/* Does an allreduce that knows which ranks share a CPU beat the flat two-shot when ranks outnumber cores?
 * 4 processes bound to 2 CPUs (0 and 1 on CPU 0, 2 and 3 on CPU 1) sum private float32 vectors through shared
 * staging, chunk by chunk, two ways:
 *   flat two-shot (jccl's shm_twoshot): each stages its chunk, reduces a quarter from all four stagings, then
 *     copies all four quarters out;
 *   two-level: each stages its chunk, CPU-mates each reduce half of their pair's sum, the two ranks of the other
 *     CPU that made the same half each reduce a quarter of the total from the two halves, then all copy out.
 * Counting lines that cross between the CPUs (a line read twice on one CPU crosses once, the caches see to that):
 * flat moves 3n per chunk of n, two-level 2n, for one more wait per chunk. Rounds alternate the two, so both see
 * the same pace of the machine; waits yield at once. Prints the medians and the median of the rounds' ratios.
 * Build: cc -O3 -march=native -o two-level perf/two-level-allreduce.c   Run: ./two-level BYTES CHUNK ROUNDS */
#define _GNU_SOURCE
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define P 4
#define LINE 128
static double now(void) { struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t); return t.tv_sec + t.tv_nsec * 1e-9; }

typedef struct { volatile uint64_t v; char pad[LINE - 8]; } flag_t;
static flag_t *flags; /* flags[phase * P + rank] */
static float *S, *L, *R;
static size_t CH;     /* floats per chunk */

static void set(int phase, int r, uint64_t g) { __atomic_store_n(&flags[phase * P + r].v, g, __ATOMIC_RELEASE); }
static void await(int phase, int r, uint64_t g) { while (__atomic_load_n(&flags[phase * P + r].v, __ATOMIC_ACQUIRE) < g) sched_yield(); }
static void awaitAll(int phase, uint64_t g) { for (int r = 0; r < P; r++) await(phase, r, g); }

static void add(float *d, const float *a, const float *b, size_t n) { for (size_t i = 0; i < n; i++) d[i] = a[i] + b[i]; }

static void flat(int me, const float *in, float *out, size_t n, uint64_t *g) {
    float *mine = S + me * CH;
    size_t q = CH / P;
    for (size_t off = 0; off < n; off += CH) {
        uint64_t gen = ++*g;
        awaitAll(3, gen - 1);                       /* every rank has copied the last chunk out: S and R are free */
        memcpy(mine, in + off, CH * 4); set(0, me, gen);
        awaitAll(0, gen);
        float *r = R + me * q;
        add(r, S + 0 * CH + me * q, S + 1 * CH + me * q, q);
        add(r, r, S + 2 * CH + me * q, q);
        add(r, r, S + 3 * CH + me * q, q);
        set(1, me, gen);
        awaitAll(1, gen);
        memcpy(out + off, R, CH * 4); set(3, me, gen);
    }
}

static void twoLevel(int me, const float *in, float *out, size_t n, uint64_t *g) {
    float *mine = S + me * CH;
    int mate = me ^ 1, partner = me ^ 2;     /* 0-1 and 2-3 share a CPU; 0-2 and 1-3 hold the same half */
    size_t h = CH / 2, q = CH / 4;
    size_t half = (me & 1) * h;              /* the half of the pair's sum this rank makes */
    size_t quarter = half + ((me >> 1) & 1) * q; /* the quarter of the total it makes */
    for (size_t off = 0; off < n; off += CH) {
        uint64_t gen = ++*g;
        awaitAll(3, gen - 1);
        memcpy(mine, in + off, CH * 4); set(0, me, gen);
        await(0, mate, gen);
        add(L + me * h, S + me * CH + half, S + mate * CH + half, h);
        set(1, me, gen);
        await(1, partner, gen);
        size_t within = quarter - half;
        add(R + quarter, L + me * h + within, L + partner * h + within, q);
        set(2, me, gen);
        awaitAll(2, gen);
        memcpy(out + off, R, CH * 4); set(3, me, gen);
    }
}

int main(int argc, char **argv) {
    if (argc != 4) { fprintf(stderr, "usage: %s BYTES CHUNK ROUNDS\n", argv[0]); return 2; }
    size_t n = strtoull(argv[1], 0, 10) / 4; CH = strtoull(argv[2], 0, 10) / 4; int rounds = atoi(argv[3]);
    if (CH == 0 || CH % 16 || n % CH || rounds < 1) {
        fprintf(stderr, "CHUNK must divide BYTES and be a multiple of 64 bytes; ROUNDS at least 1\n");
        return 2;
    }
    char *shm = mmap(0, 4 * P * LINE + (P + P / 2 + 1) * CH * 4 + 4096, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    flags = (flag_t *) shm; S = (float *) (shm + 4 * P * LINE); L = S + P * CH; R = L + (P / 2) * CH;
    double *times = mmap(0, 2 * rounds * sizeof(double), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    for (int me = 0; me < P; me++) {
        if (fork() == 0) {
            cpu_set_t set; CPU_ZERO(&set); CPU_SET(me / 2, &set);
            if (sched_setaffinity(0, sizeof set, &set) != 0) { perror("sched_setaffinity (needs CPUs 0 and 1)"); _exit(1); }
            float *in = aligned_alloc(64, n * 4), *out = aligned_alloc(64, n * 4);
            for (size_t i = 0; i < n; i++) in[i] = (float) (me + 1 + i % 5);
            uint64_t g = 0;
            for (int r = -2; r < rounds; r++) {
                for (int d = 0; d < 2; d++) {
                    double t0 = now();
                    if (d == 0) flat(me, in, out, n, &g); else twoLevel(me, in, out, n, &g);
                    double t1 = now();
                    for (size_t i = 0; i < n; i += 1013) if (out[i] != 10.0f + 4 * (i % 5)) { fprintf(stderr, "wrong\n"); _exit(1); }
                    if (me == 0 && r >= 0) times[2 * r + d] = (t1 - t0) * 1e6;
                }
            }
            _exit(0);
        }
    }
    int bad = 0, st;
    while (wait(&st) > 0) bad |= !WIFEXITED(st) || WEXITSTATUS(st);
    if (bad) return 1;
    double f[rounds], t[rounds], ratio[rounds];
    for (int r = 0; r < rounds; r++) { f[r] = times[2 * r]; t[r] = times[2 * r + 1]; ratio[r] = t[r] / f[r]; }
    int cmp(const void *a, const void *b) { double x = *(double *) a, y = *(double *) b; return x < y ? -1 : x > y; }
    qsort(f, rounds, sizeof(double), cmp); qsort(t, rounds, sizeof(double), cmp); qsort(ratio, rounds, sizeof(double), cmp);
    printf("%zu bytes, chunks of %zu: flat %.1f us, two-level %.1f us (medians); two-level / flat %.2f (%.2f-%.2f)\n",
        n * 4, CH * 4, f[rounds / 2], t[rounds / 2], ratio[rounds / 2], ratio[0], ratio[rounds - 1]);
    return 0;
}
