/**
 * Not public API: {@code -Ddthreads.callbacks=original}, callbacks run on the thread that waits in an outgoing
 * call of their class. Protocol-agnostic: the JRMP hooks (rmi-adapter) and the IIOP fast paths (iiop-adapter)
 * both use it. May change in any release without notice.
 *
 * <p>Uses only the JDK and {@code dthreads-api}: it is on the bootstrap class path with the rest of the
 * monitor runtime (generated twins call {@link org.dthreads.monitor.internal.callbacks.CallbackHandOff}).
 */
package org.dthreads.monitor.internal.callbacks;
