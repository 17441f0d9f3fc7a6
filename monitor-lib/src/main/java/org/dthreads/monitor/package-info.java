/**
 * Emulated Java monitors keyed by thread equivalence classes: the user-facing API.
 *
 * <p>{@link org.dthreads.monitor.Monitors} holds the static entry points that rewritten bytecode calls in
 * place of {@code monitorenter}, {@code monitorexit}, {@code Object.wait/notify/notifyAll},
 * {@code Thread.holdsLock} and {@code Thread.interrupt}; {@link org.dthreads.monitor.MonitorDump} the
 * per-site dump of emulated monitors; {@link org.dthreads.monitor.RemoteMonitorException} the failure of a
 * monitor operation on a remote object. The adapters' hooks are in {@code org.dthreads.monitor.spi}.
 */
package org.dthreads.monitor;
