package org.dthreads.monitor.internal;

import static java.util.concurrent.TimeUnit.SECONDS;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;

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
    void growsAndFindsEverything() {
        MonitorTable table = new MonitorTable();
        List<Object> keys = new ArrayList<>();
        List<Monitor> monitors = new ArrayList<>();
        for (int i = 0; i < 50_000; i++) {
            Object k = new Object();
            keys.add(k);
            monitors.add(table.getOrCreate(k));
        }
        for (int i = 0; i < keys.size(); i++) {
            assertSame(monitors.get(i), table.get(keys.get(i)));
        }
        assertEquals(50_000, table.size());
    }

    @Test
    void idleMonitorsAreWeak() {
        MonitorTable table = new MonitorTable();
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
