package org.dthreads.monitor.internal.diagnostics;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.dthreads.ThreadClass;
import org.dthreads.internal.RateLimitedLog;
import org.dthreads.monitor.internal.DiagnosticRows;
import org.dthreads.monitor.spi.RemoteMonitorSite;
import org.dthreads.monitor.spi.RemoteMonitorTransport;
import org.dthreads.monitor.spi.RemoteMonitors;

/**
 * Finds a deadlock that spans sites by chasing it along the call chains (edge chasing, as Chandy, Misra and Haas
 * describe it), over the remote-monitor transports already in use: a {@link RemoteMonitorSite#PROBE} request
 * beside the monitor operations, JRMP and IIOP alike, served under the same checks.
 *
 * <h2>The chase</h2>
 * A probe carries the <em>initiator</em> (a class blocked at the site that starts it) and the <em>chased</em>
 * class (the one it waits for). At each site the chased class is followed through this site's wait-for edges
 * (class C blocked here on a monitor owned by class D: chase D). Reaching an edge owned by the initiator closes
 * the cycle. A chased class that is not blocked here but is away in an outgoing remote call (a call chain that
 * went on, or an entry of a remote object's monitor) is chased at the site of that call's target, which is
 * exactly where the class runs now; one that runs here (owns a monitor through a thread not in a call) and is
 * blocked on none ends the chase. Hops are bounded ({@link #MAX_HOPS}); a site visits each class once per
 * probe. The answer is a number: 0 if no cycle, else how many sites the cycle's chase crossed.
 *
 * <h2>Confirmation and logging</h2>
 * A probe with the {@link #CONFIRM} flag is sent only after a first one found the cycle; each site the confirmed
 * chase crossed then logs its own edges of the cycle once (a site knows only its own edges: the whole graph is
 * {@code ./dthreads deadlocks} over every site). The edges a probe reads come from a snapshot at most
 * {@link #SNAPSHOT_MILLIS} old, so a flood of probes costs one thread dump per interval. Thread-safe.
 */
public final class DeadlockProbe {
    /** How many sites one probe crosses at most. */
    static final int MAX_HOPS = 16;
    /** The probe's flag (carried as its token): the cycle was found once, log it. */
    static final long CONFIRM = 1L;
    static final long SNAPSHOT_MILLIS = 250;

    private static final RateLimitedLog LOG = RateLimitedLog.forClass(DeadlockProbe.class);
    private static final Object SNAPSHOT_LOCK = new Object();
    private static SiteSnapshot snapshot;
    private static long takenAt;

    private DeadlockProbe() {}

    /**
     * Serves a {@link RemoteMonitorSite#PROBE} request (the runtime's remote-monitor server calls this).
     *
     * @param chased    the class to chase from here
     * @param initiator the class that started the probe
     * @param flags     {@link #CONFIRM} or 0
     * @param hopsLeft  how many more sites the probe may cross
     * @return how many sites the closing chase crossed from here (at least 1), or 0 if it found no cycle
     */
    public static long serve(long chased, long initiator, long flags, long hopsLeft) {
        try {
            Chase c = chase(recentSnapshot(), chased, initiator, flags, (int) Math.min(hopsLeft, MAX_HOPS));
            if (c.sites > 0 && (flags & CONFIRM) != 0) {
                DeadlockLog.part(c.path, initiator, c.sites);
            }
            return c.sites;
        } catch (RuntimeException | LinkageError e) {
            LOG.warn("probe-failed", "dthreads: serving a deadlock probe failed: " + e);
            return 0L;
        }
    }

    /** Where a chase from this site ended: the edges it crossed here and how many sites it crossed in all. */
    record Chase(List<WaitEdge> path, long sites) {
        static final Chase NONE = new Chase(List.of(), 0);
    }

    /**
     * Starts a probe at this site for {@code start} (a blocked edge here whose owner is known, or a remote edge).
     *
     * @return the chase; {@code sites} is 0 if it found no cycle
     */
    static Chase start(SiteSnapshot site, WaitEdge start, long flags) {
        long initiator = start.waiterClass();
        if (start.ownerClass() == ThreadClass.NONE) {
            // blocked on a remote object's monitor: the class itself is chased at the object's site
            long sites = forward(initiator, initiator, flags, MAX_HOPS);
            return sites > 0 ? new Chase(List.of(start), sites) : Chase.NONE;
        }
        Set<Long> visited = new HashSet<>(List.of(initiator, start.ownerClass()));
        List<WaitEdge> path = new ArrayList<>(List.of(start));
        return dfs(new Graph(site), start.ownerClass(), initiator, flags, MAX_HOPS, path, visited);
    }

    static Chase chase(SiteSnapshot site, long chased, long initiator, long flags, int hopsLeft) {
        Set<Long> visited = new HashSet<>(List.of(chased));
        return dfs(new Graph(site), chased, initiator, flags, hopsLeft, new ArrayList<>(), visited);
    }

    /** A snapshot's edges between two known classes that can be part of a cycle, by waiting class. */
    private record Graph(Map<Long, List<WaitEdge>> out, Set<Long> running) {
        Graph(SiteSnapshot site) {
            this(byWaiter(site.edges), site.runningOwnerClasses());
        }
    }

    private static Chase dfs(Graph g, long cls, long initiator, long flags, int hopsLeft, List<WaitEdge> path,
            Set<Long> visited) {
        List<WaitEdge> next = g.out.get(cls);
        if (next == null) {
            if (g.running.contains(cls)) {
                return Chase.NONE; // it runs here, blocked on no monitor: no deadlock through it
            }
            // not blocked here: away in an outgoing call (a chain that went on, or a remote monitor's entry)?
            Object target = DiagnosticRows.outgoingTargetOf(cls);
            if (target == null || hopsLeft <= 0) {
                return Chase.NONE;
            }
            long sites = forward(target, cls, initiator, flags, hopsLeft - 1);
            return sites > 0 ? new Chase(List.copyOf(path), sites + 1) : Chase.NONE;
        }
        for (WaitEdge e : next) {
            path.add(e);
            if (e.ownerClass() == initiator) {
                return new Chase(List.copyOf(path), 1);
            }
            if (visited.add(e.ownerClass())) {
                Chase c = dfs(g, e.ownerClass(), initiator, flags, hopsLeft, path, visited);
                if (c.sites > 0) {
                    return c;
                }
            }
            path.remove(path.size() - 1);
        }
        return Chase.NONE;
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

    private static long forward(long cls, long initiator, long flags, int hopsLeft) {
        Object target = DiagnosticRows.outgoingTargetOf(cls);
        return target == null ? 0L : forward(target, cls, initiator, flags, hopsLeft);
    }

    /** One probe to the site of {@code target}: the sites it crossed to close the cycle, or 0. */
    private static long forward(Object target, long cls, long initiator, long flags, int hopsLeft) {
        RemoteMonitorTransport transport = RemoteMonitors.transportFor(target);
        if (transport == null || hopsLeft < 0) {
            return 0L;
        }
        try {
            return transport.call(target, RemoteMonitorSite.PROBE, cls, flags, initiator, hopsLeft);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return 0L;
        } catch (Exception | Error e) {
            LOG.warn("probe-forward-failed", "dthreads: a deadlock probe for " + ThreadClass.format(cls)
                    + " could not reach the site of its remote call (" + e + ")");
            return 0L;
        }
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
