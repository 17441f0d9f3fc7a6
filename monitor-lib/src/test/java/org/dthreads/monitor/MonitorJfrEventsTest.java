package org.dthreads.monitor;

import static java.util.concurrent.TimeUnit.SECONDS;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import jdk.jfr.Recording;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordingFile;
import org.dthreads.DThreads;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The emulated monitors' JFR events in a real in-process recording, with the settings the events declare (a
 * 20 ms threshold, as the JDK's own monitor events): a long blocked entry and a long wait are recorded with their
 * monitor class, identity hash, thread classes (numbers), owner and notifier; a short one is not; {@code jfr print}
 * reads them and shows the thread classes in hex.
 */
@Timeout(value = 60, unit = SECONDS)
class MonitorJfrEventsTest {
    @TempDir
    Path dir;

    /** The monitor type the events must name; marked as the rewriter marks a class, so wait is emulated too. */
    @Rewritten
    static final class Account {
    }

    @Test
    void aLongBlockedEntryAndALongWaitAreRecordedAShortEntryIsNot() throws Exception {
        Account contended = new Account();
        Account brief = new Account();
        Account waitedOn = new Account();
        AtomicLong entrantClass = new AtomicLong();
        AtomicLong waiterClass = new AtomicLong();
        Path file = dir.resolve("monitors.jfr");
        try (Recording r = new Recording()) {
            r.enable("org.dthreads.MonitorEnter");
            r.enable("org.dthreads.MonitorWait");
            r.start();

            // blocked ~200 ms on a monitor this thread holds
            Monitors.enter(contended);
            Thread entrant = start("jfr-entrant", () -> {
                entrantClass.set(DThreads.currentClass());
                Monitors.enter(contended);
                Monitors.exit(contended);
            });
            awaitParked(entrant);
            TimeUnit.MILLISECONDS.sleep(200);
            Monitors.exit(contended);
            entrant.join();

            // blocked briefly: well under the 20 ms threshold on a quiet machine; a loaded one may take longer
            Monitors.enter(brief);
            Thread quick = start("jfr-quick", () -> {
                Monitors.enter(brief);
                Monitors.exit(brief);
            });
            awaitParked(quick);
            Monitors.exit(brief);
            quick.join();

            // a wait of ~200 ms ended by this thread's notify
            Thread waiter = start("jfr-waiter", () -> {
                waiterClass.set(DThreads.currentClass());
                Monitors.enter(waitedOn);
                try {
                    Monitors.waitOn(waitedOn);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                } finally {
                    Monitors.exit(waitedOn);
                }
            });
            awaitParked(waiter);
            TimeUnit.MILLISECONDS.sleep(200);
            Monitors.enter(waitedOn);
            Monitors.notifyOne(waitedOn);
            Monitors.exit(waitedOn);
            waiter.join();

            // a timed wait that times out
            Monitors.enter(waitedOn);
            Monitors.waitOn(waitedOn, 50);
            Monitors.exit(waitedOn);

            r.stop();
            r.dump(file);
        }
        List<RecordedEvent> events = RecordingFile.readAllEvents(file);

        List<RecordedEvent> enters = named(events, "org.dthreads.MonitorEnter");
        // The threshold, not the scheduler, decides: the brief entry's wake-up takes well under 20 ms unless the
        // machine is loaded, so it may be recorded, but nothing shorter than the threshold ever is.
        for (RecordedEvent e : enters) {
            assertTrue(e.getDuration().toNanos() >= TimeUnit.MILLISECONDS.toNanos(20), "under the threshold: " + e);
        }
        List<RecordedEvent> longEntries = enters.stream()
                .filter(e -> e.getInt("identityHash") == System.identityHashCode(contended)).toList();
        assertEquals(1, longEntries.size(), "the long entry is recorded once: " + enters);
        assertTrue(enters.size() == 1 || enters.size() == 2 && enters.stream()
                .anyMatch(e -> e.getInt("identityHash") == System.identityHashCode(brief)), enters.toString());
        RecordedEvent enter = longEntries.get(0);
        assertEquals(Account.class.getName(), enter.getClass("monitorClass").getName());
        assertEquals(System.identityHashCode(contended), enter.getInt("identityHash"));
        assertEquals("jfr-entrant", enter.getThread().getJavaName());
        assertEquals(entrantClass.get(), enter.getLong("threadClass"));
        assertEquals(Thread.currentThread().getName(), enter.getThread("owner").getJavaName());
        assertEquals(DThreads.currentClass(), enter.getLong("ownerClass"));
        assertEquals("", enter.getString("ownerSite"));
        assertTrue(enter.getDuration().toMillis() >= 150, enter.toString());
        assertNotNull(enter.getStackTrace());
        assertTrue(enter.getStackTrace().getFrames().stream()
                .anyMatch(f -> f.getMethod().getType().getName().equals(MonitorJfrEventsTest.class.getName())),
                enter.toString());

        List<RecordedEvent> waits = named(events, "org.dthreads.MonitorWait");
        assertEquals(2, waits.size(), waits.toString());
        RecordedEvent notified = waits.stream().filter(e -> e.getThread().getJavaName().equals("jfr-waiter"))
                .findFirst().orElseThrow();
        assertEquals(Account.class.getName(), notified.getClass("monitorClass").getName());
        assertEquals(System.identityHashCode(waitedOn), notified.getInt("identityHash"));
        assertEquals(waiterClass.get(), notified.getLong("threadClass"));
        assertEquals(Thread.currentThread().getName(), notified.getThread("notifier").getJavaName());
        assertFalse(notified.getBoolean("timedOut"));
        assertEquals(0L, notified.getDuration("timeout").toNanos());
        assertTrue(notified.getDuration().toMillis() >= 150, notified.toString());
        RecordedEvent timedOut = waits.stream().filter(e -> e != notified).findFirst().orElseThrow();
        assertTrue(timedOut.getBoolean("timedOut"), timedOut.toString());
        assertEquals(null, timedOut.getThread("notifier"));
        assertEquals(Duration.ofMillis(50), timedOut.getDuration("timeout"));

        String printed = jfrPrint(file);
        assertTrue(printed.contains("org.dthreads.MonitorEnter") && printed.contains("org.dthreads.MonitorWait"), printed);
        assertTrue(printed.contains("monitorClass = " + Account.class.getName()), printed);
        // thread classes are numbers, printed in hex: the site id, then the thread id's 8 digits
        assertTrue(printed.contains("threadClass = 0x" + hex(entrantClass.get())), printed);
        assertTrue(printed.contains("ownerClass = 0x" + hex(DThreads.currentClass())), printed);
        assertTrue(printed.contains("threadClass = 0x" + hex(waiterClass.get())), printed);
    }

    @Test
    void nothingIsRecordedWhenTheEventsAreDisabled() throws Exception {
        Account contended = new Account();
        Path file = dir.resolve("off.jfr");
        try (Recording r = new Recording()) {
            r.disable("org.dthreads.MonitorEnter");
            r.enable("jdk.ThreadSleep").withThreshold(Duration.ZERO); // something to record
            r.start();
            Monitors.enter(contended);
            Thread entrant = start("jfr-off", () -> {
                Monitors.enter(contended);
                Monitors.exit(contended);
            });
            awaitParked(entrant);
            TimeUnit.MILLISECONDS.sleep(100);
            Monitors.exit(contended);
            entrant.join();
            r.stop();
            r.dump(file);
        }
        assertTrue(named(RecordingFile.readAllEvents(file), "org.dthreads.MonitorEnter").isEmpty());
    }

    /** A thread class as {@code jfr print} shows it after {@code 0x}: site id, then the thread id's 8 digits. */
    private static String hex(long threadClass) {
        return Long.toHexString(threadClass).toUpperCase(Locale.ROOT);
    }

    private static List<RecordedEvent> named(List<RecordedEvent> events, String name) {
        return events.stream().filter(e -> e.getEventType().getName().equals(name)).toList();
    }

    private static Thread start(String name, Runnable body) {
        Thread t = new Thread(body, name);
        t.start();
        return t;
    }

    private static void awaitParked(Thread t) {
        await().atMost(Duration.ofSeconds(10)).pollDelay(Duration.ZERO).pollInterval(Duration.ofMillis(1)).alias(t.getName() + " parks").until(() -> t.getState() == Thread.State.WAITING
                // a parked entrant re-checks every 50 ms for lost exits (MonitorContention.parkForEntry): TIMED_WAITING
                || t.getState() == Thread.State.TIMED_WAITING
                || t.getState() == Thread.State.TERMINATED && fail(t));
    }

    private static boolean fail(Thread t) {
        throw new AssertionError(t.getName() + " ended without blocking");
    }

    private static String jfrPrint(Path file) throws Exception {
        Path jfr = Path.of(System.getProperty("java.home"), "bin", "jfr");
        Process p = new ProcessBuilder(jfr.toString(), "print", "--events", "org.dthreads.MonitorEnter,org.dthreads.MonitorWait",
                file.toString()).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(30, SECONDS), "jfr print did not finish");
        assertEquals(0, p.exitValue(), out);
        return out;
    }
}
