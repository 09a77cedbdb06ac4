package io.jccl.tools.bench;

/**
 * What the writers print before and around the rows.
 *
 * @param options  the options of the run.
 * @param plan     the plan of the run.
 * @param pids     the process id of every rank, by rank.
 * @param hostname this machine's name.
 */
public record RunInfo(BenchOptions options, BenchPlan plan, long[] pids, String hostname)
{
}
