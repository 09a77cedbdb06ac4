package io.jccl.shm;

import org.junit.jupiter.api.Test;

import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

class ProcessStatesTest
{
    @Test
    void theStateFollowsTheLastParenthesisOfTheCommand()
    {
        assertEquals('S', state("1886 (sleep) S 1872 1869 1324 0 -1"));
        assertEquals('T', state("42 (a) b) T 1 2 3"));
        assertEquals('R', state("7 (two words) R 0"));
        assertEquals('?', state("7 (cut"));
        assertEquals('?', state("7 (cut)"));
        assertEquals('?', state(""));
    }

    @Test
    void aWatchSeesAChildStopContinueAndExit() throws Exception
    {
        final Process child = new ProcessBuilder("sleep", "60").start();
        try (ProcessStates.Watch watch = ProcessStates.Watch.open(child.pid()))
        {
            assertFalse(ProcessStates.isStopped(watch.state()));
            signal("STOP", child.pid());
            assertEquals('T', awaitState(watch, 'T'));
            assertTrue(ProcessStates.isStopped(child.pid()));
            signal("CONT", child.pid());
            assertEquals('S', awaitState(watch, 'S'));
            child.destroyForcibly().waitFor();
            assertEquals('?', watch.state(), "a read after the process is reaped fails");
        }
        finally
        {
            child.destroyForcibly();
        }
        assertNull(ProcessStates.Watch.open(child.pid()));
    }

    @Test
    void aJavaDebuggersAgentIsFoundOnTheCommandLineOrInTheJvmsVariables() throws Exception
    {
        final String jdwp = "-agentlib:jdwp=transport=dt_socket,server=y,suspend=n,address=localhost:0";
        final Process plain = new ProcessBuilder("sleep", "60").start();
        // sh waits for sleep (a second command: it cannot exec it) and keeps its own command line, jdwp in it
        final Process onTheCommandLine = new ProcessBuilder("sh", "-c", "sleep 60; exit 0", jdwp).start();
        final ProcessBuilder withVariable = new ProcessBuilder("sleep", "60");
        withVariable.environment().put("JAVA_TOOL_OPTIONS", "-Xmx1g " + jdwp);
        final Process inTheEnvironment = withVariable.start();
        final ProcessBuilder withOtherVariable = new ProcessBuilder("sleep", "60");
        withOtherVariable.environment().put("CLASSPATH", jdwp);
        final Process elsewhere = withOtherVariable.start();
        try
        {
            assertFalse(ProcessStates.runsJavaDebugger(plain.pid()));
            assertTrue(ProcessStates.runsJavaDebugger(onTheCommandLine.pid()));
            assertTrue(ProcessStates.runsJavaDebugger(inTheEnvironment.pid()));
            assertFalse(ProcessStates.runsJavaDebugger(elsewhere.pid()), "not a variable the JVM takes options from");
        }
        finally
        {
            for (final Process process : new Process[] {plain, onTheCommandLine, inTheEnvironment, elsewhere})
            {
                process.destroyForcibly().waitFor();
            }
        }
        assertFalse(ProcessStates.runsJavaDebugger(plain.pid()), "a process that is gone");
        assertTrue(ProcessStates.namesJavaDebugger("-Xrunjdwp:transport=dt_socket"));
        assertTrue(ProcessStates.namesJavaDebugger("-agentpath:/jdk/lib/libjdwp.so=transport=dt_socket"));
        assertFalse(ProcessStates.namesJavaDebugger("-agentpath:/opt/libasyncProfiler.so=start"));
        assertFalse(ProcessStates.namesJavaDebugger("-Djdwp=1"));
    }

    /** A liveness check may read a late peer's state inside a blocking call, whose calls allocate nothing. */
    @Test
    void readingAWatchAllocatesNothing()
    {
        final com.sun.management.ThreadMXBean threads =
            (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        final long thread = Thread.currentThread().threadId();
        try (ProcessStates.Watch watch = ProcessStates.Watch.open(ProcessHandle.current().pid()))
        {
            char state = 0;
            for (int i = 0; i < 20_000; i++)
            {
                state = watch.state();
            }
            final long before = threads.getThreadAllocatedBytes(thread);
            for (int i = 0; i < 10_000; i++)
            {
                state = watch.state();
            }
            final long bytes = threads.getThreadAllocatedBytes(thread) - before;
            // the state of the JVM's first thread, which waits for the main thread: running or sleeping, not stopped
            assertTrue(state != '?' && !ProcessStates.isStopped(state), "state " + state);
            // a whole-file read is about 9 KiB: this leaves room for a stray allocation of the JIT, not for reads
            assertTrue(bytes < 4096, bytes + " bytes in 10,000 reads");
        }
    }

    private static char state(final String stat)
    {
        final byte[] bytes = stat.getBytes(StandardCharsets.US_ASCII);
        return ProcessStates.state(bytes, bytes.length);
    }

    private static void signal(final String name, final long pid) throws Exception
    {
        assertEquals(0, new ProcessBuilder("kill", "-" + name, Long.toString(pid)).start().waitFor());
    }

    private static char awaitState(final ProcessStates.Watch watch, final char wanted) throws InterruptedException
    {
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        char state = watch.state();
        while (state != wanted && System.nanoTime() - deadline < 0)
        {
            Thread.sleep(10);
            state = watch.state();
        }
        return state;
    }
}
