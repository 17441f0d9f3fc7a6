package org.dthreads.monitor;

import static java.util.concurrent.TimeUnit.SECONDS;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import jdk.jfr.Recording;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordingFile;
import org.dthreads.monitor.spi.RemoteMonitors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code synchronized (stub)} that waits for a remote object's monitor is recorded as {@code org.dthreads.MonitorEnter}
 * at both ends: at the client (owner unknown there, {@code ownerSite} names the object and its site) and at the
 * object's site (the server thread entering for the client's class, blocked by the local owner). Uses the loopback
 * transport of {@link RemoteMonitorsTest}; the real transports are in interop-tests.
 */
@Timeout(value = 60, unit = SECONDS)
class RemoteMonitorJfrTest {
    static RemoteMonitorsTest.LoopbackTransport transport;

    @TempDir
    Path dir;

    @BeforeAll
    static void register() {
        transport = new RemoteMonitorsTest.LoopbackTransport();
        RemoteMonitors.register(transport);
    }

    @AfterAll
    static void unregister() {
        RemoteMonitors.unregister(transport);
        transport.server.shutdownNow();
    }

    @Test
    void aBlockedRemoteEntryIsRecordedAtTheClientAndAtTheSite() throws Exception {
        Object object = new Object();
        Object stub = RemoteMonitorsTest.stubFor(object);
        Path file = dir.resolve("remote.jfr");
        try (Recording r = new Recording()) {
            r.enable("org.dthreads.MonitorEnter");
            r.start();
            Monitors.enter(object); // held at the "site" by this thread
            Thread client = new Thread(() -> {
                Monitors.enter(stub);
                Monitors.exit(stub);
            }, "jfr-remote-client");
            client.start();
            await().atMost(Duration.ofSeconds(10)).until(() -> MonitorDump.snapshot().stream()
                    .anyMatch(e -> e.identityHash() == System.identityHashCode(object) && !e.entrantClasses().isEmpty()));
            TimeUnit.MILLISECONDS.sleep(200);
            Monitors.exit(object);
            client.join();
            r.stop();
            r.dump(file);
        }
        List<RecordedEvent> enters = RecordingFile.readAllEvents(file).stream()
                .filter(e -> e.getEventType().getName().equals("org.dthreads.MonitorEnter")).toList();
        RecordedEvent atClient = enters.stream().filter(e -> e.getThread().getJavaName().equals("jfr-remote-client"))
                .findFirst().orElseThrow(() -> new AssertionError(enters.toString()));
        assertEquals(stub.getClass().getName(), atClient.getClass("monitorClass").getName());
        assertEquals("loopback object", atClient.getString("ownerSite"));
        assertEquals(0L, atClient.getLong("ownerClass"), "no owner class at the client");
        assertTrue(atClient.getDuration().toMillis() >= 150, atClient.toString());
        RecordedEvent atSite = enters.stream().filter(e -> e.getThread().getJavaName().equals("loopback-server")
                && e.getInt("identityHash") == System.identityHashCode(object))
                .findFirst().orElseThrow(() -> new AssertionError(enters.toString()));
        assertTrue(org.dthreads.ThreadClass.isValid(atClient.getLong("threadClass")), atClient.toString());
        assertEquals(atClient.getLong("threadClass"), atSite.getLong("threadClass"), "the client's class, at the site");
        assertEquals(Thread.currentThread().getName(), atSite.getThread("owner").getJavaName());
    }
}
