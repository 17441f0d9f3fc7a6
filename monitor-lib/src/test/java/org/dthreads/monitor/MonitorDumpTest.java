package org.dthreads.monitor;

import static java.util.concurrent.TimeUnit.SECONDS;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicLong;
import org.dthreads.DThreads;
import org.dthreads.ThreadClass;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(value = 60, unit = SECONDS)
class MonitorDumpTest {

    private static Optional<MonitorDump.Entry> find(Object lock) {
        int hash = System.identityHashCode(lock);
        return MonitorDump.snapshot().stream().filter(e -> e.identityHash() == hash).findFirst();
    }

    @Test
    void showsOwnerDepthWaitersAndEntrants() throws Exception {
        Object lock = new Object();
        AtomicLong waiterClass = new AtomicLong();
        Thread waiter = new Thread(() -> {
            waiterClass.set(DThreads.currentClass());
            Monitors.enter(lock);
            try {
                Monitors.waitOn(lock);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } finally {
                Monitors.exit(lock);
            }
        }, "dump-waiter");
        waiter.setDaemon(true);
        waiter.start();
        await().atMost(Duration.ofSeconds(10)).until(() -> find(lock).map(e -> e.waiterClasses().size() == 1)
                .orElse(false));
        Monitors.enter(lock);
        Monitors.enter(lock);
        try {
            MonitorDump.Entry e = find(lock).orElseThrow();
            assertEquals(DThreads.currentClass(), e.ownerClass());
            assertEquals(2, e.depth());
            assertEquals(List.of(waiterClass.get()), e.waiterClasses());
            assertEquals("java.lang.Object", e.type());
            assertEquals(null, e.remotePeer());
            String text = MonitorDump.text();
            assertTrue(text.contains("owned by " + ThreadClass.format(DThreads.currentClass()) + " depth 2"), text);
            MonitorDump.log(); // must not throw
            Monitors.notifyAll(lock);
        } finally {
            Monitors.exit(lock);
            Monitors.exit(lock);
        }
        waiter.join(SECONDS.toMillis(10));
        assertTrue(find(lock).isEmpty(), "an idle monitor is not busy");
    }
}
