package org.dthreads.monitor.internal;

/**
 * Diagnostics rows of one {@link Monitor}, in JDK types only: the dump's snapshot ({@link Monitor#snapshot}) and
 * its part of the wait-for graph ({@link Monitor#waitForRow}, read by {@link DiagnosticRows}). Never on a monitor
 * operation's path.
 *
 * <h2>What it reads, and what guards it</h2>
 * Reads only: the owner (a volatile read), the entrant queue, the wait set and the activation stack under the
 * queue lock (the monitor's native monitor), so each row is one consistent look at those. {@code depth} is
 * owner-confined (see {@link Monitor}) and read here without the owner's ordering: it may be a moment stale,
 * which a dump tolerates. A stub's monitor has no local state: its rows come from {@link Monitor#remote}.
 */
final class MonitorRows {
    private MonitorRows() {
    }

    /**
     * A snapshot row of JDK types only: {identityHash, typeName, ownerClass (Long, 0 = free), depth,
     * acting (String), waiterClasses (long[]), entrantClasses (long[]), remotePeer (String or null),
     * leaseRemainingMillis (Long, -1 if none), suspendedHolds (Integer)}.
     */
    static Object[] snapshot(Monitor m) {
        if (m.remote != null) {
            return m.remote.snapshot(m.identityHash, null);
        }
        synchronized (m) {
            Hold h = m.getOwnerVolatile();
            long[] waiters = m.waiterClassesLocked();
            long[] queued = m.entrantClassesLocked();
            int suspended = 0;
            for (Activation a = m.getActivationsPlain(); a != null; a = a.next) {
                suspended++;
            }
            String peer = null;
            long leaseMillis = -1L;
            if (h != null && h.actor instanceof LeaseActor lease) {
                peer = lease.peer;
                leaseMillis = Math.max(0L, lease.remainingNanos() / 1_000_000L);
            }
            // depth is owner-confined; read here it may be a moment stale, which a dump tolerates
            return new Object[] {m.identityHash, m.typeName, h == null ? 0L : h.threadClass,
                    h == null ? 0 : m.getDepthPlain(), h == null ? "" : h.actor.toString(), waiters, queued, peer,
                    leaseMillis, suspended};
        }
    }

    /**
     * This monitor's part of the wait-for graph, in JDK types (see {@link DiagnosticRows#emulatedRows()} for
     * the columns); null for a stub's monitor (its client state is read from {@link Monitor#remote}). Read under
     * the queue lock; the owner's depth is owner-confined and may be a moment stale, which a dump tolerates.
     */
    static Object[] waitForRow(Monitor m) {
        if (m.remote != null) {
            return null;
        }
        synchronized (m) {
            Hold h = m.getOwnerVolatile();
            Entrant[] queued = m.entrantsLocked();
            Thread[] entrantThreads = new Thread[queued.length];
            long[] entrantClasses = new long[queued.length];
            boolean[] entrantOrphans = new boolean[queued.length];
            for (int i = 0; i < queued.length; i++) {
                entrantThreads[i] = queued[i].thread;
                entrantClasses[i] = queued[i].threadClass;
                entrantOrphans[i] = queued[i].orphan;
            }
            WaitNode[] waiters = m.waitersLocked();
            Thread[] waiterThreads = new Thread[waiters.length];
            long[] waiterClasses = new long[waiters.length];
            for (int i = 0; i < waiters.length; i++) {
                waiterThreads[i] = waiters[i].thread;
                waiterClasses[i] = waiters[i].threadClass;
            }
            String peer = h != null && h.actor instanceof LeaseActor lease ? lease.peer : null;
            return new Object[] {m.identityHash, m.typeName, h == null ? 0L : h.threadClass,
                    h == null ? null : h.actor.thread, h == null ? "" : h.actor.toString(), peer,
                    h == null ? 0 : m.getDepthPlain(), entrantThreads, entrantClasses, entrantOrphans, waiterThreads,
                    waiterClasses};
        }
    }
}
