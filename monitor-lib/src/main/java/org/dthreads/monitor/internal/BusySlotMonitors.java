package org.dthreads.monitor.internal;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.WeakHashMap;
import java.util.function.Consumer;

/**
 * Slot monitors ({@link MonitorSlots}) that diagnostics must be able to list: a slot monitor is in no table, so
 * {@code MonitorDump} and the wait-for graph ({@link DiagnosticRows}) would not see it. A monitor is noted here
 * when a thread is about to block on it (the contended entry), waits on it, or a remote lease reaches it; the
 * uncontended path never comes here. Held-but-uncontended slot monitors are therefore not listed (a
 * deadlock always has an entrant on every monitor of its cycle, so the wait-for graph misses nothing).
 *
 * <h2>What guards what</h2>
 * One {@link WeakHashMap} under its own lock: weak, so a noted monitor still dies with its object (the
 * monitor is reachable only from the object's slot). Noting is idempotent; it costs a map put under a lock
 * on a path that is about to park anyway.
 */
final class BusySlotMonitors {
    private static final Map<Monitor, Boolean> NOTED = new WeakHashMap<>();

    private BusySlotMonitors() {}

    static void note(Monitor m) {
        synchronized (NOTED) {
            NOTED.put(m, Boolean.TRUE);
        }
    }

    /** Visits every noted monitor still alive (busy or not: the caller filters); a copy, no lock held. */
    static void forEach(Consumer<Monitor> action) {
        List<Monitor> copy;
        synchronized (NOTED) {
            copy = new ArrayList<>(NOTED.keySet());
        }
        copy.forEach(action);
    }

    /** Noted monitors still alive; for tests. */
    static int size() {
        synchronized (NOTED) {
            return NOTED.size();
        }
    }
}
