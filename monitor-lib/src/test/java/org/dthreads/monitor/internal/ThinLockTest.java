package org.dthreads.monitor.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.atomic.AtomicReferenceArray;
import org.dthreads.DThreads;
import org.dthreads.monitor.MonitorDump;
import org.dthreads.monitor.Monitors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The thin state of a monitor slot ({@link ThinLock}): what an uncontended lock leaves in the slot, when and how it
 * becomes a {@link Monitor}, and the copied values that must hold nothing.
 */
@Timeout(60)
class ThinLockTest {


    private static final MonitorSlots.Slot SLOT = MonitorSlots.slotOf(new SlottedObject());

    private static Object slot(Object o) {
        return SLOT.getVolatile(o);
    }

    /**
     * Enter and exit read the thread's class from the kernel's cell held in the actor ({@link Actor#currentClass}),
     * not from the kernel's thread-local: a class scope opened or closed between them (an incoming call's class
     * switch) must be seen, on a fresh thread too, whose own class is allocated only by its first unbound operation.
     */
    @Test
    void enterAndExitFollowTheClassScopesOfTheirThread() throws Exception {
        AtomicReference<Throwable> failed = new AtomicReference<>();
        Thread t = new Thread(() -> {
            try {
                SlottedObject lock = new SlottedObject();
                long bound = org.dthreads.internal.KernelLink.freshClass();
                try (org.dthreads.ClassScope s = org.dthreads.internal.KernelLink.bind(bound)) {
                    Monitors.enter(lock); // the thread's first monitor operation, its own class not allocated yet
                    assertEquals(bound, ((ThinLock) slot(lock)).hold.threadClass);
                }
                long own = DThreads.currentClass();
                assertTrue(own != bound);
                assertFalse(Monitors.holdsLock(lock));
                assertThrows(IllegalMonitorStateException.class, () -> Monitors.exit(lock), "held for the scope's class");
                // (the refused exit inflated the thin hold, as every exit by a class that does not hold it does)
                try (org.dthreads.ClassScope s = org.dthreads.internal.KernelLink.bind(bound)) {
                    assertTrue(Monitors.holdsLock(lock));
                    Monitors.enter(lock);
                    Monitors.exit(lock);
                    Monitors.exit(lock); // the scope's class again: its hold
                    assertFalse(Monitors.holdsLock(lock));
                }
                SlottedObject other = new SlottedObject();
                Monitors.enter(other); // the own class now
                assertEquals(own, ((ThinLock) slot(other)).hold.threadClass);
                Monitors.exit(other);
                assertNull(slot(other));
            } catch (Throwable e) {
                failed.set(e);
            }
        });
        t.start();
        t.join();
        if (failed.get() != null) {
            throw new AssertionError(failed.get());
        }
    }

    @Test
    void anUncontendedLockIsThinAndLeavesNothingBehind() {
        SlottedObject lock = new SlottedObject();
        int table = MonitorRuntime.tableSize();
        Monitors.enter(lock);
        ThinLock first = assertInstanceOf(ThinLock.class, slot(lock));
        assertEquals(1, first.depth);
        assertEquals(DThreads.currentClass(), first.hold.threadClass);
        Monitors.enter(lock);
        assertEquals(2, ((ThinLock) slot(lock)).depth);
        assertTrue(Monitors.holdsLock(lock));
        Monitors.notifyAll(lock); // nobody can be waiting on a thin hold: nothing to do, nothing inflated
        assertInstanceOf(ThinLock.class, slot(lock));
        Monitors.exit(lock);
        assertSame(first, slot(lock), "the values are interned per hold");
        Monitors.exit(lock);
        assertNull(slot(lock));
        assertFalse(Monitors.holdsLock(lock));
        assertEquals(table, MonitorRuntime.tableSize(), "no table entry");
        assertThrows(IllegalMonitorStateException.class, () -> Monitors.exit(lock));
        assertThrows(IllegalMonitorStateException.class, () -> Monitors.notifyOne(lock));
        assertNull(slot(lock), "a refused exit or notify changes nothing");
    }

    @Test
    void reentryDeeperThanTheThinValuesInflatesAndStillBalances() throws Exception {
        SlottedObject lock = new SlottedObject();
        int levels = ThinLock.MAX_DEPTH + 3;
        for (int i = 0; i < levels; i++) {
            Monitors.enter(lock);
        }
        Monitor m = assertInstanceOf(Monitor.class, slot(lock));
        assertEquals(levels, m.activeDepth());
        for (int i = 0; i < levels; i++) {
            assertTrue(Monitors.holdsLock(lock), "level " + i);
            Monitors.exit(lock);
        }
        assertFalse(Monitors.holdsLock(lock));
        assertTrue(m.isFree());
        assertSame(m, slot(lock), "an inflated monitor stays in the slot");
        assertTrue(enterElsewhere(lock), "free for another thread");
    }

    @Test
    void anotherThreadInflatesAThinHoldAndGetsInWhenItIsReleased() throws Exception {
        SlottedObject lock = new SlottedObject();
        Monitors.enter(lock);
        Monitors.enter(lock);
        CountDownLatch done = new CountDownLatch(1);
        Thread other = new Thread(() -> {
            Monitors.enter(lock);
            lock.counter++;
            Monitors.exit(lock);
            done.countDown();
        }, "thin-contender");
        other.setDaemon(true);
        other.start();
        awaitBlockedOn(other, lock);
        Monitor m = assertInstanceOf(Monitor.class, slot(lock), "the contender inflated it");
        assertEquals(2, m.activeDepth(), "at the holder's depth");
        assertTrue(Monitors.holdsLock(lock));
        assertEquals(0, lock.counter);
        Monitors.exit(lock);
        assertFalse(done.await(100, TimeUnit.MILLISECONDS), "still held one level deep");
        Monitors.exit(lock);
        assertTrue(done.await(10, TimeUnit.SECONDS));
        assertEquals(1, lock.counter);
        assertTrue(m.isFree());
    }

    @Test
    void aThinHoldIsInflatedForAWaitAndNotifiedByAnotherThread() throws Exception {
        SlottedObject lock = new SlottedObject();
        AtomicReference<Throwable> failure = new AtomicReference<>();
        CountDownLatch waiting = new CountDownLatch(1);
        Thread waiter = new Thread(() -> {
            try {
                Monitors.enter(lock);
                try {
                    lock.counter = 1;
                    waiting.countDown();
                    while (lock.counter != 2) {
                        Monitors.waitOn(lock, 10_000);
                    }
                } finally {
                    Monitors.exit(lock);
                }
            } catch (Throwable t) {
                failure.set(t);
            }
        }, "thin-waiter");
        waiter.setDaemon(true);
        waiter.start();
        assertTrue(waiting.await(10, TimeUnit.SECONDS));
        Monitors.enter(lock); // blocks until the wait has released it
        try {
            assertInstanceOf(Monitor.class, slot(lock));
            lock.counter = 2;
            Monitors.notifyAll(lock);
        } finally {
            Monitors.exit(lock);
        }
        waiter.join(10_000);
        assertFalse(waiter.isAlive());
        assertNull(failure.get());
    }

    @Test
    void anExitByAnotherThreadIsRefusedAndTheHoldKept() throws Exception {
        SlottedObject lock = new SlottedObject();
        Monitors.enter(lock);
        try {
            AtomicReference<Throwable> thrown = new AtomicReference<>();
            Thread other = new Thread(() -> {
                try {
                    Monitors.exit(lock);
                } catch (Throwable t) {
                    thrown.set(t);
                }
            });
            other.start();
            other.join(10_000);
            assertInstanceOf(IllegalMonitorStateException.class, thrown.get());
            assertTrue(Monitors.holdsLock(lock));
            assertFalse(enterElsewhere(lock), "still ours");
        } finally {
            Monitors.exit(lock);
        }
        assertTrue(enterElsewhere(lock));
    }

    @Test
    void aCopiedThinValueHoldsNothingForAnyThread() throws Exception {
        SlottedObject original = new SlottedObject();
        SlottedObject copy = new SlottedObject();
        Monitors.enter(original);
        try {
            SLOT.setVolatile(copy, slot(original)); // what a reflective field copy of a locked object does
            assertFalse(Monitors.holdsLock(copy), "the copy is not held");
            assertThrows(IllegalMonitorStateException.class, () -> Monitors.exit(copy));
            assertTrue(enterElsewhere(copy), "another thread gets in at once");
            Monitors.enter(copy); // and so does the thread the copied value names
            assertTrue(Monitors.holdsLock(copy));
            Monitors.exit(copy);
            assertFalse(Monitors.holdsLock(copy));
            int hash = System.identityHashCode(copy);
            assertTrue(MonitorDump.snapshot().stream().noneMatch(e -> e.identityHash() == hash), MonitorDump.text());
        } finally {
            Monitors.exit(original);
        }
        assertTrue(enterElsewhere(copy));
        assertTrue(enterElsewhere(original));
    }

    /**
     * Threads lock objects that are replaced by fresh ones as they go, so thin takes, re-entries, inflations by a
     * contender and exits that find their thin value inflated all race; no increment may be lost.
     */
    @Test
    void noIncrementIsLostWhileThinHoldsAreTakenAndInflatedConcurrently() throws Exception {
        int threads = 4;
        int perThread = 20_000;
        AtomicReferenceArray<SlottedObject> shared = new AtomicReferenceArray<>(3);
        ConcurrentLinkedQueue<SlottedObject> all = new ConcurrentLinkedQueue<>();
        for (int i = 0; i < shared.length(); i++) {
            SlottedObject s = new SlottedObject();
            all.add(s);
            shared.set(i, s);
        }
        List<Thread> workers = new ArrayList<>();
        AtomicReference<Throwable> failure = new AtomicReference<>();
        for (int t = 0; t < threads; t++) {
            Thread w = new Thread(() -> {
                try {
                    ThreadLocalRandom random = ThreadLocalRandom.current();
                    for (int i = 0; i < perThread; i++) {
                        int index = random.nextInt(shared.length());
                        if (random.nextInt(64) == 0) {
                            SlottedObject fresh = new SlottedObject();
                            all.add(fresh);
                            shared.set(index, fresh);
                        }
                        SlottedObject s = shared.get(index);
                        Monitors.enter(s);
                        try {
                            if ((i & 1) == 0) {
                                Monitors.enter(s);
                                s.counter++;
                                Monitors.exit(s);
                            } else {
                                s.counter++;
                            }
                        } finally {
                            Monitors.exit(s);
                        }
                    }
                } catch (Throwable e) {
                    failure.compareAndSet(null, e);
                }
            }, "thin-worker-" + t);
            w.setDaemon(true);
            workers.add(w);
        }
        workers.forEach(Thread::start);
        for (Thread w : workers) {
            w.join(50_000);
            assertFalse(w.isAlive(), w.getName() + " did not finish:\n" + MonitorDump.text());
        }
        assertNull(failure.get());
        long sum = 0;
        for (SlottedObject s : all) {
            sum += s.counter;
            Object v = slot(s);
            assertTrue(v == null || v instanceof Monitor m && m.isFree(), "left held: " + v);
        }
        assertEquals((long) threads * perThread, sum);
    }

    /** Whether another thread enters {@code lock} within a second (it gives up by interrupt otherwise). */
    private static boolean enterElsewhere(Object lock) throws InterruptedException {
        CountDownLatch entered = new CountDownLatch(1);
        Thread t = new Thread(() -> {
            Monitors.enter(lock);
            entered.countDown();
            Monitors.exit(lock);
        }, "thin-probe");
        t.setDaemon(true);
        t.start();
        boolean in = entered.await(1, TimeUnit.SECONDS);
        if (!in) {
            return false; // the probe stays parked until the test releases the lock, then exits
        }
        t.join(10_000);
        return true;
    }

    private static void awaitBlockedOn(Thread t, Object lock) {
        int hash = System.identityHashCode(lock);
        org.awaitility.Awaitility.await().atMost(java.time.Duration.ofSeconds(10)).until(() -> MonitorDump.snapshot()
                .stream().anyMatch(e -> e.identityHash() == hash && !e.entrantClasses().isEmpty()));
    }
}
