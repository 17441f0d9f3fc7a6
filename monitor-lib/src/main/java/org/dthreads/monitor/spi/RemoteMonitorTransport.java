package org.dthreads.monitor.spi;

/**
 * SPI, implemented by the RMI and IIOP adapters: carries one monitor operation whose target is a remote
 * reference (a stub) to the object's site, where the adapter's server passes it to
 * {@link RemoteMonitorSite#serve}. See {@code docs/remote-monitors.md} for the protocol.
 *
 * <p>The runtime does the rest on the client side: it calls a transport only for references whose class
 * is a stub class (a dynamic proxy of a {@code java.rmi.Remote} interface, a {@code RemoteStub}, a CORBA
 * {@code ObjectImpl}), keeps the lease token per (reference, class) while the class holds the monitor,
 * counts re-entries locally, renews the lease from a background thread and marks the calling thread as
 * being in an outgoing call while an operation is pending. Adapters register with
 * {@link RemoteMonitors#register}.
 *
 * <h2>Threading</h2>
 * {@link #call} runs on the application thread doing the monitor operation (or the lease-renewal thread for
 * {@link RemoteMonitorSite#RENEW}) and blocks it until the site answers; it is called concurrently for
 * different references and classes. {@link #handles} and {@link #describe} must not block.
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
     * Runs one operation at the site of {@code target}: there the adapter calls
     * {@link RemoteMonitorSite#serve} with the same arguments, the target's local object and the peer.
     *
     * @param target the remote reference
     * @param op one of {@link RemoteMonitorSite#ENTER}, {@link RemoteMonitorSite#EXIT},
     *        {@link RemoteMonitorSite#WAIT}, {@link RemoteMonitorSite#NOTIFY},
     *        {@link RemoteMonitorSite#NOTIFY_ALL}, {@link RemoteMonitorSite#RENEW},
     *        {@link RemoteMonitorSite#HOLDS}, {@link RemoteMonitorSite#INTERRUPT}, {@link RemoteMonitorSite#PROBE}
     *        (for {@link RemoteMonitorSite#PROBE_EDGES}: {@link #callText})
     * @param threadClass the calling thread's equivalence class
     * @param token the lease token, or 0 when the class holds no lease on this reference
     * @param arg the lease duration (ENTER) or wait timeout in milliseconds (WAIT); 0 otherwise
     * @param nanos the wait's extra nanoseconds (WAIT); 0 otherwise
     * @return what {@link RemoteMonitorSite#serve} returned at the site
     * @throws InterruptedException if a remote wait was interrupted
     * @throws IllegalMonitorStateException if the site found the class not owning the monitor, or the
     *         lease expired
     * @throws IllegalArgumentException for a bad timeout, as {@code Object.wait} throws it
     * @throws org.dthreads.monitor.RemoteMonitorException if the site could not be reached or does not run dthreads
     */
    long call(Object target, int op, long threadClass, long token, long arg, int nanos) throws InterruptedException;

    /**
     * Runs one operation whose answer is text ({@link RemoteMonitorSite#PROBE_EDGES}) at the site of
     * {@code target}: there the adapter calls {@link RemoteMonitorSite#serveText} with the same arguments and the
     * peer. A transport that cannot carry text answers throws; the default does.
     *
     * @param target the remote reference
     * @param op {@link RemoteMonitorSite#PROBE_EDGES}
     * @param threadClass as {@link RemoteMonitorSite#serveText} takes it
     * @param token as {@link RemoteMonitorSite#serveText} takes it
     * @param arg as {@link RemoteMonitorSite#serveText} takes it
     * @param nanos as {@link RemoteMonitorSite#serveText} takes it
     * @return what {@link RemoteMonitorSite#serveText} returned at the site
     * @throws InterruptedException if the calling thread was interrupted while waiting
     * @throws IllegalArgumentException if the site does not know the operation (an older dthreads there)
     * @throws org.dthreads.monitor.RemoteMonitorException if the site could not be reached or does not run dthreads,
     *         or this transport carries no text answers
     */
    default String callText(Object target, int op, long threadClass, long token, long arg, int nanos)
            throws InterruptedException {
        throw new org.dthreads.monitor.RemoteMonitorException("dthreads: " + describe(target) + ": the transport "
                + getClass().getName() + " carries no text answers (operation " + op + ")");
    }

    /**
     * The reference and its site in a few words, for dumps and error messages; must not block or throw.
     *
     * @param target a reference this transport {@link #handles}
     * @return for example {@code "Counter at 127.0.0.1:40123 (JRMP)"}
     */
    String describe(Object target);
}
