package org.dthreads.monitor.spi;


import java.util.concurrent.CopyOnWriteArrayList;

/**
 * Where the adapters register their {@link RemoteMonitorTransport}, and where the rewriter's remote path
 * finds the one that reaches a target. Registration is explicit (an adapter registers when it is
 * installed): a service-loader look-up from the bootstrap class path could not see the adapters. When no
 * registered transport handles a stub, the runtime also tries the adapters' transports by name through the
 * stub's class loader (build-time rewriting without the agent, where nothing registered them up front).
 *
 * <p>Thread-safe; look-ups do not lock. With monitor-lib on the bootstrap class path, adapters loaded
 * parent-first link to the bootstrap copy of this class, so there is one registry per JVM.
 */
public final class RemoteMonitors {
    private static final CopyOnWriteArrayList<RemoteMonitorTransport> TRANSPORTS = new CopyOnWriteArrayList<>();

    private RemoteMonitors() {}

    /**
     * Adds {@code transport}; registering the same instance twice has no effect.
     *
     * @param transport the transport to consult for remote targets, after those registered before it
     * @throws NullPointerException if {@code transport} is null
     */
    public static void register(RemoteMonitorTransport transport) {
        TRANSPORTS.addIfAbsent(java.util.Objects.requireNonNull(transport));
    }

    /**
     * Removes {@code transport}, so that {@link #transportFor} no longer returns it; no effect if it is not
     * registered.
     *
     * @param transport the transport to remove
     */
    public static void unregister(RemoteMonitorTransport transport) {
        TRANSPORTS.remove(transport);
    }

    /**
     * The first registered transport that handles {@code target}, or {@code null} if it is local.
     * A transport whose {@link RemoteMonitorTransport#handles} throws is skipped.
     *
     * @param target the object a monitor operation is about
     * @return the first transport, in registration order, that handles {@code target}; {@code null} if
     *         none does (the target is treated as local)
     */
    public static RemoteMonitorTransport transportFor(Object target) {
        for (RemoteMonitorTransport t : TRANSPORTS) {
            try {
                if (t.handles(target)) {
                    return t;
                }
            } catch (RuntimeException e) {
                // a broken transport must not break monitor operations on other objects
            }
        }
        return null;
    }
}
