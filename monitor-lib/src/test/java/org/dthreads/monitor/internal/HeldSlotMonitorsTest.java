package org.dthreads.monitor.internal;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.dthreads.DThreads;
import org.dthreads.ThreadClass;
import org.dthreads.monitor.MonitorDump;
import org.dthreads.monitor.Monitors;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A slot monitor held without contention is in no table; {@link HeldSlotMonitors} lists it, so the dump, the
 * wait-for graph's rows and the fault probes see it, as they see the table's monitors.
 */
@Timeout(60)
class HeldSlotMonitorsTest {

    /** Declares the slot the rewriter would add. */
    static final class Slotted {
        @SuppressWarnings("unused")
        private transient Object $dthreads$monitor;
    }

    @BeforeAll
    static void slotsAreOn() {
        assertNotNull(MonitorSlots.slotOf(new Slotted()), "the monitor slot is on by default");
    }

    private static Optional<MonitorDump.Entry> find(Object lock) {
        int hash = System.identityHashCode(lock);
        return MonitorDump.snapshot().stream().filter(e -> e.identityHash() == hash).findFirst();
    }

    private static boolean inWaitForRows(Object lock) {
        int hash = System.identityHashCode(lock);
        return DiagnosticRows.emulatedRows().stream().anyMatch(r -> (Integer) r[0] == hash);
    }

    /** The index the thin exit finds an entry at is the one its removal clears, through holes and growth. */
    @Test
    void removalAtTheFoundIndexKeepsTheListConsistentThroughHolesAndGrowth() {
        HeldSlotMonitors list = new HeldSlotMonitors(Thread.currentThread(), 2);
        Object a = new Object();
        Object b = new Object();
        Object c = new Object();
        Object d = new Object();
        list.push(a);
        list.push(b);
        list.push(c); // grows
        assertEquals(1, list.indexOfOwn(b));
        list.removeAt(list.indexOfOwn(b)); // a hole
        assertEquals(-1, list.indexOfOwn(b));
        list.push(d); // fills the hole
        assertEquals(1, list.indexOfOwn(d));
        list.push(a); // a second entry of a: the most recent is found first
        assertEquals(3, list.indexOfOwn(a));
        list.removeAt(3);
        assertEquals(0, list.indexOfOwn(a));
        list.removeAt(list.indexOfOwn(c));
        list.removeAt(list.indexOfOwn(d));
        list.removeAt(list.indexOfOwn(a));
        assertEquals(-1, list.indexOfOwn(a));
        assertFalse(list.containsOwn(c));
        List<Object> left = new ArrayList<>();
        list.forEach(left::add);
        assertEquals(List.of(), left);
        list.push(b); // the trimmed list starts again at 0
        assertEquals(0, list.indexOfOwn(b));
    }

    @Test
    void anUncontendedHeldSlotMonitorIsInTheDumpAndLeavesItOnItsLastExit() {
        Slotted lock = new Slotted();
        Monitors.enter(lock);
        try {
            Monitors.enter(lock);
            try {
                MonitorDump.Entry e = find(lock).orElseThrow(() -> new AssertionError("held but not in the dump: "
                        + MonitorDump.text()));
                assertEquals(DThreads.currentClass(), e.ownerClass());
                assertEquals(2, e.depth());
                assertEquals(Slotted.class.getName(), e.type());
                assertTrue(inWaitForRows(lock), "held but not in the wait-for graph's rows");
            } finally {
                Monitors.exit(lock);
            }
            assertEquals(1, find(lock).orElseThrow().depth());
        } finally {
            Monitors.exit(lock);
        }
        assertTrue(find(lock).isEmpty(), MonitorDump.text());
        assertEquals(null, MonitorSlots.current(MonitorSlots.slotOf(lock), lock), "a thin hold leaves nothing behind");
    }

    @Test
    void anotherThreadsHoldsAreListedWhateverOrderTheyAreReleasedIn() throws Exception {
        List<Slotted> locks = new ArrayList<>();
        for (int i = 0; i < 9; i++) {
            locks.add(new Slotted()); // more than the list's first capacity: it grows while listed
        }
        CountDownLatch held = new CountDownLatch(1);
        CountDownLatch releaseSome = new CountDownLatch(1);
        CountDownLatch released = new CountDownLatch(1);
        CountDownLatch end = new CountDownLatch(1);
        AtomicLong holderClass = new AtomicLong();
        Thread holder = new Thread(() -> {
            holderClass.set(DThreads.currentClass());
            locks.forEach(Monitors::enter);
            held.countDown();
            awaitQuietly(releaseSome);
            // not in reverse order: the first, a middle one and the last
            Monitors.exit(locks.get(0));
            Monitors.exit(locks.get(4));
            Monitors.exit(locks.get(8));
            released.countDown();
            awaitQuietly(end);
            for (int i = 7; i >= 1; i--) {
                if (i != 4) {
                    Monitors.exit(locks.get(i));
                }
            }
        }, "slot-holder");
        holder.setDaemon(true);
        holder.start();
        try {
            assertTrue(held.await(10, TimeUnit.SECONDS));
            for (Slotted lock : locks) {
                MonitorDump.Entry e = find(lock).orElseThrow(() -> new AssertionError(MonitorDump.text()));
                assertEquals(holderClass.get(), e.ownerClass());
                assertTrue(e.actingFor().contains("slot-holder"), e.toString());
            }
            releaseSome.countDown();
            assertTrue(released.await(10, TimeUnit.SECONDS));
            for (int i = 0; i < locks.size(); i++) {
                boolean stillHeld = i != 0 && i != 4 && i != 8;
                assertEquals(stillHeld, find(locks.get(i)).isPresent(), i + ": " + MonitorDump.text());
            }
        } finally {
            end.countDown();
        }
        holder.join(10_000);
        for (Slotted lock : locks) {
            assertTrue(find(lock).isEmpty(), MonitorDump.text());
        }
    }

    @Test
    void theCallerKeepsTheEntryWhileACallbackOfItsClassTakesOverWaitsAndHandsBack() throws Exception {
        Slotted lock = new Slotted();
        long cls = DThreads.currentClass();
        CountDownLatch callbackWaiting = new CountDownLatch(1);
        AtomicLong callbackSawDepth = new AtomicLong();
        List<Object> callbackListed = new java.util.concurrent.CopyOnWriteArrayList<>();
        Monitors.enter(lock);
        try {
            assertEquals(List.of(lock), heldByMe(lock));
            org.dthreads.monitor.spi.OutgoingCalls.begin(); // suspended: a callback of the class may act for it
            try {
                Thread callback = new Thread(() -> {
                    try (org.dthreads.ClassScope scope = DThreads.bind(cls)) {
                        Monitors.enter(lock); // takes the hold over from the suspended caller
                        try {
                            callbackSawDepth.set(find(lock).map(MonitorDump.Entry::depth).orElse(-1));
                            callbackWaiting.countDown();
                            Monitors.waitOn(lock, 200); // releases it and re-acquires it from free
                        } finally {
                            Monitors.exit(lock); // hands the hold back
                        }
                        callbackListed.addAll(heldByMe(lock));
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                }, "slot-callback");
                callback.setDaemon(true);
                callback.start();
                assertTrue(callbackWaiting.await(10, TimeUnit.SECONDS));
                assertEquals(2, callbackSawDepth.get(), "the callback's entry, stacked on the caller's hold");
                callback.join(10_000);
                assertTrue(!callback.isAlive());
            } finally {
                org.dthreads.monitor.spi.OutgoingCalls.end();
            }
            assertEquals(List.of(), callbackListed, "the callback never acquired it from free");
            assertEquals(List.of(lock), heldByMe(lock), "the caller, the bottom hold, still lists it");
            MonitorDump.Entry e = find(lock).orElseThrow(() -> new AssertionError(MonitorDump.text()));
            assertEquals(1, e.depth());
            assertTrue(e.actingFor().contains(Thread.currentThread().getName()), e.toString());
        } finally {
            Monitors.exit(lock);
        }
        assertEquals(List.of(), heldByMe(lock));
        assertTrue(find(lock).isEmpty(), MonitorDump.text());
    }

    /** {@code m} as often as the calling thread's list has it. */
    private static List<Object> heldByMe(Object m) {
        List<Object> out = new ArrayList<>();
        HeldSlotMonitors list = Actor.current().heldSlots;
        if (list != null) {
            list.forEach(x -> {
                if (x == m) {
                    out.add(x);
                }
            });
        }
        return out;
    }

    @Test
    void aSlotMonitorHeldByARemoteLeaseIsListedUntilTheLeaseOfItsDeadSiteIsRevoked() {
        Slotted lock = new Slotted();
        long remoteClass = ThreadClass.of(0x7778, 1);
        MonitorRuntime.remoteEnter(lock, remoteClass, "dead-peer", 300); // never renewed: its site died
        MonitorDump.Entry e = find(lock).orElseThrow(() -> new AssertionError(MonitorDump.text()));
        assertEquals(remoteClass, e.ownerClass());
        assertEquals("dead-peer", e.remotePeer());
        await().atMost(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(50)).until(() -> find(lock).isEmpty());
        Monitors.enter(lock); // free again
        Monitors.exit(lock);
    }

    @Test
    void holesAreFilledAndTheTopTrimmed() {
        HeldSlotMonitors list = new HeldSlotMonitors(Thread.currentThread(), 2);
        Object a = new Object();
        Object b = new Object();
        Object c = new Object();
        Object d = new Object();
        list.push(a);
        list.push(b);
        list.push(c); // grows
        list.remove(a); // a hole at the bottom
        assertEquals(List.of(b, c), listed(list));
        list.push(d); // fills it
        assertEquals(List.of(d, b, c), listed(list));
        list.remove(b);
        list.remove(c); // trims c and the hole below it
        assertEquals(List.of(d), listed(list));
        list.remove(d);
        list.remove(d); // not listed: nothing
        assertEquals(List.of(), listed(list));
        list.push(a);
        assertEquals(List.of(a), listed(list));
    }

    private static List<Object> listed(HeldSlotMonitors list) {
        List<Object> out = new ArrayList<>();
        list.forEach(out::add);
        return out;
    }

    private static void awaitQuietly(CountDownLatch latch) {
        try {
            latch.await(20, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
