package org.dthreads.rmi.internal;

import java.rmi.RemoteException;
import java.rmi.server.RemoteServer;
import java.rmi.server.ServerNotActiveException;
import org.dthreads.monitor.spi.RemoteMonitorSite;

/**
 * The JRMP entry of the remote-monitor protocol ({@code docs/remote-monitors.md}): the rewriter makes every
 * remote interface it twins extend this interface, so every exported object of such an interface serves
 * {@link #dthreads$monitor} with the object itself as the monitor's target, on the object's own endpoint
 * (same socket factories, same export) — no extra service, port or registry entry. One interface for all
 * remote interfaces, so an object implementing several has one such method, not conflicting defaults.
 *
 * <p>Clients call it through {@code RemoteRef.invoke} with {@link JrmpMonitorTransport#METHOD_HASH} (they
 * need no proxy of this interface). A server without dthreads, or whose interface was not rewritten,
 * rejects the hash before running anything; the client turns that into a {@code RemoteMonitorException}.
 *
 * <p>Runs on the bootstrap class path with the runtime (every application interface must see it).
 */
public interface MonitorPort extends java.rmi.Remote {

    /**
     * Serves one remote monitor operation on this object, on the RMI thread that received it.
     *
     * @param op the operation code ({@link RemoteMonitorSite#ENTER} ...)
     * @param threadClass the caller's thread class
     * @param token the caller's lease token or 0
     * @param arg lease or wait milliseconds
     * @param nanos wait nanoseconds
     * @return {@link RemoteMonitorSite#serve}'s result
     * @throws RemoteException never thrown here; required of every remote method
     * @throws InterruptedException if a remote wait was interrupted
     */
    default long dthreads$monitor(int op, long threadClass, long token, long arg, int nanos)
            throws RemoteException, InterruptedException {
        String peer;
        try {
            peer = RemoteServer.getClientHost();
        } catch (ServerNotActiveException e) {
            peer = "local";
        }
        return RemoteMonitorSite.serve(this, op, threadClass, token, arg, nanos, peer);
    }

    /**
     * Serves one diagnostic operation answered with text ({@link RemoteMonitorSite#PROBE_EDGES}: a deadlock
     * probe; {@link RemoteMonitorSite#SITE_HELLO}: a site hello, {@link SiteHellos}), on the RMI thread that
     * received it; the object only addresses its site.
     *
     * @param op the operation code
     * @param threadClass the class the operation is about
     * @param token a second class or 0
     * @param arg the operation's argument
     * @param nanos the operation's second argument
     * @return {@link RemoteMonitorSite#serveText}'s result
     * @throws RemoteException never thrown here; required of every remote method
     */
    default String dthreads$diagnose(int op, long threadClass, long token, long arg, int nanos) throws RemoteException {
        String peer;
        try {
            peer = RemoteServer.getClientHost();
        } catch (ServerNotActiveException e) {
            peer = "local";
        }
        if (op == RemoteMonitorSite.SITE_HELLO) {
            return SiteHellos.answer(threadClass, token, peer);
        }
        return RemoteMonitorSite.serveText(op, threadClass, token, arg, nanos, peer);
    }
}
