package org.dthreads.monitor.internal;

import static java.util.concurrent.TimeUnit.SECONDS;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.ref.WeakReference;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.dthreads.ThreadClass;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(value = 60, unit = SECONDS)
class MonitorTableTest {

    /** Equal to every other instance, same hash code: a table keyed by equals would share monitors. */
    static final class AllEqual {
        @Override
        public boolean equals(Object o) {
            return o instanceof AllEqual;
        }

        @Override
        public int hashCode() {
            return 1;
        }
    }

    @Test
    void keysCompareByIdentityNeverEquals() {
        MonitorTable table = new MonitorTable();
        AllEqual a = new AllEqual();
        AllEqual b = new AllEqual();
        Monitor ma = table.getOrCreate(a);
        Monitor mb = table.getOrCreate(b);
        assertNotSame(ma, mb);
        assertSame(ma, table.getOrCreate(a));
        assertSame(mb, table.get(b));
        assertNull(table.get(new AllEqual()));
    }

    @Test
    void growsAndFindsEverythingInUse() {
        MonitorTable table = new MonitorTable();
        Actor me = Actor.current();
        long cls = ThreadClass.of(0x1234, 2);
        List<Object> keys = new ArrayList<>();
        List<Monitor> monitors = new ArrayList<>();
        for (int i = 0; i < 50_000; i++) {
            Object k = new Object();
            keys.add(k);
            Monitor m = table.getOrCreate(k);
            assertTrue(m.tryEnterFast(me, cls, k)); // owned: no sweep may retire it while the table grows
            monitors.add(m);
        }
        for (int i = 0; i < keys.size(); i++) {
            assertSame(monitors.get(i), table.get(keys.get(i)));
        }
        assertEquals(50_000, table.size());
        for (Monitor m : monitors) {
            assertTrue(m.exit(me, cls));
        }
    }

    @Test
    void idleMonitorsAreRetiredAfterCollections() {
        MonitorTable table = new MonitorTable(6, Monitor::new, true); // swept after each collection
        WeakReference<Object> ref = new WeakReference<>(createAndForget(table));
        await().atMost(Duration.ofSeconds(20)).pollInterval(Duration.ofMillis(50)).until(() -> {
            System.gc();
            return ref.get() == null && table.size() == 0;
        });
    }

    private static Object createAndForget(MonitorTable table) {
        Object key = new Object();
        table.getOrCreate(key);
        return key;
    }

    @Test
    void aSweepRetiresOnlyIdleMonitorsUnusedSinceTheLastOne() {
        MonitorTable table = new MonitorTable(1);
        Object idle = new Object();
        Object used = new Object();
        Object held = new Object();
        Monitor idleMonitor = table.getOrCreate(idle);
        Monitor usedMonitor = table.getOrCreate(used);
        Monitor heldMonitor = table.getOrCreate(held);
        Actor me = Actor.current();
        long cls = ThreadClass.of(0x1234, 1);
        assertTrue(heldMonitor.tryEnterFast(me, cls, held));
        table.getOrCreate(used);
        table.sweep();
        assertTrue(idleMonitor.isRetired());
        assertNull(table.get(idle));
        assertSame(usedMonitor, table.get(used));
        assertSame(heldMonitor, table.get(held));
        assertFalse(heldMonitor.isRetired());
        assertTrue(heldMonitor.exit(me, cls));
        Monitor again = table.getOrCreate(idle);
        assertNotSame(idleMonitor, again);
        assertFalse(again.isRetired());
        assertEquals(3, table.size());
        table.sweep(); // nothing looked up since: everything idle goes
        assertTrue(usedMonitor.isRetired());
        assertTrue(again.isRetired());
        assertEquals(0, table.size());
    }

    /** Issue 15, section 3: creating a monitor calls out under the segment lock; a nested insert resizes. */
    @Test
    void aNestedInsertThatResizesDoesNotLoseTheOuterMonitor() {
        Object outer = new Object();
        List<Object> others = new ArrayList<>();
        for (int i = 0; i < 100; i++) {
            others.add(new Object());
        }
        MonitorTable[] self = new MonitorTable[1];
        self[0] = new MonitorTable(1, key -> {
            if (key == outer) {
                others.forEach(self[0]::getOrCreate); // e.g. a transport locking objects of its own
            }
            return new Monitor(key);
        }, false);
        Monitor m = self[0].getOrCreate(outer);
        assertSame(m, self[0].get(outer), "the outer monitor landed in a table the nested insert replaced");
        assertSame(m, self[0].getOrCreate(outer));
    }

    /** The call-out locks the very object whose monitor is being created: still one monitor for it. */
    @Test
    void aNestedInsertOfTheSameKeyYieldsOneMonitor() {
        Object key = new Object();
        MonitorTable[] self = new MonitorTable[1];
        Monitor[] inner = new Monitor[1];
        boolean[] nested = {false};
        self[0] = new MonitorTable(1, k -> {
            if (!nested[0]) {
                nested[0] = true;
                inner[0] = self[0].getOrCreate(k);
            }
            return new Monitor(k);
        }, false);
        Monitor m = self[0].getOrCreate(key);
        assertSame(inner[0], m);
        assertSame(m, self[0].get(key));
        assertEquals(1, self[0].size());
    }

    @Test
    void aMonitorOwnedFromARemoteSiteKeepsItsObject() {
        // the only reference to the object is the runtime's: owned by a remote lease, no local reference
        long remoteClass = ThreadClass.of(0x7777, 1);
        Object[] holder = {new Object()};
        WeakReference<Object> ref = new WeakReference<>(holder[0]);
        long token = MonitorRuntime.remoteEnter(holder[0], remoteClass, "peer-a", 60_000);
        holder[0] = null;
        for (int i = 0; i < 5; i++) {
            System.gc();
        }
        assertNotNull(ref.get(), "an object whose monitor is owned remotely was collected");
        MonitorRuntime.remoteExit(token);
        await().atMost(Duration.ofSeconds(20)).pollInterval(Duration.ofMillis(50)).until(() -> {
            System.gc();
            return ref.get() == null;
        });
    }
}
