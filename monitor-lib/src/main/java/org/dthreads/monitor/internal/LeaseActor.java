package org.dthreads.monitor.internal;

import org.dthreads.ThreadClass;

/**
 * The stand-in for a remote class that holds a monitor at this site under a lease (see
 * {@code docs/remote-monitors.md}). It has no thread: the server threads that run the holder's remote
 * operations act for it one at a time. It counts as <em>suspended</em> while its lease is valid, so a
 * local thread serving a nested call of the same class may take over (the causality rule).
 *
 * <h2>When the lease runs</h2>
 * A lease starts when the monitor is granted ({@link #start}), not when the actor is created: the enter
 * that creates it may wait for the monitor much longer than the lease (other holders, long critical
 * sections), and a lease counted from creation would be expired on arrival, so the next contender would
 * revoke it while its holder is inside (issue 15 §1). Before {@link #start} the actor is only an entrant,
 * which nobody can revoke. While the holder's remote wait is pending ({@link #beginWait} to {@link #endWait}) the lease
 * cannot expire either: the waiting call is the holder's liveness, and the wait's re-acquire of the monitor
 * may take any time.
 *
 * <h2>What guards what</h2>
 * {@link #expiresAtNanos}, {@link #started} and {@link #revoked} are volatile: renewals come from any server
 * thread and revocation from a local entrant or the reaper that finds the lease expired. {@link #start}
 * writes {@code expiresAtNanos} before {@code started}, and {@link #isExpired} reads {@code started} first,
 * so a lease seen started has its real expiry.
 */
final class LeaseActor extends Actor {
    final long token;
    final long threadClass;
    final String peer;
    final long leaseNanos;
    private volatile long expiresAtNanos;
    /** Set once the monitor was granted: the lease runs from then. */
    private volatile boolean started;
    private volatile boolean revoked;
    /** While the holder's remote wait is pending the lease cannot expire: the waiting call holds it. */
    private final java.util.concurrent.atomic.AtomicInteger pendingWaits = new java.util.concurrent.atomic.AtomicInteger();

    LeaseActor(long token, long threadClass, String peer, long leaseNanos) {
        super(null);
        this.token = token;
        this.threadClass = threadClass;
        this.peer = peer;
        this.leaseNanos = leaseNanos;
    }

    /** The monitor was granted to this lease: it runs for its full duration from now. */
    void start() {
        expiresAtNanos = System.nanoTime() + leaseNanos;
        started = true;
    }

    @Override
    boolean isSuspended() {
        return !isExpired();
    }

    boolean tryHandOut() {
        return !isExpired();
    }

    boolean isExpired() {
        return revoked || (started && pendingWaits.get() == 0 && System.nanoTime() - expiresAtNanos >= 0L);
    }

    boolean isRevoked() {
        return revoked;
    }

    void markRevoked() {
        revoked = true;
    }

    long remainingNanos() {
        if (revoked) {
            return 0L;
        }
        if (!started || pendingWaits.get() > 0) {
            return leaseNanos;
        }
        return expiresAtNanos - System.nanoTime();
    }

    /** A remote wait of the holder begins: the lease cannot expire until {@link #endWait}. */
    void beginWait() {
        pendingWaits.incrementAndGet();
    }

    /**
     * The remote wait ended (the monitor re-acquired, or the wait failed): the lease runs again for its full
     * duration from now, however long the wait took. The expiry is written before the count drops, so the
     * lease is never seen expired in between. A revoked lease stays revoked.
     */
    void endWait() {
        expiresAtNanos = System.nanoTime() + leaseNanos;
        pendingWaits.decrementAndGet();
    }

    /** Extends the lease by its full duration from now; false if it had already expired. */
    boolean renew() {
        if (isExpired()) {
            return false;
        }
        expiresAtNanos = System.nanoTime() + leaseNanos;
        return true;
    }

    @Override
    public String toString() {
        return "lease " + Long.toHexString(token) + " of " + ThreadClass.format(threadClass) + " from " + peer;
    }
}
