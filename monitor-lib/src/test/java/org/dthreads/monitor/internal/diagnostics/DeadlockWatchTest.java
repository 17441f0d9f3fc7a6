package org.dthreads.monitor.internal.diagnostics;

import static java.util.concurrent.TimeUnit.SECONDS;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.logging.Handler;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import jdk.jfr.Recording;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordingFile;
import org.dthreads.monitor.Monitors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The automatic check in one JVM: a local emulated AB-BA is logged once after it has lasted the threshold, with
 * its edges, and recorded as an {@code org.dthreads.Deadlock} JFR event; contention that moves on is not. The
 * deadlocked threads are daemons left stuck on objects of this test only. (Across JVMs: interop-tests'
 * {@code DeadlockWatchTest}.)
 */
@Timeout(value = 60, unit = SECONDS)
class DeadlockWatchTest {
    @TempDir
    Path dir;

    /** The lock type the log must name. */
    static final class Vault {
    }

    @Test
    void aLocalAbBaIsLoggedOnceAfterTheThresholdAndRecorded() throws Exception {
        List<String> lines = new CopyOnWriteArrayList<>();
        Logger logger = Logger.getLogger(DeadlockWatch.class.getName());
        Handler capture = new Handler() {
            @Override
            public void publish(LogRecord r) {
                lines.add(r.getMessage());
            }

            @Override
            public void flush() {}

            @Override
            public void close() {}
        };
        logger.addHandler(capture);
        Path file = dir.resolve("deadlock.jfr");
        try (Recording r = new Recording()) {
            r.enable("org.dthreads.Deadlock");
            r.start();
            Vault x = new Vault();
            Vault y = new Vault();
            CountDownLatch both = new CountDownLatch(2);
            daemon("watch-one", x, y, both);
            daemon("watch-two", y, x, both);
            DeadlockWatch watch = new DeadlockWatch(TimeUnit.MILLISECONDS.toNanos(300));
            long start = System.nanoTime();
            await().atMost(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(50)).until(() -> {
                watch.check();
                return lines.stream().anyMatch(l -> l.contains(DeadlockWatchTest.class.getName() + "$Vault"));
            });
            assertTrue(System.nanoTime() - start >= TimeUnit.MILLISECONDS.toNanos(300), "not before the threshold");
            for (int i = 0; i < 5; i++) {
                watch.check();
            }
            List<String> ours = lines.stream().filter(l -> l.contains(DeadlockWatchTest.class.getName() + "$Vault")).toList();
            assertEquals(1, ours.size(), "logged once: " + ours);
            String line = ours.get(0);
            assertTrue(line.startsWith("dthreads: deadlock detected (-Ddthreads.deadlock.detect)"), line);
            assertTrue(line.contains("a cycle of 2 thread classes across 1 site"), line);
            assertTrue(line.contains("thread \"watch-one\"") && line.contains("thread \"watch-two\""), line);
            r.stop();
            r.dump(file);
        } finally {
            logger.removeHandler(capture);
        }
        List<RecordedEvent> events = RecordingFile.readAllEvents(file).stream()
                .filter(e -> e.getEventType().getName().equals("org.dthreads.Deadlock")
                        && e.getString("cycle").contains("$Vault"))
                .toList();
        assertEquals(1, events.size(), events.toString());
        assertEquals(2, events.get(0).getInt("classes"));
        assertEquals(1, events.get(0).getInt("sites"));
    }

    @Test
    void durationsAreParsedAndBadOnesRefused() {
        assertEquals(TimeUnit.SECONDS.toNanos(5), DeadlockWatch.parse("5s"));
        assertEquals(TimeUnit.MILLISECONDS.toNanos(500), DeadlockWatch.parse("500ms"));
        assertEquals(TimeUnit.SECONDS.toNanos(5), DeadlockWatch.parse("PT5S"));
        assertEquals(TimeUnit.MINUTES.toNanos(2), DeadlockWatch.parse("2m"));
        assertEquals(TimeUnit.MILLISECONDS.toNanos(750), DeadlockWatch.parse("750"));
        assertEquals(-1L, DeadlockWatch.parse("soon"));
        assertEquals(-1L, DeadlockWatch.parse("5 parsecs"));
    }

    private static void daemon(String name, Object first, Object second, CountDownLatch both) {
        Thread t = new Thread(() -> {
            Monitors.enter(first);
            both.countDown();
            try {
                both.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            Monitors.enter(second);
        }, name);
        t.setDaemon(true);
        t.start();
    }
}
