package org.dthreads.monitor.spi;

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
    private static final MethodHandle ENTER_HANDLE = handle("remoteEnter",
            MethodType.methodType(long.class, Object.class, long.class, String.class, long.class));
    private static final MethodHandle RENEW_HANDLE = handle("remoteRenew", MethodType.methodType(boolean.class, long.class));
    private static final MethodHandle EXIT_HANDLE = handle("remoteExit", MethodType.methodType(void.class, long.class));
    private static final MethodHandle WAIT_HANDLE = handle("remoteWait",
            MethodType.methodType(void.class, long.class, long.class, int.class));
    private static final MethodHandle NOTIFY_HANDLE = handle("remoteNotify",
            MethodType.methodType(void.class, long.class, boolean.class));
    private static final MethodHandle CANCEL_HANDLE = handle("remoteCancel", MethodType.methodType(void.class, long.class));
    private static final MethodHandle HOLDS_HANDLE = handle("remoteHolds", MethodType.methodType(boolean.class, long.class));
    private static final MethodHandle SERVE_HANDLE = handle("remoteServe", MethodType.methodType(long.class, Object.class,
            int.class, long.class, long.class, long.class, int.class, String.class));
    private static final MethodHandle SERVE_TEXT_HANDLE = BootDelegation.staticMethod(
            org.dthreads.monitor.internal.diagnostics.DeadlockProbe.class, "serveText",
            MethodType.methodType(String.class, int.class, long.class, long.class, long.class, int.class, String.class));

    // Operation codes of serve and RemoteMonitorTransport.call; their values are on the wire.

    /** {@code monitorenter}: {@code arg} = lease in milliseconds; returns the lease token. */
    public static final int ENTER = 1;
    /** {@code monitorexit} of the lease's last client-side level; returns 0. */
    public static final int EXIT = 2;
    /** {@code wait(arg, nanos)}, with the lease's token, or with 0 if the class holds the monitor through a call chain. */
    public static final int WAIT = 3;
    /** {@code notify()}, token as for {@link #WAIT}; returns 0. */
    public static final int NOTIFY = 4;
    /** {@code notifyAll()}, token as for {@link #WAIT}; returns 0. */
    public static final int NOTIFY_ALL = 5;
    /** Extends the lease; returns 1, or 0 if it was lost. */
    public static final int RENEW = 6;
    /** {@code Thread.holdsLock}: returns 1 if the class owns the monitor (by the lease, or through a call chain). */
    public static final int HOLDS = 7;
    /** Interrupts the class's pending wait at the site; returns 1 if one was interrupted. */
    public static final int INTERRUPT = 8;
    /**
     * A deadlock probe (issue 17, the automatic check): {@code threadClass} is the class chased, {@code arg} the
     * class that started the probe, {@code token} its flags, {@code nanos} the hops left; returns how many sites
     * the chase crossed from this one to close a cycle back to the starting class, 0 if none. Diagnostic only: it
     * changes no monitor, and the target only addresses the site.
     */
    public static final int PROBE = 9;
    /**
     * A deadlock probe answered with text, through {@link #serveText} (issue 17, the automatic check):
     * {@code threadClass} is the class chased, {@code token} the class that started the probe, {@code arg} how many
     * milliseconds the asker waits for the answer, {@code nanos} the hops left. Returns the wait-for edges of the
     * cycle from this site back to the starting class, one {@code WaitEdge} line each (this site's first, then
     * those of the sites the chase crossed after it), or an empty text if the chase found no cycle. Diagnostic
     * only: it changes no monitor, and the target only addresses the site.
     */
    public static final int PROBE_EDGES = 10;
    /**
     * A site hello (issue 15 §5, duplicate site ids), answered with text by the JRMP adapter itself, never by
     * {@link #serveText}: {@code threadClass} is any class of the asking site (its site half is the asker's
     * site id), {@code token} the asker's incarnation; the answer is the serving site's
     * {@code "ssssssss:iiiiiiiiiiiiiiii"} (site id and incarnation in hex). Changes nothing but the site's
     * table of peers.
     */
    public static final int SITE_HELLO = 11;

    /** Default lease: a holder that neither operates nor renews for this long loses the monitor. */
    public static final long DEFAULT_LEASE_MILLIS = 30_000L;

    private RemoteMonitorSite() {}

    private static MethodHandle handle(String name, MethodType type) {
        return BootDelegation.staticMethod(MonitorRuntime.class, name, type);
    }

    /**
     * Serves one operation sent by a {@link RemoteMonitorTransport}: what an adapter's server calls, on the
     * thread serving the request, with the local object the request's reference denotes. Waits, enters and
     * notifies with token 0 act for {@code threadClass} as a local thread of that class would (allowed only
     * through the causality rule of {@code docs/remote-monitors.md}). A target whose monitor is native at
     * this site (its class is not rewritten) cannot be entered remotely: {@link org.dthreads.monitor.RemoteMonitorException}.
     *
     * @param target the local object (the servant or exported remote object); ignored by RENEW and INTERRUPT
     * @param op the operation, {@link #ENTER} to {@link #PROBE}
     * @param threadClass the caller's thread equivalence class
     * @param token the caller's lease token, or 0
     * @param arg lease milliseconds (ENTER), wait milliseconds (WAIT), else 0
     * @param nanos wait nanoseconds (WAIT), else 0
     * @param peer identifies the caller's site (an address, or site id and incarnation)
     * @return the token (ENTER), 1 or 0 (RENEW, HOLDS, INTERRUPT), else 0
     * @throws InterruptedException if a wait was interrupted
     * @throws IllegalMonitorStateException if the class does not own the monitor, or the lease expired
     * @throws IllegalArgumentException for a bad timeout, an unknown operation or an invalid class
     * @throws org.dthreads.monitor.RemoteMonitorException if the target's monitor is native at this site
     */
    public static long serve(Object target, int op, long threadClass, long token, long arg, int nanos, String peer)
            throws InterruptedException {
        try {
            return (long) SERVE_HANDLE.invokeExact(target, op, threadClass, token, arg, nanos, peer);
        } catch (RuntimeException | Error | InterruptedException e) {
            throw e;
        } catch (Throwable t) {
            throw new IllegalStateException(t);
        }
    }

    /**
     * Serves one operation whose answer is text ({@link #PROBE_EDGES}), sent by
     * {@link RemoteMonitorTransport#callText}: what an adapter's server calls, on the thread serving the request.
     * Runs the same class checks as {@link #serve}.
     *
     * @param op the operation, {@link #PROBE_EDGES}
     * @param threadClass the class the operation is about (for a probe, the class chased)
     * @param token a second class or 0 (for a probe, the class that started it)
     * @param arg for a probe, how many milliseconds the asker waits for the answer
     * @param nanos for a probe, the hops left
     * @param peer identifies the caller's site, for log lines
     * @return the answer, never null
     * @throws IllegalArgumentException for an unknown operation or an invalid class
     */
    public static String serveText(int op, long threadClass, long token, long arg, int nanos, String peer) {
        try {
            return (String) SERVE_TEXT_HANDLE.invokeExact(op, threadClass, token, arg, nanos, peer);
        } catch (RuntimeException | Error e) {
            throw e;
        } catch (Throwable t) {
            throw new IllegalStateException(t);
        }
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
            return (long) ENTER_HANDLE.invokeExact(target, threadClass, peer, leaseMillis);
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
            return (boolean) RENEW_HANDLE.invokeExact(token);
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
            EXIT_HANDLE.invokeExact(token);
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
    public static void waitOn(long token, long timeoutMillis, int nanos) throws InterruptedException {
        try {
            WAIT_HANDLE.invokeExact(token, timeoutMillis, nanos);
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
            NOTIFY_HANDLE.invokeExact(token, all);
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
            CANCEL_HANDLE.invokeExact(token);
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
            return (boolean) HOLDS_HANDLE.invokeExact(token);
        } catch (Throwable t) {
            return false;
        }
    }
}
