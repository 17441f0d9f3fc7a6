package org.dthreads.monitor.internal;

import static org.dthreads.monitor.internal.MonitorRuntime.*;

import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import org.dthreads.ThreadClass;
import org.dthreads.internal.KernelLink;
import org.dthreads.monitor.spi.RemoteMonitorSite;

/**
 * The site side of remote monitors: the lease table and its reaper, and the operations a remote client
 * sends (entered through the public {@code remote*} methods of {@link MonitorRuntime}, which keep the
 * BootDelegation contract: JDK types only).
 *
 * <h2>What guards what</h2>
 * {@link #LEASES} (token -> lease) is a concurrent map: a lease is put after its monitor was granted and
 * removed by exit to level 0, cancel, or the reaper (remove(token, lease), so only one remover wins and logs).
 * The monitor state itself is guarded by the {@link Monitor} (its queue lock and owner CAS); a lease's
 * expiry and revocation are the {@link LeaseActor}'s volatile fields. Revocation ({@link Monitor#revokeIfExpired})
 * runs under the monitor's queue lock, and so do the lease's own re-entry, exit and notify (the check that
 * the lease still holds and the change are one step): a check here ({@link #validLease}) is only a fast
 * refusal, never what makes an operation safe against a revocation that follows it (issue 15 §3). Nothing
 * here holds a lock across a call out.
 *
 * <h2>Ordering</h2>
 * {@code LEASES.put} happens after the grant, so a reader that finds a lease sees its monitor held (or
 * since revoked, which {@link LeaseActor#isRevoked} tells). The reaper's start flag is a volatile with
 * double-checked locking on the class.
 */
final class RemoteLeases {
    /** Leases granted to remote holders, by token. */
    static final Map<Long, Lease> LEASES = new ConcurrentHashMap<>();

    private RemoteLeases() {}

    /** A granted lease: the holder, and the object whose monitor it holds. */
    private static final class Lease {
        final LeaseActor actor;
        final Object key;
        final Monitor monitor;

        Lease(LeaseActor actor, Object key, Monitor monitor) {
            this.actor = actor;
            this.key = key;
            this.monitor = monitor;
        }
    }

    /**
     * A remote class enters the monitor of local object {@code key}: blocks like a local entrant, then
     * returns a lease token (never 0). A class that already holds a lease here for this object from the
     * same peer re-enters it (same token, one level deeper). A remote class that this site sees holding the
     * monitor through a suspended local thread of the same class (the causality rule) takes it over.
     */
    static long remoteEnter(Object key, long cls, String peer, long leaseMillis) {
        Objects.requireNonNull(key);
        if (!ThreadClass.isValid(cls)) {
            throw new IllegalArgumentException("not a valid thread class: 0x" + Long.toHexString(cls));
        }
        for (;;) { // again if the table's sweep retired the monitor since the look-up
            Monitor m = TABLE.getOrCreate(key);
            Hold h = m.getOwnerVolatile();
            if (h != null && h.actor instanceof LeaseActor held && held.threadClass == cls && held.peer.equals(peer)
                    && !held.isExpired()) {
                // counts the level under the queue lock only while the lease still holds; false if the lease
                // was revoked meanwhile (then look again: a new lease)
                if (m.enterSlow(held, cls, key)) {
                    held.renew();
                    return held.token;
                }
                continue;
            }
            long token;
            do {
                token = LeaseTokens.next(); // unpredictable from seen tokens (issue 15 §4)
            } while (token == 0 || LEASES.containsKey(token));
            long granted = LeaseBounds.atSite(leaseMillis, peer, LeaseBounds.MAX_LEASE_MILLIS); // issue 15 §2
            LeaseActor lease = new LeaseActor(token, cls, peer, TimeUnit.MILLISECONDS.toNanos(granted));
            // any wait in enterSlow is harmless: the lease has not started, nobody can revoke it
            if (m.tryEnterFast(lease, cls, key) || m.enterSlow(lease, cls, key)) {
                lease.start(); // the lease runs from the grant, whatever the wait (issue 15 §1)
                LEASES.put(token, new Lease(lease, key, m));
                LeaseReaper.start();
                return token;
            }
        }
    }

    /**
     * Revokes expired leases nobody contends for, so a holder that died or was cut off leaves no entry in the
     * monitor or lease tables (a contending entrant revokes at once by itself). One daemon thread, started with
     * the first lease this site grants; a scan of {@link #LEASES} every 250 ms.
     */
    static final class LeaseReaper {
        private static volatile boolean started;

        private LeaseReaper() {}

        static void start() {
            if (started) {
                return;
            }
            synchronized (LeaseReaper.class) {
                if (started) {
                    return;
                }
                java.util.concurrent.ScheduledThreadPoolExecutor e = new java.util.concurrent.ScheduledThreadPoolExecutor(1,
                        daemonThreads("dthreads-lease-reaper"));
                e.scheduleWithFixedDelay(LeaseReaper::reap, 250, 250, TimeUnit.MILLISECONDS);
                started = true;
            }
        }

        static void reap() {
            try {
                for (Lease lease : LEASES.values()) {
                    if (lease.actor.isRevoked()
                            || lease.actor.isExpired() && lease.monitor.revokeIfExpired(lease.actor)) {
                        if (LEASES.remove(lease.actor.token, lease)) {
                            LOG.warn("lease-expired", "dthreads: the remote monitor lease of "
                                    + ThreadClass.format(lease.actor.threadClass) + " from " + lease.actor.peer
                                    + " expired and was revoked (the holder stopped renewing: crashed or cut off)");
                        }
                    }
                }
            } catch (Throwable t) {
                LOG.error("lease-reaper-failed", "dthreads: scanning remote monitor leases failed: " + t);
            }
        }
    }

    /**
     * One operation sent by a remote client (see {@link org.dthreads.monitor.spi.RemoteMonitorSite#serve}). Token
     * operations must come from the lease's class. Token 0 acts as the class would locally, on this server
     * thread bound to it: allowed by the monitor only through the causality rule (a suspended thread of the
     * class holds it here).
     */
    static long remoteServe(Object target, int op, long cls, long token, long arg, int nanos, String peer)
            throws InterruptedException {
        if (!ThreadClass.isValid(cls)) {
            LOG.warn("remote-op-invalid-class", "dthreads: refused a remote monitor request from " + peer
                    + " carrying the invalid thread class 0x" + Long.toHexString(cls));
            throw new IllegalArgumentException("dthreads: not a valid thread class: 0x" + Long.toHexString(cls));
        }
        try {
            return serveChecked(target, op, cls, token, arg, nanos, peer);
        } catch (IllegalMonitorStateException e) {
            // a stale holder, a buggy client, or a forged class or token: say who asked (rate-limited)
            LOG.warn("remote-op-refused", "dthreads: refused remote monitor operation " + op + " of "
                    + ThreadClass.format(cls) + " from " + peer + " on " + (target == null ? "?" : target.getClass().getName())
                    + ": " + e.getMessage());
            throw e;
        }
    }

    private static long serveChecked(Object target, int op, long cls, long token, long arg, int nanos, String peer)
            throws InterruptedException {
        if (target != null && op != RemoteMonitorSite.EXIT && op != RemoteMonitorSite.RENEW
                && op != RemoteMonitorSite.INTERRUPT && op != RemoteMonitorSite.PROBE
                && !RemotePolicy.SITE.allows(target.getClass().getName())) {
            LOG.warn("remote-op-policy", "dthreads: refused remote monitor operation " + op + " from " + peer + " on "
                    + target.getClass().getName() + " (-Ddthreads.monitor.remote)");
            throw new org.dthreads.monitor.RemoteMonitorException("dthreads: the site refuses remote monitor operations on "
                    + target.getClass().getName() + " (-Ddthreads.monitor.remote)");
        }
        switch (op) {
            case RemoteMonitorSite.ENTER -> {
                Objects.requireNonNull(target, "target");
                if (MonitorModes.mode(target) != MonitorModes.EMULATED) {
                    throw new org.dthreads.monitor.RemoteMonitorException("dthreads: the monitor of "
                            + target.getClass().getName() + " is native at its site (the class is not rewritten, or"
                            + " extends a JDK class that locks it natively), so a remote synchronized on it could not"
                            + " exclude its own synchronized methods; rewrite that class, or lock an emulated object");
                }
                return remoteEnter(target, cls, peer, arg);
            }
            case RemoteMonitorSite.EXIT -> {
                leaseOf(token, cls);
                remoteExit(token);
                return 0L;
            }
            case RemoteMonitorSite.WAIT -> {
                if (token != 0L) {
                    leaseOf(token, cls);
                    remoteWait(token, arg, nanos);
                } else {
                    try (org.dthreads.ClassScope ignored = KernelLink.bind(cls)) {
                        waitOn(target, arg, nanos);
                    }
                }
                return 0L;
            }
            case RemoteMonitorSite.NOTIFY, RemoteMonitorSite.NOTIFY_ALL -> {
                boolean all = op == RemoteMonitorSite.NOTIFY_ALL;
                if (token != 0L) {
                    leaseOf(token, cls);
                    remoteNotify(token, all);
                } else {
                    try (org.dthreads.ClassScope ignored = KernelLink.bind(cls)) {
                        if (all) {
                            MonitorRuntime.notifyAll(target);
                        } else {
                            notifyOne(target);
                        }
                    }
                }
                return 0L;
            }
            case RemoteMonitorSite.RENEW -> {
                Lease lease = LEASES.get(token);
                return lease != null && lease.actor.threadClass == cls && remoteRenew(token) ? 1L : 0L;
            }
            case RemoteMonitorSite.HOLDS -> {
                if (token != 0L) {
                    Lease lease = LEASES.get(token);
                    return lease != null && lease.actor.threadClass == cls && remoteHolds(token) ? 1L : 0L;
                }
                try (org.dthreads.ClassScope ignored = KernelLink.bind(cls)) {
                    return holdsLock(target) ? 1L : 0L;
                }
            }
            case RemoteMonitorSite.INTERRUPT -> {
                return InterruptForwarding.interruptHere(cls, arg);
            }
            case RemoteMonitorSite.PROBE -> {
                return org.dthreads.monitor.internal.diagnostics.DeadlockProbe.serve(cls, arg, token, nanos);
            }
            default -> throw new IllegalArgumentException("dthreads: unknown remote monitor operation " + op);
        }
    }

    /** The lease {@code token} if it belongs to {@code cls}; IMSE otherwise (unknown, expired, or another class's). */
    private static Lease leaseOf(long token, long cls) {
        Lease lease = validLease(token);
        if (lease.actor.threadClass != cls) {
            LOG.warn("lease-class-mismatch", "dthreads: a remote monitor request of " + ThreadClass.format(cls)
                    + " presented the lease of " + ThreadClass.format(lease.actor.threadClass) + "; refused");
            throw new IllegalMonitorStateException("dthreads: the lease does not belong to " + ThreadClass.format(cls));
        }
        return lease;
    }

    /** Extends a lease; false if it expired (the holder must treat the monitor as lost). */
    static boolean remoteRenew(long token) {
        Lease lease = LEASES.get(token);
        return lease != null && lease.actor.renew();
    }

    /**
     * Releases one level held under {@code token}. An expired or unknown lease: IMSE. The lease may expire and
     * be revoked right after {@link #validLease}: {@link Monitor#exit} checks that it still holds and releases
     * in one step under the queue lock, where revocation runs, so the exit then fails (IMSE) and never frees
     * the hold of the contender that took the monitor.
     */
    static void remoteExit(long token) {
        Lease lease = validLease(token);
        if (!lease.monitor.exit(lease.actor, lease.actor.threadClass)) {
            throw new IllegalMonitorStateException("dthreads: remote lease " + Long.toHexString(token)
                    + " does not hold the monitor");
        }
        Hold now = lease.monitor.getOwnerVolatile();
        if (now == null || now.actor != lease.actor) {
            // fully released (or handed back to the local holder it took over from): the lease ends
            LEASES.remove(token);
            lease.actor.markRevoked();
        } else {
            lease.actor.renew();
        }
    }

    /**
     * A remote holder waits. The calling server thread parks here; while it does the lease cannot expire
     * (the pending call is the holder's liveness) but the monitor is released as a local wait releases it.
     */
    static void remoteWait(long token, long timeoutMillis, int nanos) throws InterruptedException {
        if (timeoutMillis < 0) {
            throw new IllegalArgumentException("timeout value is negative");
        }
        if (nanos < 0 || nanos > 999_999) {
            throw new IllegalArgumentException("nanosecond timeout value out of range");
        }
        Lease lease = validLease(token);
        if (nanos > 0 && timeoutMillis < Long.MAX_VALUE) {
            timeoutMillis++;
        }
        long timeoutNanos = timeoutMillis == 0 ? 0L
                : timeoutMillis >= Long.MAX_VALUE / 1_000_000L ? Long.MAX_VALUE : timeoutMillis * 1_000_000L;
        lease.actor.beginWait();
        try {
            waitAs(lease.actor, lease.actor.threadClass, lease.key, timeoutNanos);
        } finally {
            lease.actor.endWait(); // the lease runs from the re-acquire, however long the wait (issue 15 §1)
        }
    }

    /**
     * A remote holder notifies. The ownership check and the notify are one step with respect to revocation
     * (see {@link Monitor#notifyForLease}): a lease revoked after {@link #validLease} never notifies for the
     * contender that took the monitor.
     */
    static void remoteNotify(long token, boolean all) {
        Lease lease = validLease(token);
        if (LostExits.pendingRepairs) {
            LostExits.settleQuietly(); // a notify changes no depth: settling is best effort here
        }
        if (!lease.monitor.notifyForLease(lease.actor, lease.actor.threadClass, all)) {
            throw new IllegalMonitorStateException("dthreads: remote lease " + Long.toHexString(token)
                    + " does not hold the monitor (revoked after expiry)");
        }
        lease.actor.renew();
    }

    /** The holder's connection is gone: drop its lease now rather than at expiry. */
    static void remoteCancel(long token) {
        Lease lease = LEASES.remove(token);
        if (lease != null) {
            lease.actor.markRevoked();
            lease.monitor.revokeIfExpired(lease.actor);
        }
    }

    /** Whether the lease is valid and its class holds the monitor. */
    static boolean remoteHolds(long token) {
        Lease lease = LEASES.get(token);
        return lease != null && !lease.actor.isExpired() && lease.monitor.holdsFor(lease.actor.threadClass);
    }

    private static Lease validLease(long token) {
        Lease lease = LEASES.get(token);
        if (lease == null) {
            throw new IllegalMonitorStateException("dthreads: unknown monitor lease " + Long.toHexString(token)
                    + " (released, or revoked after expiry)");
        }
        if (lease.actor.isExpired()) {
            LEASES.remove(token);
            lease.monitor.revokeIfExpired(lease.actor);
            throw new IllegalMonitorStateException("dthreads: monitor lease " + Long.toHexString(token) + " of "
                    + ThreadClass.format(lease.actor.threadClass) + " from " + lease.actor.peer
                    + " expired; the monitor was released and may have been acquired by another class");
        }
        return lease;
    }

}
