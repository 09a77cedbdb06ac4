package io.jccl.jmh;

import io.jccl.Buf;
import io.jccl.Communicator;
import io.jccl.Configuration;
import io.jccl.Jccl;
import io.jccl.JcclException;
import io.jccl.launch.JobLauncher;
import io.jccl.shm.SegmentFiles;

import java.io.BufferedReader;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * The rank-0 side of a benchmark job: the JMH fork is rank 0, starts ranks 1..N-1 as separate JVMs ({@link Peer}),
 * and drives them in lockstep.
 * <p>
 * Protocol, per JMH invocation: rank 0 sends each peer a control message (a long: the number of operations to run,
 * {@link #OPS_PER_INVOCATION}), every rank runs that many operations, and each peer answers with an acknowledgement
 * once its last one is done. The invocation therefore measures K operations until every rank has finished them (a
 * root that only sends, as in broadcast, cannot run ahead of the others), and the benchmarks divide by K with
 * {@code @OperationsPerInvocation}, which amortises the two control messages (each about a one-way latency) to a
 * K-th. A control message of 0 means STOP: the peers leave the job and exit. Control messages are point-to-point
 * with their own tag, so they never mix with the benchmarked operation.
 * <p>
 * Nothing is left behind: {@link #close()} sends STOP, waits a few seconds for the peers to exit and kills those
 * that do not; a shutdown hook kills them if the fork exits without a teardown, and each peer exits by itself when
 * rank 0 dies (jccl reports the dead peer) or its parent process disappears. The job's segment is removed by jccl
 * once every rank has mapped it, and again here in case the job never got that far.
 */
final class LockstepJob implements AutoCloseable
{
    /** Operations per JMH invocation, on every rank. */
    static final int OPS_PER_INVOCATION = 64;
    /** Tag of the control messages (pingpong uses {@link Workload#PINGPONG_TAG}). */
    static final int CONTROL_TAG = 1;
    /** The control message that ends a peer. */
    static final long STOP = 0;

    /** JVM arguments of the fork that its peers get too: heap and GC choices. */
    private static final List<String> FORWARDED_JVM_ARG_PREFIXES =
        List.of("-Xms", "-Xmx", "-Xss", "-XX:+Use", "-XX:-Use");
    /** Settings that differ by rank: the environment gives each peer its own, never the fork's properties. */
    private static final Set<String> RANK_SETTINGS = Set.of(Configuration.RANK_PROP_NAME,
        Configuration.WORLD_SIZE_PROP_NAME, Configuration.JOB_ID_PROP_NAME);
    private static final long PEER_EXIT_WAIT_MS = 5_000;
    private static final long POLL_MS = 50;

    private final Workload workload;
    private final String jobId;
    private final Path segment;
    private final List<Process> peers = new ArrayList<>();
    private final Thread cleanupHook;
    private final Buf control = Buf.of(new long[] {OPS_PER_INVOCATION});
    private final Buf acknowledgement = Buf.of(new long[1]);
    private Communicator communicator;
    private Runnable operation;

    private LockstepJob(final Workload workload)
    {
        this.workload = workload;
        this.jobId = String.format("jmh-%08x", ThreadLocalRandom.current().nextInt());
        this.segment = SegmentFiles.path(Configuration.fromEnvironment(), jobId);
        this.cleanupHook = new Thread(this::killPeersAndSegment, "jccl-jmh-cleanup-" + jobId);
    }

    /** Starts the peers and joins the job with them; on failure nothing of the job remains. */
    static LockstepJob start(final Workload workload)
    {
        requireExports();
        final LockstepJob job = new LockstepJob(workload);
        Runtime.getRuntime().addShutdownHook(job.cleanupHook);
        try
        {
            job.startPeers();
            job.join();
            return job;
        }
        catch (final RuntimeException | Error ex)
        {
            job.killPeersAndSegment();
            job.removeCleanupHook();
            throw ex;
        }
    }

    /** One JMH invocation: {@link #OPS_PER_INVOCATION} operations on every rank. Allocation-free. */
    void invoke()
    {
        final Communicator communicator = this.communicator;
        final Runnable operation = this.operation;
        final Buf control = this.control;
        final Buf acknowledgement = this.acknowledgement;
        final int size = workload.ranks();

        // step 1: tell every peer how many operations to run
        for (int peer = 1; peer < size; peer++)
        {
            communicator.send(control, peer, CONTROL_TAG);
        }
        // step 2: run them; the peers run the same ones
        for (int i = 0; i < OPS_PER_INVOCATION; i++)
        {
            operation.run();
        }
        // step 3: wait until every peer has finished its last one
        for (int peer = 1; peer < size; peer++)
        {
            communicator.recv(acknowledgement, peer, CONTROL_TAG);
        }
    }

    /**
     * Sends STOP, leaves the job, waits for the peers to exit (killing those that do not within a few seconds) and
     * throws when one of them failed or had to be killed.
     */
    @Override
    public void close()
    {
        final List<String> problems = new ArrayList<>();
        if (communicator != null)
        {
            try
            {
                final Buf stop = Buf.of(new long[] {STOP});
                for (int peer = 1; peer < workload.ranks(); peer++)
                {
                    communicator.send(stop, peer, CONTROL_TAG);
                }
            }
            catch (final RuntimeException ex)
            {
                problems.add("could not send STOP: " + ex);
            }
            try
            {
                communicator.close();
            }
            catch (final RuntimeException ex)
            {
                problems.add("closing rank 0: " + ex);
            }
            communicator = null;
        }
        problems.addAll(awaitPeers());
        SegmentFiles.remove(segment);
        removeCleanupHook();
        if (!problems.isEmpty())
        {
            throw new JcclException("job " + jobId + " (" + workload + ") did not end cleanly: " +
                String.join("; ", problems));
        }
    }

    private static void requireExports()
    {
        if (!Object.class.getModule().isExported("jdk.internal.misc", LockstepJob.class.getModule()))
        {
            throw new IllegalStateException("this JVM lacks " + String.join(" ", JobLauncher.REQUIRED_JVM_ARGS) +
                ", which jccl needs (Agrona uses jdk.internal.misc.Unsafe). The benchmarks pass it to JMH's forks " +
                "with @Fork(jvmArgsPrepend): a -jvmArgsPrepend on the command line replaces that and must repeat it.");
        }
    }

    private void startPeers()
    {
        final List<String> command = peerCommand();
        for (int rank = 1; rank < workload.ranks(); rank++)
        {
            final ProcessBuilder builder = new ProcessBuilder(command).inheritIO()
                .redirectError(ProcessBuilder.Redirect.PIPE);
            final Map<String, String> env = builder.environment();
            env.put(Configuration.envName(Configuration.RANK_PROP_NAME), Integer.toString(rank));
            env.put(Configuration.envName(Configuration.WORLD_SIZE_PROP_NAME), Integer.toString(workload.ranks()));
            env.put(Configuration.envName(Configuration.JOB_ID_PROP_NAME), jobId);
            try
            {
                final Process peer = builder.start();
                peers.add(peer);
                forwardErrors(rank, peer);
            }
            catch (final IOException ex)
            {
                throw new JcclException("cannot start peer rank " + rank + " (" + command.get(0) + "): " + ex, ex);
            }
        }
    }

    /**
     * Copies a peer's stderr to this fork's, line by line, but for the warning a JVM with the incubating Vector API
     * prints at start, which would land in the middle of JMH's line for the first iteration.
     */
    private static void forwardErrors(final int rank, final Process peer)
    {
        final Thread thread = new Thread(() ->
        {
            try (BufferedReader reader = peer.errorReader())
            {
                String line;
                while ((line = reader.readLine()) != null)
                {
                    if (!line.equals(JobLauncher.INCUBATOR_WARNING))
                    {
                        System.err.println(line);
                    }
                }
            }
            catch (final IOException ex)
            {
                // the pipe is gone with the peer
            }
        }, "jccl-jmh-peer-" + rank + "-stderr");
        thread.setDaemon(true);
        thread.start();
    }

    /**
     * java of this JVM, the required export, the forwarded JVM arguments, this JVM's jccl settings (system
     * properties {@code jccl.*}, so that every rank runs with the same ones), the symmetric memory of a workload in
     * shared memory, this class path, the peer main.
     */
    private List<String> peerCommand()
    {
        final List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.addAll(JobLauncher.REQUIRED_JVM_ARGS);
        if (ModuleLayer.boot().findModule(JobLauncher.VECTOR_MODULE).isPresent())
        {
            // the peers reduce with the SIMD kernels whenever this fork does
            command.addAll(JobLauncher.VECTOR_JVM_ARGS);
        }
        for (final String arg : ManagementFactory.getRuntimeMXBean().getInputArguments())
        {
            if (FORWARDED_JVM_ARG_PREFIXES.stream().anyMatch(arg::startsWith))
            {
                command.add(arg);
            }
        }
        for (final String name : new TreeSet<>(System.getProperties().stringPropertyNames()))
        {
            if (name.startsWith("jccl.") && !RANK_SETTINGS.contains(name))
            {
                command.add("-D" + name + "=" + System.getProperty(name));
            }
        }
        if (workload.shared())
        {
            // as rank 0 sets it (the last -D wins): every rank must lay out the segment alike
            command.add("-D" + Configuration.SYMMETRIC_BYTES_PROP_NAME + "=" + workload.symmetricBytes());
        }
        command.add("-cp");
        command.add(System.getProperty("java.class.path"));
        command.add(Peer.class.getName());
        command.addAll(workload.peerArgs());
        return command;
    }

    /** Joins as rank 0, failing early when a peer dies before the job is complete. */
    private void join()
    {
        final Configuration.Builder builder = Configuration.builder()
            .rank(0)
            .worldSize(workload.ranks())
            .jobId(jobId);
        if (workload.shared())
        {
            builder.set(Configuration.SYMMETRIC_BYTES_PROP_NAME, Long.toString(workload.symmetricBytes()));
        }
        final Configuration configuration = builder.build();
        final CompletableFuture<Communicator> joined = new CompletableFuture<>();
        final Thread connector = new Thread(() ->
        {
            try
            {
                joined.complete(Jccl.connect(configuration));
            }
            catch (final Throwable ex)
            {
                joined.completeExceptionally(ex);
            }
        }, "jccl-jmh-connect-" + jobId);
        connector.setDaemon(true);
        connector.start();
        while (communicator == null)
        {
            try
            {
                communicator = joined.get(POLL_MS, TimeUnit.MILLISECONDS);
            }
            catch (final TimeoutException ex)
            {
                for (int i = 0; i < peers.size(); i++)
                {
                    if (!peers.get(i).isAlive())
                    {
                        throw new JcclException("peer rank " + (i + 1) + " of " + workload + " exited with code " +
                            peers.get(i).exitValue() + " before the job started (its output is above)");
                    }
                }
            }
            catch (final ExecutionException ex)
            {
                throw new JcclException("rank 0 could not join job " + jobId + " (" + workload + "): " +
                    ex.getCause(), ex.getCause());
            }
            catch (final InterruptedException ex)
            {
                Thread.currentThread().interrupt();
                throw new JcclException("interrupted while starting job " + jobId, ex);
            }
        }
        operation = workload.operation(communicator);
    }

    /** Waits up to {@link #PEER_EXIT_WAIT_MS} for all peers, kills the rest; returns what went wrong. */
    private List<String> awaitPeers()
    {
        final List<String> problems = new ArrayList<>();
        final long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(PEER_EXIT_WAIT_MS);
        for (int i = 0; i < peers.size(); i++)
        {
            final Process peer = peers.get(i);
            final int rank = i + 1;
            try
            {
                if (!peer.waitFor(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS))
                {
                    peer.destroyForcibly().waitFor(PEER_EXIT_WAIT_MS, TimeUnit.MILLISECONDS);
                    problems.add("peer rank " + rank + " did not exit within " + PEER_EXIT_WAIT_MS + " ms: killed");
                }
                else if (peer.exitValue() != 0)
                {
                    problems.add("peer rank " + rank + " exited with code " + peer.exitValue());
                }
            }
            catch (final InterruptedException ex)
            {
                Thread.currentThread().interrupt();
                peer.destroyForcibly();
                problems.add("interrupted while waiting for peer rank " + rank + ": killed");
            }
        }
        return problems;
    }

    private void killPeersAndSegment()
    {
        for (final Process peer : peers)
        {
            peer.destroyForcibly();
        }
        SegmentFiles.remove(segment);
    }

    private void removeCleanupHook()
    {
        try
        {
            Runtime.getRuntime().removeShutdownHook(cleanupHook);
        }
        catch (final IllegalStateException ignore)
        {
            // the JVM is already shutting down and runs the hook
        }
    }
}
