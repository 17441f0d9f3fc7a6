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

    /** Whether {@code target} is a remote reference this transport can reach. */
    boolean handles(Object target);

    /** Enters the remote monitor for {@code threadClass}; returns the lease token. */
    long enter(Object target, long threadClass);

    /** Releases one level; must not throw for an expired lease (log it): it is called from exit paths. */
    void exit(Object target, long threadClass, long token);

    /** Remote {@code wait}; IMSE if the lease expired. */
    void await(Object target, long threadClass, long token, long timeoutMillis, int nanos) throws InterruptedException;

    /** Remote {@code notify}/{@code notifyAll}; IMSE if the lease expired. */
    void notify(Object target, long threadClass, long token, boolean all);

    /** Extends the lease; false if it was lost. */
    boolean renew(Object target, long token);
}
