package org.dthreads.monitor.internal;

/**
 * A remote holder's operations on one {@link Monitor} under its {@link LeaseActor}: exit, notify, and the
 * revocation of an expired lease. Static methods over the monitor's state, entered from {@link Monitor#exit}
 * (a lease's exit), {@link Monitor#notifyForLease} and {@link Monitor#revokeIfExpired}. A lease's enter and
 * wait are in {@link MonitorContention} and {@link MonitorWaits}, with the same rule.
 *
 * <h2>What it reads and writes, and what guards it</h2>
 * The rule (issue 15 §3): the check that a lease holds the monitor and what it does with the hold are one step
 * under the queue lock (the monitor's native monitor), which a revocation holds too. So a lease revoked after
 * its caller found it valid either acts before the revocation or finds it no longer holds, and never acts on
 * the hold of a contender that took the monitor meanwhile. A revocation acts for the expired lease that is the
 * active actor: under that lock it marks the lease revoked, then writes {@code depth}, {@code activations} and
 * {@code pinnedKey} (plain, through the monitor's accessors) and the owner, so the lease's server thread, whose
 * every step on the hold takes that lock too, finds it no longer holds.
 *
 * <h2>Ordering</h2>
 * The revocation's volatile write of the owner (handing back to a suspended local hold, or freeing) is followed
 * by waking the entrants, as a release is ("No lost wake-up" in {@link Monitor}).
 */
final class MonitorLeases {
    private MonitorLeases() {
    }

    /**
     * A remote holder's exit, run by the server thread acting for its lease. The check that the lease holds
     * and the release are one step under the queue lock, which {@link #revokeIfExpired} holds: a lease revoked
     * after {@code remoteExit} found it valid either exits before the revocation or finds it no longer holds,
     * and never frees the hold of a contender that took the monitor meanwhile (issue 15 §3).
     */
    static boolean exitLease(Monitor m, LeaseActor lease, long cls) {
        for (;;) {
            synchronized (m) {
                Hold h = m.getOwnerVolatile();
                if (h != null && h.isActive(lease, cls)) {
                    m.releaseOne(lease); // its hand-back and wake-up re-enter the (re-entrant) queue lock
                    return true;
                }
            }
            if (!MonitorContention.awaitActivity(m, lease, cls, false)) {
                return false; // or blocks while frozen (an orphan), then looks again
            }
        }
    }

    /**
     * A remote holder's notify under its lease: like {@link #exitLease}, the ownership check and the notify are
     * one step under the queue lock, so a lease revoked meanwhile never notifies for the contender that took
     * the monitor. A lease acts only through its own hold (it never takes over a suspended local hold to
     * notify). Returns false if the lease does not hold the monitor.
     */
    static boolean notifyForLease(Monitor m, LeaseActor lease, long cls, boolean all) {
        for (;;) {
            synchronized (m) {
                Hold h = m.getOwnerVolatile();
                if (h != null && h.isActive(lease, cls)) {
                    if (all) {
                        m.notifyEvery();
                    } else {
                        m.notifyOne();
                    }
                    return true;
                }
            }
            if (!MonitorContention.awaitActivity(m, lease, cls, false)) {
                return false;
            }
        }
    }

    /**
     * Revokes an expired lease that holds the monitor: the levels it held are dropped (handing back to a
     * suspended local hold if the lease had taken over, else freeing the monitor). Returns true if it did.
     */
    static boolean revokeIfExpired(Monitor m, LeaseActor lease) {
        synchronized (m) {
            Hold h = m.getOwnerVolatile();
            if (h == null || h.actor != lease || !lease.isExpired()) {
                return false;
            }
            lease.markRevoked();
            Activation top = m.getActivationsPlain();
            if (top != null) {
                m.setDepthPlain(top.baseDepth);
                m.setActivationsPlain(top.next);
                m.setOwnerVolatile(top.suspended);
                top.suspended.actor.addFrozenHolds(-1);
            } else {
                if (m.waiting == 0) {
                    m.setPinnedKeyPlain(null);
                }
                m.setOwnerVolatile(null);
            }
        }
        m.wakeEntrants(true);
        return true;
    }
}
