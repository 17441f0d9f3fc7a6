/**
 * Emulated Java monitors keyed by thread equivalence classes.
 *
 * <p>{@link org.dthreads.monitor.Monitors} holds the static entry points that rewritten bytecode calls in
 * place of {@code monitorenter}, {@code monitorexit}, {@code Object.wait/notify/notifyAll},
 * {@code Thread.holdsLock} and {@code Thread.interrupt}; {@link org.dthreads.monitor.OutgoingCalls} the
 * hooks the RMI and IIOP adapters call around outgoing remote calls;
 * {@link org.dthreads.monitor.RemoteMonitorSite} and {@link org.dthreads.monitor.RemoteMonitorTransport}
 * the two sides of the remote-monitor protocol ({@code docs/remote-monitors.md});
 * {@link org.dthreads.monitor.MonitorDump} the per-site dump of emulated monitors.
 */
package org.dthreads.monitor;
