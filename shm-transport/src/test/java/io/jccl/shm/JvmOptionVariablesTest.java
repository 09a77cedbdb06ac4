package io.jccl.shm;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;

@Timeout(10)
class JvmOptionVariablesTest
{
    @Test
    void theEnvironmentsJvmOptionsCountAsArguments()
    {
        final Map<String, String> environment = Map.of("JAVA_TOOL_OPTIONS", " -javaagent:otel.jar  -Xmx2g ",
            "JDK_JAVA_OPTIONS", "-Dx=1", "_JAVA_OPTIONS", " ", "CLASSPATH", "-javaagent:not-an-option.jar");
        assertEquals(List.of("-Dx=1", "-javaagent:otel.jar", "-Xmx2g"), JvmOptionVariables.options(environment::get));
        assertEquals(List.of(), JvmOptionVariables.options(variable -> null));
    }
}
