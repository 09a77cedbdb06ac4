package io.jccl.it;

import com.sun.jdi.Bootstrap;
import com.sun.jdi.VirtualMachine;
import com.sun.jdi.connect.AttachingConnector;
import com.sun.jdi.connect.Connector;
import com.sun.jdi.connect.IllegalConnectorArgumentsException;
import io.jccl.launch.JobLauncher;
import io.jccl.launch.JobResult;
import io.jccl.launch.OutputSink;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.IOException;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A rank suspended by a Java debugger, as at a breakpoint: alive and not stopped, but silent. Its peers fail after
 * {@code jccl.peer.timeout.ms} as they would on a hung rank, and their message says that it runs a debugger's agent
 * and which settings to raise while debugging. The debugger is this test, attached over JDWP as an IDE would.
 */
@Timeout(60)
class JavaDebuggerTest
{
    private static final Pattern LISTENING = Pattern.compile("Listening for transport dt_socket at address: (\\d+)");

    @Test
    void theRanksWaitingOnARankSuspendedByADebuggerSaySo() throws Exception
    {
        final CompletableFuture<Integer> rank1Port = new CompletableFuture<>();
        final CompletableFuture<Void> rank1Looping = new CompletableFuture<>();
        final CompletableFuture<Void> rank0Detected = new CompletableFuture<>();
        final OutputSink watch = new OutputSink()
        {
            @Override
            public void rankLine(final int rank, final Source source, final String line)
            {
                final Matcher listening = LISTENING.matcher(line);
                if (rank == 1 && listening.find())
                {
                    rank1Port.complete(Integer.parseInt(listening.group(1)));
                }
                if (rank == 1 && line.equals("LOOPING"))
                {
                    rank1Looping.complete(null);
                }
                if (rank == 0 && line.startsWith("DETECTED"))
                {
                    rank0Detected.complete(null);
                }
            }

            @Override
            public void launcherLine(final String line)
            {
            }
        };
        final CompletableFuture<JobResult> job = CompletableFuture.supplyAsync(() -> JobLauncher.builder()
            .ranks(2)
            .mainClass(DebuggedRank.class.getName())
            .jvmArgs("-Xmx64m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1",
                "-agentlib:jdwp=transport=dt_socket,server=y,suspend=n,address=localhost:0")
            .environment("JCCL_PEER_TIMEOUT_MS", "1500")
            .environment("JCCL_RING_BYTES", "64k")
            .environment("JCCL_STAGING_BYTES", "64k")
            .environment("JCCL_SYMMETRIC_BYTES", "64k")
            .outputSink(watch)
            .captureOutput(true)
            .timeout(Duration.ofSeconds(45))
            .build()
            .run());

        final VirtualMachine debugger = attach(rank1Port.get(20, TimeUnit.SECONDS));
        try
        {
            rank1Looping.get(20, TimeUnit.SECONDS);
            debugger.suspend();
            rank0Detected.get(20, TimeUnit.SECONDS);
            debugger.resume();
        }
        finally
        {
            debugger.dispose();
        }
        final JobResult result = job.get(30, TimeUnit.SECONDS);
        final String all = Jobs.allOutput(result);
        assertFalse(result.succeeded(), all);
        final String detected = result.output(0).stream().filter(line -> line.startsWith("DETECTED")).findFirst()
            .orElseThrow();
        assertTrue(detected.contains("rank 1 (pid ") && detected.contains(") has not responded for "), detected);
        assertTrue(detected.contains("it runs a Java debugger's agent: suspended at a breakpoint? While debugging, " +
            "raise jccl.peer.timeout.ms (JCCL_PEER_TIMEOUT_MS) and jccl.timeout.ms; jccl.peer.timeout.ms = 1500)"),
            detected);
        assertEquals(3, result.exitCode(0), all);
    }

    private static VirtualMachine attach(final int port) throws IOException, IllegalConnectorArgumentsException
    {
        final AttachingConnector socket = Bootstrap.virtualMachineManager().attachingConnectors().stream()
            .filter(connector -> connector.transport().name().equals("dt_socket")).findFirst().orElseThrow();
        final Map<String, Connector.Argument> arguments = socket.defaultArguments();
        arguments.get("hostname").setValue("localhost");
        arguments.get("port").setValue(Integer.toString(port));
        return socket.attach(arguments);
    }
}
