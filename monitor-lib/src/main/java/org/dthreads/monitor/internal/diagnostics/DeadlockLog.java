package org.dthreads.monitor.internal.diagnostics;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import org.dthreads.internal.RateLimitedLog;
import org.dthreads.monitor.internal.jfr.MonitorEvents;

/**
 * Where the automatic check ({@link DeadlockWatch}, {@link DeadlockProbe}) reports a deadlock: one log line per
 * cycle and site, with every edge of the cycle (a cycle across sites as well: each site on it found all of it),
 * never twice for the same edges (the remembered set is bounded: {@link #REMEMBERED}), and an
 * {@code org.dthreads.Deadlock} JFR event. Thread-safe (the set is guarded by its own monitor).
 */
final class DeadlockLog {
    static final int REMEMBERED = 1024;
    /** Not limited by time: {@link #LOGGED} already lets each cycle through once per site. */
    private static final RateLimitedLog LOG = new RateLimitedLog(
            (level, line) -> System.getLogger(DeadlockWatch.class.getName()).log(level, line), 0L, System::nanoTime);
    private static final Set<String> LOGGED = new LinkedHashSet<>();
    /** How a log line about a cycle across sites starts. */
    static final String ACROSS_SITES = "dthreads: deadlock detected across sites";

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
     * A cycle that spans sites, found by a probe: every edge of it, starting at its smallest class, so that every
     * site on it logs the same text.
     *
     * @param cycle the edges of the cycle, in order (each edge's owner is the next edge's waiter)
     */
    static void acrossSites(List<WaitEdge> cycle) {
        List<WaitEdge> ordered = canonical(cycle);
        if (ordered.isEmpty() || !firstTime(ordered)) {
            return;
        }
        String text = Cycles.format(ordered, Map.of());
        LOG.error("deadlock", ACROSS_SITES + " (-Ddthreads.deadlock.detect); the whole cycle, as every site on it"
                + " logs it:\n" + text);
        MonitorEvents.deadlock(ordered.size(), (int) ordered.stream().map(WaitEdge::siteId).distinct().count(), text);
    }

    /** The cycle rotated to start at the edge whose waiter is the smallest node (the order {@link Cycles} uses). */
    static List<WaitEdge> canonical(List<WaitEdge> cycle) {
        int first = 0;
        for (int i = 1; i < cycle.size(); i++) {
            if (cycle.get(i).waiterNode().compareTo(cycle.get(first).waiterNode()) < 0) {
                first = i;
            }
        }
        List<WaitEdge> out = new ArrayList<>(cycle.subList(first, cycle.size()));
        out.addAll(cycle.subList(0, first));
        return out;
    }

    /** What identifies a cycle, whatever edge it is read from: its edges' identities, sorted. */
    static String key(List<WaitEdge> edges) {
        return edges.stream().map(WaitEdge::identity).collect(Collectors.toCollection(TreeSet::new)).toString();
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

}
