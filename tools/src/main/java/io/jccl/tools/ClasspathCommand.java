package io.jccl.tools;

import io.jccl.launch.JobLauncher;

import java.io.PrintStream;
import java.nio.file.Path;
import java.util.List;

/**
 * {@code ./jccl classpath}: the class path every rank starts with (jccl's jars and their dependencies), to compile a
 * rank against, as {@code mpijavac} does for Open MPI's Java ranks; with {@code --jvm-args}, the JVM arguments a
 * rank needs when something other than {@code ./jccl run} starts it; with {@code --java-home}, the JDK it runs
 * ranks with.
 */
public final class ClasspathCommand implements Command
{
    private final PrintStream out;
    private final String classPath;

    /** Prints {@code classPath}: the launcher's own, which {@code ./jccl run} gives every rank. */
    public ClasspathCommand(final PrintStream out, final String classPath)
    {
        this.out = out;
        this.classPath = classPath;
    }

    @Override
    public String name()
    {
        return "classpath";
    }

    @Override
    public String summary()
    {
        return "print the class path ranks run with, to compile a rank: javac -cp \"$(./jccl classpath)\"";
    }

    @Override
    public String usage()
    {
        return """
            usage: ./jccl classpath [--jvm-args | --java-home]

            Prints, on one line, the class path every rank that ./jccl run starts has: jccl's jars and their
            dependencies (Agrona, JCTools). Compile a rank against it with a JDK 21 or newer, such as the one
            ./jccl runs ranks with, then run it with --cp:

              "$(./jccl classpath --java-home)/bin/javac" -cp "$(./jccl classpath)" -d out Train.java
              ./jccl run -n 4 --cp out Train

              --jvm-args    print instead the JVM arguments every rank needs, for starting ranks some other way
                            (each rank also needs JCCL_RANK, JCCL_WORLD_SIZE and JCCL_JOB_ID: see README)
              --java-home   print instead the JDK that ./jccl found and runs ranks with
            """;
    }

    @Override
    public int run(final String[] args)
    {
        final Arguments arguments = new Arguments(args);
        String printed = classPath;
        boolean chosen = false;
        for (String option = arguments.nextOption(); option != null; option = arguments.nextOption())
        {
            printed = switch (option)
            {
                case "--jvm-args" -> String.join(" ", rankJvmArgs());
                case "--java-home" -> System.getProperty("java.home");
                default -> throw Arguments.unknownOption(option);
            };
            if (chosen)
            {
                throw new UsageException("--jvm-args and --java-home print one thing each: give one");
            }
            chosen = true;
        }
        arguments.expectNoOperands();
        out.println(printed);
        return 0;
    }

    /** What {@link JobLauncher} gives every rank it starts with this JVM's {@code java}. */
    static List<String> rankJvmArgs()
    {
        return JobLauncher.rankJvmArgs(Path.of(System.getProperty("java.home"), "bin", "java"));
    }
}
