package org.dthreads.monitor.internal.diagnostics;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.dthreads.ThreadClass;
import org.dthreads.internal.RateLimitedLog;
import org.dthreads.monitor.internal.DiagnosticRows;
import org.dthreads.monitor.spi.RemoteMonitorSite;

/**
 * Finds a deadlock that spans sites, and all of its edges, by chasing it along the call chains (edge chasing, as
 * Chandy, Misra and Haas describe it) over the remote-monitor transports already in use: a
 * {@link RemoteMonitorSite#PROBE_EDGES} request beside the monitor operations, JRMP and IIOP alike, whose answer
 * is the edges of the cycle as text.
 *
 * <h2>The chase</h2>
 * A probe carries the <em>initiator</em> (a class blocked at the site that starts it) and the <em>chased</em>
 * class (the one it waits for). At each site the chased class is followed through this site's wait-for edges
 * (class C blocked here on a monitor owned by class D: chase D). Reaching an edge owned by the initiator closes
 * the cycle. A chased class that is not blocked here but is away in an outgoing remote call (a call chain that
 * went on, or an entry of a remote object's monitor) is chased at the site of that call's target, which is
 * exactly where the class runs now; one that runs here (owns a monitor through a thread not in a call) and is
 * blocked on none ends the chase. Hops are bounded ({@link #MAX_HOPS}); a site visits each class once per
 * probe. Each site answers with its own edges of the cycle followed by the answer of the site it forwarded to,
 * so the starting site gets the whole cycle, in order: it can check that it is one ({@link #isCycle}) and log all
 * of it. Every site on the cycle starts its own probe from its own blocked edge, so each learns the whole cycle
 * itself; no site logs what another tells it.
 *
 * <h2>Time</h2>
 * A probe never hangs a site: every forward waits at most the time left of the starter's budget
 * ({@link #BUDGET_MILLIS}), less {@link #HOP_MARGIN_MILLIS} per hop ({@link ProbeCalls}). The edges a probe
 * reads come from a snapshot at most {@link #SNAPSHOT_MILLIS} old, so a flood of probes costs one thread dump per
 * interval. Thread-safe.
 */
public final class DeadlockProbe {
    /** How many sites one probe crosses at most. */
    static final int MAX_HOPS = 16;
    static final long SNAPSHOT_MILLIS = 250;
    /** How long a site that starts a probe waits for the whole answer. */
    static final long BUDGET_MILLIS = 3_000;
    /** What each hop keeps of its budget for itself: the peer it asks is given the rest less this. */
    static final long HOP_MARGIN_MILLIS = 100;
    /** A peer is not asked with less time than this. */
    static final long MIN_BUDGET_MILLIS = 50;
    /** The most edges an answer may have: a cycle crosses at most {@link #MAX_HOPS} sites. */
    static final int MAX_EDGES = 256;

    private static final RateLimitedLog LOG = RateLimitedLog.forClass(DeadlockProbe.class);
    private static final Object SNAPSHOT_LOCK = new Object();
    private static SiteSnapshot snapshot;
    private static long takenAt;

    private DeadlockProbe() {}

    /**
     * Serves a {@link RemoteMonitorSite#PROBE_EDGES} request (what {@link RemoteMonitorSite#serveText} runs): the
     * edges of the cycle from here back to the initiator, as lines, or an empty text.
     *
     * @param op           {@link RemoteMonitorSite#PROBE_EDGES}
     * @param chased       the class to chase from here
     * @param initiator    the class that started the probe
     * @param budgetMillis how long the asker waits for this answer
     * @param hopsLeft     how many more sites the probe may cross
     * @param peer         the asking site, for log lines
     * @return the edges, one {@link WaitEdge#toLine()} per line; empty if no cycle
     * @throws IllegalArgumentException for another operation or an invalid class (logged)
     */
    public static String serveText(int op, long chased, long initiator, long budgetMillis, int hopsLeft, String peer) {
        if (op != RemoteMonitorSite.PROBE_EDGES) {
            throw new IllegalArgumentException("dthreads: unknown remote text operation " + op);
        }
        if (!ThreadClass.isValid(chased) || !ThreadClass.isValid(initiator)) {
            LOG.warn("probe-invalid-class", "dthreads: refused a deadlock probe from " + peer + " carrying the invalid"
                    + " thread class 0x" + Long.toHexString(ThreadClass.isValid(chased) ? initiator : chased));
            throw new IllegalArgumentException("dthreads: not a valid thread class in a deadlock probe");
        }
        try {
            long budget = Math.max(0L, Math.min(budgetMillis, BUDGET_MILLIS));
            List<WaitEdge> edges = chase(recentSnapshot(), chased, initiator, deadline(budget),
                    Math.max(0, Math.min(hopsLeft, MAX_HOPS)));
            StringBuilder sb = new StringBuilder();
            edges.forEach(e -> sb.append(e.toLine()).append('\n'));
            return sb.toString();
        } catch (RuntimeException | LinkageError e) {
            LOG.warn("probe-failed", "dthreads: serving a deadlock probe failed: " + e);
            return "";
        }
    }

    /**
     * Serves a {@link RemoteMonitorSite#PROBE} request, the numeric form of the probe (through
     * {@link RemoteMonitorSite#serve}): the same chase as {@link #serveText}, answered with how many sites the
     * cycle's edges from here are at.
     *
     * @param chased    the class to chase from here
     * @param initiator the class that started the probe
     * @param flags     ignored (0)
     * @param hopsLeft  how many more sites the probe may cross
     * @return how many sites the edges of the cycle from here are at, or 0 if it found no cycle
     */
    public static long serve(long chased, long initiator, long flags, long hopsLeft) {
        try {
            List<WaitEdge> edges = chase(recentSnapshot(), chased, initiator, deadline(BUDGET_MILLIS),
                    (int) Math.max(0, Math.min(hopsLeft, MAX_HOPS)));
            return edges.stream().map(WaitEdge::siteId).distinct().count();
        } catch (RuntimeException | LinkageError e) {
            LOG.warn("probe-failed", "dthreads: serving a deadlock probe failed: " + e);
            return 0L;
        }
    }

    /**
     * Starts a probe at this site for {@code start} (a blocked edge here whose owner is known, or a remote edge).
     *
     * @return the whole cycle through {@code start}, in chase order, or an empty list if the probe found none. A
     *         cycle found from a remote edge (a class entering a remote object's monitor) does not have that edge:
     *         it has the real one instead, at the object's site.
     */
    static List<WaitEdge> start(SiteSnapshot site, WaitEdge start) {
        long initiator = start.waiterClass();
        long deadline = deadline(BUDGET_MILLIS);
        List<WaitEdge> cycle;
        if (start.ownerClass() == ThreadClass.NONE) {
            // blocked on a remote object's monitor: the class itself is chased at the object's site
            Object target = DiagnosticRows.outgoingTargetOf(initiator);
            cycle = target == null ? List.of() : forward(target, initiator, initiator, deadline, MAX_HOPS);
        } else {
            Set<Long> visited = new HashSet<>(List.of(initiator, start.ownerClass()));
            List<WaitEdge> path = new ArrayList<>(List.of(start));
            cycle = dfs(new Graph(site), start.ownerClass(), initiator, deadline, MAX_HOPS, path, visited);
        }
        return isCycle(cycle) ? cycle : List.of();
    }

    /**
     * Whether {@code edges} form one closed chain of classes: each edge's owner is the next edge's waiter, the
     * last edge's owner the first one's waiter. An answer from a peer that is not is dropped (never logged).
     */
    static boolean isCycle(List<WaitEdge> edges) {
        if (edges.size() < 2) {
            return false;
        }
        for (int i = 0; i < edges.size(); i++) {
            WaitEdge e = edges.get(i);
            WaitEdge next = edges.get((i + 1) % edges.size());
            if (e.ownerClass() == ThreadClass.NONE || e.ownerClass() != next.waiterClass()
                    || e.waiterClass() == e.ownerClass() || e.orphan()) {
                return false;
            }
        }
        return true;
    }

    static List<WaitEdge> chase(SiteSnapshot site, long chased, long initiator, long deadline, int hopsLeft) {
        Set<Long> visited = new HashSet<>(List.of(chased));
        return dfs(new Graph(site), chased, initiator, deadline, hopsLeft, new ArrayList<>(), visited);
    }

    /** A snapshot's edges between two known classes that can be part of a cycle, by waiting class. */
    private record Graph(Map<Long, List<WaitEdge>> out, Set<Long> running) {
        Graph(SiteSnapshot site) {
            this(byWaiter(site.edges), site.runningOwnerClasses());
        }
    }

    /** The cycle's edges from {@code path} on (this site's, then the next sites'), or an empty list. */
    private static List<WaitEdge> dfs(Graph g, long cls, long initiator, long deadline, int hopsLeft,
            List<WaitEdge> path, Set<Long> visited) {
        List<WaitEdge> next = g.out.get(cls);
        if (next == null) {
            if (g.running.contains(cls)) {
                return List.of(); // it runs here, blocked on no monitor: no deadlock through it
            }
            // not blocked here: away in an outgoing call (a chain that went on, or a remote monitor's entry)?
            Object target = DiagnosticRows.outgoingTargetOf(cls);
            if (target == null || hopsLeft <= 0) {
                return List.of();
            }
            List<WaitEdge> rest = forward(target, cls, initiator, deadline, hopsLeft - 1);
            if (rest.isEmpty()) {
                return List.of();
            }
            List<WaitEdge> all = new ArrayList<>(path);
            all.addAll(rest);
            return all;
        }
        for (WaitEdge e : next) {
            path.add(e);
            if (e.ownerClass() == initiator) {
                return List.copyOf(path);
            }
            if (visited.add(e.ownerClass())) {
                List<WaitEdge> c = dfs(g, e.ownerClass(), initiator, deadline, hopsLeft, path, visited);
                if (!c.isEmpty()) {
                    return c;
                }
            }
            path.remove(path.size() - 1);
        }
        return List.of();
    }

    private static Map<Long, List<WaitEdge>> byWaiter(List<WaitEdge> edges) {
        Map<Long, List<WaitEdge>> out = new HashMap<>();
        for (WaitEdge e : edges) {
            if (e.waiterClass() != ThreadClass.NONE && e.ownerClass() != ThreadClass.NONE && !e.orphan()
                    && e.waiterClass() != e.ownerClass()) {
                out.computeIfAbsent(e.waiterClass(), k -> new ArrayList<>()).add(e);
            }
        }
        return out;
    }

    /** One probe to the site of {@code target}: the edges of the cycle from there, or an empty list. */
    private static List<WaitEdge> forward(Object target, long cls, long initiator, long deadline, int hopsLeft) {
        long left = TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime());
        String answer = ProbeCalls.ask(target, cls, initiator, left, hopsLeft);
        return answer == null ? List.of() : parse(answer);
    }

    /** A peer's answer as edges; an empty list if it is empty, too long or malformed (logged). */
    static List<WaitEdge> parse(String answer) {
        List<WaitEdge> edges = new ArrayList<>();
        for (String line : answer.split("\n")) {
            if (line.isEmpty()) {
                continue;
            }
            if (edges.size() == MAX_EDGES) {
                LOG.warn("probe-answer-long", "dthreads: a deadlock probe's answer had more than " + MAX_EDGES
                        + " edges; dropped (a broken or hostile peer?)");
                return List.of();
            }
            try {
                edges.add(WaitEdge.parse(line));
            } catch (IllegalArgumentException e) {
                LOG.warn("probe-answer-malformed", "dthreads: dropped a deadlock probe's malformed answer: " + e);
                return List.of();
            }
        }
        return edges;
    }

    private static long deadline(long budgetMillis) {
        return System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(budgetMillis);
    }

    /** This site's state, from a snapshot at most {@link #SNAPSHOT_MILLIS} old. */
    static SiteSnapshot recentSnapshot() {
        synchronized (SNAPSHOT_LOCK) {
            long now = System.nanoTime();
            if (snapshot == null || now - takenAt > SNAPSHOT_MILLIS * 1_000_000L) {
                snapshot = SiteSnapshot.take();
                takenAt = now;
            }
            return snapshot;
        }
    }
}
