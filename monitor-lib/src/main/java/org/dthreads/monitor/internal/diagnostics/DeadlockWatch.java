package org.dthreads.monitor.internal.diagnostics;

import java.time.Duration;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.dthreads.ThreadClass;
import org.dthreads.internal.RateLimitedLog;

/**
 * The automatic deadlock check, opt-in with {@code -Ddthreads.deadlock.detect=<duration>} ({@code 5s},
 * {@code 500ms}, {@code PT5S}, or milliseconds): when a thread of this site stays blocked on a monitor longer than
 * that, the site looks for a cycle through it, among its own edges and, by a {@link DeadlockProbe} along the call
 * chains, across the sites it talks to, which answer with their edges of the cycle: every site on a cycle (each
 * runs its own watch) finds the whole cycle from its own blocked edge and logs all of it once ({@link DeadlockLog}).
 *
 * <h2>Cost</h2>
 * Off by default, and then nothing runs: no thread, no hook in any monitor operation. On, one daemon thread takes
 * a snapshot of the site's wait-for edges every quarter of the duration (at least every {@link #MIN_PERIOD_MILLIS}
 * ms) and probes only edges older than the duration.
 *
 * <h2>State</h2>
 * {@link #firstSeen} (edge identity to the time it was first seen), {@link #probedAt} and {@link #onCycle} are
 * confined to the watch thread. An edge that has lasted the whole duration is stable: a cycle all of whose edges
 * here are that old is reported without a second snapshot, and a cycle across sites when a second probe, from
 * snapshots taken after the first one's, finds the same edges.
 */
public final class DeadlockWatch implements Runnable {
    /** The system property. */
    public static final String PROPERTY = "dthreads.deadlock.detect";
    static final long MIN_PERIOD_MILLIS = 100;
    /** Beyond {@link DeadlockProbe#SNAPSHOT_MILLIS}: a confirming probe reads snapshots newer than the first's. */
    static final long CONFIRM_GAP_MILLIS = 50;
    private static final RateLimitedLog LOG = RateLimitedLog.forClass(DeadlockWatch.class);
    private static Thread started;

    private final long thresholdNanos;
    private final Map<String, Long> firstSeen = new HashMap<>();
    /** Edge identity to the time a probe last started from it: each edge is probed once per threshold. */
    private final Map<String, Long> probedAt = new HashMap<>();
    /** The edges of this site on a cycle already logged: not probed again while they last. */
    private final Set<String> onCycle = new HashSet<>();

    DeadlockWatch(long thresholdNanos) {
        this.thresholdNanos = thresholdNanos;
    }

    /**
     * Starts the watch if {@value #PROPERTY} is set (the agent calls this at start-up); idempotent, never throws.
     *
     * @return true if the watch runs
     */
    public static synchronized boolean startIfConfigured() {
        try {
            if (started != null) {
                return true;
            }
            String value = System.getProperty(PROPERTY);
            if (value == null || value.isBlank()) {
                return false;
            }
            long nanos = parse(value.trim());
            if (nanos <= 0) {
                LOG.warn("bad-duration", "dthreads: -D" + PROPERTY + "=" + value + " is not a duration (try 5s, 500ms,"
                        + " PT5S); the automatic deadlock check is off");
                return false;
            }
            Thread t = new Thread(new DeadlockWatch(nanos), "dthreads-deadlock-watch");
            t.setDaemon(true);
            t.start();
            started = t;
            return true;
        } catch (RuntimeException | Error e) {
            LOG.warn("start-failed", "dthreads: the automatic deadlock check did not start: " + e);
            return false;
        }
    }

    /** {@code 5s}, {@code 500ms}, {@code 2m}, an ISO-8601 duration, or plain milliseconds; -1 if none of these. */
    static long parse(String s) {
        try {
            String v = s.toLowerCase(Locale.ROOT);
            if (v.startsWith("pt") || v.startsWith("p")) {
                return Duration.parse(s.toUpperCase(Locale.ROOT)).toNanos();
            }
            if (v.endsWith("ms")) {
                return TimeUnit.MILLISECONDS.toNanos(Long.parseLong(v.substring(0, v.length() - 2).trim()));
            }
            if (v.endsWith("s")) {
                return TimeUnit.SECONDS.toNanos(Long.parseLong(v.substring(0, v.length() - 1).trim()));
            }
            if (v.endsWith("m")) {
                return TimeUnit.MINUTES.toNanos(Long.parseLong(v.substring(0, v.length() - 1).trim()));
            }
            return TimeUnit.MILLISECONDS.toNanos(Long.parseLong(v));
        } catch (RuntimeException e) {
            return -1L;
        }
    }

    @Override
    public void run() {
        long periodMillis = Math.max(MIN_PERIOD_MILLIS, TimeUnit.NANOSECONDS.toMillis(thresholdNanos) / 4);
        for (;;) {
            try {
                TimeUnit.MILLISECONDS.sleep(periodMillis);
                check();
            } catch (InterruptedException e) {
                return;
            } catch (RuntimeException | LinkageError e) {
                LOG.warn("check-failed", "dthreads: the automatic deadlock check failed: " + e);
            }
        }
    }

    /** One round: note the edges' ages, then look for cycles through the edges older than the threshold. */
    void check() throws InterruptedException {
        SiteSnapshot site = SiteSnapshot.take();
        List<WaitEdge> edges = site.edges;
        long now = System.nanoTime();
        Set<String> present = new HashSet<>();
        Set<String> old = new HashSet<>();
        for (WaitEdge e : edges) {
            String id = e.identity();
            present.add(id);
            if (now - firstSeen.computeIfAbsent(id, k -> now) >= thresholdNanos) {
                old.add(id);
            }
        }
        firstSeen.keySet().retainAll(present);
        probedAt.keySet().retainAll(present);
        onCycle.retainAll(present);
        if (old.isEmpty()) {
            return;
        }
        Set<String> onLocalCycle = new HashSet<>();
        for (List<WaitEdge> cycle : Cycles.find(edges)) {
            if (cycle.stream().allMatch(e -> old.contains(e.identity()))) {
                cycle.forEach(e -> onLocalCycle.add(e.identity()));
                DeadlockLog.local(cycle);
            }
        }
        for (WaitEdge e : edges) {
            String id = e.identity();
            if (old.contains(id) && !onLocalCycle.contains(id) && !onCycle.contains(id) && probeable(e)
                    && now - probedAt.getOrDefault(id, now - thresholdNanos) >= thresholdNanos) {
                probedAt.put(id, now);
                List<WaitEdge> cycle = confirmedCycle(site, e);
                if (!cycle.isEmpty()) {
                    DeadlockLog.acrossSites(cycle);
                    onCycle.add(id); // a remote edge is not in the cycle: the real one at the object's site is
                    cycle.forEach(c -> onCycle.add(c.identity()));
                }
            }
        }
    }

    /**
     * The whole cycle through {@code e} across sites, if a probe finds it twice, the second time from snapshots
     * taken after the first probe (every site's snapshots then show it again: a deadlock stays, contention that
     * a chase may have pieced together from moments apart moves on); else an empty list.
     */
    private static List<WaitEdge> confirmedCycle(SiteSnapshot site, WaitEdge e) throws InterruptedException {
        List<WaitEdge> first = DeadlockProbe.start(site, e);
        if (first.isEmpty()) {
            return first;
        }
        TimeUnit.MILLISECONDS.sleep(DeadlockProbe.SNAPSHOT_MILLIS + CONFIRM_GAP_MILLIS);
        SiteSnapshot now = SiteSnapshot.take();
        if (now.edges.stream().noneMatch(x -> x.identity().equals(e.identity()))) {
            return List.of();
        }
        List<WaitEdge> second = DeadlockProbe.start(now, e);
        return !second.isEmpty() && DeadlockLog.key(second).equals(DeadlockLog.key(first)) ? second : List.of();
    }

    /** An edge a probe can start from: a known class waiting for another, or for a remote object's monitor. */
    private static boolean probeable(WaitEdge e) {
        return e.waiterClass() != ThreadClass.NONE && !e.orphan() && e.waiterClass() != e.ownerClass()
                && (e.ownerClass() != ThreadClass.NONE || e.kind().equals("remote"));
    }
}
