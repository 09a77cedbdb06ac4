package io.jccl.tools.bench;

import io.jccl.DataType;

import java.util.Locale;

/**
 * One row: an operation with one algorithm at one size, timed on every rank that took part.
 *
 * @param op        the operation.
 * @param algorithm the algorithm that ran (the one jccl chose, without --algo); "p2p" for ping-pong.
 * @param ranks     ranks in the job.
 * @param bytes     bytes as nccl-tests counts them (0 for the barrier).
 * @param type      element type.
 * @param avgUs     average over the ranks of each rank's mean time per call, µs (one-way for ping-pong).
 * @param minUs     the fastest rank's mean, µs.
 * @param maxUs     the slowest rank's mean, µs.
 * @param iters     timed iterations.
 * @param wrong     elements that differed from the reference, summed over the ranks; -1 when not checked.
 * @param probeUs   one way of an 8-byte pingpong between ranks 0 and 1 timed right after the row, µs: how fast the
 *                  two cores hand data over at that moment, which on a VM can change from one second to the next;
 *                  NaN when not measured (one rank).
 * @param handoffUs rank 0's time of a {@code BenchSweep#HANDOFF_PROBE_BYTES} allgather through the staging areas
 *                  (shm_direct: copies of lines just written on other cores) right after the probe, µs: how fast the
 *                  cores hand freshly written data over, which tells a VM's paces apart where the 8-byte probe
 *                  cannot (while ranks outnumber cores it measures their turns); NaN when not measured (one rank).
 */
public record BenchResult(
    BenchOp op,
    String algorithm,
    int ranks,
    long bytes,
    DataType type,
    double avgUs,
    double minUs,
    double maxUs,
    int iters,
    long wrong,
    double probeUs,
    double handoffUs)
{
    /** A row without a probe. */
    public BenchResult(final BenchOp op, final String algorithm, final int ranks, final long bytes,
        final DataType type, final double avgUs, final double minUs, final double maxUs, final int iters,
        final long wrong)
    {
        this(op, algorithm, ranks, bytes, type, avgUs, minUs, maxUs, iters, wrong, Double.NaN, Double.NaN);
    }

    /** Algorithm bandwidth in GB/s (10^9 bytes per second): bytes over the average time. */
    public double algbw()
    {
        return bytes == 0 || !(avgUs > 0) ? 0 : bytes / avgUs / 1e3;
    }

    /** Bus bandwidth in GB/s: {@link #algbw()} times nccl-tests' factor for the operation. */
    public double busbw()
    {
        return algbw() * op.busBandwidthFactor(ranks);
    }

    /** Elements of the whole vector. */
    public long count()
    {
        return bytes / type.size();
    }

    public boolean checked()
    {
        return wrong >= 0;
    }

    /** {@code micros} to 3 decimals, or {@code absent} when it was not measured (NaN): the probes' columns. */
    static String optionalMicros(final double micros, final String absent)
    {
        return Double.isNaN(micros) ? absent : String.format(Locale.ROOT, "%.3f", micros);
    }
}
