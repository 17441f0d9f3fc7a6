/**
 * Not public API: the interceptors, the service-context codec and the per-thread binding stack
 * behind {@link org.dthreads.iiop.DThreadsOrbInitializer}. May change in any release without notice.
 */
package org.dthreads.iiop.internal;
