/**
 * The adapter SPI of the monitor runtime, for the RMI and IIOP adapters (not for applications).
 *
 * <p>{@link org.dthreads.monitor.spi.OutgoingCalls}: the hooks around outgoing remote calls;
 * {@link org.dthreads.monitor.spi.RemoteMonitorSite} (the site side, with the operation codes) and
 * {@link org.dthreads.monitor.spi.RemoteMonitorTransport} registered in
 * {@link org.dthreads.monitor.spi.RemoteMonitors} (the client side): the two ends of the remote-monitor
 * protocol ({@code docs/remote-monitors.md}).
 *
 * <p>Dependencies: the runtime ({@code org.dthreads.monitor.internal}) uses this package's registry and
 * operation codes, and this package's two facades ({@code OutgoingCalls}, {@code RemoteMonitorSite}) call
 * the runtime's entry class; the user-facing package {@code org.dthreads.monitor} is not involved.
 */
package org.dthreads.monitor.spi;
