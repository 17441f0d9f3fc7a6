/**
 * The public API of dthreads: thread equivalence classes ({@link org.dthreads.ThreadClass}),
 * the current thread's class and scoped bindings ({@link org.dthreads.DThreads},
 * {@link org.dthreads.ClassScope}).
 *
 * <p>Everything under {@code org.dthreads.*.internal} and {@code org.dthreads.internal} is not
 * public API and may change without notice.
 */
package org.dthreads;
