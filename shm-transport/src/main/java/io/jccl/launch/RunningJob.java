package io.jccl.launch;

import io.jccl.JcclException;
import io.jccl.shm.ProcessStates;
import io.jccl.shm.SegmentFiles;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.nio.charset.Charset;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * One run of a {@link JobLauncher}: the rank processes, the threads forwarding their output, and the rules for
 * stopping them. The launching thread waits in {@link #await()}; a JVM shutdown hook may call {@link #shutDown()}
 * at any time, so everything that touches the processes is synchronized and idempotent.
 */
final class RunningJob
{
    /** Longest wait for the last output of exited ranks (a grandchild may hold their pipes open). */
    private static final long FORWARDER_JOIN_NS = TimeUnit.SECONDS.toNanos(2);
    private static final int SIGTERM = 15;
    private static final int SIGKILL = 9;
    /** How often the launcher looks at the state of the ranks still running once others have exited. */
    private static final long STOPPED_CHECK_NS = TimeUnit.MILLISECONDS.toNanos(200);

    private final JobLauncher launcher;
    private final ClassDataArchive archive;
    private final int ranks;
    private final OutputSink sink;
    private final Process[] processes;
    private final boolean[] stopRequested;
    /** Ranks found stopped (SIGSTOP) when the job was stopped: they cannot act on SIGTERM and got SIGKILL. */
    private final boolean[] killedStopped;
    private final List<List<String>> captured;
    private final List<Thread> forwarders = new ArrayList<>();
    private final BlockingQueue<Integer> exitedRanks = new LinkedBlockingQueue<>();
    private final Charset charset = outputCharset();

    private volatile boolean shuttingDown;
    private boolean stopping;
    private boolean forced;
    private long killAtNs;
    /** Since when every rank still running has been stopped by a signal; Long.MIN_VALUE when they are not. */
    private long remainderStoppedSinceNs = Long.MIN_VALUE;

    RunningJob(final JobLauncher launcher, final ClassDataArchive archive)
    {
        this.launcher = launcher;
        this.archive = archive;
        this.ranks = launcher.ranks();
        this.sink = launcher.sink();
        this.processes = new Process[ranks];
        this.stopRequested = new boolean[ranks];
        this.killedStopped = new boolean[ranks];
        if (launcher.captureOutput())
        {
            captured = new ArrayList<>(ranks);
            for (int rank = 0; rank < ranks; rank++)
            {
                captured.add(Collections.synchronizedList(new ArrayList<>()));
            }
        }
        else
        {
            captured = null;
        }
    }

    /** Starts every rank with its environment, its stdin closed, and a forwarder on stdout and stderr. */
    void start()
    {
        for (int rank = 0; rank < ranks; rank++)
        {
            final List<String> command = launcher.command(archive.jvmArgs(rank));
            final ProcessBuilder builder = new ProcessBuilder(command);
            builder.environment().putAll(launcher.environment(rank));
            final Process process;
            synchronized (this)
            {
                // under the lock of stopAll(): a shutdown hook either sees this rank or stops the start
                if (shuttingDown)
                {
                    throw new JcclException("the launcher is shutting down: rank " + rank + " not started");
                }
                try
                {
                    process = builder.start();
                }
                catch (final IOException ex)
                {
                    throw new JcclException("cannot start rank " + rank + " with " + command.get(0) + ": " +
                        ex.getMessage(), ex);
                }
                processes[rank] = process;
            }
            try
            {
                process.getOutputStream().close();
            }
            catch (final IOException ignore)
            {
                // stdin is not used; a rank reading it sees end of file either way
            }
            forward(rank, OutputSink.Source.STDOUT, process.getInputStream());
            forward(rank, OutputSink.Source.STDERR, process.getErrorStream());
            watchExit(rank, process);
        }
    }

    /**
     * Waits for every rank to exit. The first rank to exit non-zero, the timeout, an interrupt of this thread, or
     * ranks left stopped (SIGSTOP) after the others exited stop the others: SIGTERM first, SIGKILL after the grace
     * period (at once for a stopped rank).
     */
    JobResult await()
    {
        final Duration timeout = launcher.timeout();
        final long deadlineNs = timeout == null ? Long.MAX_VALUE : System.nanoTime() + timeout.toNanos();
        final int[] exitCodes = new int[ranks];
        final List<Integer> exitOrder = new ArrayList<>(ranks);
        int failedRank = -1;
        boolean timedOut = false;
        boolean interrupted = false;
        boolean leftStopped = false;

        long reportUntilNs = Long.MAX_VALUE;
        while (exitOrder.size() < ranks)
        {
            long waitUntilNs = !stopping ? Math.min(deadlineNs, reportUntilNs) : forced ? Long.MAX_VALUE :
                killAtNs;
            if (!stopping && !exitOrder.isEmpty())
            {
                // some ranks are done: look now and then whether the rest are stopped and can never finish
                waitUntilNs = Math.min(waitUntilNs, System.nanoTime() + STOPPED_CHECK_NS);
            }
            final Integer rank;
            try
            {
                rank = waitUntilNs == Long.MAX_VALUE ? exitedRanks.take() :
                    exitedRanks.poll(waitUntilNs - System.nanoTime(), TimeUnit.NANOSECONDS);
            }
            catch (final InterruptedException ex)
            {
                interrupted = true;
                beginStop();
                continue;
            }

            if (rank == null)
            {
                final long now = System.nanoTime();
                if (stopping)
                {
                    // the grace period is over: whoever is left is killed
                    killAll();
                    forced = true;
                }
                else if (reportUntilNs != Long.MAX_VALUE && now - reportUntilNs >= 0)
                {
                    // the survivors had their chance to report the failure themselves
                    beginStop();
                }
                else if (deadlineNs != Long.MAX_VALUE && now - deadlineNs >= 0)
                {
                    // the job ran past its timeout
                    timedOut = true;
                    beginStop();
                }
                else
                {
                    final int stoppedRank = lowestIfAllStopped();
                    if (stoppedRank < 0)
                    {
                        remainderStoppedSinceNs = Long.MIN_VALUE;
                    }
                    else if (failedRank >= 0)
                    {
                        // after a failure, a stopped rank will not report anything: no need to wait out the grace
                        beginStop();
                    }
                    else if (remainderStoppedSinceNs == Long.MIN_VALUE)
                    {
                        remainderStoppedSinceNs = now;
                    }
                    else if (now - remainderStoppedSinceNs >= launcher.failureGrace().toNanos())
                    {
                        // the others exited and the rest stay stopped: nothing will continue them
                        failedRank = stoppedRank;
                        leftStopped = true;
                        beginStop();
                    }
                }
                continue;
            }

            final int exitCode = processes[rank].exitValue();
            exitCodes[rank] = exitCode;
            exitOrder.add(rank);
            if (exitCode != 0 && !stopping && failedRank < 0)
            {
                if (shuttingDown)
                {
                    beginStop();
                }
                else
                {
                    // The first failure: the job cannot finish without this rank. The survivors get a moment to
                    // notice (jccl names the failed peer within its liveness interval) and exit with their own
                    // error before they are stopped.
                    failedRank = rank;
                    reportUntilNs = System.nanoTime() + launcher.failureGrace().toNanos();
                }
            }
        }

        joinForwarders();
        final List<RankExit> exits = new ArrayList<>(ranks);
        for (int rank = 0; rank < ranks; rank++)
        {
            exits.add(new RankExit(rank, exitCodes[rank], wasStopped(rank)));
        }
        final boolean stoppedFromOutside = interrupted || shuttingDown;
        final List<String> summary = summarize(exits, exitOrder, failedRank, leftStopped, timedOut,
            stoppedFromOutside);
        if (!shuttingDown)
        {
            // else the shutdown hook reports, before the JVM ends
            summary.forEach(sink::launcherLine);
        }
        final int exitCode = failedRank >= 0 ? exitCodes[failedRank] : timedOut ? JobLauncher.TIMEOUT_EXIT_CODE :
            stoppedFromOutside ? JobLauncher.INTERRUPTED_EXIT_CODE : 0;
        if (interrupted)
        {
            Thread.currentThread().interrupt();
        }
        return new JobResult(launcher.jobId(), exits, exitCode, failedRank, timedOut, summary, capturedOutput());
    }

    /** After {@link #await()} or a failed {@link #start()}: stops whatever still runs and removes the segment. */
    void cleanUp()
    {
        stopAndWait();
        removeSegment();
    }

    /** The JVM of the launcher is shutting down (Ctrl-C, SIGTERM): stop the job and remove its segment. */
    void shutDown()
    {
        shuttingDown = true;
        final List<Integer> stopped = stopAndWait();
        if (!stopped.isEmpty())
        {
            sink.launcherLine("launcher shutting down: stopped " + ranksText(stopped) + " of job " +
                launcher.jobId());
        }
        removeSegment();
    }

    /**
     * The lowest rank still running when every rank still running is stopped by a signal (SIGSTOP), else -1. A
     * process held by a debugger ('t') does not count as stopped.
     */
    private synchronized int lowestIfAllStopped()
    {
        int lowest = -1;
        for (int rank = 0; rank < ranks; rank++)
        {
            final Process process = processes[rank];
            if (process != null && process.isAlive())
            {
                if (!ProcessStates.isStoppedBySignal(process.pid()))
                {
                    return -1;
                }
                lowest = lowest < 0 ? rank : lowest;
            }
        }
        return lowest;
    }

    /**
     * Removes the job's segment and its sub-communicators' segments; a file of the same name made by a live process
     * outside this job stays.
     */
    private void removeSegment()
    {
        final long foreignCreator = SegmentFiles.removeUnlessCreatorAlive(launcher.segmentPath());
        if (foreignCreator >= 0)
        {
            sink.launcherLine("kept " + launcher.segmentPath() + ": it was created by pid " + foreignCreator +
                ", a live process outside this job (job id " + launcher.jobId() + " is in use twice)");
        }
    }

    private void beginStop()
    {
        if (!stopping)
        {
            stopping = true;
            killAtNs = System.nanoTime() + launcher.stopGrace().toNanos();
            stopAll();
        }
    }

    private List<Integer> stopAndWait()
    {
        final List<Integer> stopped = stopAll();
        if (!stopped.isEmpty() && !waitForExit(launcher.stopGrace().toNanos()))
        {
            killAll();
            waitForExit(launcher.stopGrace().toNanos());
        }
        return stopped;
    }

    /** SIGTERM to every live rank and its children; returns the ranks that were still alive. */
    private synchronized List<Integer> stopAll()
    {
        final List<Integer> alive = new ArrayList<>();
        for (int rank = 0; rank < ranks; rank++)
        {
            final Process process = processes[rank];
            if (process != null && process.isAlive())
            {
                stopRequested[rank] = true;
                process.descendants().forEach(ProcessHandle::destroy);
                if (ProcessStates.isStopped(process.pid()))
                {
                    // a stopped process would keep SIGTERM pending until it is continued: no grace to wait out
                    killedStopped[rank] = true;
                    process.toHandle().destroyForcibly();
                }
                else
                {
                    // through the handle: Process.destroy() would also close the pipes we still read from
                    process.toHandle().destroy();
                }
                alive.add(rank);
            }
        }
        return alive;
    }

    /** SIGKILL to every live rank and its children. */
    private synchronized void killAll()
    {
        for (final Process process : processes)
        {
            if (process != null && process.isAlive())
            {
                process.descendants().forEach(ProcessHandle::destroyForcibly);
                process.toHandle().destroyForcibly();
            }
        }
    }

    private synchronized boolean wasStopped(final int rank)
    {
        return stopRequested[rank];
    }

    private synchronized boolean wasKilledWhileStopped(final int rank)
    {
        return killedStopped[rank];
    }

    private boolean waitForExit(final long timeoutNs)
    {
        final long deadlineNs = System.nanoTime() + timeoutNs;
        final Process[] snapshot;
        synchronized (this)
        {
            snapshot = processes.clone();
        }
        try
        {
            for (final Process process : snapshot)
            {
                if (process != null && !process.waitFor(deadlineNs - System.nanoTime(), TimeUnit.NANOSECONDS))
                {
                    return false;
                }
            }
            return true;
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    /**
     * Reports the rank's exit from a thread of its own. Not {@code Process.onExit()}: its completion runs in the
     * common ForkJoinPool, which may have a single worker on a small machine, and that worker may be the thread
     * waiting in {@link #await()} (a launcher started from a parallel stream or {@code supplyAsync}): no exit would
     * ever be reported.
     */
    private void watchExit(final int rank, final Process process)
    {
        final Thread thread = new Thread(
            () ->
            {
                while (true)
                {
                    try
                    {
                        process.waitFor();
                        exitedRanks.add(rank);
                        return;
                    }
                    catch (final InterruptedException ex)
                    {
                        // nobody interrupts this thread on purpose: keep waiting for the exit
                    }
                }
            },
            "jccl-rank-" + rank + "-exit");
        thread.setDaemon(true);
        thread.start();
    }

    private void forward(final int rank, final OutputSink.Source source, final InputStream stream)
    {
        final List<String> capture = captured == null ? null : captured.get(rank);
        final Thread thread = new Thread(
            () ->
            {
                try (BufferedReader reader = new BufferedReader(new InputStreamReader(stream, charset)))
                {
                    String line;
                    while ((line = reader.readLine()) != null)
                    {
                        if (source == OutputSink.Source.STDERR && line.equals(JobLauncher.INCUBATOR_WARNING))
                        {
                            continue;
                        }
                        if (capture != null)
                        {
                            capture.add(line);
                        }
                        try
                        {
                            sink.rankLine(rank, source, line);
                        }
                        catch (final RuntimeException ex)
                        {
                            // keep draining: a rank blocks on a full pipe when nobody reads it
                        }
                    }
                }
                catch (final IOException ex)
                {
                    // the pipe is gone with the rank
                }
            },
            "jccl-rank-" + rank + "-" + source.name().toLowerCase(Locale.ROOT));
        thread.setDaemon(true);
        thread.start();
        forwarders.add(thread);
    }

    private void joinForwarders()
    {
        final long deadlineNs = System.nanoTime() + FORWARDER_JOIN_NS;
        try
        {
            for (final Thread thread : forwarders)
            {
                final long remainingNs = deadlineNs - System.nanoTime();
                if (remainingNs > 0)
                {
                    thread.join(Duration.ofNanos(remainingNs));
                }
            }
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
        }
    }

    private List<String> summarize(
        final List<RankExit> exits,
        final List<Integer> exitOrder,
        final int failedRank,
        final boolean leftStopped,
        final boolean timedOut,
        final boolean interrupted)
    {
        final List<String> lines = new ArrayList<>();
        final String job = "job " + launcher.jobId();
        if (failedRank >= 0 && leftStopped)
        {
            lines.add(job + " failed: rank " + failedRank + " was stopped (SIGSTOP) after other ranks had exited, " +
                "so it could never finish: killed it (SIGKILL)");
        }
        else if (failedRank >= 0)
        {
            lines.add(job + " failed: " + exits.get(failedRank).describe());
        }
        else if (timedOut)
        {
            lines.add(job + " timed out after " + seconds(launcher.timeout()));
        }
        else if (interrupted)
        {
            lines.add(job + " interrupted");
        }
        else
        {
            return lines;
        }

        final List<Integer> terminated = new ArrayList<>();
        final List<Integer> killed = new ArrayList<>();
        final List<Integer> killedWhileStopped = new ArrayList<>();
        for (final int rank : exitOrder)
        {
            final RankExit exit = exits.get(rank);
            if (rank == failedRank || exit.succeeded())
            {
                continue;
            }
            final int signal = RankExit.signal(exit.exitCode());
            if (exit.stoppedByLauncher() && signal == SIGTERM)
            {
                terminated.add(rank);
            }
            else if (exit.stoppedByLauncher() && signal == SIGKILL)
            {
                (wasKilledWhileStopped(rank) ? killedWhileStopped : killed).add(rank);
            }
            else
            {
                lines.add(exit.describe());
            }
        }
        if (!terminated.isEmpty())
        {
            lines.add("stopped " + ranksText(terminated) + " (SIGTERM)");
        }
        if (!killedWhileStopped.isEmpty())
        {
            lines.add("killed " + ranksText(killedWhileStopped) + " (SIGKILL: stopped by a signal such as SIGSTOP, " +
                "so SIGTERM could not end it)");
        }
        if (!killed.isEmpty())
        {
            lines.add("killed " + ranksText(killed) + " (SIGKILL: still running " + seconds(launcher.stopGrace()) +
                " after SIGTERM)");
        }
        return lines;
    }

    private List<List<String>> capturedOutput()
    {
        if (captured == null)
        {
            return null;
        }
        final List<List<String>> copy = new ArrayList<>(ranks);
        for (final List<String> lines : captured)
        {
            synchronized (lines)
            {
                copy.add(List.copyOf(lines));
            }
        }
        return copy;
    }

    private static String ranksText(final List<Integer> ranks)
    {
        final List<Integer> sorted = new ArrayList<>(ranks);
        Collections.sort(sorted);
        final StringBuilder text = new StringBuilder(sorted.size() == 1 ? "rank " : "ranks ");
        for (int i = 0; i < sorted.size(); i++)
        {
            text.append(i == 0 ? "" : ", ").append(sorted.get(i));
        }
        return text.toString();
    }

    private static String seconds(final Duration duration)
    {
        final long millis = duration.toMillis();
        return millis % 1000 == 0 ? (millis / 1000) + " s" : String.format(Locale.ROOT, "%.1f s", millis / 1000.0);
    }

    /** Ranks write with their native encoding when their output is a pipe; read it back the same way. */
    private static Charset outputCharset()
    {
        try
        {
            return Charset.forName(System.getProperty("native.encoding"));
        }
        catch (final IllegalArgumentException ex)
        {
            return Charset.defaultCharset();
        }
    }
}
