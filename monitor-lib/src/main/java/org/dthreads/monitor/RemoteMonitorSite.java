package org.dthreads.monitor;

import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodType;
import org.dthreads.internal.BootDelegation;
import org.dthreads.monitor.internal.MonitorRuntime;

/**
 * The site side of the remote-monitor protocol ({@code docs/remote-monitors.md}): what an adapter's
 * server calls when a remote class operates on the monitor of an object that lives at this site.
 *
 * <p>A remote owner is recorded as a <em>lease</em>: its class, its peer and a random non-zero token,
 * valid for {@code leaseMillis} after each operation or {@link #renew}. An expired lease is revoked the
 * first time a local entrant finds it in the way (or at the holder's next call); the holder's next
 * operation then fails with {@link IllegalMonitorStateException}: exclusion is never silently shared.
 * A remote {@code wait} keeps the lease alive while the waiting call is pending.
 *
 * <p>Every method runs on the calling server thread and blocks it as a local entrant or waiter would.
 */
public final class RemoteMonitorSite {
    private static final MethodHandle ENTER = handle("remoteEnter",
            MethodType.methodType(long.class, Object.class, long.class, String.class, long.class));
    private static final MethodHandle RENEW = handle("remoteRenew", MethodType.methodType(boolean.class, long.class));
    private static final MethodHandle EXIT = handle("remoteExit", MethodType.methodType(void.class, long.class));
    private static final MethodHandle WAIT = handle("remoteWait",
            MethodType.methodType(void.class, long.class, long.class, int.class));
    private static final MethodHandle NOTIFY = handle("remoteNotify",
            MethodType.methodType(void.class, long.class, boolean.class));
    private static final MethodHandle CANCEL = handle("remoteCancel", MethodType.methodType(void.class, long.class));
    private static final MethodHandle HOLDS = handle("remoteHolds", MethodType.methodType(boolean.class, long.class));

    /** Default lease: a holder that neither operates nor renews for this long loses the monitor. */
    public static final long DEFAULT_LEASE_MILLIS = 30_000L;

    private RemoteMonitorSite() {}

    private static MethodHandle handle(String name, MethodType type) {
        return BootDelegation.staticMethod(MonitorRuntime.class, name, type);
    }

    /**
     * Class {@code threadClass} at {@code peer} enters the monitor of local object {@code target}; blocks
     * until it may. Returns the lease token (the same token, one level deeper, on re-entry by the same class
     * from the same peer).
     *
     * @param target the local object whose monitor the remote class enters
     * @param threadClass the remote caller's thread equivalence class
     * @param peer identifies the caller's site; re-entry is recognised only from the same peer
     * @param leaseMillis how long the lease stays valid after each operation or renewal, in milliseconds
     *        (at least 1; see {@link #DEFAULT_LEASE_MILLIS})
     * @return the lease token, never 0, to pass to the other methods
     * @throws NullPointerException if {@code target} is null
     * @throws IllegalArgumentException if {@code threadClass} is not a valid thread class
     */
    public static long enter(Object target, long threadClass, String peer, long leaseMillis) {
        try {
            return (long) ENTER.invokeExact(target, threadClass, peer, leaseMillis);
        } catch (RuntimeException | Error e) {
            throw e;
        } catch (Throwable t) {
            throw new IllegalStateException(t);
        }
    }

    /**
     * Extends the lease; false if it already expired (the holder has lost the monitor).
     *
     * @param token the lease token returned by {@link #enter}
     * @return {@code true} if the lease was valid and has been extended; {@code false} if it expired, is
     *         unknown, or the runtime could not be reached
     */
    public static boolean renew(long token) {
        try {
            return (boolean) RENEW.invokeExact(token);
        } catch (Throwable t) {
            return false;
        }
    }

    /**
     * Releases one level. Releasing the last level ends the lease.
     *
     * @param token the lease token returned by {@link #enter}
     * @throws IllegalMonitorStateException if the lease expired or is unknown
     */
    public static void exit(long token) {
        try {
            EXIT.invokeExact(token);
        } catch (RuntimeException | Error e) {
            throw e;
        } catch (Throwable t) {
            throw new IllegalStateException(t);
        }
    }

    /**
     * The holder's {@code wait(timeoutMillis, nanos)}, run on the calling server thread. The monitor is
     * released while waiting, as a local wait releases it, but the lease cannot expire while the call is
     * pending; it is renewed when the wait ends.
     *
     * @param token the lease token returned by {@link #enter}
     * @param timeoutMillis the longest time to wait, in milliseconds; 0 (with {@code nanos} 0) waits
     *        without timeout
     * @param nanos additional time, in nanoseconds, 0 to 999999
     * @throws IllegalArgumentException if {@code timeoutMillis} is negative or {@code nanos} is out of range
     * @throws IllegalMonitorStateException if the lease expired or is unknown, or its class does not own
     *         the monitor
     * @throws InterruptedException if the holder's class is interrupted before or while waiting
     */
    public static void await(long token, long timeoutMillis, int nanos) throws InterruptedException {
        try {
            WAIT.invokeExact(token, timeoutMillis, nanos);
        } catch (RuntimeException | Error | InterruptedException e) {
            throw e;
        } catch (Throwable t) {
            throw new IllegalStateException(t);
        }
    }

    /**
     * The holder's {@code notify()} ({@code all = false}) or {@code notifyAll()}; renews the lease.
     *
     * @param token the lease token returned by {@link #enter}
     * @param all {@code true} to wake every waiting class ({@code notifyAll}), {@code false} to wake one
     * @throws IllegalMonitorStateException if the lease expired or is unknown, or its class does not own
     *         the monitor
     */
    public static void notify(long token, boolean all) {
        try {
            NOTIFY.invokeExact(token, all);
        } catch (RuntimeException | Error e) {
            throw e;
        } catch (Throwable t) {
            throw new IllegalStateException(t);
        }
    }

    /**
     * The holder's connection is gone: revoke its lease now. Best effort; never throws.
     *
     * @param token the lease token returned by {@link #enter}; an unknown token is ignored
     */
    public static void cancel(long token) {
        try {
            CANCEL.invokeExact(token);
        } catch (Throwable ignored) {
            // best effort: the lease expires anyway
        }
    }

    /**
     * Whether the lease is valid and its class owns the monitor.
     *
     * @param token the lease token returned by {@link #enter}
     * @return {@code true} if the lease is known, not expired, and its class owns the monitor;
     *         {@code false} otherwise, or if the runtime could not be reached
     */
    public static boolean holds(long token) {
        try {
            return (boolean) HOLDS.invokeExact(token);
        } catch (Throwable t) {
            return false;
        }
    }
}
