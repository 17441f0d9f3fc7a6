package org.dthreads.monitor.internal;

import org.dthreads.ThreadClass;

/**
 * The stand-in for a remote class that holds a monitor at this site under a lease (see
 * {@code docs/remote-monitors.md}). It has no thread: the server threads that run the holder's remote
 * operations act for it one at a time. It counts as <em>suspended</em> while its lease is valid, so a
 * local thread serving a nested call of the same class may take over (the causality rule).
 *
 * <p>{@link #expiresAtNanos} and {@link #revoked} are volatile: renewals come from any server thread and
 * revocation from a local entrant that finds the lease expired.
 */
final class LeaseActor extends Actor {
    final long token;
    final long threadClass;
    final String peer;
    final long leaseNanos;
    private volatile long expiresAtNanos;
    private volatile boolean revoked;
    /** While the holder's remote wait is pending the lease cannot expire: the waiting call holds it. */
    volatile int pendingWaits;

    LeaseActor(long token, long threadClass, String peer, long leaseNanos) {
        super(null);
        this.token = token;
        this.threadClass = threadClass;
        this.peer = peer;
        this.leaseNanos = leaseNanos;
        this.expiresAtNanos = System.nanoTime() + leaseNanos;
    }

    @Override
    boolean isSuspended() {
        return !isExpired();
    }

    boolean tryHandOut() {
        return !isExpired();
    }

    boolean isExpired() {
        return revoked || (pendingWaits == 0 && System.nanoTime() - expiresAtNanos >= 0L);
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
        if (pendingWaits > 0) {
            return leaseNanos;
        }
        return expiresAtNanos - System.nanoTime();
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
