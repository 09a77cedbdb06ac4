package io.jccl.shm;

import io.jccl.Configuration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

@Timeout(10)
class LogTest
{
    @Test
    void subsystemLists()
    {
        assertEquals(Log.ALL, Log.parseSubsystems("ALL"));
        assertEquals(Log.INIT | Log.COLL, Log.parseSubsystems("init, coll"));
        assertEquals(Log.ALL & ~Log.P2P, Log.parseSubsystems("^P2P"));
        assertEquals(Log.SHM, Log.parseSubsystems("^INIT,P2P,COLL"));
        final IllegalArgumentException ex = assertThrows(IllegalArgumentException.class,
            () -> Log.parseSubsystems("INIT,NET"));
        assertTrue(ex.getMessage().contains("'NET'"), ex.getMessage());
    }

    @Test
    void levelsAndSubsystemsGateMessagesButWarningsAlwaysPass() throws IOException
    {
        final Log log = new Log(Configuration.builder().set(Configuration.DEBUG_PROP_NAME, "info")
            .set(Configuration.DEBUG_SUBSYS_PROP_NAME, "^COLL").build(), 3);
        assertTrue(log.enabled(Log.INFO, Log.INIT));
        assertFalse(log.enabled(Log.INFO, Log.COLL));
        assertFalse(log.enabled(Log.TRACE, Log.INIT));
        assertTrue(log.enabled(Log.WARN, Log.COLL));
        // the kernel's host name, as hostname(1) prints it, and this JVM's pid
        assertEquals(Files.readString(Path.of("/proc/sys/kernel/hostname")).trim() + ":" +
            ProcessHandle.current().pid() + " [3] jccl ", log.prefix());
    }
}
