/* The floor of an allgather among P processes on this machine (2 unless given), in C: what any implementation of
 * each design can reach. Each process holds a send block of N/P bytes and fills an N-byte recv with every block; a
 * round is one allgather between two flag handshakes. Modes:
 *   0  the peers' blocks through the kernel (process_vm_readv, as Open MPI's and MPICH's CMA and jccl's
 *      shm_single_copy do), then the own block with memcpy;
 *   1  the same on buffers advised as huge pages (MADV_HUGEPAGE: fewer pages for the kernel to pin);
 *   2  send blocks in one shared mapping, the peers' read with memcpy (jccl's zero-copy shm_direct on buffers from
 *      allocateShared);
 *   3  the own block alone;
 *   4  staged: each process copies its block into one shared mapping, then every block out of it after the first
 *      handshake (two copies: jccl's shm_direct on private buffers).
 * Waits spin while every process has a CPU, and yield it (sched_yield) while processes outnumber the CPUs, as they
 * must then (4 processes on 2 CPUs).
 * Build: cc -O2 -o allgather-floor allgather-floor.c    Run: ./allgather-floor BYTES ROUNDS MODE [PROCESSES] */
#define _GNU_SOURCE
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stdint.h>
#include <time.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <sys/uio.h>

#define MAX_PROCESSES 64
#define FLAG_STRIDE 16 /* words: each process's flags two cache lines from the next one's */

static double now(void) { struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t); return t.tv_sec + t.tv_nsec * 1e-9; }

static int yielding;

/* until every process's flag word `word` has reached `value` */
static void await_all(volatile uint64_t *sh, int p, int word, uint64_t value) {
    for (int r = 0; r < p; r++)
        while (__atomic_load_n(&sh[r * FLAG_STRIDE + word], __ATOMIC_ACQUIRE) < value) if (yielding) sched_yield();
}

int main(int argc, char **argv) {
    if (argc != 4 && argc != 5) { fprintf(stderr, "usage: %s BYTES ROUNDS MODE [PROCESSES]\n", argv[0]); return 2; }
    const size_t n = strtoul(argv[1], 0, 0); const int iters = atoi(argv[2]); const int mode = atoi(argv[3]);
    const int p = argc == 5 ? atoi(argv[4]) : 2;
    if (p < 2 || p > MAX_PROCESSES || mode < 0 || mode > 4 || n % p != 0) {
        fprintf(stderr, "bad arguments\n"); return 2; }
    const size_t b = n / p;
    yielding = p > sysconf(_SC_NPROCESSORS_ONLN);
    /* word 0 of process r's flags: the round it has started; word 1: its send block's address; word 8: the round
     * it has finished; word 2: its process id */
    volatile uint64_t *sh = mmap(0, MAX_PROCESSES * FLAG_STRIDE * 8, PROT_READ | PROT_WRITE,
        MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    char *shared = mmap(0, n + (4 << 20), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    pid_t pids[MAX_PROCESSES];
    int me = 0;
    for (int r = 1; r < p; r++) {
        pid_t child = fork();
        if (child == 0) { me = r; break; }
        pids[r] = child;
    }
    char *send, *recv;
    if (mode == 2) send = shared + me * b; else send = aligned_alloc(2 << 20, b + (2 << 20));
    recv = aligned_alloc(2 << 20, n + (2 << 20));
    if (mode == 1) { madvise(send, b, MADV_HUGEPAGE); madvise(recv, n, MADV_HUGEPAGE); }
    memset(send, me + 1, b); memset(recv, 0, n);
    sh[me * FLAG_STRIDE + 1] = (uint64_t) send;
    sh[me * FLAG_STRIDE + 2] = (uint64_t) getpid();
    __atomic_store_n(&sh[me * FLAG_STRIDE], 1, __ATOMIC_RELEASE);
    await_all(sh, p, 0, 1);
    double t0 = 0;
    for (uint64_t i = 2; i < (uint64_t) iters + 102; i++) {
        if (i == 102) t0 = now();
        if (mode == 4) memcpy(shared + me * b, send, b);
        __atomic_store_n(&sh[me * FLAG_STRIDE], i, __ATOMIC_RELEASE);
        await_all(sh, p, 0, i);
        for (int r = 0; r < p; r++) {
            if (r == me) continue;
            char *dst = recv + r * b;
            if (mode == 0 || mode == 1) {
                struct iovec l = { dst, b }, rv = { (void *) sh[r * FLAG_STRIDE + 1], b };
                const pid_t peer = (pid_t) sh[r * FLAG_STRIDE + 2];
                if (process_vm_readv(peer, &l, 1, &rv, 1, 0) != (ssize_t) b) { perror("readv"); exit(1); }
            } else if (mode == 2 || mode == 4) memcpy(dst, shared + r * b, b);
        }
        memcpy(recv + me * b, send, b);
        __atomic_store_n(&sh[me * FLAG_STRIDE + 8], i, __ATOMIC_RELEASE);
        await_all(sh, p, 8, i);
    }
    double t1 = now();
    if (me) _exit(0);
    for (int r = 1; r < p; r++) waitpid(pids[r], 0, 0);
    if (p == 2) printf("n=%zu mode=%d: %.2f us\n", n, mode, (t1 - t0) * 1e6 / iters);
    else printf("p=%d n=%zu mode=%d: %.2f us\n", p, n, mode, (t1 - t0) * 1e6 / iters);
    return 0;
}
