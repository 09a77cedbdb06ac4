package io.jccl.launch;

import java.util.List;
import java.util.OptionalInt;

/** The outcome of a job: how each rank ended, what failed first, and the output of each rank when captured. */
public final class JobResult
{
    private final String jobId;
    private final List<RankExit> exits;
    private final int exitCode;
    private final int failedRank;
    private final boolean timedOut;
    private final List<String> summary;
    private final List<List<String>> output;

    JobResult(
        final String jobId,
        final List<RankExit> exits,
        final int exitCode,
        final int failedRank,
        final boolean timedOut,
        final List<String> summary,
        final List<List<String>> output)
    {
        this.jobId = jobId;
        this.exits = List.copyOf(exits);
        this.exitCode = exitCode;
        this.failedRank = failedRank;
        this.timedOut = timedOut;
        this.summary = List.copyOf(summary);
        this.output = output;
    }

    public String jobId()
    {
        return jobId;
    }

    public boolean succeeded()
    {
        return exitCode == 0;
    }

    /**
     * 0 when every rank exited with 0; otherwise the exit code of the first rank that failed (128 + n when it was
     * killed by signal n), {@link JobLauncher#TIMEOUT_EXIT_CODE} on timeout, {@link JobLauncher#INTERRUPTED_EXIT_CODE}
     * when the launching thread was interrupted.
     */
    public int exitCode()
    {
        return exitCode;
    }

    /** How each rank ended, indexed by rank. */
    public List<RankExit> exits()
    {
        return exits;
    }

    public int exitCode(final int rank)
    {
        return exits.get(rank).exitCode();
    }

    /** The first rank that failed on its own, if any (not one the launcher stopped). */
    public OptionalInt failedRank()
    {
        return failedRank < 0 ? OptionalInt.empty() : OptionalInt.of(failedRank);
    }

    public boolean timedOut()
    {
        return timedOut;
    }

    /** The launcher's report of the failure, one line each (empty on success), as printed to the output sink. */
    public List<String> summary()
    {
        return summary;
    }

    /**
     * The lines a rank wrote to stdout and stderr, in the order the launcher read them.
     *
     * @throws IllegalStateException unless the job was launched with output capture on.
     */
    public List<String> output(final int rank)
    {
        if (output == null)
        {
            throw new IllegalStateException("output was not captured: use JobLauncher.Builder.captureOutput(true)");
        }
        return output.get(rank);
    }

    @Override
    public String toString()
    {
        return "JobResult{job " + jobId + ", exit code " + exitCode + (summary.isEmpty() ? "" : ", " + summary) + "}";
    }
}
