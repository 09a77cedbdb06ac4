/* The floor of a 2-rank allgather on this machine, in C: what any implementation of each design can reach. Each of
 * two processes holds a send block of N/2 bytes and fills an N-byte recv with both blocks; a round is one allgather
 * between two flag handshakes. Modes: 0, the peer's block through the kernel (process_vm_readv, as Open MPI's and
 * MPICH's CMA and jccl's shm_single_copy do), then the own block with memcpy; 1, the same on buffers advised as huge
 * pages (MADV_HUGEPAGE: fewer pages for the kernel to pin); 2, send blocks in one shared mapping, the peer's read
 * with memcpy (jccl's zero-copy shm_direct on buffers from allocateShared); 3, the own block alone.
 * Build: cc -O2 -o allgather-floor allgather-floor.c    Run: ./allgather-floor BYTES ROUNDS MODE */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stdint.h>
#include <time.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <sys/uio.h>
static double now(void) { struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t); return t.tv_sec + t.tv_nsec * 1e-9; }
int main(int argc, char **argv) {
    size_t n = strtoul(argv[1], 0, 0); int iters = atoi(argv[2]); int mode = atoi(argv[3]);
    size_t b = n / 2;
    volatile uint64_t *sh = mmap(0, 4096, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    char *shared = mmap(0, 2 * b + (4 << 20), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    pid_t parent = getpid(); pid_t p = fork(); int me = p == 0; pid_t other = me ? parent : p;
    char *send, *recv;
    if (mode == 2) send = shared + me * b; else send = aligned_alloc(2 << 20, b + (2 << 20));
    recv = aligned_alloc(2 << 20, n + (2 << 20));
    if (mode == 1) { madvise(send, b, MADV_HUGEPAGE); madvise(recv, n, MADV_HUGEPAGE); }
    memset(send, me + 1, b); memset(recv, 0, n);
    sh[me * 16 + 1] = (uint64_t) send;
    __atomic_store_n(&sh[me * 16], 1, __ATOMIC_RELEASE);
    while (__atomic_load_n(&sh[(1 - me) * 16], __ATOMIC_ACQUIRE) < 1) ;
    char *peer = mode == 2 ? shared + (1 - me) * b : (char *) sh[(1 - me) * 16 + 1];
    double t0 = 0;
    for (uint64_t i = 2; i < (uint64_t) iters + 102; i++) {
        if (i == 102) t0 = now();
        __atomic_store_n(&sh[me * 16], i, __ATOMIC_RELEASE);
        while (__atomic_load_n(&sh[(1 - me) * 16], __ATOMIC_ACQUIRE) < i) ;
        char *dst = recv + (1 - me) * b;
        if (mode == 0 || mode == 1) {
            struct iovec l = { dst, b }, r = { peer, b };
            if (process_vm_readv(other, &l, 1, &r, 1, 0) != (ssize_t) b) { perror("readv"); exit(1); }
        } else if (mode == 2) memcpy(dst, peer, b);
        memcpy(recv + me * b, send, b);
        __atomic_store_n(&sh[me * 16 + 8], i, __ATOMIC_RELEASE);
        while (__atomic_load_n(&sh[(1 - me) * 16 + 8], __ATOMIC_ACQUIRE) < i) ;
    }
    double t1 = now();
    if (me) _exit(0);
    waitpid(p, 0, 0);
    printf("n=%zu mode=%d: %.2f us\n", n, mode, (t1 - t0) * 1e6 / iters);
    return 0;
}
