/* The floor of a 2-rank float32 sum allreduce on this machine, in C: what any implementation of each design can
 * reach. Each of two processes holds a send vector of N bytes and fills an N-byte recv with the sum; a round is
 * one allreduce between two flag handshakes. Modes:
 *   0  single copy: the peer's whole vector through the kernel (process_vm_readv) in chunks of C bytes into a
 *      bounce buffer, recv = send + bounce (jccl's shm_single_copy);
 *   1  two-shot through the kernel: the peer's half of the vector in chunks into a bounce buffer, reduced with the
 *      own half into recv's half; a handshake; the peer's reduced half read through the kernel into recv;
 *   2  two-shot staged (jccl's shm_twoshot on private buffers), in chunks of C bytes of each half: each rank copies
 *      the chunk the peer reduces into its staging area, handshake, reduces the peer's staged chunk with its own
 *      into recv, handshake, copies its reduced chunk into its staging area, handshake, copies the peer's out;
 *   3  no peer at all: recv = send + send2 on both processes at once (single copy's reads and writes without the
 *      kernel's copy);
 *   4  memcpy of N bytes on both processes at once (the bus bandwidth's yardstick with both cores busy);
 *   5  no peer at all: half of recv = half of send + half of send2, the other half memcpy'd from send, on both
 *      processes at once (a two-shot's reads and writes without its transfers: the least any design moves).
 * Build: cc -O3 -march=native -o allreduce-floor allreduce-floor.c   Run: ./allreduce-floor BYTES ROUNDS MODE [C] */
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
static volatile uint64_t *sh;
static int me;
static uint64_t step;
static void handshake(void) {
    step++;
    __atomic_store_n(&sh[me * 16], step, __ATOMIC_RELEASE);
    while (__atomic_load_n(&sh[(1 - me) * 16], __ATOMIC_ACQUIRE) < step) ;
}
static void add(float *restrict c, const float *restrict a, const float *restrict b, size_t bytes) {
    for (size_t i = 0; i < bytes / 4; i++) c[i] = a[i] + b[i];
}
static void readv_peer(pid_t other, void *dst, const void *src, size_t bytes) {
    struct iovec l = { dst, bytes }, r = { (void *) src, bytes };
    if (process_vm_readv(other, &l, 1, &r, 1, 0) != (ssize_t) bytes) { perror("process_vm_readv"); exit(1); }
}
int main(int argc, char **argv) {
    size_t n = strtoul(argv[1], 0, 0); int iters = atoi(argv[2]); int mode = atoi(argv[3]);
    size_t chunk = argc > 4 ? strtoul(argv[4], 0, 0) : 256 * 1024;
    size_t half = n / 2;
    sh = mmap(0, 4096, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    char *staging = mmap(0, 2 * half, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    pid_t parent = getpid(); pid_t p = fork(); me = p == 0; pid_t other = me ? parent : p;
    char *send = aligned_alloc(4096, n), *send2 = aligned_alloc(4096, n), *recv = aligned_alloc(4096, n);
    char *bounce = aligned_alloc(4096, chunk);
    for (size_t i = 0; i < n / 4; i++) { ((float *) send)[i] = me + 1; ((float *) send2)[i] = 1; }
    memset(recv, 0, n); memset(bounce, 0, chunk); memset(staging + me * half, 0, half);
    sh[me * 16 + 1] = (uint64_t) send; sh[me * 16 + 2] = (uint64_t) recv;
    handshake();
    char *peerSend = (char *) sh[(1 - me) * 16 + 1], *peerRecv = (char *) sh[(1 - me) * 16 + 2];
    char *mine = staging + me * half, *theirs = staging + (1 - me) * half;
    size_t lo = me * half, other_lo = (1 - me) * half; /* the half this rank reduces, and the peer's */
    double t0 = 0;
    for (int it = 0; it < iters + 20; it++) {
        if (it == 20) t0 = now();
        handshake();
        if (mode == 0) {
            for (size_t at = 0; at < n; at += chunk) {
                size_t len = n - at < chunk ? n - at : chunk;
                readv_peer(other, bounce, peerSend + at, len);
                add((float *) (recv + at), (float *) (send + at), (float *) bounce, len);
            }
        } else if (mode == 1) {
            for (size_t at = lo; at < lo + half; at += chunk) {
                size_t len = lo + half - at < chunk ? lo + half - at : chunk;
                readv_peer(other, bounce, peerSend + at, len);
                add((float *) (recv + at), (float *) (send + at), (float *) bounce, len);
            }
            handshake();
            readv_peer(other, recv + other_lo, peerRecv + other_lo, half);
        } else if (mode == 2) {
            for (size_t at = 0; at < half; at += chunk) {
                size_t len = half - at < chunk ? half - at : chunk;
                memcpy(mine + at, send + other_lo + at, len);
                handshake();
                add((float *) (recv + lo + at), (float *) (send + lo + at), (float *) (theirs + at), len);
                handshake();
                memcpy(mine + at, recv + lo + at, len);
                handshake();
                memcpy(recv + other_lo + at, theirs + at, len);
                handshake();
            }
        } else if (mode == 3) {
            add((float *) recv, (float *) send, (float *) send2, n);
        } else if (mode == 4) {
            memcpy(recv, send, n);
        } else {
            add((float *) (recv + lo), (float *) (send + lo), (float *) (send2 + lo), half);
            memcpy(recv + other_lo, send + other_lo, half);
        }
        handshake();
    }
    double t1 = now();
    if (((float *) recv)[n / 4 - 1] != (mode == 3 || (mode == 5 && me == 1) ? me + 2 : mode >= 4 ? me + 1 : 3)) { fprintf(stderr, "wrong sum\n"); exit(1); }
    if (me) _exit(0);
    waitpid(p, 0, 0);
    double us = (t1 - t0) * 1e6 / iters;
    printf("n=%zu mode=%d chunk=%zu: %.1f us, %.2f GB/s per rank (n / time)\n", n, mode, chunk, us, n / us / 1e3);
    return 0;
}
