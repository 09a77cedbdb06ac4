package io.jccl.shm;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;

/**
 * The environment variables a JVM takes options from besides its command line: the launcher looks in them for options
 * that keep ranks from a class-data archive, a rank's peers for a Java debugger's agent.
 */
public final class JvmOptionVariables
{
    /** {@code JDK_JAVA_OPTIONS} (the {@code java} launcher's), {@code JAVA_TOOL_OPTIONS} and {@code _JAVA_OPTIONS}. */
    public static final List<String> NAMES = List.of("JDK_JAVA_OPTIONS", "JAVA_TOOL_OPTIONS", "_JAVA_OPTIONS");

    private JvmOptionVariables()
    {
    }

    /**
     * The options in those variables of {@code environment} (a variable's value, null when unset), split at white
     * space.
     */
    public static List<String> options(final Function<String, String> environment)
    {
        final List<String> options = new ArrayList<>();
        for (final String variable : NAMES)
        {
            final String value = environment.apply(variable);
            if (value != null && !value.isBlank())
            {
                options.addAll(List.of(value.trim().split("\\s+")));
            }
        }
        return options;
    }
}
