/**
 * Not public API: the per-JVM identity runtime behind {@link org.dthreads.DThreads}, shared with the
 * other dthreads modules. May change in any release without notice.
 */
package org.dthreads.internal;
