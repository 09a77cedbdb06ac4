package io.jccl.launch;

import io.jccl.Configuration;
import io.jccl.shm.JvmOptionVariables;
import io.jccl.shm.SegmentFiles;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.jar.Attributes;
import java.util.jar.JarFile;
import java.util.jar.Manifest;

/**
 * Starts a job the way {@code mpirun} does: N rank JVMs on this machine, each told its rank, the world size and the
 * job id through {@code JCCL_RANK}, {@code JCCL_WORLD_SIZE}, {@code JCCL_JOB_ID} (and {@code JCCL_SHM_DIR} when a
 * segment directory is set), with the {@code --add-exports} every jccl JVM needs, and from a class-data archive where
 * one can be made ({@link ClassDataArchive}). Every line a rank writes is forwarded to the {@link OutputSink} with its
 * rank. When a rank fails the launcher stops the others, reports who failed and how, and returns a non-zero result;
 * whatever happens (success, failure, timeout, interrupt, or the launcher's own JVM shutting down on Ctrl-C) it removes
 * the job's segment.
 * <pre>
 *   final JobResult result = JobLauncher.builder()
 *       .ranks(4).mainClass("com.example.Train").args("--epochs", "3").timeout(Duration.ofMinutes(5))
 *       .build().run();
 * </pre>
 */
public final class JobLauncher
{
    /**
     * Agrona 2 reaches {@code jdk.internal.misc.Unsafe}: every JVM that runs jccl needs this export. Single-copy
     * transfers call the kernel through the foreign-function API, which warns once without native access.
     */
    public static final List<String> REQUIRED_JVM_ARGS =
        List.of("--add-exports", "java.base/jdk.internal.misc=ALL-UNNAMED", "--enable-native-access=ALL-UNNAMED");
    /** The incubating module of the SIMD reduction kernels for off-heap operands (Java 22+). */
    public static final String VECTOR_MODULE = "jdk.incubator.vector";
    /**
     * The class of the SIMD reduction kernels, whose compilation {@link #VECTOR_JVM_ARGS} hasten (core's
     * {@code OffHeapReductions.IMPLEMENTATION}, which this module cannot see; {@code VectorKernelsJitTest} fails if
     * they part).
     */
    public static final String VECTOR_KERNELS_CLASS = "io.jccl.spi.VectorApiReductions";
    /** Keeps the JVM from echoing each {@code CompileCommand} on stdout; must come before them. */
    public static final String QUIET_COMPILE_COMMANDS = "-XX:CompileCommand=quiet";
    /** The SIMD kernels' invocation and loop thresholds for each JIT tier: a thousandth of the defaults. */
    public static final String VECTOR_KERNELS_EARLY_JIT =
        "-XX:CompileCommand=CompileThresholdScaling," + VECTOR_KERNELS_CLASS + "::*,0.001";
    /** The calling thread waits for a SIMD kernel's compilation instead of running it uncompiled meanwhile. */
    public static final String VECTOR_KERNELS_BLOCKING_JIT =
        "-XX:CompileCommand=BackgroundCompilation," + VECTOR_KERNELS_CLASS + "::*,false";
    /**
     * Added to a rank's command when its Java runtime has {@link #VECTOR_MODULE} (a jlinked runtime may not, and then
     * the option would stop the JVM at start): without the module, reductions of off-heap memory take the array
     * kernels.
     * <p>
     * Then the kernels are compiled at once. Until C2 compiles a kernel's loop, every vector operation runs the Vector
     * API's Java fallback, lane by lane through memory-segment accessors: some 50 µs a loop iteration interpreted and
     * 2 µs in C1, against nanoseconds in C2. With the default thresholds C2 waits for tens of thousands of iterations
     * and meanwhile compiles the Vector API's own methods one by one: a fresh 2-rank job's first 1 MiB allreduce took
     * 0.5-1.0 s and its kernel was warm after 1-1.5 s. With these the first call of a kernel compiles it in C1 and then
     * C2, waiting for each, and runs it compiled (PERFORMANCE.md, session 42).
     */
    public static final List<String> VECTOR_JVM_ARGS = List.of("--add-modules", VECTOR_MODULE,
        QUIET_COMPILE_COMMANDS, VECTOR_KERNELS_EARLY_JIT, VECTOR_KERNELS_BLOCKING_JIT);
    /** What a JVM started with {@link #VECTOR_JVM_ARGS} prints first on stderr; ranks' copies of it are dropped. */
    public static final String INCUBATOR_WARNING = "WARNING: Using incubator modules: " + VECTOR_MODULE;
    /**
     * The launcher's environment variable naming the directory of the ranks' class-data archives; {@code off} turns
     * them off.
     */
    public static final String CLASS_DATA_ARCHIVES_ENV = ClassDataArchive.DIR_ENV;
    /** The file name extension of the class-data archives. */
    public static final String CLASS_DATA_ARCHIVE_EXTENSION = ClassDataArchive.EXTENSION;
    /** Result exit code when the job ran past its timeout (as {@code timeout(1)} reports it). */
    public static final int TIMEOUT_EXIT_CODE = 124;
    /** Result exit code when the launching thread was interrupted (as a shell reports SIGINT). */
    public static final int INTERRUPTED_EXIT_CODE = 130;
    /** How long stopped ranks get to exit after SIGTERM before they are killed with SIGKILL. */
    public static final Duration DEFAULT_STOP_GRACE = Duration.ofSeconds(2);
    /** After a rank fails, how long the others may take to notice and exit with their own error. */
    public static final Duration DEFAULT_FAILURE_GRACE = Duration.ofSeconds(1);

    private final int ranks;
    private final String mainClass;
    private final List<String> args;
    private final List<String> jvmArgs;
    private final String classPath;
    private final Path javaExecutable;
    /** {@link #rankJvmArgs} of {@link #javaExecutable}, read once (the runtime's release file). */
    private final List<String> jcclJvmArgs;
    private final Map<String, String> environment;
    private final String jobId;
    private final Path shmDir;
    private final OutputSink sink;
    private final boolean captureOutput;
    private final Duration timeout;
    private final Duration stopGrace;
    private final Duration failureGrace;
    private final Path classDataArchives;

    private JobLauncher(final Builder builder, final String mainClass, final String classPath, final Path shmDir)
    {
        this.ranks = builder.ranks;
        this.mainClass = mainClass;
        this.args = List.copyOf(builder.args);
        this.jvmArgs = List.copyOf(builder.jvmArgs);
        this.classPath = classPath;
        this.javaExecutable = builder.javaExecutable;
        this.jcclJvmArgs = rankJvmArgs(javaExecutable);
        this.environment = Map.copyOf(builder.environment);
        this.jobId = builder.jobId;
        this.shmDir = shmDir;
        this.sink = builder.sink;
        this.captureOutput = builder.captureOutput;
        this.timeout = builder.timeout;
        this.stopGrace = builder.stopGrace;
        this.failureGrace = builder.failureGrace;
        this.classDataArchives = builder.classDataArchives;
    }

    public static Builder builder()
    {
        return new Builder();
    }

    /** A fresh job id: 8 random hex digits. */
    public static String newJobId()
    {
        return String.format("%08x", new SecureRandom().nextInt());
    }

    public int ranks()
    {
        return ranks;
    }

    public String jobId()
    {
        return jobId;
    }

    public String mainClass()
    {
        return mainClass;
    }

    public String classPath()
    {
        return classPath;
    }

    /** The segment directory given to the ranks, or null when they use their default. */
    public Path shmDir()
    {
        return shmDir;
    }

    /** The timeout of the whole job, or null for none. */
    public Duration timeout()
    {
        return timeout;
    }

    Duration stopGrace()
    {
        return stopGrace;
    }

    Duration failureGrace()
    {
        return failureGrace;
    }

    OutputSink sink()
    {
        return sink;
    }

    boolean captureOutput()
    {
        return captureOutput;
    }

    /** The directory of the ranks' class-data archives, or null when they use none. */
    public Path classDataArchives()
    {
        return classDataArchives;
    }

    /**
     * The default directory of the ranks' class-data archives: {@value #CLASS_DATA_ARCHIVES_ENV} when set (null when
     * it is {@code off} or empty), else {@code $XDG_CACHE_HOME/jccl/cds}, else {@code ~/.cache/jccl/cds}.
     */
    public static Path defaultClassDataArchives()
    {
        return ClassDataArchive.defaultDirectory();
    }

    /** The class-data archive of a job about to start: the one to map, or the one rank 0 writes. */
    ClassDataArchive classDataArchive()
    {
        final List<String> rankArgs = new ArrayList<>(jcclJvmArgs);
        rankArgs.addAll(jvmArgs);
        rankArgs.addAll(JvmOptionVariables.options(
            variable -> environment.getOrDefault(variable, System.getenv(variable))));
        return ClassDataArchive.forJob(classDataArchives, javaExecutable, classPath, rankArgs, jobId);
    }

    /**
     * The command line a rank is started with: java, JVM arguments (jccl's, the class-data archive's, the user's),
     * class path, main class, arguments.
     */
    List<String> command(final List<String> archiveArgs)
    {
        final List<String> command = new ArrayList<>();
        command.add(javaExecutable.toString());
        command.addAll(jcclJvmArgs);
        command.addAll(archiveArgs);
        command.addAll(jvmArgs);
        command.add("-cp");
        command.add(classPath);
        command.add(mainClass);
        command.addAll(args);
        return command;
    }

    /**
     * The JVM arguments jccl needs in every rank started with {@code javaExecutable} (its {@code bin/java}):
     * {@link #REQUIRED_JVM_ARGS}, and {@link #VECTOR_JVM_ARGS} when that runtime has the module.
     */
    public static List<String> rankJvmArgs(final Path javaExecutable)
    {
        final List<String> args = new ArrayList<>(REQUIRED_JVM_ARGS);
        if (hasVectorModule(javaExecutable))
        {
            args.addAll(VECTOR_JVM_ARGS);
        }
        return args;
    }

    /**
     * Whether the Java runtime of {@code javaExecutable} (its {@code bin/java}) has {@link #VECTOR_MODULE}, as the
     * {@code MODULES} line of the runtime's {@code release} file lists it; false when the file cannot be read.
     */
    public static boolean hasVectorModule(final Path javaExecutable)
    {
        final Path home = runtimeHome(javaExecutable);
        if (home == null)
        {
            return false;
        }
        try
        {
            for (final String line : Files.readAllLines(home.resolve("release")))
            {
                if (line.startsWith("MODULES="))
                {
                    return List.of(line.substring("MODULES=".length()).replace("\"", "").trim().split("\\s+"))
                        .contains(VECTOR_MODULE);
                }
            }
        }
        catch (final IOException | RuntimeException ex)
        {
            // no readable release file: leave the module out, the JVM starts either way
        }
        return false;
    }

    /** The Java runtime whose {@code bin/java} is {@code javaExecutable}; null when the path has no such parents. */
    static Path runtimeHome(final Path javaExecutable)
    {
        final Path bin = javaExecutable.toAbsolutePath().getParent();
        return bin == null ? null : bin.getParent();
    }

    /** What the launcher adds to the inherited environment of {@code rank}. */
    public Map<String, String> environment(final int rank)
    {
        final Map<String, String> env = new LinkedHashMap<>(environment);
        env.put(Configuration.envName(Configuration.RANK_PROP_NAME), Integer.toString(rank));
        env.put(Configuration.envName(Configuration.WORLD_SIZE_PROP_NAME), Integer.toString(ranks));
        env.put(Configuration.envName(Configuration.JOB_ID_PROP_NAME), jobId);
        if (shmDir != null)
        {
            env.put(Configuration.envName(Configuration.SHM_DIR_PROP_NAME), shmDir.toString());
        }
        return env;
    }

    /** The job's segment file, the one removed when the job ends. */
    public Path segmentPath()
    {
        final Configuration configuration = shmDir == null ? Configuration.fromEnvironment() :
            Configuration.builder().set(Configuration.SHM_DIR_PROP_NAME, shmDir.toString()).build();
        return SegmentFiles.path(configuration, jobId);
    }

    /**
     * Runs the job to its end and reports how it went; the failure summary has already gone to the output sink.
     *
     * @throws io.jccl.JcclException when a rank cannot be started (the ranks already started are stopped).
     */
    public JobResult run()
    {
        final ClassDataArchive archive = classDataArchive();
        final RunningJob job = new RunningJob(this, archive);
        final Thread shutdownHook = new Thread(job::shutDown, "jccl-launcher-shutdown");
        Runtime.getRuntime().addShutdownHook(shutdownHook);
        boolean rank0Succeeded = false;
        try
        {
            job.start();
            final JobResult result = job.await();
            rank0Succeeded = result.exitCode(0) == 0;
            return result;
        }
        finally
        {
            job.cleanUp();
            archive.finish(rank0Succeeded);
            try
            {
                Runtime.getRuntime().removeShutdownHook(shutdownHook);
            }
            catch (final IllegalStateException ex)
            {
                // the JVM is already shutting down: the hook is running or has run
            }
        }
    }

    /** Settings of a job; {@link #ranks(int)} and either {@link #mainClass(String)} or {@link #jar(Path)} required. */
    public static final class Builder
    {
        private int ranks;
        private String mainClass;
        private Path jar;
        private final List<String> args = new ArrayList<>();
        private final List<String> jvmArgs = new ArrayList<>();
        private String classPath = System.getProperty("java.class.path");
        private Path javaExecutable = Path.of(System.getProperty("java.home"), "bin", "java");
        private final Map<String, String> environment = new LinkedHashMap<>();
        private String jobId;
        private Path shmDir;
        private OutputSink sink = OutputSink.console();
        private boolean captureOutput;
        private Duration timeout;
        private Duration stopGrace = DEFAULT_STOP_GRACE;
        private Duration failureGrace = DEFAULT_FAILURE_GRACE;
        private Path classDataArchives = ClassDataArchive.defaultDirectory();

        private Builder()
        {
        }

        /** Number of ranks (JVMs) to start, at least 1. */
        public Builder ranks(final int ranks)
        {
            this.ranks = ranks;
            return this;
        }

        /** The class whose {@code main} every rank runs. */
        public Builder mainClass(final String mainClass)
        {
            this.mainClass = mainClass;
            return this;
        }

        /** A jar to run: its manifest's Main-Class is the main class, and the jar joins the class path. */
        public Builder jar(final Path jar)
        {
            this.jar = jar;
            return this;
        }

        /** Arguments of the main method, the same for every rank. */
        public Builder args(final String... args)
        {
            return args(Arrays.asList(args));
        }

        public Builder args(final List<String> args)
        {
            this.args.addAll(args);
            return this;
        }

        /** Extra JVM arguments (after the required {@code --add-exports}), e.g. {@code -Xmx2g}. */
        public Builder jvmArgs(final String... jvmArgs)
        {
            return jvmArgs(Arrays.asList(jvmArgs));
        }

        public Builder jvmArgs(final List<String> jvmArgs)
        {
            this.jvmArgs.addAll(jvmArgs);
            return this;
        }

        /** The ranks' class path; default: this JVM's {@code java.class.path}. */
        public Builder classPath(final String classPath)
        {
            this.classPath = classPath;
            return this;
        }

        /** The java launcher; default: the one of this JVM ({@code java.home/bin/java}). */
        public Builder javaExecutable(final Path javaExecutable)
        {
            this.javaExecutable = javaExecutable;
            return this;
        }

        /** An environment variable for every rank, on top of the inherited environment. */
        public Builder environment(final String name, final String value)
        {
            this.environment.put(name, value);
            return this;
        }

        /** Job id naming the job's segment: 1-64 of [A-Za-z0-9_.-]; default: {@link #newJobId()}. */
        public Builder jobId(final String jobId)
        {
            this.jobId = jobId;
            return this;
        }

        /**
         * Directory of the job's segment, passed to the ranks as {@code JCCL_SHM_DIR}; default: the launcher's own
         * {@code jccl.shm.dir} / {@code JCCL_SHM_DIR} when set, else the ranks' default (/dev/shm).
         */
        public Builder shmDir(final Path shmDir)
        {
            this.shmDir = shmDir;
            return this;
        }

        /** Where the ranks' output and the launcher's report go; default: {@link OutputSink#console()}. */
        public Builder outputSink(final OutputSink sink)
        {
            this.sink = sink;
            return this;
        }

        /** Also keep every rank's output lines in the {@link JobResult} (for tests). */
        public Builder captureOutput(final boolean captureOutput)
        {
            this.captureOutput = captureOutput;
            return this;
        }

        /** Longest the whole job may run before it is stopped and reported; null or zero for no limit. */
        public Builder timeout(final Duration timeout)
        {
            this.timeout = timeout == null || timeout.isZero() ? null : timeout;
            return this;
        }

        /** How long stopped ranks get between SIGTERM and SIGKILL; default {@link #DEFAULT_STOP_GRACE}. */
        public Builder stopGrace(final Duration stopGrace)
        {
            this.stopGrace = stopGrace;
            return this;
        }

        /**
         * After the first rank fails, how long the others may take to exit on their own (jccl ranks report the
         * failed peer within their liveness interval) before they are stopped. Default 1 s.
         */
        public Builder failureGrace(final Duration failureGrace)
        {
            this.failureGrace = failureGrace;
            return this;
        }

        /**
         * The directory of the ranks' class-data archives, which start them faster from a class path's second job
         * on (see {@link ClassDataArchive}); null for none. Default: {@link #defaultClassDataArchives()}.
         */
        public Builder classDataArchives(final Path directory)
        {
            this.classDataArchives = directory;
            return this;
        }

        /**
         * Checks the settings and reads the jar's manifest.
         *
         * @throws IllegalArgumentException when a setting is missing or invalid.
         */
        public JobLauncher build()
        {
            if (ranks < 1)
            {
                throw new IllegalArgumentException("the number of ranks must be at least 1, not " + ranks);
            }
            if ((mainClass == null) == (jar == null))
            {
                throw new IllegalArgumentException("give either a main class or a jar to run");
            }
            if (timeout != null && timeout.isNegative())
            {
                throw new IllegalArgumentException("timeout must not be negative: " + timeout);
            }
            if (jobId == null)
            {
                jobId = newJobId();
            }
            // the same check every rank applies when it reads JCCL_JOB_ID
            Configuration.builder().jobId(jobId).build().jobId();

            final String runClass = jar == null ? mainClass : mainClassOf(jar);
            final String runClassPath = jar == null ? classPath :
                (classPath == null || classPath.isEmpty() ? "" : classPath + File.pathSeparator) + jar;
            return new JobLauncher(this, runClass, runClassPath, effectiveShmDir());
        }

        private Path effectiveShmDir()
        {
            if (shmDir != null)
            {
                return shmDir;
            }
            final String fromEnv = environment.get(Configuration.envName(Configuration.SHM_DIR_PROP_NAME));
            final String configured = fromEnv != null ? fromEnv :
                Configuration.fromEnvironment().get(Configuration.SHM_DIR_PROP_NAME);
            return configured == null || configured.isBlank() ? null : Path.of(configured.trim());
        }

        private static String mainClassOf(final Path jar)
        {
            try (JarFile file = new JarFile(jar.toFile()))
            {
                final Manifest manifest = file.getManifest();
                final String name = manifest == null ? null :
                    manifest.getMainAttributes().getValue(Attributes.Name.MAIN_CLASS);
                if (name == null || name.isBlank())
                {
                    throw new IllegalArgumentException(jar + " has no Main-Class in its manifest: give the main " +
                        "class instead, with the jar on the class path");
                }
                return name.trim();
            }
            catch (final IOException ex)
            {
                throw new IllegalArgumentException("cannot read jar " + jar + ": " + ex, ex);
            }
        }
    }
}
