/**
 * Not public API: the emulated-monitor runtime behind {@link org.dthreads.monitor.Monitors}. May change
 * in any release without notice.
 *
 * <p>Uses only the JDK and {@code dthreads-api}: the agent puts this package on the bootstrap class path.
 * Everything with per-JVM state is reached through {@link org.dthreads.monitor.internal.MonitorRuntime}'s
 * static methods, whose signatures use only JDK types so that copies of the public classes loaded by other
 * class loaders can bind to the bootstrap copy (see {@link org.dthreads.internal.BootDelegation}).
 */
package org.dthreads.monitor.internal;
