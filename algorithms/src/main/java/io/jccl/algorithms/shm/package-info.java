/**
 * Collective algorithms that use what only shared memory allows: every rank reads and writes its peers' staging
 * areas and, for buffers in symmetric memory, its peers' buffers in place. The handshake they share is described in
 * {@link io.jccl.algorithms.shm.ShmProtocol}.
 * <p>
 * Cost models in each class use these symbols:
 * <ul>
 *   <li>p ranks, n bytes of the whole vector as nccl-tests count it (DESIGN.md section 7);</li>
 *   <li>α_f: one flag handoff, a release store seen by an acquire load on another core (a cache-line transfer);</li>
 *   <li>β_c: per byte copied within memory this rank owns or just wrote (mostly in cache);</li>
 *   <li>β_r: per byte read from a peer's staging area or buffer (a cache miss to another core or to DRAM);</li>
 *   <li>γ: per byte of reduction arithmetic;</li>
 *   <li>S: staging bytes per rank; chunks of up to S/2 bytes alternate between its halves, and
 *       K = ⌈(bytes staged per rank) / (S/2)⌉ is the number of chunks, each paying one α_f per handshake.</li>
 * </ul>
 * All reductions combine contributions in rank order 0, 1, ..., p - 1, so every rank computes identical bits.
 */
package io.jccl.algorithms.shm;
