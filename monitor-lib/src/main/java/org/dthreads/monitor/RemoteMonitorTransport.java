package org.dthreads.monitor;

/**
 * SPI, implemented by the RMI and IIOP adapters: carries a monitor operation whose target is a remote
 * reference (a stub) to the object's site, where the adapter's server calls {@link RemoteMonitorSite}.
 * See {@code docs/remote-monitors.md} for the protocol; the fault and security issue tests it end to end.
 *
 * <p>The client side keeps, per (reference, class), the lease token returned by {@link #enter} and renews
 * it while held (at a third of the lease). Rewritten code reaches this SPI through the runtime for targets
 * the rewriter cannot prove local: {@code Monitors.isEmulated} is false for a stub's class (stubs are not
 * rewritten), and the rewriter's remote path calls the transport that {@link #handles} the reference
 * ({@link RemoteMonitors#transportFor}); adapters register with {@link RemoteMonitors#register}.
 */
public interface RemoteMonitorTransport {

    /**
     * Whether {@code target} is a remote reference this transport can reach.
     *
     * @param target the object a monitor operation is about
     * @return {@code true} if this transport carries monitor operations on {@code target}
     */
    boolean handles(Object target);

    /**
     * Enters the remote monitor for {@code threadClass}; returns the lease token. Blocks until the class
     * owns the monitor at the object's site.
     *
     * @param target the remote reference whose object's monitor to enter
     * @param threadClass the calling thread's equivalence class
     * @return the lease token granted by the site ({@link RemoteMonitorSite#enter}), never 0
     */
    long enter(Object target, long threadClass);

    /**
     * Releases one level; must not throw for an expired lease (log it): it is called from exit paths.
     *
     * @param target the remote reference whose object's monitor to release
     * @param threadClass the calling thread's equivalence class
     * @param token the lease token returned by {@link #enter}
     */
    void exit(Object target, long threadClass, long token);

    /**
     * Remote {@code wait}; IMSE if the lease expired.
     *
     * @param target the remote reference whose object to wait on
     * @param threadClass the calling thread's equivalence class
     * @param token the lease token returned by {@link #enter}
     * @param timeoutMillis the longest time to wait, in milliseconds; 0 (with {@code nanos} 0) waits
     *        without timeout
     * @param nanos additional time, in nanoseconds, 0 to 999999
     * @throws IllegalMonitorStateException if the lease expired or is unknown at the site
     * @throws InterruptedException if the wait is interrupted
     */
    void await(Object target, long threadClass, long token, long timeoutMillis, int nanos) throws InterruptedException;

    /**
     * Remote {@code notify}/{@code notifyAll}; IMSE if the lease expired.
     *
     * @param target the remote reference whose object to notify on
     * @param threadClass the calling thread's equivalence class
     * @param token the lease token returned by {@link #enter}
     * @param all {@code true} for {@code notifyAll}, {@code false} for {@code notify}
     * @throws IllegalMonitorStateException if the lease expired or is unknown at the site
     */
    void notify(Object target, long threadClass, long token, boolean all);

    /**
     * Extends the lease; false if it was lost.
     *
     * @param target the remote reference whose object's monitor the lease is for
     * @param token the lease token returned by {@link #enter}
     * @return {@code true} if the lease was extended, {@code false} if it was lost (expired or revoked)
     */
    boolean renew(Object target, long token);
}
