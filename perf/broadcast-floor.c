/* The floor of a broadcast among P processes on this machine, in C, for P above the core count (4 ranks on 2 cores):
 * what any implementation of each design can reach. Process 0, the root, holds N bytes; a round is one broadcast,
 * back to back as the bench and run-peers time them: the root starts round i once every reader has acknowledged
 * round i - 1, and a reader acknowledges once it has its copy. Waits yield the core (sched_yield), as they must
 * while processes outnumber cores. Modes:
 *   0  every reader copies the root's buffer through the kernel (process_vm_readv), all at once (jccl's
 *      shm_single_copy broadcast; Open MPI's and MPICH's CMA path copies the same bytes down a tree);
 *   1  staged: the root copies its buffer into shared memory, every reader copies it out (two copies, the second of
 *      lines the root has just written: jccl's shm_eager and shm_direct);
 *   2  the root's buffer in shared memory, every reader copies it out with memcpy (jccl's zero-copy path on buffers
 *      from allocateShared);
 *   3  the flags alone: a round of handshakes and the context switches it takes, no data;
 *   4  a binomial tree of kernel reads, pipelined: each reader reads its parent's buffer (the root's, or another
 *      reader's copy) through the kernel in segments of SEGMENT bytes (default BYTES: no pipelining), each segment
 *      once the parent has it, and publishes how many it has (how MPI's tree broadcasts move data over CMA).
 * Build: cc -O2 -o broadcast-floor broadcast-floor.c    Run: ./broadcast-floor PROCESSES BYTES ROUNDS MODE [SEGMENT] */
#define _GNU_SOURCE
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define MAX_PROCESSES 64
#define FLAG_STRIDE 16 /* words: each process's flag two cache lines from the next one's */

static double now(void) { struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t); return t.tv_sec + t.tv_nsec * 1e-9; }

static void await(volatile uint64_t *flag, uint64_t value) {
    while (__atomic_load_n(flag, __ATOMIC_ACQUIRE) < value) sched_yield();
}

int main(int argc, char **argv) {
    if (argc != 5 && argc != 6) {
        fprintf(stderr, "usage: %s PROCESSES BYTES ROUNDS MODE [SEGMENT]\n", argv[0]); return 2; }
    const int p = atoi(argv[1]); const size_t n = strtoul(argv[2], 0, 0); const int rounds = atoi(argv[3]);
    const int mode = atoi(argv[4]);
    const size_t segment = argc == 6 ? strtoul(argv[5], 0, 0) : n;
    if (p < 2 || p > MAX_PROCESSES || mode < 0 || mode > 4 || segment == 0) {
        fprintf(stderr, "bad arguments\n"); return 2; }
    const uint64_t segments = (n + segment - 1) / segment;
    /* word 0 of process r's flag: the last round it finished; word 1: the address of its buffer; word 2 (mode 4):
     * round << 32 | the segments of that round it has */
    volatile uint64_t *flags = mmap(0, MAX_PROCESSES * FLAG_STRIDE * 8, PROT_READ | PROT_WRITE,
        MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    char *staging = mmap(0, n + 4096, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    pid_t pids[MAX_PROCESSES]; pids[0] = getpid();
    int me = 0;
    for (int r = 1; r < p; r++) {
        pid_t child = fork();
        if (child == 0) { me = r; break; }
        pids[r] = child;
    }
    char *buffer = mode == 2 && me == 0 ? staging : aligned_alloc(4096, n + 4096);
    memset(buffer, me == 0 ? 1 : 0, n);
    const pid_t root = pids[0];
    flags[me * FLAG_STRIDE + 1] = (uint64_t) buffer;
    /* the binomial parent: the rank with the highest bit of this one cleared */
    int parent = 0;
    for (int bit = 1; bit <= me; bit <<= 1) if (me & bit) parent = me & ~bit;
    __atomic_store_n(&flags[me * FLAG_STRIDE], 1, __ATOMIC_RELEASE);
    for (int r = 0; r < p; r++) await(&flags[r * FLAG_STRIDE], 1);
    const char *source = (const char *) flags[1];
    double t0 = 0;
    for (uint64_t i = 2; i < (uint64_t) rounds + 102; i++) {
        if (i == 102) t0 = now();
        if (me == 0) {
            for (int r = 1; r < p; r++) await(&flags[r * FLAG_STRIDE], i - 1);
            if (mode == 1) memcpy(staging, buffer, n);
            __atomic_store_n(&flags[0], i, __ATOMIC_RELEASE);
        } else {
            await(&flags[0], i);
            if (mode == 4) {
                const char *from = (const char *) flags[parent * FLAG_STRIDE + 1];
                for (uint64_t k = 0; k < segments; k++) {
                    if (parent != 0) await(&flags[parent * FLAG_STRIDE + 2], i << 32 | (k + 1));
                    const size_t at = k * segment, len = at + segment > n ? n - at : segment;
                    struct iovec l = { buffer + at, len }, r = { (void *) (from + at), len };
                    if (process_vm_readv(pids[parent], &l, 1, &r, 1, 0) != (ssize_t) len) {
                        perror("process_vm_readv"); exit(1); }
                    __atomic_store_n(&flags[me * FLAG_STRIDE + 2], i << 32 | (k + 1), __ATOMIC_RELEASE);
                }
            } else if (mode == 0) {
                struct iovec l = { buffer, n }, r = { (void *) source, n };
                if (process_vm_readv(root, &l, 1, &r, 1, 0) != (ssize_t) n) { perror("process_vm_readv"); exit(1); }
            } else if (mode == 1 || mode == 2) {
                memcpy(buffer, staging, n);
            }
            __atomic_store_n(&flags[me * FLAG_STRIDE], i, __ATOMIC_RELEASE);
        }
    }
    if (me == 0) for (int r = 1; r < p; r++) await(&flags[r * FLAG_STRIDE], (uint64_t) rounds + 101);
    const double t1 = now();
    /* a reader leaves once every reader is done: another may still be reading its buffer (mode 4) */
    if (me == 0) __atomic_store_n(&flags[0], (uint64_t) rounds + 102, __ATOMIC_RELEASE);
    else { await(&flags[0], (uint64_t) rounds + 102); _exit(0); }
    for (int r = 1; r < p; r++) waitpid(pids[r], 0, 0);
    if (mode == 4) printf("p=%d n=%zu mode=%d segment=%zu: %.2f us\n", p, n, mode, segment, (t1 - t0) * 1e6 / rounds);
    else printf("p=%d n=%zu mode=%d: %.2f us\n", p, n, mode, (t1 - t0) * 1e6 / rounds);
    return 0;
}
