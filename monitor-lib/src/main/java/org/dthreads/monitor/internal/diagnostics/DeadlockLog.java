package org.dthreads.monitor.internal.diagnostics;

import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import org.dthreads.ThreadClass;
import org.dthreads.internal.RateLimitedLog;
import org.dthreads.monitor.internal.jfr.MonitorEvents;

/**
 * Where the automatic check ({@link DeadlockWatch}, {@link DeadlockProbe}) reports a deadlock: one log line per
 * cycle and site, never twice for the same edges (the remembered set is bounded: {@link #REMEMBERED}), and an
 * {@code org.dthreads.Deadlock} JFR event. Thread-safe (the set is guarded by its own monitor).
 */
final class DeadlockLog {
    static final int REMEMBERED = 1024;
    /** Not limited by time: {@link #LOGGED} already lets each cycle through once per site. */
    private static final RateLimitedLog LOG = new RateLimitedLog(
            (level, line) -> System.getLogger(DeadlockWatch.class.getName()).log(level, line), 0L, System::nanoTime);
    private static final Set<String> LOGGED = new LinkedHashSet<>();

    private DeadlockLog() {}

    /** A cycle whose every edge is at this site. */
    static void local(List<WaitEdge> cycle) {
        if (firstTime(cycle)) {
            String text = Cycles.format(cycle, Map.of());
            LOG.error("deadlock", "dthreads: deadlock detected (-Ddthreads.deadlock.detect)\n" + text);
            MonitorEvents.deadlock(cycle.size(), 1, text);
        }
    }

    /**
     * This site's part of a cycle that spans sites, found by a probe.
     *
     * @param path      the edges of the cycle at this site, in chase order
     * @param initiator the class that started the probe (blocked somewhere on the cycle)
     * @param sites     how many sites the chase crossed from here to close the cycle (this one included)
     */
    static void part(List<WaitEdge> path, long initiator, long sites) {
        if (path.isEmpty() || !firstTime(path)) {
            return;
        }
        String classes = path.stream().map(e -> ThreadClass.format(e.waiterClass()) + " -> " + e.ownerNode())
                .collect(Collectors.joining(", "));
        StringBuilder sb = new StringBuilder("dthreads: deadlock detected across sites (-Ddthreads.deadlock.detect): ")
                .append("class ").append(ThreadClass.format(initiator)).append(" waits for itself through call chains")
                .append(" across sites (the probe crossed ").append(sites).append(sites == 1 ? " site" : " sites")
                .append(" from here to close the cycle); this site's edges of the cycle: ").append(classes)
                .append(". Every site's edges: ./dthreads deadlocks with every site's PID or HOST:PORT.\n");
        for (WaitEdge e : path) {
            sb.append(Cycles.format(List.of(e), Map.of()).lines().skip(1).collect(Collectors.joining("\n", "", "\n")));
        }
        LOG.error("deadlock", sb.toString());
        MonitorEvents.deadlock(path.size(), (int) Math.min(Integer.MAX_VALUE, sites), sb.toString());
    }

    private static boolean firstTime(List<WaitEdge> edges) {
        String key = key(edges);
        synchronized (LOGGED) {
            if (!LOGGED.add(key)) {
                return false;
            }
            if (LOGGED.size() > REMEMBERED) {
                LOGGED.remove(LOGGED.iterator().next());
            }
            return true;
        }
    }

    private static String key(List<WaitEdge> edges) {
        return edges.stream().map(WaitEdge::identity).collect(Collectors.toCollection(TreeSet::new)).toString();
    }
}
