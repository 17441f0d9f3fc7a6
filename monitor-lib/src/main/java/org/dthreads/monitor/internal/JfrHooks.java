package org.dthreads.monitor.internal;

import org.dthreads.monitor.internal.jfr.MonitorEvents;

/**
 * The monitor runtime's side of the JFR events ({@link MonitorEvents}): reads what an event needs from the
 * package-private monitor state, only once the event is known to be enabled. Called from {@link Monitor} where an
 * entrant is about to park and where a wait begins and ends, and from {@link RemoteReference} around a remote
 * monitor's ENTER; never on an uncontended path. Never throws.
 */
final class JfrHooks {
    private JfrHooks() {}

    /** An entrant of {@code m} is about to park: returns the begun event, or null if JFR does not want it. */
    static Object enterBlocked(Monitor m, Object key, long cls) {
        Object event = MonitorEvents.enterBlocked();
        if (event != null) {
            Hold h = m.getOwnerVolatile();
            Actor owner = h == null ? null : h.actor;
            MonitorEvents.enterOwner(event, key, m.identityHash, cls, owner == null ? null : owner.thread,
                    h == null ? 0L : h.threadClass, owner instanceof LeaseActor lease ? lease.peer : null);
        }
        return event;
    }

    /** A class entered a remote object's monitor through its stub: the owner is at the object's site, unknown here. */
    static void remoteEntered(Object event, Object stub, long cls, org.dthreads.monitor.spi.RemoteMonitorTransport t) {
        if (event != null) {
            String site;
            try {
                site = t.describe(stub);
            } catch (RuntimeException e) {
                site = "?";
            }
            MonitorEvents.enterOwner(event, stub, System.identityHashCode(stub), cls, null, 0L, site);
            MonitorEvents.entered(event);
        }
    }

    /** The wait of {@code node} has ended and the monitor is held again. */
    static void waited(Object event, Monitor m, Object key, WaitNode node, long timeoutNanos, boolean notified,
            boolean interrupted) {
        if (event != null) {
            MonitorEvents.waited(event, key, m.identityHash, node.threadClass, node.notifier, timeoutNanos, notified,
                    interrupted);
        }
    }
}
