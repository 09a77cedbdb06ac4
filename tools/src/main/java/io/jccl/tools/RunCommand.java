package io.jccl.tools;

import io.jccl.launch.JobLauncher;
import io.jccl.launch.JobResult;
import io.jccl.launch.OutputSink;

import java.io.File;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;

/** {@code ./jccl run -n N ... MAIN_CLASS|JAR [args...]}: launches a job with {@link JobLauncher}, like mpirun. */
public final class RunCommand implements Command
{
    private static final int MAX_RANKS = 1024;

    private final OutputSink sink;

    public RunCommand()
    {
        this(OutputSink.console());
    }

    public RunCommand(final OutputSink sink)
    {
        this.sink = sink;
    }

    @Override

    public String name()
    {
        return "run";
    }

    @Override

    public String summary()
    {
        return "launch N ranks of a Java program (like mpirun)";
    }

    @Override

    public String usage()
    {
        return """
            usage: ./jccl run -n N [--timeout SEC] [--cp CLASSPATH] [--jvm-arg ARG]... [--shm-dir DIR] \
            [--] MAIN_CLASS|JAR [args...]

            Starts N JVMs running MAIN_CLASS (or the Main-Class of JAR), jccl's jars always on the class path.
            Each rank finds its rank, the world size and the job id in JCCL_RANK, JCCL_WORLD_SIZE, JCCL_JOB_ID
            (Jccl.connect() reads them). Every output line is prefixed with "[rank] ". When a rank fails, the
            others are stopped (SIGTERM, then SIGKILL), jccl says who failed and how, and exits with the failed
            rank's exit code (124 on timeout). The job's segment is removed whatever happens.

              -n N             number of ranks (required)
              --timeout SEC    stop the job after SEC seconds (decimals allowed; default: no limit)
              --cp CLASSPATH   appended to the class path (repeatable)
              --jvm-arg ARG    a JVM argument for every rank, e.g. --jvm-arg -Xmx2g (repeatable)
              --shm-dir DIR    directory of the job's segment (default: JCCL_SHM_DIR, else /dev/shm)
            """;
    }

    @Override

    public int run(final String[] args)
    {
        final Arguments arguments = new Arguments(args);
        int ranks = 0;
        Duration timeout = null;
        Path shmDir = null;
        final List<String> classPath = new ArrayList<>();
        final List<String> jvmArgs = new ArrayList<>();
        classPath.add(System.getProperty("java.class.path"));

        String option;
        while ((option = arguments.nextOption()) != null)
        {
            switch (option)
            {
                case "-n" -> ranks = arguments.intValue(option, 1, MAX_RANKS);
                case "--timeout" -> timeout = seconds(option, arguments.value(option));
                case "--cp" -> classPath.add(arguments.value(option));
                case "--jvm-arg" -> jvmArgs.add(arguments.value(option));
                case "--shm-dir" -> shmDir = Path.of(arguments.value(option));
                default -> throw Arguments.unknownOption(option);
            }
        }
        final String[] operands = arguments.operands();
        if (ranks == 0)
        {
            throw new UsageException("say how many ranks with -n N");
        }
        if (operands.length == 0)
        {
            throw new UsageException("say what to run: a main class or a jar");
        }

        final String program = operands[0];
        final JobLauncher.Builder builder = JobLauncher.builder()
            .ranks(ranks)
            .args(Arrays.asList(operands).subList(1, operands.length))
            .jvmArgs(jvmArgs)
            .classPath(String.join(File.pathSeparator, classPath))
            .shmDir(shmDir)
            .timeout(timeout)
            .outputSink(sink);
        if (program.toLowerCase(Locale.ROOT).endsWith(".jar"))
        {
            builder.jar(Path.of(program));
        }
        else
        {
            builder.mainClass(program);
        }

        final JobLauncher launcher;
        try
        {
            launcher = builder.build();
        }
        catch (final IllegalArgumentException ex)
        {
            throw new UsageException(ex.getMessage());
        }
        final JobResult result = launcher.run();
        return result.exitCode();
    }

    private static Duration seconds(final String option, final String text)
    {
        try
        {
            final double seconds = Double.parseDouble(text);
            if (!(seconds > 0) || seconds > Duration.ofDays(365).toSeconds())
            {
                throw new UsageException(option + " must be a positive number of seconds, not " + text);
            }
            return Duration.ofMillis(Math.max(1, Math.round(seconds * 1000)));
        }
        catch (final NumberFormatException ex)
        {
            throw new UsageException(option + " needs a number of seconds, not '" + text + "'");
        }
    }
}
